/* The exporter's contract: a sink (tt_exporter: begin_part / event /
 * end_part, and the size hooks the size split asks), the options every
 * exporter shares (tt_export_opts) and the part it is writing (tt_part).
 * The driver (export.h) and the size split (export_split.h) both take it,
 * so neither needs the other's header. */
#ifndef TT_EXPORTER_H
#define TT_EXPORTER_H
#include <stdio.h>

#include "base/atomic_output.h"
#include "cli/align_cli.h"
#include "cli/cli.h"
#include "hub/hub_reader.h"

typedef enum { TT_SPLIT_NONE, TT_SPLIT_PROCESS, TT_SPLIT_WINDOW } tt_split_mode;

typedef struct tt_export_opts {
  const char *output;
  const char **inputs;
  size_t ninputs;
  tt_split_mode split;
  int64_t windows;     /* --windows N (0 unset) */
  int64_t window_size; /* --window-size in ns (0 unset) */
  int64_t part;        /* --part K, -1 = all */
  const char *start_text, *end_text; /* --start/--end as given */
  const char **categories; size_t ncategories;
  const char **exclude_categories; size_t nexclude;
  const char **names; size_t nnames;
  int gpu_only;        /* --gpu: GPU work only (hub_class_is_gpu) */
  int64_t min_duration; /* --min-duration, ns: shorter intervals dropped; 0: none */
  int no_args;
  int64_t max_parts;   /* --max-parts (default 10000) */
  int count_parts;     /* --count-parts: print the number of parts, write nothing */
  int list_categories; /* --list-categories: print categories with counts */
  int progress_mode; /* -1 quiet, 0 auto, 1 forced */
  int threads;       /* --threads: 2 plans a size split on a second thread */
  uint64_t max_part_size; /* --max-part-size in bytes (0 unset; see export_split.h) */
  int max_part_auto;      /* --max-part-size auto */
  /* Exporters writing relative times (tt_exporter.relative_times): the
   * base, in absolute ns, that every part and every input shares:
   * --time-base, else the inputs' first start floored to a whole µs. A run
   * of one whole file leaves it TT_TIME_BASE_FIRST_EVENT: the sink takes
   * its first event's start, floored the same way, and spares the scan of
   * every table that finding the first start takes in a hub without
   * indexes (rocprofv3's). */
  int64_t time_base;
  int time_base_given;
  tt_align_opts align; /* --align and what it found (align_cli.h) */
} tt_export_opts;

#define TT_TIME_BASE_FIRST_EVENT INT64_MIN

typedef struct tt_part {
  int64_t index, count; /* part index and total (1 when not split) */
  /* Time range of this part: events are clipped to it. A size split
   * planned ahead may give end INT64_MAX until the planner decides it: the
   * sink reads end (through this pointer) only for an event, and is given
   * none whose clipping or arrows the end could change before it is set. */
  int64_t start, end;
  int64_t pid;          /* process part: its pid, else HUB_NULL */
  const char *host;     /* a process part or pack: its host (hub_process_info.hostname) */
  /* A part packing several processes (--split process --max-part-size):
   * all its pids, sorted; NULL otherwise. tt_part_has_pid says. */
  const int64_t *pids;
  size_t npids;
  /* The size planning pass: the sink is given the part's events and its
   * output is /dev/null (a directory format writes nothing at all); the
   * driver asks part_bytes how big it would be. end is INT64_MAX then. */
  int dry;
  /* Planning a process for a pack: measure it as one of several
   * databases would be written (JSON's flow ids then are hashes). */
  int as_many_dbs;
  const char *path;     /* final output path ("-" for stdout) */
} tt_part;

/* Whether process `pid` belongs to the part (every pid when not split by
 * process). */
int tt_part_has_pid(const tt_part *p, int64_t pid);

typedef struct tt_exporter {
  const char *description; /* "Writes Chrome trace-event JSON ..." */
  const char *extension;   /* default output extension, e.g. ".json" */
  int stdout_ok;           /* "-o -" allowed (not for split output) */
  int binary;              /* output is binary: never written to a terminal */
  int no_gzip;             /* a directory format: a .gz output name is refused */
  int no_event_args;       /* holds no event arguments: --no-args is refused */
  int launch_times;        /* GPU work's launch start wanted (hub_filter.launch_times) */
  int relative_times;      /* writes times relative to opts.time_base (--time-base) */
  /* Writes its output in end_part only (db2summary): progress is drawn
   * while the events are read, even when the output is stdout. */
  int writes_at_end;
  /* Called once per part. The sink writes to tt_output_tmp_path(out) (or
   * uses tt_output_fopen); the driver commits or aborts `out`. */
  void *(*begin_part)(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                      tt_output *out);
  int (*event)(void *part_state, hub_reader *r, const hub_record *ev);
  /* The stream has reached time t (no event to come starts before it):
   * writes what the sink has due before t that is no event (its CPU
   * samples, cli/part_samples.h), so part_bytes counts it. The size
   * planner calls it before each part_bytes; NULL: nothing to write.
   * 0, or -1 (said). */
  int (*advance)(void *part_state, hub_reader *r, int64_t t);
  /* Finishes the part; returns 0 on success. Frees part_state. */
  int (*end_part)(void *part_state, hub_reader *r);
  /* --max-part-size: the bytes the part's output would hold if it ended
   * now, after the events given so far (with an event's end clipped, at
   * most clip_bytes more for each, and clip_bytes_once more in all). Exact
   * or an upper bound, never less: the size split's cut points come from
   * it, and no part may exceed the size asked for. NULL: no size split. */
  uint64_t (*part_bytes)(void *part_state);
  uint64_t clip_bytes, clip_bytes_once;
  /* What every part has once, whatever it holds (header, definitions'
   * frame): a part packing several processes is at most the sum of their
   * parts alone less this for each but one. */
  uint64_t part_shared_bytes;
  /* --max-part-size auto: the largest output the format's viewer opens
   * (said in MiB: the one limit messages give), and the viewer's name
   * ("chrome://tracing"); 0 when the format has no such limit, and
   * viewer_limit says why ("Vampir's limit is the desktop's memory"). */
  uint64_t auto_max_part_size;
  const char *viewer_limit;
  /* The tool's own options (db2summary's --format), parsed with the
   * shared ones, their help printed after the shared options'; NULL: none. */
  const tt_cli_ext *options;
  /* The output when -o is not given and one is written ("-": stdout);
   * NULL: -o is required. */
  const char *default_output;
} tt_exporter;

#endif
