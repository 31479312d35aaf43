/* The "clocks" table (issue 38): per host, how --align moved its times
 * and how well its collectives then agree (hub_align.h). Shown when the
 * inputs are of several hosts or clocks, in every format. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "db2summary.h"

static const char *const clock_cols[] = {
    "clock",           "rank",           "method",      "offset_ns", "drift_ppm", "anchor_ns",
    "residual_median_ns", "residual_p99_ns", "collectives", "host"};
#define NCOLS (sizeof clock_cols / sizeof *clock_cols)

static char *num(int64_t v) {
  char b[32];
  snprintf(b, sizeof b, "%" PRId64, v);
  return tt_strdup(b);
}

int sm_clocks_table(const sm_summary *s, sm_table *t) {
  const hub_alignment *a = s->opt->align;
  if (!a || a->nhosts < 2) return 0;
  memset(t, 0, sizeof *t);
  *t = (sm_table){.id = "clocks", .title = tt_strdup("Clocks"), .cols = clock_cols,
                  .ncols = NCOLS, .pid = HUB_NULL, .db = -1, .section = -1};
  t->cells = tt_calloc(a->nhosts * NCOLS, sizeof *t->cells);
  for (size_t i = 0; i < a->nhosts; i++) {
    const hub_align_host *h = &a->hosts[i];
    char **c = t->cells + i * NCOLS;
    int fitted = a->method == HUB_ALIGN_COLLECTIVES && !h->reference && h->accepted;
    int refused = a->method == HUB_ALIGN_COLLECTIVES && !h->reference && !h->accepted;
    char drift[32];
    snprintf(drift, sizeof drift, "%.3f", h->map.drift_ppm);
    c[0] = tt_strdup(hub_clock_name(h->clock));
    c[1] = h->first_rank == HUB_NULL ? tt_strdup("") : num(h->first_rank);
    char method[64];
    snprintf(method, sizeof method, "refused: %s", hub_fit_verdict_name(h->judged.verdict));
    c[2] = tt_strdup(refused                       ? method
                     : a->method == HUB_ALIGN_NONE ? "none (clocks differ)"
                     : h->reference                ? "reference"
                                                   : hub_align_mode_name(a->method));
    c[3] = num(h->map.offset_ns);
    c[4] = tt_strdup(drift);
    c[5] = num(h->map.anchor_ns);
    c[6] = fitted ? num(h->fit.resid_median_ns) : tt_strdup("");
    c[7] = fitted ? num(h->fit.resid_p99_ns) : tt_strdup("");
    c[8] = fitted ? num((int64_t)h->fit.used) : tt_strdup("");
    c[9] = tt_strdup(h->host);
  }
  t->nrows = a->nhosts;
  return 1;
}
