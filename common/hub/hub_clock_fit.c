/* The robust clock fit (hub_clock_fit.h). */
#include "hub/hub_clock_fit.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "hub/hub_time_map.h"

static int pair_cmp(const void *a, const void *b) {
  int64_t x = ((const hub_clock_pair *)a)->ref_end, y = ((const hub_clock_pair *)b)->ref_end;
  return (x > y) - (x < y);
}
static int dbl_cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); the mean of the middle two. */
static double median(double *v, size_t n) {
  qsort(v, n, sizeof *v, dbl_cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void hub_clock_fit_pairs(hub_clock_pair *p, size_t n, hub_clock_fit *out) {
  qsort(p, n, sizeof *p, pair_cmp);
  double *v = tt_malloc(n * sizeof *v);
  int64_t anchor = p[0].ref_end;
  double slope = 0;
  size_t h = n / 2;
  if (n >= HUB_FIT_DRIFT_MIN && p[n - 1].ref_end - anchor >= HUB_FIT_DRIFT_SPAN_NS) {
    size_t k = 0;
    for (size_t i = 0; i + h < n; i++) {
      double dx = (double)(p[i + h].ref_end - p[i].ref_end);
      if (dx <= 0) continue;
      double dy = (double)((p[i + h].host_end - p[i + h].ref_end) - (p[i].host_end - p[i].ref_end));
      v[k++] = dy / dx;
    }
    if (k) slope = median(v, k);
  }
  for (size_t i = 0; i < n; i++)
    v[i] = (double)(p[i].host_end - p[i].ref_end) - slope * (double)(p[i].ref_end - anchor);
  double offset = median(v, n);
  for (size_t i = 0; i < n; i++)
    v[i] = fabs((double)(p[i].host_end - p[i].ref_end) - offset -
                slope * (double)(p[i].ref_end - anchor));
  qsort(v, n, sizeof *v, dbl_cmp);
  size_t r99 = (size_t)ceil(0.99 * (double)n); /* nearest rank */
  out->offset_ns = llround(offset);
  out->drift_ppm = slope * 1e6;
  out->anchor_ns = anchor;
  out->resid_median_ns = llround(n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
  out->resid_p99_ns = llround(v[r99 ? r99 - 1 : 0]);
  out->used = n;
  free(v);
}

/* --- the verdict --------------------------------------------------------- */

const char *hub_fit_verdict_name(hub_fit_verdict v) {
  static const char *const names[] = {"accepted", "too few collectives", "ambiguous matching",
                                      "ends disagree", "kernels do not overlap", "drift",
                                      "residual"};
  return (unsigned)v < sizeof names / sizeof *names ? names[v] : "?";
}

static double pair_resid(const hub_clock_pair *p, const hub_clock_fit *f) {
  return fabs((double)(p->host_end - p->ref_end) - (double)f->offset_ns -
              f->drift_ppm * 1e-6 * (double)(p->ref_end - f->anchor_ns));
}

/* The shorter kernel of the pair, at least HUB_FIT_MIN_SPAN_NS: a
 * collective's kernels end together to a few us whatever they last. */
#define HUB_FIT_MIN_SPAN_NS 2000
static int64_t pair_span(const hub_clock_pair *p) {
  int64_t a = p->ref_end - p->ref_start, b = p->host_end - p->host_start;
  int64_t d = a < b ? a : b;
  return d > HUB_FIT_MIN_SPAN_NS ? d : HUB_FIT_MIN_SPAN_NS;
}

static int i64_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

void hub_clock_judge(hub_clock_pair *p, size_t n, size_t ref_instances, size_t host_instances,
                     hub_clock_judgement *out) {
  memset(out, 0, sizeof *out);
  out->matched = n;
  if (n < HUB_FIT_MIN_PAIRS || 2 * n < ref_instances || 2 * n < host_instances) {
    out->verdict = HUB_FIT_TOO_FEW;
    snprintf(out->why, sizeof out->why,
             "%zu collectives matched of %zu on the reference and %zu here (at least %d, and half "
             "of each side's, are needed)", n, ref_instances, host_instances, HUB_FIT_MIN_PAIRS);
    return;
  }
  hub_clock_fit first;
  hub_clock_fit_pairs(p, n, &first);
  out->fit = first;
  /* Inliers: ends within half the shorter kernel. Moved to the front. */
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (pair_resid(&p[i], &first) <= (double)pair_span(&p[i]) / 2) {
      hub_clock_pair t = p[k];
      p[k++] = p[i];
      p[i] = t;
    }
  out->inliers = k;
  if (k * 100 < (size_t)HUB_FIT_MIN_INLIER_PCT * n || k < HUB_FIT_MIN_PAIRS) {
    out->verdict = HUB_FIT_INLIERS;
    snprintf(out->why, sizeof out->why,
             "after the fit only %zu of %zu matched collectives end within half their kernel's "
             "duration of the reference's (at least %d%% must): they are not the same collectives",
             k, n, HUB_FIT_MIN_INLIER_PCT);
    return;
  }
  hub_clock_fit_pairs(p, k, &out->fit);
  const hub_clock_fit *f = &out->fit;
  int64_t *span = tt_malloc(k * sizeof *span);
  for (size_t i = 0; i < k; i++) span[i] = pair_span(&p[i]);
  qsort(span, k, sizeof *span, i64_cmp);
  out->median_duration_ns = span[k / 2];
  free(span);
  /* Overlap, over every pair matched: mapped onto the reference's clock,
   * the two kernels of one collective run at once (each ends after the
   * last rank arrives), to within twice the median residual. */
  hub_time_map m = {f->offset_ns, f->drift_ppm, f->anchor_ns};
  double tol = 2.0 * (double)f->resid_median_ns + 1000;
  size_t overlap = 0;
  for (size_t i = 0; i < n; i++) {
    double hs = (double)hub_time_map_apply(&m, p[i].host_start);
    double he = (double)hub_time_map_apply(&m, p[i].host_end);
    if (hs <= (double)p[i].ref_end + tol && (double)p[i].ref_start <= he + tol) overlap++;
  }
  if (fabs(f->drift_ppm) > HUB_FIT_MAX_DRIFT_PPM) {
    out->verdict = HUB_FIT_DRIFT;
    snprintf(out->why, sizeof out->why,
             "the fitted drift %+.3f ppm is beyond the %.0f ppm any clock runs off (NTP's most): "
             "the collectives matched are not the same ones", f->drift_ppm, HUB_FIT_MAX_DRIFT_PPM);
  } else if (f->resid_median_ns * 100 > HUB_FIT_RESID_MEDIAN_PCT * out->median_duration_ns ||
             f->resid_p99_ns * 100 > HUB_FIT_RESID_P99_PCT * out->median_duration_ns) {
    out->verdict = HUB_FIT_RESIDUAL;
    snprintf(out->why, sizeof out->why,
             "residual median %" PRId64 " ns, p99 %" PRId64 " ns against a median collective of %"
             PRId64 " ns (at most %d%% and %d%%): the ends do not agree",
             f->resid_median_ns, f->resid_p99_ns, out->median_duration_ns,
             HUB_FIT_RESID_MEDIAN_PCT, HUB_FIT_RESID_P99_PCT);
  } else if (overlap * 100 < (size_t)HUB_FIT_MIN_OVERLAP_PCT * n) {
    out->verdict = HUB_FIT_OVERLAP;
    snprintf(out->why, sizeof out->why,
             "after the fit only %zu of %zu matched collectives overlap their reference kernel "
             "(at least %d%% must): the timeline would break causality", overlap, n,
             HUB_FIT_MIN_OVERLAP_PCT);
  }
}
