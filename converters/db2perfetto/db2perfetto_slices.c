/* Time order. The reader yields events by start time; Perfetto wants each
 * slice as BEGIN ... END with END written when its time comes, and a
 * sequence's timestamps must not go back. So:
 *  - every open slice waits in a min-heap by end time (ties: the slice
 *    begun later closes first, so ENDs on one track come out LIFO); before
 *    anything at time t is written, every END due at or before t is;
 *  - events at the current timestamp are held back until time moves on:
 *    a recorded flow end (Kineto s/f) arrives after the slices starting at
 *    its time, and can then still be attached to the slice it binds.
 * Memory: open slices (nesting depth per track) plus the events of one
 * timestamp (capped), never the number of events. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2perfetto.h"

/* Held events beyond this are written at once (their time is current:
 * order is kept; late flow ends then fall back to an instant). */
#define PF_MAX_HELD 4096

void pf_slices_init(pf_slices *s) {
  memset(s, 0, sizeof *s);
  s->held_ts = INT64_MIN;
}

void pf_slices_free(pf_slices *s) {
  free(s->pool);
  free(s->free_list);
  free(s->heap);
  free(s->held);
  tt_buf_free(&s->text);
}

static int later(const pf_slices *s, int32_t a, int32_t b) {
  const pf_open *x = &s->pool[a], *y = &s->pool[b];
  if (x->end != y->end) return x->end > y->end;
  return x->order < y->order;
}

static void heap_push(pf_slices *s, int32_t v) {
  tt_grow(s->heap, s->nheap + 1, s->cap_heap);
  size_t i = s->nheap++;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!later(s, s->heap[p], v)) break;
    s->heap[i] = s->heap[p];
    i = p;
  }
  s->heap[i] = v;
}

static int32_t heap_pop(pf_slices *s) {
  int32_t top = s->heap[0];
  int32_t last = s->heap[--s->nheap];
  size_t i = 0, n = s->nheap;
  for (;;) {
    size_t l = 2 * i + 1, m = i;
    int32_t mv = last;
    if (l < n && later(s, mv, s->heap[l])) m = l, mv = s->heap[l];
    if (l + 1 < n && later(s, mv, s->heap[l + 1])) m = l + 1, mv = s->heap[l + 1];
    if (m == i) break;
    s->heap[i] = mv;
    i = m;
  }
  if (n) s->heap[i] = last;
  return top;
}

static int32_t open_alloc(pf_slices *s) {
  if (s->nfree) return s->free_list[--s->nfree];
  if (s->npool == s->cap_pool) { /* two arrays of one capacity, each grown from it */
    size_t cap = s->cap_pool;
    tt_grow(s->free_list, s->npool + 1, cap);
    tt_grow(s->pool, s->npool + 1, s->cap_pool);
  }
  return (int32_t)s->npool++;
}

/* Writes the END of an open slice and takes it off its track's stack. It
 * stays in the heap (marked) until its turn comes there. */
static int close_slice(pf_ctx *c, int32_t o) {
  pf_open *op = &c->sl.pool[o];
  pf_track *tr = &c->tracks.v[op->track];
  if (tr->open != o) {
    /* Cannot happen while placement nests strictly; never write an END
     * that would close another slice than this one. */
    tt_error("%s: internal error: slice end out of order on track %llu", c->part->path,
             (unsigned long long)tr->uuid);
    return -1;
  }
  tr->open = op->below;
  op->closed = 1;
  return pf_write_end(c, op);
}

/* Writes the held events in order. A BEGIN first closes, on its track,
 * what ends at or before its time (those ENDs waited so that a flow end
 * at that time could still find its slice), then opens its slice. */
static int flush_held(pf_ctx *c) {
  pf_slices *s = &c->sl;
  int rc = 0;
  for (size_t i = 0; i < s->nheld && rc == 0; i++) {
    pf_held *h = &s->held[i];
    h->ev.name = s->text.data + h->name_off;
    h->ev.category = s->text.data + h->cat_off;
    if (h->is_slice) {
      pf_track *tr = &c->tracks.v[h->track];
      while (rc == 0 && tr->open >= 0 && s->pool[tr->open].end <= h->ev.start)
        rc = close_slice(c, tr->open);
      if (rc) break;
      int32_t o = open_alloc(s);
      pf_open *op = &s->pool[o];
      memset(op, 0, sizeof *op);
      op->end = h->ev.end;
      op->order = s->order++;
      op->track = h->track;
      op->below = tr->open;
      tr->open = o;
      heap_push(s, o);
    }
    rc = pf_write_held(c, h);
  }
  s->nheld = 0;
  tt_buf_clear(&s->text);
  return rc;
}

int pf_advance(pf_ctx *c, int64_t t) {
  pf_slices *s = &c->sl;
  if (s->nheld && t > s->held_ts && flush_held(c) != 0) return -1;
  /* Ends at exactly t wait: a flow end at t may still want its slice. */
  while (s->nheap && s->pool[s->heap[0]].end < t) {
    int32_t o = heap_pop(s);
    if (!s->pool[o].closed && close_slice(c, o) != 0) return -1;
    s->free_list[s->nfree++] = o;
  }
  return 0;
}

int pf_finish(pf_ctx *c) {
  pf_slices *s = &c->sl;
  if (s->nheld && flush_held(c) != 0) return -1;
  while (s->nheap) {
    int32_t o = heap_pop(s);
    if (!s->pool[o].closed && close_slice(c, o) != 0) return -1;
    s->free_list[s->nfree++] = o;
  }
  return 0;
}

/* A held event: its packet (frame, writer fields, the event's fields, up
 * to 8 flows) and, as annotations and interned strings, its text twice
 * over with a field's worth for each string. An END: frame, timestamp,
 * sequence fields, track uuid, type and its flows, far under 96 bytes. */
#define PF_HELD_BOUND 512
#define PF_END_BOUND 96
uint64_t pf_pending_bound(const pf_ctx *c) {
  const pf_slices *s = &c->sl;
  uint64_t strings = 0; /* name, category, and each arg's name, type, value */
  for (size_t i = 0; i < s->nheld; i++) strings += 2 + 3 * (uint64_t)s->held[i].nargs;
  uint64_t b = s->nheld * (uint64_t)PF_HELD_BOUND + 2 * (uint64_t)s->text.len +
               strings * PF_FIELD_MAX;
  for (size_t i = 0; i < s->nheap; i++) {
    const pf_open *o = &s->pool[s->heap[i]];
    if (!o->closed) b += PF_END_BOUND + 11 * (uint64_t)(o->nin + o->nout);
  }
  return b;
}

pf_held *pf_hold(pf_ctx *c, const hub_record *ev, const pf_place *pl) {
  pf_slices *s = &c->sl;
  if (s->nheld == PF_MAX_HELD && flush_held(c) != 0) return NULL;
  tt_grow(s->held, s->nheld + 1, s->cap_held);
  pf_held *h = &s->held[s->nheld++];
  /* Every field is set below; the flow arrays are read only up to nout
   * and nin (clearing them all cost more than the rest of the hold). */
  h->nargs = 0;
  h->nout = h->nin = 0;
  h->more_out = 0;
  h->flow_instant = 0;
  h->callsite = -1;
  h->ev = *ev;
  h->name_off = s->text.len;
  h->name_len = strlen(ev->name);
  tt_buf_append(&s->text, ev->name, h->name_len + 1);
  h->cat_off = s->text.len;
  h->cat_len = strlen(ev->category);
  tt_buf_append(&s->text, ev->category, h->cat_len + 1);
  h->ev.name = h->ev.category = NULL; /* set from the offsets when written */
  h->ev.link_starts = "";
  /* The args now, beside the reader's cursor: written later they would be
   * a lookup by event id each (what pf_write_held turns into annotations). */
  h->args_off = s->text.len;
  if (!c->o->no_args && ev->event_id != HUB_NULL && ev->kind != HUB_FLOW) {
    hub_arg_view a;
    hub_args_begin(c->r, ev->db, ev->event_id);
    while (hub_args_next(c->r, &a)) {
      tt_buf_append(&s->text, a.name, strlen(a.name) + 1);
      tt_buf_append(&s->text, a.type, strlen(a.type) + 1);
      tt_buf_append(&s->text, a.value, strlen(a.value) + 1);
      h->nargs++;
    }
  }
  h->track = pl->track;
  h->lane_key = pl->lane_key;
  h->is_slice = ev->kind == HUB_REGION || ev->kind == HUB_KERNEL || ev->kind == HUB_COPY ||
                ev->kind == HUB_ALLOC;
  s->held_ts = ev->start;
  return h;
}

pf_held *pf_held_begin_on(pf_ctx *c, const uint64_t *keys, int nkeys) {
  pf_slices *s = &c->sl;
  for (size_t i = s->nheld; i-- > 0;) {
    pf_held *h = &s->held[i];
    if (!h->is_slice) continue;
    for (int k = 0; k < nkeys; k++)
      if (h->lane_key == keys[k]) return h;
  }
  return NULL;
}

pf_open *pf_open_top(pf_ctx *c, uint32_t track) {
  int32_t o = c->tracks.v[track].open;
  return o >= 0 ? &c->sl.pool[o] : NULL;
}
