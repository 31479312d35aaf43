/* The parts of an export, one at a time, to the exporter's sink
 * (exporter.h): a part is named first and begun at its first event (a
 * part without one writes no file, unless it holds CPU samples), its
 * events clipped to it and counted, then ended, committed under its name
 * and measured. The reader a part's events come from is the caller's,
 * handed to each call (the sink looks an event's args and info up in
 * it). Private to the exporters' driver (export*.c). */
#ifndef TT_EXPORT_PART_H
#define TT_EXPORT_PART_H
#include <stdint.h>

#include "base/atomic_output.h"
#include "cli/cut_source.h"
#include "cli/exporter.h"

typedef struct tt_part_writer {
  const tt_exporter *ex;
  const tt_export_opts *o;
  tt_part part; /* the part being written; begun lazily (tt_part_begin) */
  int begun;    /* the sink has been given this part */
  void *state;  /* the sink's, while begun */
  tt_output *out;
  char *path;
  int tag_width; /* digits of the window numbers, so names sort */
  /* What was written: events (flow ends not counted), records read. */
  uint64_t events, records, progress_total;
  int64_t parts_written, parts_empty;
  uint64_t bytes_written;
  int bytes_unknown;    /* a part went to stdout or a device: not counted */
  uint64_t part_bytes;  /* bytes of the part last written */
  uint64_t *part_sizes; /* a size split's: each part's bytes (else NULL) */
} tt_part_writer;

/* A part's path: the output's with the tag before its extension; a size
 * split of one part writes the plain name. Malloc'ed. */
char *tt_part_writer_path(const tt_part_writer *w, int64_t count, const char *tag);
/* ".wNNN" of window i, zero-padded to tag_width. */
void tt_part_window_tag(const tt_part_writer *w, int64_t i, char *tag, size_t n);
/* Names the next part (not begun: the sink sees it at its first event). */
void tt_part_name(tt_part_writer *w, int64_t index, int64_t count, int64_t start, int64_t end,
                  int64_t pid, const char *tag);
/* Begins the part now (an empty trace is still a trace). 0, or -1. */
int tt_part_begin(tt_part_writer *w, hub_reader *r);
/* One event into the part, clipped to it. 0, or -1. */
int tt_part_emit(tt_part_writer *w, hub_reader *r, hub_record *ev);
/* Every event of r into the part. 0, or -1. */
int tt_part_stream(tt_part_writer *w, hub_reader *r);
/* Ends the part: the sink's end, the output committed and measured. A part
 * never begun is counted empty (no file), unless it holds CPU samples. 0,
 * or -1. */
int tt_part_end(tt_part_writer *w, hub_reader *r);
/* After a failure: the sink's part ended and its output dropped. */
void tt_part_abort(tt_part_writer *w, hub_reader *r);
void tt_part_writer_free(tt_part_writer *w);

/* Decimal digits of v >= 0 (a part number's width in names). */
int tt_part_digits(int64_t v);

/* --- what a split says of its parts ------------------------------------ */

/* Dies (status 2) before anything is written when a split would write
 * more than --max-parts parts ("windows of 5 ms", `what`). */
void tt_parts_check_count(const tt_export_opts *o, int64_t count, const char *what);
/* "3 parts (one per process)" on stderr. */
void tt_parts_say_count(int64_t count, const char *what);
/* Refuses, before anything is written, an output or part path that is one
 * of the inputs (by inode: another name of an input too); a planner still
 * running (*planner) is stopped first. */
void tt_parts_refuse_input(const tt_export_opts *o, const char *path, tt_cut_source **planner);
/* Part i's planned bound exceeds --max-part-size: the events at one
 * instant (at) cannot be cut apart. */
void tt_part_warn_oversize(const tt_export_opts *o, int64_t i, uint64_t bytes, int64_t at);
/* After part i is written: its planned bound must hold (more is a bug),
 * and a part under half the size (not the last: `next` the next part's
 * bound, 0 none) is said. */
void tt_part_check_size(const tt_export_opts *o, int64_t i, uint64_t planned, uint64_t real,
                        uint64_t next);

#endif
