#include "cli/export_split.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The plan of a planning pass run on a thread of its own (tt_cuts_ahead):
 * the writer waits on `changed` for the part it needs next. */
struct tt_cuts_ahead {
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t changed;
  tt_cut_plan plan; /* grows under mu */
  int state;        /* 0 planning, 1 done, -1 failed (said) */
  atomic_int stop;  /* the writer gave up: end early */
  int joined;
  hub_reader *r;
  const tt_exporter *ex;
  const tt_export_opts *o;
  tt_part proto;
  int64_t t0, t1;
  uint64_t max;
};

int tt_parse_size(const char *s, uint64_t *bytes) {
  static const struct {
    const char *unit;
    int64_t scale;
  } units[] = {{"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30},
               {"KB", 1LL << 10},  {"MB", 1LL << 20},  {"GB", 1LL << 30},
               {"K", 1LL << 10},   {"M", 1LL << 20},   {"G", 1LL << 30},
               {"k", 1LL << 10},   {"m", 1LL << 20},   {"g", 1LL << 30}};
  size_t n = strlen(s);
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    size_t u = strlen(units[i].unit);
    if (n <= u || strcmp(s + n - u, units[i].unit) != 0) continue;
    int64_t v;
    if (tt_decimal_to_int_scaled(s, n - u, units[i].scale, &v) == 0 && v > 0) {
      *bytes = (uint64_t)v;
      return 0;
    }
    return -1;
  }
  return -1;
}

const char *tt_size_text(uint64_t bytes, char *buf, size_t n) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, n, "%llu MiB", (unsigned long long)(bytes >> 20));
  else if (bytes >= (1u << 20))
    snprintf(buf, n, "%.1f MiB", (double)bytes / (1u << 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, n, "%llu KiB", (unsigned long long)(bytes >> 10));
  else
    snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
  return buf;
}

typedef struct held_list {
  hub_held_record *v;
  size_t n, cap;
} held_list;

static void held_push(held_list *l, const hub_record *ev) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 16;
    l->v = tt_realloc(l->v, l->cap * sizeof *l->v);
  }
  hub_record_hold(&l->v[l->n++], ev);
}

/* Keeps, in order, the events that end after t. */
static void held_keep_after(held_list *l, int64_t t) {
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (l->v[i].ev.end > t)
      l->v[k++] = l->v[i];
    else
      hub_record_release(&l->v[i]);
  }
  l->n = k;
}

static size_t held_count_after(const held_list *l, int64_t t) {
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) k += l->v[i].ev.end > t;
  return k;
}

static void held_clear(held_list *l) {
  for (size_t i = 0; i < l->n; i++) hub_record_release(&l->v[i]);
  l->n = 0;
}

static void held_free(held_list *l) {
  held_clear(l);
  free(l->v);
  l->v = NULL;
  l->cap = 0;
}

/* The dry part being measured. */
typedef struct planner {
  hub_reader *r;
  const tt_exporter *ex;
  const tt_export_opts *o;
  tt_part part;
  tt_output *out;
  void *state;
  int failed;
  held_list open;  /* events given to this part that end after the last cut point */
  held_list group; /* the events of the current start time, not yet given */
  tt_cut_plan *plan;
  size_t cap;
  uint64_t before; /* bound of the part ended before the current group */
  int had_events;  /* the part has events before the current group */
  tt_cuts_ahead *ahead; /* planning ahead of a writer: the plan is shared */
} planner;

static int dry_emit(planner *p, const hub_record *src) {
  if (!p->state) {
    p->out = tt_output_begin("/dev/null");
    p->state = p->ex->begin_part(p->r, p->o, &p->part, p->out);
    if (!p->state) return -1;
  }
  hub_record ev = *src;
  if (ev.start < p->part.start) {
    ev.start = p->part.start;
    ev.clipped |= HUB_CLIP_START;
  }
  if (ev.end < ev.start) ev.end = ev.start;
  return p->ex->event(p->state, p->r, &ev);
}

static uint64_t dry_bytes(const planner *p, size_t crossing) {
  if (!p->state) return 0;
  uint64_t b = p->ex->part_bytes(p->state);
  if (crossing) b += p->ex->clip_bytes_once + crossing * p->ex->clip_bytes;
  return b;
}

static int dry_end(planner *p) {
  int rc = 0;
  if (p->state) rc = p->ex->end_part(p->state, p->r);
  p->state = NULL;
  if (p->out) tt_output_abort(p->out);
  p->out = NULL;
  return rc;
}

/* Memory is taken before the writer's lock, never under it: out of
 * memory, tt_die ends the planner's thread, whose cleanup (planner_gone)
 * takes the lock; held, that would wait for itself and the writer with
 * it. The planner alone changes the plan, so it reads it unlocked. */
static void plan_add(planner *p, int64_t end, uint64_t bytes, int oversize) {
  tt_cut_plan *pl = p->plan;
  int64_t *cuts = NULL, *old_cuts = NULL;
  uint64_t *sizes = NULL, *old_sizes = NULL;
  if (pl->nparts + 2 > p->cap) {
    size_t cap = p->cap ? 2 * p->cap : 16;
    cuts = tt_malloc(cap * sizeof *cuts);
    sizes = tt_malloc(cap * sizeof *sizes);
    memcpy(cuts, pl->cuts, (pl->nparts + 1) * sizeof *cuts);
    memcpy(sizes, pl->bytes, pl->nparts * sizeof *sizes);
    p->cap = cap;
  }
  if (p->ahead) pthread_mutex_lock(&p->ahead->mu);
  if (cuts) {
    old_cuts = pl->cuts, old_sizes = pl->bytes;
    pl->cuts = cuts, pl->bytes = sizes;
  }
  pl->bytes[pl->nparts] = bytes;
  pl->cuts[++pl->nparts] = end;
  pl->noversize += oversize != 0;
  if (p->ahead) {
    pthread_cond_broadcast(&p->ahead->changed);
    pthread_mutex_unlock(&p->ahead->mu);
  }
  free(old_cuts);
  free(old_sizes);
}

/* Ends the dry part at `cut` and opens the next one there, giving it the
 * events that cross the cut (clipped to it, as the real run does). */
static int start_part_at(planner *p, int64_t cut) {
  if (dry_end(p) != 0) return -1;
  p->part.start = cut;
  held_keep_after(&p->open, cut);
  for (size_t i = 0; i < p->open.n; i++) {
    /* as the real run's carry: re-emitted clipped, no arrow starts there */
    p->open.v[i].ev.link_starts = "";
    if (dry_emit(p, &p->open.v[i].ev) != 0) return -1;
  }
  return 0;
}

static int give_group(planner *p) {
  for (size_t i = 0; i < p->group.n; i++) {
    if (dry_emit(p, &p->group.v[i].ev) != 0) return -1;
  }
  return 0;
}

/* The group of events starting at gs, already given to the sink as they
 * were read (their args beside the reader's cursor), is complete; the next
 * start time is `next` (t1 at the end of the stream). Decides whether the
 * part ends before the group, and notes the bound of ending it at next. */
static int close_group(planner *p, int64_t next, uint64_t max) {
  int64_t gs = p->group.v[0].ev.start;
  uint64_t after = dry_bytes(p, held_count_after(&p->open, next) +
                                    held_count_after(&p->group, next));
  if (after > max && p->had_events) {
    /* [part start, gs) fits (its bound was taken at gs): cut there and
     * give the group again, to the next part (its args looked up by id:
     * once a part, not once an event). */
    plan_add(p, gs, p->before, p->before > max);
    if (start_part_at(p, gs) != 0 || give_group(p) != 0) return -1;
    after = dry_bytes(p, held_count_after(&p->open, next) + held_count_after(&p->group, next));
  }
  for (size_t i = 0; i < p->group.n; i++)
    if (p->group.v[i].ev.end > gs) held_push(&p->open, &p->group.v[i].ev);
  held_clear(&p->group);
  if (after > max) {
    /* This instant alone (with what crosses into it) is over the size:
     * no cut can make the part smaller. */
    plan_add(p, next, after, 1);
    if (start_part_at(p, next) != 0) return -1;
  } else {
    held_keep_after(&p->open, next);
  }
  return 0;
}

/* A group begins at time t: the bound of ending the part just before it. */
static void open_group(planner *p, int64_t t) {
  p->had_events = p->state != NULL && t > p->part.start;
  p->before = dry_bytes(p, p->open.n);
}

static int plan_cuts(hub_reader *r, const tt_exporter *ex, const tt_export_opts *o,
                     const tt_part *proto, int64_t t0, int64_t t1, uint64_t max,
                     tt_cut_plan *plan, tt_cuts_ahead *ahead) {
  planner p = {.r = r, .ex = ex, .o = o, .plan = plan, .ahead = ahead};
  p.part = *proto;
  p.part.start = t0;
  p.part.end = INT64_MAX;
  p.part.dry = 1;
  p.part.index = 0;
  p.part.count = 1;
  p.cap = 16;
  int64_t *cuts = tt_calloc(p.cap, sizeof *cuts); /* not under the lock: see plan_add */
  uint64_t *sizes = tt_calloc(p.cap, sizeof *sizes);
  cuts[0] = t0;
  if (ahead) pthread_mutex_lock(&ahead->mu);
  memset(plan, 0, sizeof *plan);
  plan->cuts = cuts;
  plan->bytes = sizes;
  if (ahead) pthread_mutex_unlock(&ahead->mu);
  hub_record ev;
  int rc;
  uint64_t nread = 0;
  while ((rc = hub_reader_next(r, &ev)) > 0) {
    if (ahead && (++nread & 0xFFF) == 0 && atomic_load(&ahead->stop)) {
      rc = -1;
      break;
    }
    if (!p.group.n || ev.start > p.group.v[0].ev.start) {
      if (p.group.n && close_group(&p, ev.start, max) != 0) {
        rc = -1;
        break;
      }
      open_group(&p, ev.start);
    }
    held_push(&p.group, &ev);
    if (dry_emit(&p, &ev) != 0) {
      rc = -1;
      break;
    }
  }
  if (rc == 0 && p.group.n && close_group(&p, t1, max) != 0) rc = -1;
  if (rc == 0) {
    uint64_t last = dry_bytes(&p, 0);
    /* The last part ends at t1, unless the stream ended with a cut there. */
    if (plan->nparts == 0 || plan->cuts[plan->nparts] < t1 || p.state)
      plan_add(&p, t1, last, last > max);
  }
  if (dry_end(&p) != 0) rc = -1;
  held_free(&p.open);
  held_free(&p.group);
  if (rc != 0) {
    if (!ahead) tt_cut_plan_free(plan); /* else freed by tt_cuts_ahead_free */
    return -1;
  }
  return 0;
}

int tt_plan_cuts(hub_reader *r, const tt_exporter *ex, const tt_export_opts *o,
                 const tt_part *proto, int64_t t0, int64_t t1, uint64_t max, tt_cut_plan *plan) {
  return plan_cuts(r, ex, o, proto, t0, t1, max, plan, NULL);
}

/* --- planning ahead of the writer ------------------------------------- */

/* A tt_die on the planning thread (out of memory) ends this thread only
 * (see tt_die_ends_thread): the writer then sees the plan failed. */
static void planner_gone(void *arg) {
  tt_cuts_ahead *a = arg;
  pthread_mutex_lock(&a->mu);
  if (a->state == 0) a->state = -1;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->mu);
}

static void *plan_ahead(void *arg) {
  tt_cuts_ahead *a = arg;
  tt_die_ends_thread();
  pthread_cleanup_push(planner_gone, a);
  /* The plan is a's own: plan_cuts changes it under a->mu. */
  int rc = plan_cuts(a->r, a->ex, a->o, &a->proto, a->t0, a->t1, a->max, &a->plan, a);
  pthread_mutex_lock(&a->mu);
  a->state = rc == 0 ? 1 : -1;
  pthread_cond_broadcast(&a->changed);
  pthread_mutex_unlock(&a->mu);
  pthread_cleanup_pop(0);
  return NULL;
}

tt_cuts_ahead *tt_cuts_ahead_start(hub_reader *r, const tt_exporter *ex, const tt_export_opts *o,
                                   const tt_part *proto, int64_t t0, int64_t t1, uint64_t max) {
  tt_cuts_ahead *a = tt_calloc(1, sizeof *a);
  *a = (tt_cuts_ahead){.r = r, .ex = ex, .o = o, .proto = *proto, .t0 = t0, .t1 = t1, .max = max};
  atomic_init(&a->stop, 0);
  pthread_mutex_init(&a->mu, NULL);
  pthread_cond_init(&a->changed, NULL);
  /* Signals go to the writer's thread, whose handlers remove the parts. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&a->thread, NULL, plan_ahead, a);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    tt_error("cannot start the planning thread");
    pthread_mutex_destroy(&a->mu);
    pthread_cond_destroy(&a->changed);
    free(a);
    return NULL;
  }
  return a;
}

int tt_cuts_ahead_part(tt_cuts_ahead *a, size_t k, int64_t *end, uint64_t *bytes) {
  pthread_mutex_lock(&a->mu);
  while (a->state == 0 && a->plan.nparts <= k) pthread_cond_wait(&a->changed, &a->mu);
  int rc = a->state < 0 ? -1 : a->plan.nparts > k ? 1 : 0;
  if (rc == 1) {
    *end = a->plan.cuts[k + 1];
    *bytes = a->plan.bytes[k];
  }
  pthread_mutex_unlock(&a->mu);
  return rc;
}

int tt_cuts_ahead_finish(tt_cuts_ahead *a, tt_cut_plan *plan) {
  pthread_join(a->thread, NULL);
  a->joined = 1;
  if (a->state != 1) return -1;
  *plan = a->plan;
  memset(&a->plan, 0, sizeof a->plan);
  return 0;
}

void tt_cuts_ahead_free(tt_cuts_ahead *a) {
  if (!a) return;
  if (!a->joined) {
    atomic_store(&a->stop, 1);
    pthread_join(a->thread, NULL);
  }
  tt_cut_plan_free(&a->plan);
  hub_reader_close(a->r);
  pthread_mutex_destroy(&a->mu);
  pthread_cond_destroy(&a->changed);
  free(a);
}

void tt_cut_plan_free(tt_cut_plan *plan) {
  free(plan->cuts);
  free(plan->bytes);
  memset(plan, 0, sizeof *plan);
}

/* --- --split process --------------------------------------------------- */

int tt_proc_key_cmp(const void *a, const void *b) {
  const tt_proc_key *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  if (c) return c;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

static tt_proc_part *add_proc_part(tt_proc_plan *plan, size_t *cap) {
  if (plan->nparts == *cap) {
    *cap = *cap ? 2 * *cap : 16;
    plan->parts = tt_realloc(plan->parts, *cap * sizeof *plan->parts);
  }
  tt_proc_part *p = &plan->parts[plan->nparts++];
  memset(p, 0, sizeof *p);
  p->window = -1;
  return p;
}

int tt_plan_processes(const tt_exporter *ex, const tt_export_opts *o, const hub_filter *base,
                      const tt_proc_key *keys, size_t n, int bounded, int64_t t0, int64_t t1,
                      tt_proc_plan *plan) {
  memset(plan, 0, sizeof *plan);
  uint64_t max = o->max_part_size, shared = ex->part_shared_bytes;
  size_t cap = 0;
  tt_proc_part *pack = NULL; /* the pack being filled */
  /* Indexes into plan->windowed, resolved to cuts once it stops moving. */
  for (size_t i = 0; i < n; i++) {
    hub_filter f = *base;
    f.pid = keys[i].pid;
    f.start = bounded ? t0 : HUB_NULL;
    f.end = bounded ? t1 : HUB_NULL;
    hub_reader *r = hub_reader_open(keys[i].inputs, keys[i].ninputs, &f);
    if (!r) return -1;
    int64_t lo = t0, hi = t1;
    if (!bounded) {
      if (!hub_reader_time_span(r, &lo, &hi)) lo = hi = 0;
      hi += 1;
    }
    tt_part proto = {.pid = keys[i].pid, .as_many_dbs = 1, .path = o->output ? o->output : "-"};
    tt_cut_plan cp;
    int rc = tt_plan_cuts(r, ex, o, &proto, lo, hi, max, &cp);
    hub_reader_close(r);
    if (rc != 0) return -1;
    if (cp.nparts == 1 && cp.bytes[0] <= max) {
      uint64_t b = cp.bytes[0];
      tt_cut_plan_free(&cp);
      /* Packed, the part has once what each process's part has alone. A
       * pack holds one host's processes: its reader takes their pids on
       * that host (a merged hub holds every host's pid 1234). */
      if (pack && strcmp(keys[pack->first].host, keys[i].host) == 0 &&
          pack->bytes + b - (b > shared ? shared : 0) <= max) {
        pack->bytes += b - (b > shared ? shared : 0);
        pack->n++;
        continue;
      }
      pack = add_proc_part(plan, &cap);
      pack->first = i;
      pack->n = 1;
      pack->bytes = b;
      continue;
    }
    /* Too big alone: its own windows. */
    pack = NULL;
    plan->windowed = tt_realloc(plan->windowed, (plan->nwindowed + 1) * sizeof *plan->windowed);
    plan->windowed[plan->nwindowed++] = cp;
    for (size_t w = 0; w < cp.nparts; w++) {
      tt_proc_part *p = add_proc_part(plan, &cap);
      p->first = i;
      p->n = 1;
      p->window = (int64_t)w;
      p->nwindows = (int64_t)cp.nparts;
      p->bytes = cp.bytes[w];
      p->cuts = cp.cuts; /* the cuts array stays where it is */
    }
  }
  return 0;
}

void tt_proc_plan_free(tt_proc_plan *plan) {
  for (size_t i = 0; i < plan->nwindowed; i++) tt_cut_plan_free(&plan->windowed[i]);
  free(plan->windowed);
  free(plan->parts);
  memset(plan, 0, sizeof *plan);
}
