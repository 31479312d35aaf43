/* The robust clock fit (hub_clock_fit.h). */
#include "hub/hub_clock_fit.h"

#include <math.h>
#include <stdlib.h>

#include "base/util.h"

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
