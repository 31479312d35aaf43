#include "cli/cut_source.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* --- equal windows ------------------------------------------------------ */

typedef struct equal_cuts {
  tt_cut_source base;
  int64_t size;
} equal_cuts;

static int equal_next(tt_cut_source *s, int64_t k, int64_t *end, uint64_t *bound) {
  if (k < 0 || k >= s->count) return 0;
  *end = s->start + (k + 1) * ((equal_cuts *)s)->size;
  *bound = 0;
  return 1;
}

static int no_finish(tt_cut_source *s) {
  (void)s;
  return 0;
}

static void plain_free(tt_cut_source *s) { free(s); }

tt_cut_source *tt_cuts_equal(int64_t t0, int64_t size, int64_t count) {
  equal_cuts *e = tt_calloc(1, sizeof *e);
  e->base = (tt_cut_source){.start = t0, .count = count, .next = equal_next,
                            .finish = no_finish, .free = plain_free};
  e->size = size;
  return &e->base;
}

/* --- a plan made whole -------------------------------------------------- */

typedef struct planned_cuts {
  tt_cut_source base;
  tt_cut_plan plan;
} planned_cuts;

static int planned_next(tt_cut_source *s, int64_t k, int64_t *end, uint64_t *bound) {
  const tt_cut_plan *pl = &((planned_cuts *)s)->plan;
  if (k < 0 || (size_t)k >= pl->nparts) return 0;
  *end = pl->cuts[k + 1];
  *bound = pl->bytes[k];
  return 1;
}

static void planned_free(tt_cut_source *s) {
  tt_cut_plan_free(&((planned_cuts *)s)->plan);
  free(s);
}

tt_cut_source *tt_cuts_planned(tt_cut_plan *plan) {
  planned_cuts *c = tt_calloc(1, sizeof *c);
  c->plan = *plan;
  memset(plan, 0, sizeof *plan);
  c->base = (tt_cut_source){.start = c->plan.cuts[0], .count = (int64_t)c->plan.nparts,
                            .next = planned_next, .finish = no_finish, .free = planned_free};
  return &c->base;
}

/* --- planned ahead, on a second thread ----------------------------------- */

/* The writer waits on share.changed for the part it needs next. */
typedef struct ahead_cuts {
  tt_cut_source base;
  pthread_t thread;
  tt_plan_share share;
  tt_cut_plan fewest;
  tt_cut_plan plan; /* grows under share.mu */
  int state;        /* 0 planning, 1 done, -1 failed (said) */
  int joined;
  hub_reader *r;
  const tt_plan_spec *spec;
} ahead_cuts;

/* A tt_die on the planning thread (out of memory) ends this thread only
 * (see tt_die_ends_thread): the writer then sees the plan failed. */
static void planner_gone(void *arg) {
  ahead_cuts *a = arg;
  pthread_mutex_lock(&a->share.mu);
  if (a->state == 0) a->state = -1;
  pthread_cond_broadcast(&a->share.changed);
  pthread_mutex_unlock(&a->share.mu);
}

static void *plan_ahead(void *arg) {
  ahead_cuts *a = arg;
  tt_die_ends_thread();
  pthread_cleanup_push(planner_gone, a);
  int rc = tt_plan_balanced(a->r, a->spec, &a->fewest, &a->plan, &a->share);
  if (rc > 0)
    tt_error("the balanced cuts needed more than the %zu parts planned: a bug, please report it",
             a->fewest.nparts);
  pthread_mutex_lock(&a->share.mu);
  a->state = rc == 0 ? 1 : -1;
  pthread_cond_broadcast(&a->share.changed);
  pthread_mutex_unlock(&a->share.mu);
  pthread_cleanup_pop(0);
  return NULL;
}

static int ahead_next(tt_cut_source *s, int64_t k, int64_t *end, uint64_t *bound) {
  ahead_cuts *a = (ahead_cuts *)s;
  if (k < 0 || k >= s->count) return 0;
  pthread_mutex_lock(&a->share.mu);
  while (a->state == 0 && a->plan.nparts <= (size_t)k)
    pthread_cond_wait(&a->share.changed, &a->share.mu);
  int rc = a->plan.nparts > (size_t)k ? 1 : -1; /* the count is known: fewer is a failure */
  if (rc == 1) {
    *end = a->plan.cuts[k + 1];
    *bound = a->plan.bytes[k];
  }
  pthread_mutex_unlock(&a->share.mu);
  return rc;
}

static int ahead_reach(tt_cut_source *s, int64_t k, int64_t t) {
  ahead_cuts *a = (ahead_cuts *)s;
  if (k < 0 || k >= s->count) return -1;
  /* The frontier is read before the count: a frontier of part k + 1 is
   * stored after part k is published, so it is never taken for part k's. */
  int64_t f = atomic_load(&a->share.frontier);
  int rc;
  pthread_mutex_lock(&a->share.mu);
  for (;;) {
    if (a->plan.nparts > (size_t)k) {
      rc = 1;
      break;
    }
    if (a->state != 0) { /* ended without part k: the count is known, so failed */
      rc = -1;
      break;
    }
    if (f >= t) {
      rc = 0;
      break;
    }
    atomic_store(&a->share.want, t);
    f = atomic_load(&a->share.frontier);
    if (f < t) {
      pthread_cond_wait(&a->share.changed, &a->share.mu);
      f = atomic_load(&a->share.frontier);
    }
  }
  atomic_store(&a->share.want, INT64_MAX);
  pthread_mutex_unlock(&a->share.mu);
  return rc;
}

static int ahead_finish(tt_cut_source *s) {
  ahead_cuts *a = (ahead_cuts *)s;
  if (!a->joined) pthread_join(a->thread, NULL);
  a->joined = 1;
  return a->state == 1 && a->plan.nparts == (size_t)s->count ? 0 : -1;
}

static void ahead_free(tt_cut_source *s) {
  ahead_cuts *a = (ahead_cuts *)s;
  if (!a->joined) {
    atomic_store(&a->share.stop, 1);
    pthread_join(a->thread, NULL);
  }
  tt_cut_plan_free(&a->plan);
  tt_cut_plan_free(&a->fewest);
  hub_reader_close(a->r);
  pthread_mutex_destroy(&a->share.mu);
  pthread_cond_destroy(&a->share.changed);
  free(a);
}

tt_cut_source *tt_cuts_ahead(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *fewest) {
  ahead_cuts *a = tt_calloc(1, sizeof *a);
  a->base = (tt_cut_source){.start = s->t0, .count = (int64_t)fewest->nparts, .next = ahead_next,
                            .reach = ahead_reach, .finish = ahead_finish, .free = ahead_free};
  a->fewest = *fewest;
  memset(fewest, 0, sizeof *fewest);
  a->r = r;
  a->spec = s;
  atomic_init(&a->share.stop, 0);
  atomic_init(&a->share.frontier, INT64_MIN);
  atomic_init(&a->share.want, INT64_MAX);
  pthread_mutex_init(&a->share.mu, NULL);
  pthread_cond_init(&a->share.changed, NULL);
  /* Signals go to the writer's thread, whose handlers remove the parts. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&a->thread, NULL, plan_ahead, a);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    tt_error("cannot start the planning thread");
    a->joined = 1;
    a->r = NULL; /* the caller's still */
    ahead_free(&a->base);
    return NULL;
  }
  return &a->base;
}

/* --- every policy ------------------------------------------------------- */

tt_cut_source *tt_cuts_balanced(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *fewest,
                                int ahead) {
  if (!r) {
    tt_cut_plan_free(fewest);
    return NULL;
  }
  if (ahead) {
    tt_cut_source *src = tt_cuts_ahead(r, s, fewest);
    if (!src) hub_reader_close(r);
    else if (getenv("TT_SPLIT_TRACE")) fprintf(stderr, "split-plan: ahead, on a second thread\n");
    return src;
  }
  tt_cut_plan plan;
  int rc = tt_plan_balanced(r, s, fewest, &plan, NULL);
  hub_reader_close(r);
  if (rc > 0) { /* cannot balance: the fewest plan, as good as it gets */
    tt_cut_plan_free(&plan);
    return tt_cuts_planned(fewest);
  }
  tt_cut_plan_free(fewest);
  if (rc != 0) {
    tt_cut_plan_free(&plan);
    return NULL;
  }
  return tt_cuts_planned(&plan);
}

int tt_cut_range(tt_cut_source *s, int64_t k, int64_t *start, int64_t *end, uint64_t *bound) {
  uint64_t unused;
  *start = s->start;
  if (k > 0) {
    int rc = s->next(s, k - 1, start, &unused);
    if (rc != 1) return rc;
  }
  return s->next(s, k, end, bound);
}

void tt_cut_source_free(tt_cut_source *s) {
  if (s) s->free(s);
}
