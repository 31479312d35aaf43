/* Track descriptors, written lazily: a track's descriptor goes out just
 * before its first event, so a part only describes what it uses.
 *   CPU:  process (pid, name) -> thread (pid, tid, name)
 *   GPU:  one process-like group per device (pid TT_GPU_SORT_BASE + index,
 *         as db2json does, so both views agree; a device of another host
 *         or process with that index: tracks.h) -> "GPU 0 · stream 7",
 *         "GPU 0 · nodeB [rank 4] · stream 7" when two hosts have a GPU 0
 *   overflow tracks "... (overlap N)" for intervals that do not nest
 *   counter tracks under their process.
 * uuids are small sequential numbers (index + 1): they cost 1-2 bytes in
 * every event instead of 10 for a hash; uuid 0 is the root descriptor,
 * which only says that process and thread tracks follow their ranks. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2perfetto.h"
#include "cli/tracks.h"

/* Track keys are hashed twice per event (lane, then track): word by
 * word, not bytewise over 32 bytes (~200 instructions each time). */
static uint64_t key_hash(int64_t kind, int64_t a, int64_t b, int64_t c) {
  uint64_t h = tt_hash_mix(0x9e3779b97f4a7c15ULL, (uint64_t)kind);
  h = tt_hash_mix(h, (uint64_t)a);
  h = tt_hash_mix(h, (uint64_t)b);
  return tt_hash_mix(h, (uint64_t)c);
}

void pf_tracks_init(pf_tracks *t) {
  memset(t, 0, sizeof *t);
  t->nesting = tt_nesting_new();
}

void pf_tracks_free(pf_tracks *t) {
  tt_i64map_free(&t->index);
  free(t->v);
  tt_i64map_free(&t->source_index);
  free(t->src);
  tt_nesting_free(t->nesting);
  tt_buf_free(&t->name);
}

int pf_tracks_root(pf_writer *w) {
  pf_track_desc d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  d.has_uuid = 1;
  d.uuid = 0;
  d.has_process_ordering = 1;
  d.process_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__PROCESS_ORDERING__PROCESS_ORDERING_EXPLICIT;
  d.has_thread_ordering = 1;
  d.thread_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__THREAD_ORDERING__THREAD_ORDERING_EXPLICIT;
  pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
  p.track_descriptor = &d;
  return pf_writer_put(w, &p, 0, 0) == 0 ? 0 : -1;
}

static int64_t find(const pf_tracks *t, uint64_t key) {
  int64_t *ix = tt_i64map_get(&t->index, (int64_t)key);
  return ix ? *ix : -1;
}

int64_t pf_track_find(const pf_tracks *t, uint64_t lane_key) {
  return find(t, key_hash('S', (int64_t)lane_key, 0, 0));
}

/* Registers a track and writes its descriptor; returns its index. */
static int64_t add(pf_tracks *t, pf_writer *w, uint64_t key, pf_track_desc *d) {
  tt_grow(t->v, t->n + 1, t->cap);
  int64_t ix = (int64_t)t->n++;
  t->v[ix].uuid = (uint64_t)ix + 1;
  t->v[ix].open = -1;
  tt_i64map_put(&t->index, (int64_t)key, ix);
  d->has_uuid = 1;
  d->uuid = t->v[ix].uuid;
  /* Names from the hub may hold any bytes; protobuf strings are UTF-8. */
  tt_buf clean[3] = {{0}};
  d->name = tt_utf8_clean(d->name, &clean[0]);
  if (d->process) d->process->process_name = tt_utf8_clean(d->process->process_name, &clean[1]);
  if (d->thread) d->thread->thread_name = tt_utf8_clean(d->thread->thread_name, &clean[2]);
  pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_DESCRIPTOR;
  p.track_descriptor = d;
  int rc = pf_writer_put(w, &p, 0, 0);
  for (int i = 0; i < 3; i++) tt_buf_free(&clean[i]);
  return rc == 0 ? ix : -1;
}

static void set_name(pf_track_desc *d, char *name) {
  d->static_or_dynamic_name_case = PERFETTO__PROTOS__TRACK_DESCRIPTOR__STATIC_OR_DYNAMIC_NAME_NAME;
  d->name = name;
}

static int32_t rank(int64_t v) {
  return v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : (int32_t)v;
}

/* The process (or GPU group) track; -1 on error, -2 when there is none. */
static int64_t process_track(pf_tracks *t, pf_writer *w, const tt_track_ref *ref) {
  if (ref->group == HUB_NULL) return -2;
  uint64_t key = key_hash('P', ref->group, 0, 0);
  int64_t ix = find(t, key);
  if (ix >= 0) return ix;
  pf_track_desc d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  Perfetto__Protos__ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;
  pd.has_pid = 1;
  pd.pid = (int32_t)ref->group;
  if (ref->group_name && ref->group_name[0]) pd.process_name = (char *)ref->group_name;
  char *labels[1] = {(char *)ref->gpu_label}; /* "GPU 0", with its host when shared */
  if (ref->is_gpu && ref->gpu_index >= 0) {
    pd.n_process_labels = 1;
    pd.process_labels = labels;
  }
  d.process = &pd;
  d.has_sibling_order_rank = 1;
  d.sibling_order_rank = rank(ref->group_sort);
  /* Its threads, streams and overlap tracks in their ranks' order, the
   * order db2json's sort indexes give. */
  d.has_child_ordering = 1;
  d.child_ordering = PERFETTO__PROTOS__TRACK_DESCRIPTOR__CHILD_TRACKS_ORDERING__EXPLICIT;
  return add(t, w, key, &d);
}

/* Display name of a lane, for its track and its overflow tracks. */
static const char *lane_label(pf_tracks *t, const tt_track_ref *ref) {
  tt_buf_clear(&t->name);
  if (ref->is_gpu) {
    if (ref->gpu_index >= 0)
      tt_buf_printf(&t->name, "%s \xc2\xb7 %s", ref->gpu_label, ref->lane_name);
    else
      tt_buf_printf(&t->name, "%s \xc2\xb7 %s", ref->group_name, ref->lane_name);
  } else if (ref->lane_name && ref->lane_name[0]) {
    tt_buf_puts(&t->name, ref->lane_name);
  } else {
    tt_buf_printf(&t->name, "thread %lld", (long long)ref->lane);
  }
  return t->name.data;
}

/* Hangs a descriptor under track `parent` (none when parent < 0). */
static void set_parent(pf_track_desc *d, const pf_tracks *t, int64_t parent) {
  if (parent < 0) return;
  d->has_parent_uuid = 1;
  d->parent_uuid = t->v[parent].uuid;
}

/* Hangs a descriptor under the process (or GPU group) track of ref, made
 * first when needed; -1 when writing that track failed. */
static int under_process_track(pf_tracks *t, pf_writer *w, const tt_track_ref *ref,
                               pf_track_desc *d) {
  int64_t parent = process_track(t, w, ref);
  if (parent == -1) return -1;
  set_parent(d, t, parent);
  return 0;
}

/* The lane's own track (thread, or GPU stream). */
static int64_t lane_track(pf_tracks *t, pf_writer *w, const tt_track_ref *ref, uint64_t lane_key) {
  uint64_t key = key_hash('S', (int64_t)lane_key, 0, 0);
  int64_t ix = find(t, key);
  if (ix >= 0) return ix;
  pf_track_desc d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  if (under_process_track(t, w, ref, &d) < 0) return -1;
  Perfetto__Protos__ThreadDescriptor td = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;
  if (!ref->is_gpu && ref->group != HUB_NULL) {
    td.has_pid = 1;
    td.pid = (int32_t)ref->group;
    td.has_tid = 1;
    td.tid = ref->lane;
    if (ref->lane_name && ref->lane_name[0]) td.thread_name = (char *)ref->lane_name;
    d.thread = &td;
  } else {
    set_name(&d, (char *)lane_label(t, ref));
  }
  d.has_sibling_order_rank = 1;
  d.sibling_order_rank = rank(ref->lane_sort);
  return add(t, w, key, &d);
}

/* Overflow track `sub` (>= 1) of a lane: a named track beside the lane. */
static int64_t overflow_track(pf_tracks *t, pf_writer *w, const tt_track_ref *ref,
                              uint64_t lane_key, int sub) {
  uint64_t key = key_hash('S', (int64_t)lane_key, sub, 0);
  int64_t ix = find(t, key);
  if (ix >= 0) return ix;
  int64_t base = lane_track(t, w, ref, lane_key);
  if (base < 0) return -1;
  /* A child of a thread track is shown beside it in the same process; a
   * GPU stream's overflow hangs under the GPU group like the stream. */
  int64_t parent = base;
  if (ref->is_gpu) {
    parent = process_track(t, w, ref);
    if (parent == -1) return -1;
  }
  pf_track_desc d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  set_parent(&d, t, parent);
  const char *label = lane_label(t, ref);
  char *name = tt_malloc(strlen(label) + 32);
  sprintf(name, "%s (overlap %d)", label, sub);
  set_name(&d, name);
  d.has_sibling_order_rank = 1;
  d.sibling_order_rank = rank(ref->lane_sort);
  ix = add(t, w, key, &d);
  free(name);
  return ix;
}

static int64_t counter_track(pf_tracks *t, pf_writer *w, const tt_track_ref *ref,
                             const char *name) {
  uint64_t key = key_hash('C', ref->group, (int64_t)tt_hash_bytes(name, strlen(name)), 0);
  int64_t ix = find(t, key);
  if (ix >= 0) return ix;
  pf_track_desc d = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
  if (under_process_track(t, w, ref, &d) < 0) return -1;
  set_name(&d, (char *)(name[0] ? name : "counter"));
  Perfetto__Protos__CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;
  d.counter = &cd;
  return add(t, w, key, &d);
}

static uint64_t lane_key_of(const tt_track_ref *ref) {
  return key_hash('L', ref->is_gpu, ref->group, ref->lane);
}

static uint64_t source_hash(const hub_record *ev) {
  uint64_t h = key_hash(ev->kind, ev->pid, ev->tid, ev->agent_id);
  h = tt_hash_mix(h, (uint64_t)ev->lane_id);
  return tt_hash_mix(h, (uint64_t)ev->db * 2 + (ev->lane_is_queue != 0));
}

static int same_source(const pf_source *s, const hub_record *ev) {
  return s->pid == ev->pid && s->tid == ev->tid && s->agent_id == ev->agent_id &&
         s->lane_id == ev->lane_id && s->db == ev->db && s->lane_is_queue == ev->lane_is_queue &&
         s->kind == ev->kind;
}

/* The lane's own track for a record (creating it when new), without
 * tt_track_of's lookups and name formatting once its source was seen. */
static int64_t source_lane(pf_tracks *t, pf_writer *w, hub_reader *r, const hub_record *ev,
                           uint64_t *lane_key) {
  uint64_t h = source_hash(ev);
  int64_t *ix = tt_i64map_get(&t->source_index, (int64_t)h);
  if (ix && same_source(&t->src[*ix], ev)) {
    *lane_key = t->src[*ix].lane_key;
    return t->src[*ix].track;
  }
  tt_track_ref ref;
  tt_track_of(r, ev, &ref);
  *lane_key = lane_key_of(&ref);
  int64_t lane = lane_track(t, w, &ref, *lane_key);
  if (lane < 0 || ix) return lane; /* ix: hash taken by another source */
  tt_grow(t->src, t->nsrc + 1, t->cap_src);
  t->src[t->nsrc] = (pf_source){.pid = ev->pid, .tid = ev->tid, .agent_id = ev->agent_id,
                                .lane_id = ev->lane_id, .db = ev->db,
                                .lane_is_queue = ev->lane_is_queue, .kind = ev->kind,
                                .track = (uint32_t)lane, .lane_key = *lane_key};
  tt_i64map_put(&t->source_index, (int64_t)h, (int64_t)t->nsrc++);
  return lane;
}

int pf_track_for(pf_tracks *t, pf_writer *w, hub_reader *r, const hub_record *ev,
                 pf_place *out) {
  tt_track_ref ref;
  int64_t ix;
  if (ev->kind == HUB_COUNTER) {
    tt_track_of(r, ev, &ref);
    out->lane_key = lane_key_of(&ref);
    ix = counter_track(t, w, &ref, ev->name);
  } else {
    ix = source_lane(t, w, r, ev, &out->lane_key);
    if (ix >= 0 && ev->kind != HUB_INSTANT && ev->kind != HUB_FLOW) {
      int sub = tt_nesting_place(t->nesting, out->lane_key, ev->start, ev->end);
      if (sub) {
        tt_track_of(r, ev, &ref);
        ix = overflow_track(t, w, &ref, out->lane_key, sub);
      }
    }
  }
  if (ix < 0) return -1;
  out->track = (uint32_t)ix;
  return 0;
}

int pf_flow_lanes(hub_reader *r, const hub_record *ev, uint64_t keys[PF_MAX_LANE_KEYS]) {
  /* The importers put a flow end on the lane it binds to (a thread, or a
   * GPU stream through its track's agent/stream): one lane to look at. */
  tt_track_ref ref;
  tt_track_of(r, ev, &ref);
  keys[0] = lane_key_of(&ref);
  return 1;
}
