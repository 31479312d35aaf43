#include "cli/cut_plan.h"

#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "base/util.h"
#include "base/vec.h"

typedef TT_VEC(hub_held_record) held_list;

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
  tt_vec_free(l);
}

/* The balanced pass's aim (see cut_plan.h); NULL fewest: the fewest pass. */
typedef struct balance {
  const tt_cut_plan *fewest;
  uint64_t total;    /* the fewest plan's bounds together */
  uint64_t consumed; /* the bounds of the parts planned so far */
} balance;

/* The dry part being measured. */
typedef struct planner {
  hub_reader *r;
  const tt_plan_spec *s;
  tt_part part;
  tt_output *out;
  void *state;
  held_list open;  /* events given to this part that end after the last cut point */
  held_list group; /* the events of the current start time */
  tt_cut_plan *plan;
  size_t cuts_cap; /* the fewest plan's cuts allocated */
  uint64_t before; /* bound of the part ended before the current group */
  uint64_t step;   /* the largest bound one start time, or one cut's carry, added */
  int had_events;  /* the part has events before the current group */
  balance bal;
  tt_plan_share *share; /* another thread reads the plan as it grows */
} planner;

static int dry_emit(planner *p, const hub_record *src) {
  if (!p->state) {
    p->out = tt_output_begin("/dev/null");
    p->state = p->s->ex->begin_part(p->r, p->s->o, &p->part, p->out);
    if (!p->state) return -1;
  }
  hub_record ev = *src;
  if (ev.start < p->part.start) {
    ev.start = p->part.start;
    ev.clipped |= HUB_CLIP_START;
  }
  if (ev.end < ev.start) ev.end = ev.start;
  return p->s->ex->event(p->state, p->r, &ev);
}

static uint64_t dry_bytes(const planner *p, size_t crossing) {
  if (!p->state) return 0;
  const tt_exporter *ex = p->s->ex;
  uint64_t b = ex->part_bytes(p->state);
  if (crossing) b += ex->clip_bytes_once + crossing * ex->clip_bytes;
  return b;
}

/* The dry part has reached time t: its sink writes what is due before it
 * (the bound taken next counts it). */
static int dry_advance(planner *p, int64_t t) {
  const tt_exporter *ex = p->s->ex;
  return p->state && ex->advance ? ex->advance(p->state, p->r, t) : 0;
}

static int dry_end(planner *p) {
  int rc = 0;
  if (p->state) rc = p->s->ex->end_part(p->state, p->r);
  p->state = NULL;
  if (p->out) tt_output_abort(p->out);
  p->out = NULL;
  return rc;
}

/* Part nparts ends at `end`. The balanced plan was allocated whole before
 * the pass (it is published to another thread, under the lock, and never
 * moves); the fewest plan grows here. */
static int plan_add(planner *p, int64_t end, uint64_t bytes, int oversize) {
  tt_cut_plan *pl = p->plan;
  if (p->bal.fewest && pl->nparts == pl->cap) return -1; /* more parts than planned */
  if (!p->bal.fewest) {
    tt_grow(pl->bytes, pl->nparts + 1, pl->cap);
    tt_grow(pl->cuts, pl->nparts + 2, p->cuts_cap);
  }
  if (p->share) pthread_mutex_lock(&p->share->mu);
  pl->bytes[pl->nparts] = bytes;
  pl->cuts[++pl->nparts] = end;
  pl->noversize += oversize != 0;
  if (p->share) {
    pthread_cond_broadcast(&p->share->changed);
    pthread_mutex_unlock(&p->share->mu);
  }
  p->bal.consumed += bytes;
  return 0;
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
  uint64_t carried = dry_bytes(p, 0);
  if (carried > p->step) p->step = carried;
  return 0;
}

static int give_group(planner *p) {
  for (size_t i = 0; i < p->group.n; i++)
    if (dry_emit(p, &p->group.v[i].ev) != 0) return -1;
  return 0;
}

/* Part nparts's aim in the balanced pass: what is left over the parts
 * left; 0 for the fewest pass and for the last part (never cut there). */
static uint64_t aim_of(const planner *p) {
  const tt_cut_plan *f = p->bal.fewest;
  size_t k = p->plan->nparts;
  if (!f || k + 1 >= f->nparts) return 0;
  uint64_t left = p->bal.total > p->bal.consumed ? p->bal.total - p->bal.consumed : 0;
  return left / (f->nparts - k);
}

/* The group of events starting at gs, already given to the sink as they
 * were read (their args beside the reader's cursor), is complete; the next
 * start time is `next` (t1 at the end of the stream). Decides whether the
 * part ends before the group (it does not fit), or, balanced, after it
 * (the part has reached its aim: every part at least its aim, so the aims
 * never grow and the last part is at most total/n). */
static int close_group(planner *p, int64_t next) {
  uint64_t max = p->s->max;
  int64_t gs = p->group.v[0].ev.start;
  if (dry_advance(p, next) != 0) return -1;
  uint64_t after = dry_bytes(p, held_count_after(&p->open, next) +
                                    held_count_after(&p->group, next));
  if (after > p->step + p->before && p->had_events) p->step = after - p->before;
  if (after > max && p->had_events) {
    /* [part start, gs) fits (its bound was taken at gs): cut there and
     * give the group again, to the next part (its args looked up by id:
     * once a part, not once an event). */
    if (plan_add(p, gs, p->before, p->before > max) != 0) return 1;
    if (start_part_at(p, gs) != 0 || give_group(p) != 0 || dry_advance(p, next) != 0) return -1;
    after = dry_bytes(p, held_count_after(&p->open, next) + held_count_after(&p->group, next));
  }
  for (size_t i = 0; i < p->group.n; i++)
    if (p->group.v[i].ev.end > gs) hub_record_hold(tt_vec_add(&p->open), &p->group.v[i].ev);
  held_clear(&p->group);
  uint64_t aim = aim_of(p);
  if (after > max || (aim && after >= aim && next < p->s->t1)) {
    /* Over: this instant alone (with what crosses into it) is over the
     * size, no cut can make the part smaller. Else the aim is reached. */
    if (plan_add(p, next, after, after > max) != 0) return 1;
    return start_part_at(p, next);
  }
  held_keep_after(&p->open, next);
  return 0;
}

/* A group begins at time t: the bound of ending the part just before it. */
static int open_group(planner *p, int64_t t) {
  p->had_events = p->state != NULL && t > p->part.start;
  if (dry_advance(p, t) != 0) return -1;
  p->before = dry_bytes(p, p->open.n);
  return 0;
}

/* No cut of the part being planned falls before t any more (see
 * tt_plan_share.frontier). The writer sets `want` before it waits and
 * this reads it after the store (both sequentially consistent), so a
 * writer that waits for t is woken. */
static void advance_frontier(planner *p, int64_t t) {
  if (!p->share) return;
  atomic_store(&p->share->frontier, t);
  if (t >= atomic_load(&p->share->want)) {
    pthread_mutex_lock(&p->share->mu);
    pthread_cond_broadcast(&p->share->changed);
    pthread_mutex_unlock(&p->share->mu);
  }
}

static int stopped(const planner *p, uint64_t nread) {
  return p->share && (nread & 0xFFF) == 0 && atomic_load(&p->share->stop);
}

/* One pass over r: the plan (its first cut t0 already in place). */
static int plan_pass(planner *p) {
  const tt_plan_spec *s = p->s;
  hub_record ev;
  int rc;
  uint64_t nread = 0;
  while ((rc = hub_reader_next(p->r, &ev)) > 0) {
    if (stopped(p, ++nread)) {
      rc = -1;
      break;
    }
    /* A pass on a thread of its own (share) draws nothing: the writer does. */
    if (!p->share && (nread & 0xFFF) == 0) tt_progress("rows", nread, s->progress_total);
    if (!p->group.n || ev.start > p->group.v[0].ev.start) {
      if (p->group.n && (rc = close_group(p, ev.start)) != 0) {
        rc = rc > 0 ? 1 : -1;
        break;
      }
      /* Cuts to come fall at this start time or after it. */
      advance_frontier(p, ev.start);
      if (open_group(p, ev.start) != 0) {
        rc = -1;
        break;
      }
    }
    hub_record_hold(tt_vec_add(&p->group), &ev);
    if (dry_emit(p, &ev) != 0) {
      rc = -1;
      break;
    }
  }
  if (rc == 0 && p->group.n && (rc = close_group(p, s->t1)) < 0) rc = -1;
  if (rc == 0 && dry_advance(p, s->t1) != 0) rc = -1;
  if (rc == 0) {
    uint64_t last = dry_bytes(p, 0);
    /* The last part ends at t1, unless the stream ended with a cut there. */
    tt_cut_plan *pl = p->plan;
    if ((pl->nparts == 0 || pl->cuts[pl->nparts] < s->t1 || p->state) &&
        plan_add(p, s->t1, last, last > s->max) != 0)
      rc = 1;
  }
  if (dry_end(p) != 0) rc = -1;
  held_free(&p->open);
  held_free(&p->group);
  p->plan->step = p->step;
  return rc;
}

static planner planner_for(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *plan) {
  planner p = {.r = r, .s = s, .plan = plan};
  p.part = *s->proto;
  p.part.start = s->t0;
  p.part.end = INT64_MAX;
  p.part.dry = 1;
  p.part.index = 0;
  p.part.count = 1;
  return p;
}

int tt_plan_fewest(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *plan) {
  memset(plan, 0, sizeof *plan);
  planner p = planner_for(r, s, plan);
  tt_grow(plan->cuts, 1, p.cuts_cap);
  plan->cuts[0] = s->t0;
  if (plan_pass(&p) != 0) { /* the fewest plan never runs out of parts */
    tt_cut_plan_free(plan);
    return -1;
  }
  return 0;
}

int tt_plan_balanced(hub_reader *r, const tt_plan_spec *s, const tt_cut_plan *fewest,
                     tt_cut_plan *plan, tt_plan_share *share) {
  /* Allocated before the lock is taken: out of memory, tt_die on the
   * planning thread runs a cleanup that takes it. */
  int64_t *cuts = tt_calloc(fewest->nparts + 1, sizeof *cuts);
  uint64_t *bytes = tt_calloc(fewest->nparts, sizeof *bytes);
  cuts[0] = s->t0;
  if (share) pthread_mutex_lock(&share->mu);
  *plan = (tt_cut_plan){.cuts = cuts, .bytes = bytes, .cap = fewest->nparts};
  if (share) pthread_mutex_unlock(&share->mu);
  planner p = planner_for(r, s, plan);
  p.share = share;
  p.bal = (balance){.fewest = fewest, .total = tt_cut_plan_total(fewest)};
  return plan_pass(&p);
}

int tt_plan_cuts(hub_reader *r, const char *const *inputs, size_t ninputs, const hub_filter *f,
                 const tt_plan_spec *s, tt_cut_plan *plan) {
  tt_cut_plan fewest;
  int rc = tt_plan_fewest(r, s, &fewest);
  hub_reader_close(r);
  if (rc != 0) return -1;
  if (!tt_plan_balances(&fewest, s->max)) {
    *plan = fewest;
    return 0;
  }
  hub_reader *again = hub_reader_open(inputs, ninputs, f);
  rc = again ? tt_plan_balanced(again, s, &fewest, plan, NULL) : -1;
  hub_reader_close(again);
  if (rc > 0) { /* cannot balance: the fewest plan, as good as it gets */
    tt_cut_plan_free(plan);
    *plan = fewest;
    return 0;
  }
  tt_cut_plan_free(&fewest);
  if (rc != 0) tt_cut_plan_free(plan);
  return rc;
}

int tt_plan_balances(const tt_cut_plan *fewest, uint64_t max) {
  size_t n = fewest->nparts;
  if (n < 2 || fewest->noversize) return 0;
  uint64_t last = fewest->bytes[n - 1];
  return last < max && max - last >= n * fewest->step;
}

int tt_plan_balances_ahead(const tt_cut_plan *fewest, uint64_t max) {
  if (!tt_plan_balances(fewest, max)) return 0;
  uint64_t n = fewest->nparts, room = max - fewest->bytes[n - 1];
  /* room / n >= (n - 1) * step, without overflow */
  return fewest->step == 0 || room / n / (n - 1) >= fewest->step;
}

uint64_t tt_cut_plan_total(const tt_cut_plan *plan) {
  uint64_t t = 0;
  for (size_t k = 0; k < plan->nparts; k++) t += plan->bytes[k];
  return t;
}

void tt_cut_plan_free(tt_cut_plan *plan) {
  free(plan->cuts);
  free(plan->bytes);
  memset(plan, 0, sizeof *plan);
}
