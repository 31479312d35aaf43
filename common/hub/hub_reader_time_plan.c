/* hub_filter.time_plan at the reader's first open (hub_reader.h,
 * hub_time_plan): the inputs' info handed to the plan from the open that
 * reads them anyway, the maps it answers put on every input before any
 * time is read. Later readers take the maps as hub_filter.time_maps. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "hub/hub_reader_internal.h"

void hr_time_plan_take(hub_filter *f) {
  if (!f->time_plan || !f->time_plan->done) return;
  f->time_maps = f->time_plan->maps;
  f->time_plan = NULL;
}

int hr_time_plan_pending(const hub_filter *f) { return f->time_plan && !f->time_plan->done; }

int hr_time_plan_ready(hub_reader *r) {
  hub_time_plan *p = r->filter.time_plan;
  if (p->ready(p->ctx, &p->maps) != 0) return -1;
  p->done = 1;
  hr_time_plan_take(&r->filter);
  return 0;
}

int hr_time_plan_direct(hub_reader *r, const char *const *paths, size_t npaths) {
  if (!hr_time_plan_pending(&r->filter) || r->filter.info_only) return 0;
  hub_time_plan *p = r->filter.time_plan;
  for (size_t i = 0; i < npaths; i++)
    if (p->input(p->ctx, paths[i], r) != 0) return -1;
  if (hr_time_plan_ready(r) != 0) return -1;
  for (size_t d = 0; d < r->ndbs; d++) hr_db_map_times(&r->dbs[d], r->filter.time_maps);
  return 0;
}

/* The order key hr_file_order_key reads: the file's smallest suffix. */
static char *order_key(const hub_reader *g) {
  const char *key = "";
  for (size_t d = 0; d < g->ndbs; d++)
    if (d == 0 || strcmp(g->dbs[d].suffix, key) < 0) key = g->dbs[d].suffix;
  return tt_strdup(key);
}

int hr_time_plan_survey(hub_reader *r, const char *const *paths, size_t n, char **keys) {
  hub_time_plan *p = r->filter.time_plan;
  for (size_t i = 0; i < n; i++) {
    hub_reader *g = hub_reader_open_info(paths[i]);
    int rc = g ? p->input(p->ctx, paths[i], g) : -1;
    keys[i] = g ? order_key(g) : NULL;
    hub_reader_close(g);
    if (rc != 0) return -1;
  }
  return 0;
}
