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
  int64_t ref_start, host_start; /* for the judgement: the kernels' spans */
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

/* The verdict on a host's fit (issue 44): the one place that decides
 * whether a fit is applied. Each test, and why its bound is what it is,
 * is in docs/clocks.md, "When a fit is refused". */
typedef enum hub_fit_verdict {
  HUB_FIT_ACCEPTED = 0,
  HUB_FIT_TOO_FEW,   /* fewer than HUB_FIT_MIN_PAIRS, or under half a side's instances */
  HUB_FIT_AMBIGUOUS, /* name-and-order matching: no shift clearly best (hub_align_fit.c) */
  HUB_FIT_INLIERS,   /* under HUB_FIT_MIN_INLIER_PCT% of the pairs end together */
  HUB_FIT_OVERLAP,   /* under HUB_FIT_MIN_OVERLAP_PCT% of the matched kernels overlap */
  HUB_FIT_DRIFT,     /* |drift| over HUB_FIT_MAX_DRIFT_PPM */
  HUB_FIT_RESIDUAL   /* residual large against the collectives' durations */
} hub_fit_verdict;

#define HUB_FIT_MIN_PAIRS 3
#define HUB_FIT_MAX_DRIFT_PPM 500.0
#define HUB_FIT_MIN_INLIER_PCT 80
#define HUB_FIT_MIN_OVERLAP_PCT 80
#define HUB_FIT_RESID_MEDIAN_PCT 20 /* of the median collective's duration */
#define HUB_FIT_RESID_P99_PCT 50

typedef struct hub_clock_judgement {
  hub_fit_verdict verdict;
  char why[320];       /* the test that failed, with its numbers ("" when accepted) */
  hub_clock_fit fit;   /* the refit on the inliers (the first fit when refused early) */
  size_t matched;      /* pairs judged */
  size_t inliers;      /* pairs whose ends agree after the first fit */
  int64_t median_duration_ns; /* of the inliers' shorter kernels */
} hub_clock_judgement;

/* Judges n matched pairs (reordered in place; n may be 0) of a host that
 * has host_instances collectives against a reference with ref_instances:
 * fits, keeps the inliers (ends within half the shorter kernel of the
 * pair), refits on them, then runs every test. A verdict that is not
 * HUB_FIT_ACCEPTED leaves the fit unapplied. */
void hub_clock_judge(hub_clock_pair *p, size_t n, size_t ref_instances, size_t host_instances,
                     hub_clock_judgement *out);
const char *hub_fit_verdict_name(hub_fit_verdict v); /* "accepted", "drift", ... */

#endif
