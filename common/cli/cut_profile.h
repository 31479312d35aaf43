/* The size split's first pass on two CPUs (--max-part-size): what the
 * balanced pass (cut_plan.h) needs before it starts, the number of parts
 * and their bounds' total, without one sequential pass over the stream.
 *
 * The time range is cut into TT_PROFILE_CHUNKS chunks of equal length;
 * each chunk is planned fewest (tt_plan_fewest) by a reader of its own
 * over that range (the events crossing into it included, clipped), two
 * chunks at a time on two threads, one at a time on one. The sum over the
 * chunks does not depend on the threads, so every run (--threads 1, --part
 * K, --count-parts) gets the same count and the same cuts.
 *
 * The chunks' total is an estimate of the balanced parts' total (the
 * parts' headers and the events carried across cuts fall elsewhere): the
 * profile is used only where it leaves room for that (tt_profile_parts);
 * else the split is planned exactly, fewest then balanced, as before. */
#ifndef TT_CUT_PROFILE_H
#define TT_CUT_PROFILE_H
#include <stddef.h>
#include <stdint.h>

#include "cli/cut_plan.h"

enum { TT_PROFILE_CHUNKS = 8 };

typedef struct tt_cut_profile {
  uint64_t total;   /* the chunks' fewest plans' bounds together */
  uint64_t step;    /* the largest step (tt_cut_plan.step) of a chunk */
  size_t nparts;    /* the chunks' fewest parts together */
  size_t noversize; /* parts over the size: one instant alone is larger */
  /* What each part's bound has once: its bytes with no event (measured)
   * and the clipping's once (tt_exporter.clip_bytes_once). */
  uint64_t overhead;
} tt_cut_profile;

/* Profiles `s`'s range [t0, t1) of `inputs` read with filter `f` (its
 * time range replaced by each chunk's), on `threads` (1 or 2) threads.
 * 0, or -1 on a read or sink error (said). */
int tt_profile_cuts(const char *const *inputs, size_t ninputs, const hub_filter *f,
                    const tt_plan_spec *s, int threads, tt_cut_profile *out);

/* The number of balanced parts of at most `max` the profile is sure of,
 * and their *total (the chunks' less the overhead of the chunks' parts
 * beyond n):
 * n = ceil(chunks' total / max), at least 1, when a part's aim, total / n,
 * leaves room below `max` for n + 1 steps: one for the aim's overshoot,
 * and each part's carried events and clipping, a step at most, which the
 * chunks counted elsewhere (the last part takes what the estimate missed).
 * 0 when it does not, or an instant alone is over `max`: plan exactly. One
 * part needs no balanced pass: the whole range, *total + 2 steps at most. */
size_t tt_profile_parts(const tt_cut_profile *p, uint64_t max, uint64_t *total);

#endif
