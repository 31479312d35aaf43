/* The size split's options and the process split's packing:
 * --max-part-size's SIZE, and whole processes packed into parts of at
 * most SIZE (a process too big alone cut into windows by the planner,
 * cut_plan.h). */
#ifndef TT_EXPORT_SPLIT_H
#define TT_EXPORT_SPLIT_H
#include <stdint.h>

#include "cli/cut_plan.h"
#include "cli/exporter.h"

/* "200M", "1.5G", "64K" (powers of 1024; "MB", "MiB" alike) -> bytes.
 * A bare number has no unit and is refused. 0 on success, -1 on error. */
int tt_parse_size(const char *s, uint64_t *bytes);

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
  size_t ninputs, cap_inputs;
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
  size_t nparts, cap_parts;
  tt_cut_plan *windowed; /* the plans of processes cut into windows */
  size_t nwindowed, cap_windowed;
} tt_proc_plan;

/* Packs whole processes of one host, in keys' order, into parts of at
 * most `max` bytes, measured by a planning pass per process (balanced
 * windows for a process too big alone, as the window split's) (filter
 * `base` with the process's pid and [t0, t1) when `bounded`); a process
 * that alone is larger is cut into windows. `shared` is what packing
 * saves per process (tt_exporter.part_shared_bytes). 0 on success, -1 on
 * error (said). */
int tt_plan_processes(const tt_exporter *ex, const tt_export_opts *o, const hub_filter *base,
                      const tt_proc_key *keys, size_t n, int bounded, int64_t t0, int64_t t1,
                      tt_proc_plan *plan);
void tt_proc_plan_free(tt_proc_plan *plan);

#endif
