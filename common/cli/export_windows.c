/* Every window of a window split in one pass (export_windows.h). */
#include "cli/export_windows.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/util.h"
#include "base/vec.h"

typedef struct windows {
  tt_part_writer *w;
  hub_reader *r;
  tt_cut_source *src;
  uint64_t *bounds;
  int end_known;  /* part.end is the window's end (else INT64_MAX: see settle) */
  uint64_t early; /* events written before their window's end was planned */
  TT_VEC(hub_held_record) carry; /* events crossing the window's end */
} windows;

/* The current window's end, from the cut source (which may wait for its
 * planner); -1 when planning failed (said). */
static int learn_end(windows *ws) {
  tt_part_writer *w = ws->w;
  int64_t i = w->part.index, end;
  uint64_t bound;
  if (ws->src->next(ws->src, i, &end, &bound) != 1) return -1;
  w->part.end = end;
  ws->end_known = 1;
  if (ws->bounds) ws->bounds[i] = bound;
  if (w->o->max_part_size && bound > w->o->max_part_size)
    tt_part_warn_oversize(w->o, i, bound, w->part.start);
  return 0;
}

/* Names window i, starting where the last one ended; its end is asked for
 * now, or, planned ahead, when an event needs it (settle). */
static int open_window(windows *ws, int64_t i) {
  tt_part_writer *w = ws->w;
  char tag[48];
  tt_part_window_tag(w, i, tag, sizeof tag);
  if (i && !ws->end_known && learn_end(ws) != 0) return -1;
  int64_t start = i ? w->part.end : ws->src->start;
  tt_part_name(w, i, ws->src->count, start, INT64_MAX, HUB_NULL, tag);
  ws->end_known = 0;
  return ws->src->reach ? 0 : learn_end(ws);
}

/* The time the window's end must be at or after for `ev` to be written the
 * same whatever the end: after its start, not before its end (no clip, no
 * carry), after its arrows' other ends (the sinks count those before the
 * end). */
static int64_t end_needed(const hub_record *ev) {
  int64_t t = ev->start + 1;
  if (ev->end > t) t = ev->end;
  if (ev->link_ts != HUB_NULL) {
    if (ev->link_ts >= t) t = ev->link_ts + 1;
    if (ev->link_last >= t) t = ev->link_last + 1;
  }
  return t;
}

/* Before `ev` goes to a window whose end is not known yet (planned ahead):
 * waits until the planner has passed end_needed(ev), or has decided the
 * end (then known). -1 when planning failed (said). */
static int settle(windows *ws, const hub_record *ev) {
  if (ws->end_known) return 0;
  int rc = ws->src->reach(ws->src, ws->w->part.index, end_needed(ev));
  ws->early += rc == 0;
  return rc < 0 ? -1 : rc == 1 ? learn_end(ws) : 0;
}

static void carry_push(windows *ws, const hub_record *ev) {
  hub_held_record *c = tt_vec_add(&ws->carry);
  hub_record_hold(c, ev);
  c->ev.link_starts = ""; /* re-emitted clipped: no arrow starts there */
}

/* Opens the next window: re-emits, clipped, what the last one carried. */
static int carry_into(windows *ws) {
  size_t kept = 0;
  int rc = 0;
  for (size_t i = 0; i < ws->carry.n; i++) {
    hub_held_record c = ws->carry.v[i];
    if (rc == 0 && c.ev.end > ws->w->part.start) {
      hub_record ev = c.ev;
      rc = settle(ws, &ev);
      if (rc == 0) rc = tt_part_emit(ws->w, ws->r, &ev);
      if (c.ev.end > ws->w->part.end) {
        ws->carry.v[kept++] = c;
        continue;
      }
    }
    hub_record_release(&c);
  }
  ws->carry.n = kept;
  return rc;
}

static int stream(windows *ws) {
  tt_part_writer *w = ws->w;
  hub_record ev;
  int64_t i = 0, count = ws->src->count;
  if (open_window(ws, 0) != 0) return -1;
  int rc;
  while ((rc = hub_reader_next(ws->r, &ev)) > 0) {
    if (settle(ws, &ev) != 0) return -1;
    while (ev.start >= w->part.end && i + 1 < count) {
      if (tt_part_end(w, ws->r) != 0) return -1;
      i++;
      if (open_window(ws, i) != 0 || carry_into(ws) != 0 || settle(ws, &ev) != 0) return -1;
    }
    int64_t end = ev.end;
    if (tt_part_emit(w, ws->r, &ev) != 0) return -1;
    if (end > w->part.end && i + 1 < count) {
      hub_record whole = ev;
      whole.end = end;
      whole.clipped &= ~HUB_CLIP_END;
      carry_push(ws, &whole);
    }
  }
  if (rc < 0) return -1;
  /* Trailing windows (empty, or holding only carried events). */
  for (;;) {
    if ((!ws->end_known && learn_end(ws) != 0) || tt_part_end(w, ws->r) != 0) return -1;
    if (++i >= count) break;
    if (open_window(ws, i) != 0 || carry_into(ws) != 0) return -1;
  }
  /* For the tests: the writer wrote behind the planner, not after it. */
  if (ws->src->reach && getenv("TT_SPLIT_TRACE"))
    fprintf(stderr, "split-write: %llu events written before their part's end was planned\n",
            (unsigned long long)ws->early);
  return ws->src->finish(ws->src);
}

int tt_write_windows(tt_part_writer *w, hub_reader *r, tt_cut_source *src, uint64_t *bounds) {
  windows ws = {.w = w, .r = r, .src = src, .bounds = bounds};
  int rc = stream(&ws);
  for (size_t i = 0; i < ws.carry.n; i++) hub_record_release(&ws.carry.v[i]);
  tt_vec_free(&ws.carry);
  return rc;
}
