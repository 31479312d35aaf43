#include "db2json_tracks.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/hashmap.h"

struct json_tracks {
  tt_nesting *nesting;
  tt_i64map seen;         /* group, lane and overlap-lane keys -> tid */
  int64_t next_overlap;   /* overlap lanes made so far */
  tt_buf label;
};

json_tracks *json_tracks_new(void) {
  json_tracks *jt = tt_calloc(1, sizeof *jt);
  jt->nesting = tt_nesting_new();
  return jt;
}

void json_tracks_free(json_tracks *jt) {
  if (!jt) return;
  tt_nesting_free(jt->nesting);
  tt_i64map_free(&jt->seen);
  tt_buf_free(&jt->label);
  free(jt);
}

static int64_t key_of(uint64_t kind, int64_t a, int64_t b, int64_t c) {
  uint64_t h = tt_hash_mix(kind, (uint64_t)a);
  h = tt_hash_mix(h, (uint64_t)b);
  return (int64_t)tt_hash_mix(h, (uint64_t)c);
}

/* Marks key seen; 1 when it was new. */
static int first_time(json_tracks *jt, int64_t key, int64_t val) {
  if (tt_i64map_get(&jt->seen, key)) return 0;
  tt_i64map_put(&jt->seen, key, val);
  return 1;
}

/* The thread's name as db2perfetto names its track's thread. */
static const char *lane_label(json_tracks *jt, const tt_track_ref *t, int overlap) {
  tt_buf_clear(&jt->label);
  if (t->lane_name && t->lane_name[0])
    tt_buf_puts(&jt->label, t->lane_name);
  else
    tt_buf_printf(&jt->label, "thread %lld", (long long)t->lane);
  if (overlap) tt_buf_printf(&jt->label, " (overlap %d)", overlap);
  return jt->label.data;
}

void json_tracks_place(json_tracks *jt, hub_reader *r, const hub_record *ev, json_place *out) {
  tt_track_of(r, ev, &out->t);
  tt_track_ref *t = &out->t;
  out->overlap = 0;
  out->lane_label = NULL;
  out->new_group = first_time(jt, key_of('P', t->group, 0, 0), 0);
  int64_t lane_key = key_of('L', t->group, t->lane, 0);
  out->new_lane = first_time(jt, lane_key, t->lane);
  int interval = ev->kind == HUB_REGION || ev->kind == HUB_KERNEL || ev->kind == HUB_COPY ||
                 ev->kind == HUB_ALLOC;
  if (interval) out->overlap = tt_nesting_place(jt->nesting, (uint64_t)lane_key, ev->start, ev->end);
  if (out->overlap) {
    int64_t key = key_of('O', t->group, t->lane, out->overlap);
    int64_t *tid = tt_i64map_get(&jt->seen, key);
    out->new_lane = !tid;
    if (!tid) {
      tt_i64map_put(&jt->seen, key, JSON_OVERLAP_TID_BASE + jt->next_overlap++);
      tid = tt_i64map_get(&jt->seen, key);
    }
    if (out->new_lane) out->lane_label = lane_label(jt, t, out->overlap);
    t->lane = *tid;
  } else if (out->new_lane) {
    out->lane_label = lane_label(jt, t, 0);
  }
}
