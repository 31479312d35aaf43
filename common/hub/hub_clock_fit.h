/* The fit of one host's clock against the reference host's, from the end
 * times of the same collectives on both (--align collectives, issue 38).
 *
 * Each pair is (x = the reference's end, y = the host's end - x). The clock
 * model y = offset + drift * (x - anchor) is fitted robustly: drift is the
 * median of the slopes between pairs half the run apart (Sen's estimator
 * on n/2 disjoint pairs: O(n)), fitted only when there are at least
 * HUB_FIT_DRIFT_MIN pairs spanning HUB_FIT_DRIFT_SPAN_NS; offset is the
 * median of y - drift * (x - anchor). Medians, not least squares: a
 * collective one rank entered late, or two instances matched wrongly,
 * moves a mean by its whole error and a median not at all while fewer
 * than half the pairs are wrong. The residual is what is left per pair,
 * |y - offset - drift (x - anchor)|: the collectives' ends still apart
 * after alignment, that is the true end skew of the collective plus the
 * alignment's own error. */
#ifndef TT_HUB_CLOCK_FIT_H
#define TT_HUB_CLOCK_FIT_H
#include <stddef.h>
#include <stdint.h>

#define HUB_FIT_DRIFT_MIN 8
#define HUB_FIT_DRIFT_SPAN_NS 100000000LL /* 100 ms */

typedef struct hub_clock_pair {
  int64_t ref_end, host_end;
} hub_clock_pair;

typedef struct hub_clock_fit {
  int64_t offset_ns;  /* host ahead of the reference at anchor_ns */
  double drift_ppm;   /* 0 when not fitted */
  int64_t anchor_ns;  /* the first pair's reference end */
  int64_t resid_median_ns, resid_p99_ns;
  size_t used;        /* pairs fitted */
} hub_clock_fit;

/* Fits n >= 1 pairs (reordered in place). */
void hub_clock_fit_pairs(hub_clock_pair *p, size_t n, hub_clock_fit *out);

#endif
