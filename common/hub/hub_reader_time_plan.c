/* hub_filter.time_plan at the reader's first open (hub_reader.h,
 * hub_time_plan): the inputs' info handed to the plan from the open that
 * reads them anyway, the maps it answers put on every input before any
 * time is read. Later readers take the maps as hub_filter.time_maps. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/sqlite_setup.h"
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
  for (size_t d = 0; d < r->ndbs; d++) {
    r->dbs[d].tmap = hub_time_maps_find(r->filter.time_maps, r->dbs[d].path);
    if (r->dbs[d].tmap && hub_time_map_is_identity(r->dbs[d].tmap)) r->dbs[d].tmap = NULL;
  }
  return 0;
}

/* An input opened alone for the plan's look: its processes and metadata. */
static hub_reader *open_info(const char *path) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL, .info_only = 1};
  return hub_reader_open(&path, 1, &f);
}

/* The order key hr_file_order_key reads: the file's smallest suffix. */
static char *order_key(const hub_reader *g) {
  const char *key = "";
  for (size_t d = 0; d < g->ndbs; d++)
    if (d == 0 || strcmp(g->dbs[d].suffix, key) < 0) key = g->dbs[d].suffix;
  return tt_strdup(key);
}

/* With SQLite threaded, a second thread opens the odd inputs while this
 * one opens the even ones and tells the plan of every input in order (its
 * hosts then number as on one thread). The second thread keeps at most
 * AHEAD inputs open beyond those told. */
#define AHEAD 8
typedef struct survey_job {
  const char *const *paths;
  size_t n;
  hub_reader **opened; /* odd inputs, opened by the worker */
  int *state;          /* 0: not yet, 1: opened (or NULL: failed, said) */
  size_t told;         /* inputs below this are told (or failed) */
  int stop;
  pthread_mutex_t mu;
  pthread_cond_t changed;
} survey_job;

static void *survey_odd(void *arg) {
  survey_job *j = arg;
  for (size_t i = 1; i < j->n; i += 2) {
    pthread_mutex_lock(&j->mu);
    while (!j->stop && i > j->told + AHEAD) pthread_cond_wait(&j->changed, &j->mu);
    int stop = j->stop;
    pthread_mutex_unlock(&j->mu);
    if (stop) break;
    hub_reader *g = open_info(j->paths[i]);
    pthread_mutex_lock(&j->mu);
    j->opened[i] = g;
    j->state[i] = 1;
    pthread_cond_broadcast(&j->changed);
    pthread_mutex_unlock(&j->mu);
    if (!g) break;
  }
  return NULL;
}

int hr_time_plan_survey(hub_reader *r, const char *const *paths, size_t n, char **keys) {
  hub_time_plan *p = r->filter.time_plan;
  survey_job j = {.paths = paths, .n = n};
  pthread_t worker;
  int threaded = tt_sqlite_threaded() && n > 1;
  if (threaded) {
    j.opened = tt_calloc(n, sizeof *j.opened);
    j.state = tt_calloc(n, sizeof *j.state);
    pthread_mutex_init(&j.mu, NULL);
    pthread_cond_init(&j.changed, NULL);
    if (pthread_create(&worker, NULL, survey_odd, &j) != 0) threaded = 0;
  }
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    hub_reader *g;
    if (threaded && i % 2) {
      pthread_mutex_lock(&j.mu);
      while (!j.state[i]) pthread_cond_wait(&j.changed, &j.mu);
      g = j.opened[i];
      j.opened[i] = NULL;
      pthread_mutex_unlock(&j.mu);
    } else {
      g = open_info(paths[i]);
    }
    if (!g || p->input(p->ctx, paths[i], g) != 0) rc = -1;
    keys[i] = g ? order_key(g) : NULL;
    hub_reader_close(g);
    if (threaded) {
      pthread_mutex_lock(&j.mu);
      j.told = i + 1;
      pthread_cond_broadcast(&j.changed);
      pthread_mutex_unlock(&j.mu);
    }
  }
  if (threaded) {
    pthread_mutex_lock(&j.mu);
    j.stop = 1;
    pthread_cond_broadcast(&j.changed);
    pthread_mutex_unlock(&j.mu);
    pthread_join(worker, NULL);
    for (size_t i = 0; i < n; i++) hub_reader_close(j.opened[i]); /* opened ahead of a failure */
    free(j.opened);
    free(j.state);
    pthread_mutex_destroy(&j.mu);
    pthread_cond_destroy(&j.changed);
  }
  return rc;
}
