/* Time maps (hub_time_map.h): the affine clock model and its inverse. */
#include "hub/hub_time_map.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"

struct hub_time_map_entry {
  char *path;
  hub_time_map map;
};

/* t_h - offset - anchor = (1 + d) (t_ref - anchor): solved for t_ref. The
 * drift's share is rounded to the ns in long double (exact to far below a
 * ns for times up to 2^62 and drifts of ppm). */
int64_t hub_time_map_apply(const hub_time_map *m, int64_t t_host) {
  int64_t x = t_host - m->offset_ns - m->anchor_ns;
  if (m->drift_ppm == 0) return m->anchor_ns + x;
  long double d = (long double)m->drift_ppm * 1e-6L;
  return m->anchor_ns + x - (int64_t)llroundl((long double)x * d / (1.0L + d));
}

int64_t hub_time_map_invert(const hub_time_map *m, int64_t t_ref) {
  long double d = (long double)m->drift_ppm * 1e-6L;
  int64_t y = t_ref - m->anchor_ns;
  int64_t t = t_ref + m->offset_ns + (m->drift_ppm == 0 ? 0 : (int64_t)llroundl((long double)y * d));
  /* Rounding may leave it a ns off the smallest such host time: a few
   * steps each way, bounded (a map that were not increasing must not make
   * a filter loop). */
  for (int i = 0; i < 8 && hub_time_map_apply(m, t) < t_ref; i++) t++;
  for (int i = 0; i < 8 && hub_time_map_apply(m, t - 1) >= t_ref; i++) t--;
  return t;
}

static int entry_cmp(const void *a, const void *b) {
  return strcmp(((const struct hub_time_map_entry *)a)->path,
                ((const struct hub_time_map_entry *)b)->path);
}

void hub_time_maps_set(hub_time_maps *ms, const char *path, const hub_time_map *m) {
  if (!hub_time_map_valid(m))
    tt_die(1, "%s: internal error: a time map of drift %+.3f ppm (beyond +-%.0f) is never applied",
           path, m->drift_ppm, HUB_TIME_MAP_MAX_DRIFT_PPM);
  tt_grow(ms->v, ms->n + 1, ms->cap);
  ms->v[ms->n].path = tt_strdup(path);
  ms->v[ms->n].map = *m;
  ms->n++;
  ms->sorted = 0;
}

void hub_time_maps_seal(hub_time_maps *ms) {
  if (ms->n) qsort(ms->v, ms->n, sizeof *ms->v, entry_cmp);
  ms->sorted = 1;
}

const hub_time_map *hub_time_maps_find(const hub_time_maps *ms, const char *path) {
  if (!ms || !ms->n || !ms->sorted) return NULL;
  struct hub_time_map_entry key = {.path = (char *)path};
  const struct hub_time_map_entry *e = bsearch(&key, ms->v, ms->n, sizeof *ms->v, entry_cmp);
  return e ? &e->map : NULL;
}

void hub_time_maps_free(hub_time_maps *ms) {
  for (size_t i = 0; i < ms->n; i++) free(ms->v[i].path);
  free(ms->v);
  memset(ms, 0, sizeof *ms);
}
