/* One Kineto event → hub rows. The mapping (schema/README.md, "Kineto"):
 *   X on the CPU → rocpd_region; X on the GPU → rocpd_kernel_dispatch
 *   (memcpy → rocpd_memory_copy) on a stream; B/E → region; i/I/n →
 *   sample on the thread's "instants" track; C → counter samples; M →
 *   process/thread names and extdata; s/t/f → flow ends. Every arg goes to
 *   rocpd_arg; unknown event keys too, as "kineto.<key>". Times are written
 *   relative to baseTimeNanoseconds and shifted once at the end, because
 *   most traces give that key after the events. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "base/progress.h"
#include "base/vec.h"
#include "kineto2db.h"

/* Non-numeric pid/tid strings ("Spans", "stream 7") get ids from here on,
 * far above any OS pid/tid. */
#define SYNTHETIC_ID_BASE 0x7f000000LL

static const kv *field(const kineto *k, int f) {
  return k->ev.f[f].type == KV_NONE ? NULL : &k->ev.f[f];
}

/* Text of a field (string or number as written), NULL when absent. */
static const char *field_text(const kineto *k, int f) {
  const kv *v = field(k, f);
  return v ? v->text.data : NULL;
}

static const kv *arg(const kineto *k, const char *name) {
  for (size_t i = 0; i < k->ev.nargs; i++)
    if (strcmp(k->ev.args[i].name.data, name) == 0) return &k->ev.args[i].val;
  return NULL;
}

/* An integer from a number or a numeric string ("24572"). */
static int to_int(const kv *v, int64_t *out) {
  if (!v) return 0;
  if (v->type == KV_NUMBER) return tt_decimal_to_int_scaled(v->text.data, v->text.len, 1, out) == 0;
  if (v->type != KV_STRING || v->text.len == 0 || v->text.len > 20) return 0;
  const char *s = v->text.data;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == v->text.len) return 0;
  for (size_t j = i; j < v->text.len; j++)
    if (s[j] < '0' || s[j] > '9') return 0;
  return tt_decimal_to_int_scaled(s, v->text.len, 1, out) == 0;
}

/* Microsecond text → ns, exactly. */
static int to_ns(const kv *v, int64_t *out) {
  if (!v || (v->type != KV_NUMBER && v->type != KV_STRING)) return 0;
  return tt_decimal_to_int_scaled(v->text.data, v->text.len, 1000, out) == 0;
}

static void json_of(tt_buf *b, const kv *v) {
  if (v->type == KV_STRING)
    tt_json_string(b, v->text.data, v->text.len);
  else if (v->type == KV_NONE)
    tt_buf_puts(b, "null");
  else
    tt_buf_append(b, v->text.data, v->text.len);
}

/* The type of a number no int64 or double may hold (an id beyond int64,
 * 1e400): a string when none does, counted; it is kept as written. */
static hub_arg_type number_type(kineto *k, const kv *v) {
  const char *t = v->text.data;
  if (!strpbrk(t, ".eE")) {
    int64_t x;
    if (tt_decimal_to_int_scaled(t, v->text.len, 1, &x) == 0) return HUB_ARG_INT;
  } else if (isfinite(strtod(t, NULL))) {
    return HUB_ARG_DOUBLE;
  }
  k->warn_big_number++;
  return HUB_ARG_STRING;
}

static hub_arg_type arg_type(kineto *k, const kv *v) {
  switch (v->type) {
  case KV_STRING: return HUB_ARG_STRING;
  case KV_NUMBER: {
    /* short integers and plain decimals, the common case, need no check */
    const char *x = strpbrk(v->text.data, ".eE");
    if (!x ? v->text.len < 19 : *x == '.' && v->text.len < 300 && !strpbrk(x + 1, "eE"))
      return x ? HUB_ARG_DOUBLE : HUB_ARG_INT;
    return number_type(k, v);
  }
  case KV_BOOL: return HUB_ARG_BOOL;
  case KV_NULL: return HUB_ARG_NULL;
  default: return HUB_ARG_JSON;
  }
}

#define USED(f) (1u << (f))
/* Fields each phase maps; any other field present is kept as an arg. */
#define USED_COMMON (USED(F_PH) | USED(F_PID) | USED(F_TID) | USED(F_TS))
#define USED_X (USED_COMMON | USED(F_CAT) | USED(F_NAME) | USED(F_DUR))
#define USED_B (USED_COMMON | USED(F_CAT) | USED(F_NAME))
#define USED_E USED_COMMON
#define USED_I (USED_COMMON | USED(F_CAT) | USED(F_NAME) | USED(F_S))

static void write_arg(kineto *k, int64_t event_id, int pos, const char *prefix,
                      const tt_buf *name, const kv *val) {
  tt_buf_clear(&k->tmp2);
  tt_buf_puts(&k->tmp2, prefix);
  tt_buf_append(&k->tmp2, name->data, name->len);
  hub_arg(k->w, event_id, pos, arg_type(k, val), k->tmp2.data, val->text.data);
}

/* Writes every arg, then every unknown event key and every known field
 * the phase did not use (as "kineto.<key>"), from position pos. Returns
 * the next position. */
static int write_args(kineto *k, int64_t event_id, int pos, unsigned used) {
  for (size_t i = 0; i < k->ev.nargs; i++) {
    const k_arg *a = &k->ev.args[i];
    hub_arg(k->w, event_id, pos++, arg_type(k, &a->val), a->name.data, a->val.text.data);
  }
  for (size_t i = 0; i < k->ev.nextra; i++)
    write_arg(k, event_id, pos++, "kineto.", &k->ev.extra[i].name, &k->ev.extra[i].val);
  for (int f = 0; f < F_COUNT; f++) {
    if ((used & USED(f)) || k->ev.f[f].type == KV_NONE) continue;
    tt_buf name = {0};
    tt_buf_puts(&name, k_field_names[f]);
    write_arg(k, event_id, pos++, "kineto.", &name, &k->ev.f[f]);
    tt_buf_free(&name);
  }
  return pos;
}

static int64_t synthetic_id(tt_strmap *map, const kv *v, int *created) {
  const char *key = v->text.data;
  int64_t *id = tt_strmap_get(map, key);
  *created = !id;
  if (id) return *id;
  int64_t n = SYNTHETIC_ID_BASE + (int64_t)map->count;
  tt_strmap_put(map, key, n);
  return n;
}

/* The pid of the current event; *numeric tells whether the trace gave a
 * number (an OS pid or a device) rather than a label such as "Spans". */
static int64_t resolve_pid(kineto *k, int *numeric) {
  const kv *v = field(k, F_PID);
  int64_t pid = 0;
  int num = to_int(v, &pid);
  if (numeric) *numeric = num || !v;
  if (num || !v) return pid;
  int created;
  pid = synthetic_id(&k->syn_pids, v, &created);
  if (created) {
    /* The label names the process (an M process_name may rename it later)
     * and is kept as written. */
    hub_process_name(k->w, pid, v->text.data);
    tt_buf_clear(&k->tmp);
    json_of(&k->tmp, v);
    hub_process_extdata(k->w, pid, "kineto_pid", k->tmp.data);
  }
  return pid;
}

static int64_t resolve_tid(kineto *k, int64_t pid) {
  const kv *v = field(k, F_TID);
  int64_t tid = 0;
  if (!v || to_int(v, &tid)) return tid;
  int created;
  tid = synthetic_id(&k->syn_tids, v, &created);
  if (created) {
    hub_thread_name(k->w, pid, tid, v->text.data);
    tt_buf_clear(&k->tmp);
    json_of(&k->tmp, v);
    hub_thread_extdata(k->w, pid, tid, "kineto_tid", k->tmp.data);
  }
  return tid;
}

static void saw_time(kineto *k, int64_t t) {
  if (t > k->last_ts) k->last_ts = t;
}

/* ts of the current event; counts and returns 0 when it has none. */
static int event_ts(kineto *k, int64_t *ts) {
  if (to_ns(field(k, F_TS), ts)) {
    saw_time(k, *ts);
    return 1;
  }
  k->warn_no_ts++;
  return 0;
}

static int64_t correlation(const kineto *k) {
  int64_t c;
  return to_int(arg(k, "correlation"), &c) ? c : HUB_NULL;
}

static void mark(tt_i64map *m, int64_t pid) {
  if (!tt_i64map_get(m, pid)) tt_i64map_put(m, pid, 1);
}

static int is_gpu_category(const char *cat) {
  static const char *const gpu[] = {"kernel",      "gpu_memcpy",          "gpu_memset",
                                    "gpu_user_annotation", "cuda_profiler_range",
                                    "Kernel",      "Memcpy",              "Memset",
                                    "mtia_ccp_events"};
  if (!cat) return 0;
  for (size_t i = 0; i < sizeof gpu / sizeof *gpu; i++)
    if (strcmp(cat, gpu[i]) == 0) return 1;
  return 0;
}

/* "[864, 1, 1]" → up to three integers; missing ones stay HUB_NULL. */
static void dims(const kv *v, int64_t out[3]) {
  if (!v || v->type != KV_JSON || v->text.data[0] != '[') return;
  const char *p = v->text.data + 1;
  for (int i = 0; i < 3; i++) {
    char *end;
    long long x = strtoll(p, &end, 10);
    if (end == p || (*end != ',' && *end != ']')) return;
    out[i] = x;
    if (*end == ']') return;
    p = end + 1;
  }
}

/* "stream 7" → 7. */
static int trailing_number(const kv *v, int64_t *out) {
  if (!v || v->type != KV_STRING) return 0;
  size_t e = v->text.len;
  while (e > 0 && v->text.data[e - 1] == ' ') e--;
  size_t b = e;
  while (b > 0 && v->text.data[b - 1] >= '0' && v->text.data[b - 1] <= '9') b--;
  if (b == e || e - b > 18) return 0;
  return tt_decimal_to_int_scaled(v->text.data + b, e - b, 1, out) == 0;
}

/* The GPU agent and stream ("stream N") of an event on a GPU pid: the
 * device from args.device (else the pid), the stream from the numeric tid
 * (what Kineto's flow ends carry too: a sync with tid -1 says stream
 * 4294967295 in its args), else args.stream, else the number a tid
 * string ends with ("stream 7"). */
static void gpu_lane(kineto *k, int64_t pid, int64_t *agent, int64_t *stream_id) {
  int64_t device = pid;
  to_int(arg(k, "device"), &device);
  int64_t stream;
  int numbered = to_int(field(k, F_TID), &stream) || to_int(arg(k, "stream"), &stream) ||
                 trailing_number(field(k, F_TID), &stream);
  /* A numbered lane seen lately: the same agent and stream rows (the
   * writer would find them by formatting and looking up their keys). */
  struct k_lane *slot = &k->lanes[(uint64_t)(pid ^ device * 31 ^ stream * 977) % 8];
  if (numbered && slot->used && slot->pid == pid && slot->device == device &&
      slot->stream == stream) {
    *agent = slot->agent;
    *stream_id = slot->stream_id;
    return;
  }
  *agent = hub_gpu_agent(k->w, pid, device);
  tt_buf lane = {0}, ext = {0};
  if (numbered) {
    tt_buf_printf(&lane, "stream %lld", (long long)stream);
    tt_buf_printf(&ext, "{\"device\":%lld,\"stream\":%lld}", (long long)device,
                  (long long)stream);
  } else {
    const char *t = field_text(k, F_TID);
    tt_buf_puts(&lane, t ? t : "stream");
    tt_buf_printf(&ext, "{\"device\":%lld}", (long long)device);
  }
  *stream_id = hub_stream(k->w, pid, lane.data, ext.data);
  tt_buf_free(&lane);
  tt_buf_free(&ext);
  if (numbered)
    *slot = (struct k_lane){pid, device, stream, *agent, *stream_id, 1};
}

static void gpu_work(kineto *k, const char *cat, const char *name, int64_t ts, int64_t end,
                     int64_t corr) {
  int numeric;
  int64_t pid = resolve_pid(k, &numeric);
  mark(&k->gpu_pids, pid);
  int64_t agent, stream_id;
  gpu_lane(k, pid, &agent, &stream_id);

  int64_t ev = hub_event(k->w, cat ? cat : "", corr, NULL);
  write_args(k, ev, 0, USED_X);
  if (cat && strcmp(cat, "gpu_user_annotation") == 0) {
    /* A user's range as the GPU ran it (record_function seen from the
     * stream), not work of its own: a region on the stream's lane thread,
     * so that rocpd counts no kernel for it and exporters draw it on the
     * stream around its kernels. */
    hub_region(k->w, pid, hub_gpu_lane_thread(k->w, pid, agent, stream_id), ts, end, name, ev,
               NULL);
  } else if (cat && (strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "Memcpy") == 0)) {
    hub_copy_row c;
    hub_copy_row_init(&c);
    c.pid = pid;
    c.start = ts;
    c.end = end;
    c.name = name;
    int64_t bytes;
    if (to_int(arg(k, "bytes"), &bytes)) c.size = bytes;
    /* The direction is only in the name ("Memcpy HtoD (Pageable -> Device)"). */
    if (strstr(name, "HtoD") || strstr(name, "DtoD")) c.dst_agent_id = agent;
    if (strstr(name, "DtoH") || strstr(name, "DtoD")) c.src_agent_id = agent;
    c.stream_id = stream_id;
    c.event_id = ev;
    hub_memory_copy(k->w, &c);
  } else {
    hub_kernel_row r;
    hub_kernel_row_init(&r);
    r.pid = pid;
    r.agent_id = agent;
    r.kernel_id = hub_kernel_symbol(k->w, pid, name, name);
    r.dispatch_id = corr != HUB_NULL ? corr : ++k->next_dispatch;
    r.stream_id = stream_id;
    r.start = ts;
    r.end = end;
    dims(arg(k, "block"), r.workgroup);
    dims(arg(k, "grid"), r.grid);
    /* rocpd's grid_size counts work-items (as rocprofv3 and nvvp2db write
     * it); Kineto's "grid" counts blocks and stays as written in the args. */
    for (int i = 0; i < 3; i++)
      if (r.grid[i] != HUB_NULL && r.workgroup[i] != HUB_NULL &&
          __builtin_mul_overflow(r.grid[i], r.workgroup[i], &r.grid[i]))
        r.grid[i] = HUB_NULL;
    r.event_id = ev;
    hub_kernel_dispatch(k->w, &r);
  }
}

static void complete_event(kineto *k) {
  int64_t ts, dur = 0, end;
  if (!event_ts(k, &ts)) return;
  if (field(k, F_DUR) && !to_ns(field(k, F_DUR), &dur)) {
    k->warn_bad_time++;
    dur = 0;
  }
  if (dur < 0) { /* a hub interval never ends before it starts */
    k->warn_end_before_start++;
    dur = 0;
  }
  if (__builtin_add_overflow(ts, dur, &end)) {
    k->warn_bad_time++;
    end = ts;
  }
  saw_time(k, end);
  const char *cat = field_text(k, F_CAT);
  const char *name = field_text(k, F_NAME);
  if (!name) name = "";
  int64_t corr = correlation(k);

  int gpu = is_gpu_category(cat);
  int64_t pid, device;
  if (!gpu && arg(k, "device") && arg(k, "stream") && to_int(field(k, F_PID), &pid) &&
      to_int(arg(k, "device"), &device) && pid == device)
    gpu = 1;
  k->last_x_region = !gpu;
  if (gpu) {
    gpu_work(k, cat, name, ts, end, corr);
    return;
  }
  int numeric;
  pid = resolve_pid(k, &numeric);
  int64_t tid = resolve_tid(k, pid);
  k->last_x_pid = pid;
  k->last_x_tid = tid;
  if (numeric) mark(&k->cpu_pids, pid);
  int64_t ev = hub_event(k->w, cat ? cat : "", corr, NULL);
  write_args(k, ev, 0, USED_X);
  hub_region(k->w, pid, tid, ts, end, name, ev, NULL);
}

static k_stack *thread_stack(kineto *k, int64_t pid, int64_t tid, int create) {
  tt_buf_clear(&k->tmp);
  tt_buf_printf(&k->tmp, "%lld %lld", (long long)pid, (long long)tid);
  int64_t *ix = tt_strmap_get(&k->stack_index, k->tmp.data);
  if (ix) return &k->stacks[*ix];
  if (!create) return NULL;
  tt_grow(k->stacks, k->nstacks + 1, k->cap_stacks);
  k_stack *s = &k->stacks[k->nstacks];
  memset(s, 0, sizeof *s);
  s->pid = pid;
  s->tid = tid;
  tt_strmap_put(&k->stack_index, k->tmp.data, (int64_t)k->nstacks++);
  return s;
}

/* The time and thread of a B or instant event: 0 (skipped) without a
 * usable ts; a numeric pid is marked a CPU process. */
static int cpu_event_at(kineto *k, int64_t *ts, int64_t *pid, int64_t *tid) {
  if (!event_ts(k, ts)) return 0;
  int numeric;
  *pid = resolve_pid(k, &numeric);
  *tid = resolve_tid(k, *pid);
  if (numeric) mark(&k->cpu_pids, *pid);
  return 1;
}

/* B opens a region on its thread: the event and its args are written now,
 * the region row when the matching E gives the end. */
static void begin_event(kineto *k) {
  int64_t ts, pid, tid;
  if (!cpu_event_at(k, &ts, &pid, &tid)) return;
  const char *cat = field_text(k, F_CAT);
  const char *name = field_text(k, F_NAME);
  int64_t ev = hub_event(k->w, cat ? cat : "", correlation(k), NULL);
  int nargs = write_args(k, ev, 0, USED_B);
  k_stack *s = thread_stack(k, pid, tid, 1);
  tt_grow(s->items, s->n + 1, s->cap);
  s->items[s->n++] = (k_open){ts, ev, nargs, tt_strdup(name ? name : "")};
}

static void end_event(kineto *k) {
  int64_t ts;
  if (!event_ts(k, &ts)) return;
  int64_t pid = resolve_pid(k, NULL);
  int64_t tid = resolve_tid(k, pid);
  k_stack *s = thread_stack(k, pid, tid, 0);
  if (!s || s->n == 0) {
    k->warn_unmatched_e++;
    return;
  }
  k_open *o = &s->items[--s->n];
  write_args(k, o->event_id, o->nargs, USED_E); /* E's args join B's */
  if (ts < o->start) {
    k->warn_end_before_start++;
    ts = o->start;
  }
  hub_region(k->w, pid, tid, o->start, ts, o->name, o->event_id, NULL);
  free(o->name);
}

/* i/I/n, and phases this importer does not know (kept the same way, with
 * "ph" in the sample's extdata so nothing is lost). */
static void instant_event(kineto *k, int other) {
  int64_t ts, pid, tid;
  if (!cpu_event_at(k, &ts, &pid, &tid)) return;
  hub_touch_thread(k->w, pid, tid, ts, ts);
  struct k_track *slot = &k->tracks[(uint64_t)(pid ^ tid * 31) % 8];
  if (!slot->used || slot->pid != pid || slot->tid != tid)
    *slot = (struct k_track){pid, tid,
                             hub_track(k->w, pid, tid, "instants", HUB_TRACK_INSTANT), 1};
  int64_t track = slot->track;
  const char *cat = field_text(k, F_CAT);
  int64_t ev = hub_event(k->w, cat ? cat : "instant", correlation(k), NULL);
  write_args(k, ev, 0, other ? USED_I | USED(F_PH) : USED_I);
  tt_buf ext = {0};
  tt_buf_puts(&ext, "{\"name\":");
  const kv *name = field(k, F_NAME);
  if (name && name->type == KV_STRING)
    json_of(&ext, name);
  else
    tt_json_string(&ext, name ? name->text.data : "", name ? name->text.len : 0);
  if (field(k, F_S)) {
    tt_buf_puts(&ext, ",\"s\":");
    json_of(&ext, field(k, F_S));
  }
  if (other) {
    tt_buf_puts(&ext, ",\"ph\":");
    const kv *ph = field(k, F_PH);
    if (ph)
      json_of(&ext, ph);
    else
      tt_buf_puts(&ext, "null");
  }
  tt_buf_putc(&ext, '}');
  hub_sample(k->w, track, ts, ev, ext.data);
  tt_buf_free(&ext);
}

static void counter_event(kineto *k) {
  int64_t ts;
  if (!event_ts(k, &ts)) return;
  int64_t pid = resolve_pid(k, NULL);
  const char *name = field_text(k, F_NAME);
  if (!name) name = "";
  int only_self = k->ev.nargs == 1 && strcmp(k->ev.args[0].name.data, name) == 0;
  for (size_t i = 0; i < k->ev.nargs; i++) {
    const k_arg *a = &k->ev.args[i];
    if (a->val.type != KV_NUMBER) {
      k->warn_counter_value++;
      continue;
    }
    tt_buf_clear(&k->tmp2);
    tt_buf_puts(&k->tmp2, name);
    if (!only_self) {
      tt_buf_putc(&k->tmp2, '.');
      tt_buf_append(&k->tmp2, a->name.data, a->name.len);
    }
    double value = strtod(a->val.text.data, NULL);
    if (!isfinite(value)) { /* 1e999: no JSON number can hold it */
      k->warn_counter_value++;
      continue;
    }
    int64_t track = hub_counter_track(k->w, pid, k->tmp2.data);
    hub_counter_sample(k->w, track, ts, value, "counter");
  }
  k->warn_dropped_args += k->ev.nextra;
}

/* Writes an extdata member once per (pid[, tid], key): traces repeat their
 * metadata events and a JSON object must not repeat a key. */
static void extdata_once(kineto *k, int64_t pid, int64_t tid, const char *key,
                         const char *json) {
  tt_buf seen = {0};
  tt_buf_printf(&seen, "%lld\x1f%lld\x1f%s", (long long)pid,
                (long long)(tid == HUB_NULL ? -1 : tid), key);
  if (tid == HUB_NULL) tt_buf_puts(&seen, "\x1fp");
  if (!tt_strmap_get(&k->ext_seen, seen.data)) {
    tt_strmap_put(&k->ext_seen, seen.data, 1);
    if (tid == HUB_NULL)
      hub_process_extdata(k->w, pid, key, json);
    else
      hub_thread_extdata(k->w, pid, tid, key, json);
  }
  tt_buf_free(&seen);
}

static void metadata_event(kineto *k) {
  const char *what = field_text(k, F_NAME);
  if (!what) what = "";
  int64_t pid = resolve_pid(k, NULL);
  const kv *name = arg(k, "name");
  tt_buf json = {0};
  size_t used = 1;
  if (strcmp(what, "process_name") == 0 && name) {
    if (name->type != KV_STRING) json_of(&json, name);
    hub_process_name(k->w, pid, name->type == KV_STRING ? name->text.data : json.data);
  } else if (strcmp(what, "thread_name") == 0 && name) {
    int64_t tid = resolve_tid(k, pid);
    if (name->type != KV_STRING) json_of(&json, name);
    hub_thread_name(k->w, pid, tid, name->type == KV_STRING ? name->text.data : json.data);
  } else if (strcmp(what, "process_sort_index") == 0 && arg(k, "sort_index")) {
    json_of(&json, arg(k, "sort_index"));
    extdata_once(k, pid, HUB_NULL, "sort_index", json.data);
  } else if (strcmp(what, "thread_sort_index") == 0 && arg(k, "sort_index")) {
    int64_t tid = resolve_tid(k, pid);
    json_of(&json, arg(k, "sort_index"));
    extdata_once(k, pid, tid, "sort_index", json.data);
  } else if (strcmp(what, "process_labels") == 0 && arg(k, "labels")) {
    const kv *labels = arg(k, "labels");
    json_of(&json, labels);
    extdata_once(k, pid, HUB_NULL, "labels", json.data);
    if (labels->type == KV_STRING && strcmp(labels->text.data, "CPU") == 0)
      mark(&k->cpu_pids, pid);
    /* A GPU's pseudo-process, even one that ran nothing: folded into the
     * owner so it does not appear as an empty process. */
    if (labels->type == KV_STRING && strncmp(labels->text.data, "GPU", 3) == 0)
      mark(&k->gpu_pids, pid);
  } else {
    /* Any other metadata: its args object under its own name. */
    tt_buf_putc(&json, '{');
    for (size_t i = 0; i < k->ev.nargs; i++) {
      if (i) tt_buf_putc(&json, ',');
      tt_json_string(&json, k->ev.args[i].name.data, k->ev.args[i].name.len);
      tt_buf_putc(&json, ':');
      json_of(&json, &k->ev.args[i].val);
    }
    tt_buf_putc(&json, '}');
    extdata_once(k, pid, HUB_NULL, what, json.data);
    used = k->ev.nargs;
  }
  if (k->ev.nargs > used) k->warn_dropped_args += k->ev.nargs - used;
  k->warn_dropped_args += k->ev.nextra;
  tt_buf_free(&json);
}

static int64_t flow_id(const kv *v) {
  int64_t id;
  if (!v) return HUB_NULL;
  if (to_int(v, &id)) return id;
  if (v->type == KV_STRING && v->text.len > 2 && v->text.data[0] == '0' &&
      (v->text.data[1] == 'x' || v->text.data[1] == 'X')) {
    char *end;
    unsigned long long x = strtoull(v->text.data + 2, &end, 16);
    if (*end == '\0') return (int64_t)(x & INT64_MAX);
  }
  /* Any other id: a stable hash, so both ends still pair up. */
  return (int64_t)(tt_hash_bytes(v->text.data, v->text.len) & INT64_MAX);
}

static void flow_event(kineto *k, char phase) {
  int64_t ts;
  if (!event_ts(k, &ts)) return;
  int64_t pid = resolve_pid(k, NULL);
  const char *cat = field_text(k, F_CAT);
  const char *name = field_text(k, F_NAME);
  const char *bp = field_text(k, F_BP);
  /* A device's pid may hold calls as well as GPU work: an end right after
   * a call on its own thread binds to that call, on that thread. */
  int on_call = k->last_x_region && k->last_x_pid == pid && resolve_tid(k, pid) == k->last_x_tid;
  if (!on_call && (tt_i64map_get(&k->gpu_pids, pid) || tt_i64map_get(&k->device_pids, pid))) {
    /* The GPU end of a flow (Kineto writes it right after the GPU event it
     * binds to): on that GPU stream, so exporters draw it there. */
    int64_t agent, stream_id;
    gpu_lane(k, pid, &agent, &stream_id);
    hub_flow_end_gpu(k->w, pid, agent, stream_id, ts, phase, cat ? cat : "", name ? name : "",
                     flow_id(field(k, F_ID)), bp && strcmp(bp, "e") == 0);
  } else {
    hub_flow_end(k->w, pid, resolve_tid(k, pid), ts, phase, cat ? cat : "", name ? name : "",
                 flow_id(field(k, F_ID)), bp && strcmp(bp, "e") == 0);
  }
  k->warn_dropped_args += k->ev.nargs + k->ev.nextra;
}

void kineto_emit_event(kineto *k) {
  const char *ph = field_text(k, F_PH);
  char p = ph && ph[0] && !ph[1] ? ph[0] : '?';
  switch (p) {
  case 'X': complete_event(k); break;
  case 'B': begin_event(k); break;
  case 'E': end_event(k); break;
  case 'i': case 'I': case 'n': instant_event(k, 0); break;
  case 'C': counter_event(k); break;
  case 'M': metadata_event(k); break;
  case 's': case 't': case 'f': flow_event(k, p); break;
  default:
    k->warn_other_phase++;
    instant_event(k, 1);
  }
}

void kineto_device_properties(kineto *k, const char *json, const kv *id, const kv *name) {
  int64_t index;
  if (!to_int(id, &index)) index = (int64_t)k->next_device;
  k->next_device = index + 1;
  /* Kineto's GPU pid is the device id: with that pid the agent moves with
   * its device's work to the owning process (kineto_finish). */
  /* The model ("NVIDIA H100 80GB HBM3") is the agent's name and product,
   * as rocprofv3 names a device's product; wherever deviceProperties is in
   * the file, before the events or after them (then the agent made for the
   * first event on the device takes it). */
  const char *model = name && name->type == KV_STRING && name->text.len ? name->text.data : NULL;
  hub_agent_info a = {.pid = index,
                      .type = "GPU",
                      .type_index = index,
                      .name = model,
                      .product_name = model,
                      .extdata = json};
  hub_agent_describe(k->w, &a);
  mark(&k->device_pids, index);
}

/* The rank of distributedInfo ({"backend":..,"rank":3,...}), else HUB_NULL. */
static int64_t distributed_rank(const char *json) {
  yajl_val root = yajl_tree_parse(json, NULL, 0);
  const char *path[] = {"rank", NULL};
  yajl_val v = root ? yajl_tree_get(root, path, yajl_t_number) : NULL;
  int64_t rank = v && YAJL_IS_INTEGER(v) && YAJL_GET_INTEGER(v) >= 0 ? YAJL_GET_INTEGER(v) : HUB_NULL;
  yajl_tree_free(root);
  return rank;
}

/* The host of a top-level "host_name": a JSON string. */
static void host_name(kineto *k, const char *json) {
  yajl_val v = yajl_tree_parse(json, NULL, 0);
  if (v && YAJL_IS_STRING(v)) hub_writer_hostname(k->w, YAJL_GET_STRING(v));
  yajl_tree_free(v);
}

void kineto_metadata(kineto *k, const char *key, const char *json) {
  if (strcmp(key, "host_name") == 0) host_name(k, json);
  if (strcmp(key, "distributedInfo") == 0) k->rank = distributed_rank(json);
  if (strcmp(key, "baseTimeNanoseconds") == 0) {
    int64_t base;
    if (tt_decimal_to_int_scaled(json, strlen(json), 1, &base) == 0) {
      k->have_base = 1;
      k->base = base;
    } else {
      k->warn_bad_time++;
    }
  }
  tt_buf_clear(&k->tmp2);
  tt_buf_puts(&k->tmp2, "kineto.");
  tt_buf_puts(&k->tmp2, key);
  hub_writer_metadata(k->w, k->tmp2.data, json);
}

/* GPU rows were written under the device's pid; with exactly one CPU
 * process in the trace, that process owns them. With several (or when no
 * process_name says which is which), each device's work goes to the
 * process that launched it, found by correlation in the hub; a device
 * whose work no launch names stays where it is, and the metadata says so. */
/* The trace's real CPU processes: their count, and *owner the last one.
 * Kineto's pseudo-processes ("Spans", "Traces", or their numbers from
 * SYNTHETIC_ID_BASE on) are not among them. */
static size_t real_cpu_processes(const kineto *k, int64_t *owner) {
  size_t ncpu = 0;
  for (size_t i = 0; i < k->cpu_pids.cap; i++) {
    int64_t pid = k->cpu_pids.keys[i];
    if (!k->cpu_pids.used[i] || tt_i64map_get(&k->gpu_pids, pid) || pid >= SYNTHETIC_ID_BASE)
      continue;
    *owner = pid;
    ncpu++;
  }
  return ncpu;
}

static void assign_gpu_work(kineto *k) {
  int64_t owner = 0;
  size_t ncpu = real_cpu_processes(k, &owner);
  if (k->gpu_pids.count == 0) return;
  int64_t *from = tt_calloc(k->gpu_pids.count, sizeof *from);
  size_t n = 0;
  for (size_t i = 0; i < k->gpu_pids.cap; i++)
    if (k->gpu_pids.used[i]) from[n++] = k->gpu_pids.keys[i];
  char text[96];
  if (ncpu == 1) {
    hub_writer_reassign_gpu_pids(k->w, from, n, owner);
    snprintf(text, sizeof text, "%lld", (long long)owner);
    hub_writer_metadata(k->w, "kineto2db.gpu_owner", text);
    free(from);
    return;
  }
  /* {"0":4242,"1":"not launched"}: each device pid's owner. */
  tt_buf json = {0};
  tt_buf_putc(&json, '{');
  size_t moved = 0;
  for (size_t i = 0; i < n; i++) {
    int64_t to = hub_writer_launcher_pid(k->w, from[i]);
    if (to != HUB_NULL && tt_i64map_get(&k->gpu_pids, to)) to = HUB_NULL; /* another device */
    tt_buf_printf(&json, "%s\"%lld\":", i ? "," : "", (long long)from[i]);
    if (to == HUB_NULL) {
      tt_buf_puts(&json, "\"not reassigned: no launch found\"");
      continue;
    }
    tt_buf_put_i64(&json, to);
    hub_writer_reassign_gpu_pids(k->w, &from[i], 1, to);
    moved++;
  }
  tt_buf_putc(&json, '}');
  if (moved) {
    hub_writer_metadata(k->w, "kineto2db.gpu_owner", json.data);
  } else {
    snprintf(text, sizeof text, "\"not reassigned: %zu CPU processes\"", ncpu);
    hub_writer_metadata(k->w, "kineto2db.gpu_owner", text);
  }
  tt_buf_free(&json);
  free(from);
}

/* Kineto's pseudo-processes (the "Spans" and "Traces" pids, a pid "")
 * are its bookkeeping, not processes: with one real CPU process they fold
 * into it, their threads named "Spans · PyTorch Profiler", so they take its
 * rank and part, and are not counted or split as processes. With several,
 * which one they belong to is not known: they stay. */
static void fold_pseudo_processes(kineto *k) {
  int64_t owner = 0;
  if (real_cpu_processes(k, &owner) != 1) return;
  for (size_t i = 0; i < k->syn_pids.cap; i++) {
    const tt_strslot *slot = &k->syn_pids.slots[i];
    if (!slot->key || tt_i64map_get(&k->gpu_pids, slot->val)) continue;
    hub_writer_fold_process(k->w, slot->val, owner, slot->key[0] ? slot->key : "pid \"\"");
  }
  /* numbered pseudo-processes (a trace written back from a hub) */
  for (size_t i = 0; i < k->cpu_pids.cap; i++) {
    int64_t pid = k->cpu_pids.keys[i];
    if (k->cpu_pids.used[i] && pid >= SYNTHETIC_ID_BASE && !tt_i64map_get(&k->gpu_pids, pid)) {
      char label[32];
      snprintf(label, sizeof label, "pid %lld", (long long)pid);
      hub_writer_fold_process(k->w, pid, owner, label);
    }
  }
}

static void report(kineto *k, tt_buf *all, uint64_t n, const char *key, const char *what) {
  if (!n) return;
  if (all->len) tt_buf_putc(all, ',');
  tt_buf_printf(all, "\"%s\":%llu", key, (unsigned long long)n);
  if (!tt_progress_quiet())
    tt_warn("%s: %llu %s", k->path, (unsigned long long)n, what);
}

void kineto_finish(kineto *k) {
  for (size_t i = 0; i < k->nstacks; i++) {
    k_stack *s = &k->stacks[i];
    while (s->n) {
      k_open *o = &s->items[--s->n];
      hub_region(k->w, s->pid, s->tid, o->start, k->last_ts > o->start ? k->last_ts : o->start,
                 o->name, o->event_id, NULL);
      free(o->name);
      k->warn_unmatched_b++;
    }
  }
  if (k->have_base) hub_writer_shift_times(k->w, k->base);
  /* Kineto stamps Unix time: ts + baseTimeNanoseconds, or, before that
   * key (older traces), ts alone in epoch us. A trace without the key
   * whose times are before 2000 counts from elsewhere: its clock unknown. */
  if (k->have_base || (k->last_ts != INT64_MIN && k->last_ts >= HUB_WALL_FROM_NS))
    hub_writer_clock(k->w, HUB_CLOCK_WALL, 0);
  assign_gpu_work(k);
  fold_pseudo_processes(k);
  /* One trace is one rank: its CPU processes are that rank's. */
  if (k->rank != HUB_NULL)
    for (size_t i = 0; i < k->cpu_pids.cap; i++) {
      if (!k->cpu_pids.used[i] || tt_i64map_get(&k->gpu_pids, k->cpu_pids.keys[i])) continue;
      char text[TT_I64_CHARS + 1];
      *tt_format_i64(text, k->rank) = '\0';
      hub_process_extdata(k->w, k->cpu_pids.keys[i], "rank", text);
    }

  tt_buf all = {0};
  report(k, &all, k->warn_bad_event, "not_an_object", "elements of traceEvents are not objects (skipped)");
  report(k, &all, k->warn_no_ts, "no_ts", "events without a usable ts (skipped)");
  report(k, &all, k->warn_bad_time, "bad_time", "unreadable dur or base time values (taken as 0)");
  report(k, &all, k->warn_unmatched_e, "unmatched_E", "E events without a B (skipped)");
  report(k, &all, k->warn_end_before_start, "end_before_start",
         "events ending before they start (negative dur, E before its B: ended at the start)");
  report(k, &all, k->warn_unmatched_b, "unmatched_B", "B events without an E (closed at the last timestamp)");
  report(k, &all, k->warn_other_phase, "other_phase", "events of unknown phase (kept as instants)");
  report(k, &all, k->warn_counter_value, "counter_not_number", "counter values that are not finite numbers (skipped)");
  report(k, &all, k->warn_dropped_args, "args_not_kept", "args of M/C/flow events with no place in the hub");
  report(k, &all, k->repair.n_control, "control_chars",
         "raw control characters inside strings (kept as the characters)");
  report(k, &all, k->repair.n_bad_escape, "bad_escapes",
         "backslashes that start no valid escape (kept as backslashes)");
  report(k, &all, k->repair.n_bad_utf8, "invalid_utf8",
         "bytes of invalid UTF-8 inside strings (replaced with U+FFFD)");
  report(k, &all, k->repair.n_nonfinite, "nan_infinity", "NaN or Infinity values (kept as text)");
  report(k, &all, k->warn_big_number, "number_out_of_range",
         "numbers beyond int64 or double in args (kept as text)");
  if (k->cut) {
    if (all.len) tt_buf_putc(&all, ',');
    tt_buf_printf(&all, "\"cut_at_byte\":%llu", (unsigned long long)k->cut_at);
    if (!tt_progress_quiet())
      tt_warn("%s: the trace is cut short at byte %llu: imported the %llu complete events "
              "before the cut (--lenient)",
              k->path, (unsigned long long)k->cut_at, (unsigned long long)k->nevents);
  }
  if (all.len) {
    tt_buf json = {0};
    tt_buf_printf(&json, "{%s}", all.data);
    hub_writer_metadata(k->w, "kineto2db.warnings", json.data);
    tt_buf_free(&json);
  }
  tt_buf_free(&all);
  char n[32];
  snprintf(n, sizeof n, "%llu", (unsigned long long)k->nevents);
  hub_writer_metadata(k->w, "kineto2db.events", n);
}

void kineto_event_free(kineto *k) {
  tt_strmap_free(&k->syn_pids);
  tt_strmap_free(&k->syn_tids);
  tt_i64map_free(&k->gpu_pids);
  tt_i64map_free(&k->cpu_pids);
  tt_i64map_free(&k->device_pids);
  tt_strmap_free(&k->ext_seen);
  tt_strmap_free(&k->stack_index);
  for (size_t i = 0; i < k->nstacks; i++) {
    for (size_t j = 0; j < k->stacks[i].n; j++) free(k->stacks[i].items[j].name);
    free(k->stacks[i].items);
  }
  free(k->stacks);
  tt_buf_free(&k->tmp);
  tt_buf_free(&k->tmp2);
}
