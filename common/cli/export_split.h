/* The size split (--max-part-size): where to cut so that every part's
 * output holds at most SIZE bytes, decided by a pass that writes nothing.
 *
 * The planning pass reads the part's stream once and gives every event to
 * the real sink, whose output is /dev/null (a directory format writes no
 * file at all), as the real run will; before each new start time it asks
 * the sink how big the part would be if it ended there (tt_exporter
 * part_bytes, plus what clipping the events that cross the cut may add).
 * The part is cut at the last start time where that bound fits: parts are
 * consecutive time windows, cut only between two distinct start times, so
 * every part but the last is about SIZE (at least SIZE/2 unless the next
 * instant alone is that big, which the plan records as a part that cannot
 * be made small enough). The real run then writes windows with these cuts,
 * so a part alone (--part K) is the same bytes as in the serial run. */
#ifndef TT_EXPORT_SPLIT_H
#define TT_EXPORT_SPLIT_H
#include <stdint.h>

#include "cli/exporter.h"

/* "200M", "1.5G", "64K" (powers of 1024; "MB", "MiB" alike) -> bytes.
 * A bare number has no unit and is refused. 0 on success, -1 on error. */
int tt_parse_size(const char *s, uint64_t *bytes);

typedef struct tt_cut_plan {
  int64_t *cuts;    /* part k covers [cuts[k], cuts[k + 1]) */
  uint64_t *bytes;  /* the planned bound of each part */
  size_t nparts;    /* cuts has nparts + 1 entries */
  size_t noversize; /* parts over the size: one instant alone is larger */
} tt_cut_plan;

/* Plans the cuts of [t0, t1) over every event of `r` (time-ordered, as the
 * real run reads them), for parts of at most `max` bytes of `ex`'s format.
 * `proto` gives the part's process(es) (pid HUB_NULL: all). 0 on success,
 * -1 on a read or sink error (said). Always at least one part. */
int tt_plan_cuts(hub_reader *r, const tt_exporter *ex, const tt_export_opts *o,
                 const tt_part *proto, int64_t t0, int64_t t1, uint64_t max, tt_cut_plan *plan);
void tt_cut_plan_free(tt_cut_plan *plan);

/* The same plan made on a thread of its own, ahead of a writer that takes
 * each cut as it is decided (reading the hub twice at once: a size split
 * in about the time of one file on two cores). `r` is the planner's own
 * reader, closed by tt_cuts_ahead_free; `o` and `ex` must outlive it.
 * NULL if the thread cannot start (said). Signals go to the caller's
 * thread; a tt_die on the planner's thread ends only that thread, and the
 * plan counts as failed. */
typedef struct tt_cuts_ahead tt_cuts_ahead;
tt_cuts_ahead *tt_cuts_ahead_start(hub_reader *r, const tt_exporter *ex, const tt_export_opts *o,
                                   const tt_part *proto, int64_t t0, int64_t t1, uint64_t max);
/* Waits until part k's end is decided: 1 with its end (cuts[k + 1]) and
 * planned bound; 0 when the plan is complete with at most k parts; -1
 * when planning failed (said). */
int tt_cuts_ahead_part(tt_cuts_ahead *a, size_t k, int64_t *end, uint64_t *bytes);
/* Waits for the planner to end; moves the whole plan into *plan. 0, or
 * -1 when planning failed (said). */
int tt_cuts_ahead_finish(tt_cuts_ahead *a, tt_cut_plan *plan);
/* Stops the planner if it is still running, and frees everything. */
void tt_cuts_ahead_free(tt_cuts_ahead *a);

/* "200 MiB", "64 KiB", "1.5 MiB" or "100 bytes" (for messages), into buf. */
const char *tt_size_text(uint64_t bytes, char *buf, size_t n);

/* --- --split process --------------------------------------------------- */

/* A process as --split process orders them: by host, then pid. */
typedef struct tt_proc_key {
  const char *host; /* "" when unknown */
  int64_t pid;
  int ambiguous; /* another host has this pid too */
  /* The inputs that hold it (with --max-part-size a part reads only
   * those: 1000 ranks in 1000 hubs, each read once, not 1000 times). */
  const char **inputs;
  size_t ninputs;
} tt_proc_key;
int tt_proc_key_cmp(const void *a, const void *b);

/* One part of the process split: whole processes keys[first, first + n),
 * or window `window` of the one process keys[first], cut at cuts. */
typedef struct tt_proc_part {
  size_t first, n;
  int64_t window, nwindows; /* -1, 0: whole processes */
  const int64_t *cuts;      /* window >= 0: its process's cuts */
  uint64_t bytes;           /* the planned bound */
} tt_proc_part;

typedef struct tt_proc_plan {
  tt_proc_part *parts;
  size_t nparts;
  tt_cut_plan *windowed; /* the plans of processes cut into windows */
  size_t nwindowed;
} tt_proc_plan;

/* Packs whole processes of one host, in keys' order, into parts of at
 * most `max` bytes, measured by a planning pass per process (filter
 * `base` with the process's pid and [t0, t1) when `bounded`); a process
 * that alone is larger is cut into windows. `shared` is what packing
 * saves per process (tt_exporter.part_shared_bytes). 0 on success, -1 on
 * error (said). */
int tt_plan_processes(const tt_exporter *ex, const tt_export_opts *o, const hub_filter *base,
                      const tt_proc_key *keys, size_t n, int bounded, int64_t t0, int64_t t1,
                      tt_proc_plan *plan);
void tt_proc_plan_free(tt_proc_plan *plan);

#endif
