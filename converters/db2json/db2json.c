/* db2json: hub databases -> Chrome trace-event JSON in Kineto's dialect
 * (X events with µs timestamps to three decimals relative to the file's
 * baseTimeNanoseconds, M metadata for names and sort order, s/f flows from
 * launch to GPU work, C counters), streamed. CPU samples are the Trace
 * Event Format's sample events (ph "P", "sf" naming their stack) with its
 * stackFrames dictionary (an entry per callsite: name, category = the
 * module, parent); a call's own backtrace is the "sf" of its X event. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/export.h"
#include "cli/part_samples.h"
#include "base/hashmap.h"
#include "base/vec.h"
#include "base/json_check.h"
#include "cli/tracks.h"
#include "base/util.h"
#include "db2json.h"
#include "db2json_tracks.h"

typedef struct json_part {
  FILE *fp;
  const tt_export_opts *o;
  const tt_part *part;
  tt_buf buf;
  int first;      /* no event written yet (comma handling) */
  int single_db;  /* flow ids as the source wrote them */
  uint64_t written;
  uint64_t bytes_out; /* bytes given to the file so far */
  /* Times are written as µs after base: exact when read as a double (the
   * absolute epoch µs are not: a 0.25 µs grid). */
  int64_t base;
  /* The tail's length for tail_base: the size planner asks per event. */
  int64_t tail_base;
  uint64_t tail_len;
  json_tracks *tracks;
  /* Flow ends whose start is not written yet (it starts at the same time):
   * held until an event starts after held_until, so each s precedes its f
   * in the file (Perfetto keeps file order between equal times and drops
   * an f before its s: flow_end_without_start). */
  tt_buf held;
  int64_t held_until;
  /* CPU samples: "P" events in traceEvents, their stacks in the
   * stackFrames dictionary after it (one entry per callsite a sample of
   * the part reaches, its bytes counted as it is first reached). */
  tt_part_samples samples;
  unsigned char *site_used;
  size_t cap_sites;
  uint64_t frames_bytes;
  tt_buf frame_entry;
} json_part;

/* Appends of known length into the part's buffer: one capacity check,
 * no strlen, no NUL kept (the buffer is written by length). */
static inline void put_n(tt_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) tt_buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
}
#define PUT_LIT(b, s) put_n((b), (s), sizeof(s) - 1)

static inline void put_c(tt_buf *b, char c) {
  if (b->len + 2 > b->cap) tt_buf_reserve(b, 1);
  b->data[b->len++] = c;
}

static inline void put_i64(tt_buf *b, int64_t v) {
  if (b->len + TT_I64_CHARS + 1 > b->cap) tt_buf_reserve(b, TT_I64_CHARS);
  b->len = (size_t)(tt_format_i64(b->data + b->len, v) - b->data);
}

/* ns -> µs with exactly three decimals. */
static void put_us(tt_buf *b, int64_t ns) {
  if (b->len + TT_I64_CHARS + 6 > b->cap) tt_buf_reserve(b, TT_I64_CHARS + 5);
  char *p = b->data + b->len;
  if (ns < 0) {
    *p++ = '-';
    ns = ns == INT64_MIN ? INT64_MAX : -ns;
  }
  p = tt_format_i64(p, ns / 1000);
  int f = (int)(ns % 1000);
  p[0] = '.';
  p[1] = (char)('0' + f / 100);
  p[2] = (char)('0' + f / 10 % 10);
  p[3] = (char)('0' + f % 10);
  b->len = (size_t)(p + 4 - b->data);
}

/* Most names need no escaping: those go in one copy. */
static void put_str(tt_buf *b, const char *s) {
  size_t n = 0;
  const unsigned char *u = (const unsigned char *)s;
  while (u[n] >= 0x20 && u[n] < 0x7F && u[n] != '"' && u[n] != '\\') n++;
  if (u[n]) {
    tt_json_string(b, s, n + strlen(s + n));
    return;
  }
  if (b->len + n + 3 > b->cap) tt_buf_reserve(b, n + 2);
  char *p = b->data + b->len;
  p[0] = '"';
  memcpy(p + 1, s, n);
  p[n + 1] = '"';
  b->len += n + 2;
}

/* A time: µs after the base. */
static void put_ts(json_part *jp, tt_buf *b, int64_t ns) {
  int64_t rel;
  if (jp->base == TT_TIME_BASE_FIRST_EVENT) /* the first time written: the first event's start */
    jp->base = (ns / 1000 - (ns % 1000 < 0)) * 1000;
  /* A time further from the base than int64 holds (a hub's bad row; the
   * reader passes any int64) is written at the nearest end. */
  if (__builtin_sub_overflow(ns, jp->base, &rel)) rel = ns < 0 ? INT64_MIN : INT64_MAX;
  put_us(b, rel);
}

static void begin_event_in(json_part *jp, tt_buf *b) {
  if (jp->first)
    PUT_LIT(b, "\n  ");
  else
    PUT_LIT(b, ",\n  ");
  jp->first = 0;
}

static void begin_event(json_part *jp) { begin_event_in(jp, &jp->buf); }

/* Events gather in the buffer and go out 64 KiB at a time. */
#define JSON_CHUNK (64 * 1024)
static int write_buf(json_part *jp) {
  size_t n = jp->buf.len;
  jp->buf.len = 0;
  jp->bytes_out += n;
  return n && fwrite(jp->buf.data, 1, n, jp->fp) != n ? -1 : 0;
}

static int flush_event(json_part *jp) {
  jp->written++;
  return jp->buf.len >= JSON_CHUNK ? write_buf(jp) : 0;
}

static void metadata(json_part *jp, const char *what, int64_t pid, int64_t tid,
                     const char *key, const char *str, int64_t num) {
  begin_event(jp);
  tt_buf *b = &jp->buf;
  PUT_LIT(b, "{\"name\":");
  put_str(b, what);
  tt_buf_printf(b, ",\"ph\":\"M\",\"ts\":0,\"pid\":%lld,\"tid\":%lld,\"args\":{", (long long)pid,
                (long long)tid);
  put_str(b, key);
  put_c(b, ':');
  if (str)
    put_str(b, str);
  else
    tt_buf_printf(b, "%lld", (long long)num);
  PUT_LIT(b, "}}");
  flush_event(jp);
}

/* A thread written under another tid than the recorded one
 * (tt_written_tid): its args keep the recorded tid. */
static void thread_name_recorded(json_part *jp, const tt_track_ref *t, const char *name) {
  begin_event(jp);
  tt_buf *b = &jp->buf;
  tt_buf_printf(b, "{\"name\":\"thread_name\",\"ph\":\"M\",\"ts\":0,\"pid\":%lld,\"tid\":%lld,"
                   "\"args\":{\"name\":",
                (long long)t->group, (long long)t->lane);
  put_str(b, name);
  tt_buf_printf(b, ",\"recorded_tid\":%lld}}", (long long)t->recorded_lane);
  flush_event(jp);
}

/* The names and sort order of a process or thread drawn for the first
 * time in the part: only tracks with events are named, and all of them. */
static void write_names(json_part *jp, hub_reader *r, const hub_record *ev,
                        const json_place *pl) {
  const tt_track_ref *t = &pl->t;
  if (pl->new_group) {
    if (t->is_gpu) {
      char label[48];
      snprintf(label, sizeof label, "GPU %lld", (long long)t->gpu_index);
      const char *labels = t->gpu_label[0] ? t->gpu_label : label; /* with its host when shared */
      metadata(jp, "process_name", t->group, 0, "name", t->group_name, 0);
      metadata(jp, "process_labels", t->group, 0, "labels", labels, 0);
    } else {
      const hub_process_info *p = hub_reader_find_process(r, ev->db, ev->pid);
      if (p && p->label[0]) metadata(jp, "process_name", t->group, 0, "name", p->label, 0);
      if (p && p->labels[0]) metadata(jp, "process_labels", t->group, 0, "labels", p->labels, 0);
    }
    metadata(jp, "process_sort_index", t->group, 0, "sort_index", NULL, t->group_sort);
  }
  if (pl->new_lane && t->lane != t->recorded_lane && !pl->overlap) {
    thread_name_recorded(jp, t, pl->lane_label);
    metadata(jp, "thread_sort_index", t->group, t->lane, "sort_index", NULL, t->lane_sort);
  } else if (pl->new_lane) {
    metadata(jp, "thread_name", t->group, t->lane, "name", pl->lane_label, 0);
    metadata(jp, "thread_sort_index", t->group, t->lane, "sort_index", NULL, t->lane_sort);
  }
}

/* Adds input db's distributedInfo to *info (the first one kept); clears
 * *agree when it differs from it. */
static void take_info(hub_reader *r, int db, char **info, int *agree) {
  const char *v = hub_reader_metadata(r, db, "kineto.distributedInfo");
  if (!v || !tt_json_valid(v, strlen(v))) return;
  if (!*info) *info = tt_strdup(v);
  else if (strcmp(*info, v) != 0) *agree = 0;
}

/* Kineto's top-level keys that HTA and TraceLens read, as kineto2db kept
 * them: deviceProperties (each GPU agent's extdata that is a Kineto entry,
 * one per device id across the inputs, the first input's kept) and
 * distributedInfo (when the part's inputs that have one agree on it: each
 * part of a split by process carries its own rank's). */
static void write_kineto_top_level(json_part *jp, hub_reader *r) {
  tt_buf *b = &jp->buf;
  int n = 0;
  tt_i64map ids = {0};
  for (size_t i = 0; i < hub_reader_nagents(r); i++) {
    const hub_agent_view *a = hub_reader_agent(r, i);
    const char *x = a->extdata;
    if (strcmp(a->type, "GPU") != 0 || strncmp(x, "{\"id\":", 6) != 0 ||
        !tt_json_valid(x, strlen(x)) || tt_i64map_get(&ids, a->type_index))
      continue;
    tt_i64map_put(&ids, a->type_index, 1);
    if (n++)
      PUT_LIT(b, ",\n  ");
    else
      PUT_LIT(b, "\"deviceProperties\": [\n  ");
    tt_buf_puts(b, x);
  }
  tt_i64map_free(&ids);
  if (n) PUT_LIT(b, "\n],\n");
  char *info = NULL;
  int agree = 1;
  const tt_part *p = jp->part;
  if (p->pid == HUB_NULL && !p->npids) {
    for (size_t db = 0; db < hub_reader_ndbs(r) && agree; db++) take_info(r, (int)db, &info, &agree);
  } else {
    /* a process part: the inputs of its processes, each asked once (one
     * pass over the processes, not one per input: 1000 hubs split by
     * process) */
    tt_i64map asked = {0};
    for (size_t i = 0; i < hub_reader_nprocesses(r) && agree; i++) {
      const hub_process_info *q = hub_reader_process(r, i);
      if (!tt_part_has_pid(p, q->pid) ||
          (p->host && strcmp(q->hostname ? q->hostname : "", p->host) != 0) ||
          tt_i64map_get(&asked, q->db))
        continue;
      tt_i64map_put(&asked, q->db, 1);
      take_info(r, q->db, &info, &agree);
    }
    tt_i64map_free(&asked);
  }
  if (info && agree) {
    PUT_LIT(b, "\"distributedInfo\": ");
    tt_buf_puts(b, info);
    PUT_LIT(b, ",\n");
  }
  free(info);
}

static int json_end(void *state, hub_reader *r);

static void *json_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                        tt_output *out) {
  json_part *jp = tt_calloc(1, sizeof *jp);
  jp->o = o;
  jp->part = p;
  jp->first = 1;
  jp->single_db = hub_reader_ndbs(r) == 1 && !p->as_many_dbs;
  jp->base = o->time_base;
  jp->tracks = json_tracks_new();
  jp->fp = tt_output_fopen(out, "w");
  setvbuf(jp->fp, NULL, _IOFBF, JSON_CHUNK);
  tt_buf_reserve(&jp->buf, JSON_CHUNK + 4096);
  tt_buf_printf(&jp->buf,
                "{\n\"schemaVersion\": 1,\n\"displayTimeUnit\": \"ms\",\n");
  write_kineto_top_level(jp, r);
  PUT_LIT(&jp->buf, "\"traceEvents\": [");
  if (tt_part_samples_open(&jp->samples, r, o, p) != 0) {
    json_end(jp, r);
    return NULL;
  }
  return jp;
}

/* The value as its type says (hub.h), when it reads so; else a string. */
static void put_arg_value(tt_buf *b, const hub_arg_view *a) {
  int as_is = 0;
  switch (hub_arg_type_of(a->type)) {
  case HUB_ARG_INT:
  case HUB_ARG_DOUBLE: as_is = tt_json_is_number(a->value); break;
  case HUB_ARG_BOOL: as_is = strcmp(a->value, "true") == 0 || strcmp(a->value, "false") == 0; break;
  case HUB_ARG_NULL: PUT_LIT(b, "null"); return;
  case HUB_ARG_JSON: as_is = tt_json_valid(a->value, strlen(a->value)); break;
  default: break;
  }
  if (as_is)
    tt_buf_puts(b, a->value);
  else
    put_str(b, a->value);
}

/* "args":{...}: the event's own args, then what the hub knows beside them. */
static void put_args(json_part *jp, hub_reader *r, const hub_record *ev) {
  tt_buf *b = &jp->buf;
  PUT_LIT(b, ",\"args\":{");
  int n = 0, has_corr = 0;
  if (!jp->o->no_args && ev->event_id != HUB_NULL) {
    hub_arg_view a;
    hub_args_begin(r, ev->db, ev->event_id);
    while (hub_args_next(r, &a)) {
      if (strcmp(a.name, "correlation") == 0) has_corr = 1;
      if (n++) put_c(b, ',');
      put_str(b, a.name);
      put_c(b, ':');
      put_arg_value(b, &a);
    }
  }
  if (!has_corr && ev->correlation_id != HUB_NULL && ev->kind != HUB_FLOW) {
    if (n++)
      PUT_LIT(b, ",\"correlation\":");
    else
      PUT_LIT(b, "\"correlation\":");
    put_i64(b, ev->correlation_id);
  }
  if (ev->size != HUB_NULL && ev->kind == HUB_ALLOC)
    tt_buf_printf(b, "%s\"bytes\":%lld", n++ ? "," : "", (long long)ev->size);
  if (ev->clipped)
    tt_buf_printf(b, "%s\"clipped\":\"%s\"", n++ ? "," : "",
                  ev->clipped == (HUB_CLIP_START | HUB_CLIP_END) ? "both"
                  : ev->clipped & HUB_CLIP_START                 ? "start"
                                                                 : "end");
  put_c(b, '}');
}

static void put_common(json_part *jp, const hub_record *ev, const tt_track_ref *t,
                       char ph) {
  tt_buf *b = &jp->buf;
  PUT_LIT(b, "{\"ph\":\"");
  put_c(b, ph);
  PUT_LIT(b, "\",\"cat\":");
  put_str(b, hub_record_category(ev));
  PUT_LIT(b, ",\"name\":");
  put_str(b, ev->name);
  PUT_LIT(b, ",\"pid\":");
  put_i64(b, t->group);
  PUT_LIT(b, ",\"tid\":");
  put_i64(b, t->lane);
  PUT_LIT(b, ",\"ts\":");
  put_ts(jp, b, ev->start);
}

/* A flow end is written only when its other end is in this part too. */
static int partner_in_part(const json_part *jp, const hub_record *ev) {
  return ev->link_ts != HUB_NULL && !(ev->clipped & HUB_CLIP_START) &&
         ev->link_ts >= jp->part->start && ev->link_ts < jp->part->end;
}

static int64_t flow_id(const json_part *jp, const hub_record *ev) {
  return jp->single_db ? ev->correlation_id : ev->link_id;
}

/* Arrow k of a launch, or GPU work's arrow (k = its link_index): the
 * first keeps flow_id, the others (a graph launch's) ids of their own. */
static int64_t arrow_id(const json_part *jp, const hub_record *ev, int64_t k) {
  return k == 0 ? flow_id(jp, ev) : hub_arrow_id(ev->link_id, k);
}

/* The held flow ends, now that every start at their time is written. */
static int release_held(json_part *jp) {
  if (!jp->held.len) return 0;
  put_n(&jp->buf, jp->held.data, jp->held.len);
  jp->held.len = 0;
  return jp->buf.len >= JSON_CHUNK ? write_buf(jp) : 0;
}

/* Where a flow end goes: the file now, or held after its start (at the
 * same time or later) is written. */
static tt_buf *flow_end_buf(json_part *jp, int64_t ts, int64_t partner_ts) {
  if (partner_ts < ts) return &jp->buf;
  if (ts > jp->held_until || !jp->held.len) jp->held_until = ts;
  return &jp->held;
}

/* stackFrames' entry of callsite id: "ID":{"name":..,"category":..,"parent":"P"}. */
static void frame_entry(json_part *jp, int64_t id, tt_buf *b) {
  hub_sample_reader *sr = tt_part_samples_stacks(&jp->samples);
  const hub_callsite *cs = hub_samples_callsite(sr, id);
  const hub_frame *f = hub_samples_frame(sr, cs->frame);
  const char *slash = strrchr(f->module, '/');
  tt_buf_printf(b, "%s\n  \"%lld\":{\"name\":", jp->frames_bytes ? "," : "", (long long)id);
  put_str(b, f->name);
  PUT_LIT(b, ",\"category\":");
  put_str(b, slash ? slash + 1 : f->module);
  if (cs->parent >= 0) tt_buf_printf(b, ",\"parent\":\"%lld\"", (long long)cs->parent);
  put_c(b, '}');
}

/* Marks the stack of callsite id as written, counting its new entries. */
static void use_stack(json_part *jp, int64_t id) {
  hub_sample_reader *sr = tt_part_samples_stacks(&jp->samples);
  tt_grow(jp->site_used, hub_samples_ncallsites(sr), jp->cap_sites);
  for (; id >= 0 && !jp->site_used[id]; id = hub_samples_callsite(sr, id)->parent) {
    jp->site_used[id] = 1;
    tt_buf_clear(&jp->frame_entry);
    frame_entry(jp, id, &jp->frame_entry);
    jp->frames_bytes += jp->frame_entry.len;
  }
}

static int put_sample(json_part *jp, hub_reader *r, const hub_cpu_sample *s) {
  hub_record ev = {.kind = HUB_INSTANT, .db = s->db, .pid = s->pid, .tid = s->tid,
                   .agent_id = HUB_NULL, .lane_id = HUB_NULL, .start = s->ts, .end = s->ts,
                   .name = "cpu_sample", .kernel_name = "", .category = s->category,
                   .event_id = HUB_NULL, .correlation_id = HUB_NULL, .link_ts = HUB_NULL};
  json_place pl;
  json_tracks_place(jp->tracks, r, &ev, &pl);
  if (pl.new_group || pl.new_lane) write_names(jp, r, &ev, &pl);
  tt_buf *b = &jp->buf;
  begin_event(jp);
  put_common(jp, &ev, &pl.t, 'P');
  tt_buf_printf(b, ",\"sf\":\"%lld\"", (long long)s->callsite);
  PUT_LIT(b, ",\"args\":{");
  int n = 0;
  if (s->cpu != HUB_NULL) n++, tt_buf_printf(b, "\"cpu\":%lld", (long long)s->cpu);
  if (s->weight != HUB_NULL)
    tt_buf_printf(b, "%s\"weight\":%lld", n++ ? "," : "", (long long)s->weight);
  if (s->thread_state != HUB_NULL)
    tt_buf_printf(b, "%s\"thread_state\":%lld", n++ ? "," : "", (long long)s->thread_state);
  PUT_LIT(b, "}}");
  use_stack(jp, s->callsite);
  return flush_event(jp);
}

/* The part's samples before time t. */
static int samples_before(json_part *jp, hub_reader *r, int64_t t) {
  hub_cpu_sample s;
  int rc;
  while ((rc = tt_part_samples_before(&jp->samples, t, &s)) == 1)
    if (put_sample(jp, r, &s) != 0) return -1;
  return rc;
}

static int json_advance(void *state, hub_reader *r, int64_t t) {
  return samples_before(state, r, t);
}

/* The stackFrames dictionary after traceEvents (nothing without samples). */
static void put_stack_frames(json_part *jp) {
  if (!jp->frames_bytes) return;
  hub_sample_reader *sr = tt_part_samples_stacks(&jp->samples);
  PUT_LIT(&jp->buf, "\n],\n\"stackFrames\": {");
  uint64_t keep = jp->frames_bytes;
  jp->frames_bytes = 0; /* frame_entry's comma: none before the first */
  for (size_t id = 0; id < hub_samples_ncallsites(sr); id++) {
    if (id >= jp->cap_sites || !jp->site_used[id]) continue;
    frame_entry(jp, (int64_t)id, &jp->buf);
    jp->frames_bytes = 1;
    if (jp->buf.len >= JSON_CHUNK) write_buf(jp);
  }
  jp->frames_bytes = keep;
  PUT_LIT(&jp->buf, "\n}");
}

static int json_event(void *state, hub_reader *r, const hub_record *ev) {
  json_part *jp = state;
  if (samples_before(jp, r, ev->start) != 0) return -1;
  if (jp->held.len && ev->start > jp->held_until && release_held(jp)) return -1;
  json_place pl;
  json_tracks_place(jp->tracks, r, ev, &pl);
  if (pl.new_group || pl.new_lane) write_names(jp, r, ev, &pl);
  const tt_track_ref t = pl.t;
  tt_buf *b = &jp->buf;
  switch (ev->kind) {
  case HUB_REGION:
  case HUB_KERNEL:
  case HUB_COPY:
  case HUB_ALLOC:
    begin_event(jp);
    put_common(jp, ev, &t, 'X');
    PUT_LIT(b, ",\"dur\":");
    put_us(b, ev->end - ev->start);
    if (ev->kind == HUB_REGION) {
      /* a call's backtrace (nsys's OS runtime calls): its stack at start */
      int64_t site = tt_part_region_stack(&jp->samples, ev);
      if (site == -2) return -1;
      if (site >= 0) {
        tt_buf_printf(b, ",\"sf\":\"%lld\"", (long long)site);
        use_stack(jp, site);
      }
    }
    put_args(jp, r, ev);
    put_c(b, '}');
    if (flush_event(jp)) return -1;
    /* Arrows derived from correlation: launch (s) -> GPU work (f), one
     * per GPU work the launch started in this part. */
    int launch = ev->kind == HUB_REGION;
    int64_t arrows = !partner_in_part(jp, ev) ? 0
                     : launch                 ? hub_record_links_before(ev, jp->part->end)
                                              : 1;
    for (int64_t k = 0; k < arrows; k++) {
      /* GPU work recorded before its launch (clocks apart) has its end
       * at the launch's time, inside the work, so it still binds to it. */
      int64_t ts = !launch && ev->link_ts > ev->start && ev->link_ts < ev->end ? ev->link_ts
                                                                                : ev->start;
      tt_buf *to = launch ? b : flow_end_buf(jp, ts, ev->link_ts);
      begin_event_in(jp, to);
      if (launch)
        PUT_LIT(to, "{\"ph\":\"s\",\"id\":");
      else
        PUT_LIT(to, "{\"ph\":\"f\",\"id\":");
      put_i64(to, arrow_id(jp, ev, launch ? k : ev->link_index));
      PUT_LIT(to, ",\"pid\":");
      put_i64(to, t.group);
      PUT_LIT(to, ",\"tid\":");
      put_i64(to, t.lane);
      PUT_LIT(to, ",\"ts\":");
      put_ts(jp, to, ts);
      if (launch)
        PUT_LIT(to, ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
      else
        PUT_LIT(to, ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
      if (flush_event(jp)) return -1;
    }
    return 0;
  case HUB_INSTANT:
    begin_event(jp);
    put_common(jp, ev, &t, 'i');
    PUT_LIT(b, ",\"s\":\"t\"");
    put_args(jp, r, ev);
    put_c(b, '}');
    return flush_event(jp);
  case HUB_COUNTER:
    begin_event(jp);
    put_common(jp, ev, &t, 'C');
    tt_buf_printf(b, ",\"args\":{\"value\":%.17g}}", ev->value);
    return flush_event(jp);
  case HUB_FLOW:
    if (!partner_in_part(jp, ev)) return 0;
    if (ev->flow_phase != 's') b = flow_end_buf(jp, ev->start, ev->link_ts);
    begin_event_in(jp, b);
    tt_buf_printf(b, "{\"ph\":\"%c\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":",
                  ev->flow_phase, (long long)flow_id(jp, ev), (long long)t.group,
                  (long long)t.lane);
    put_ts(jp, b, ev->start);
    PUT_LIT(b, ",\"cat\":");
    put_str(b, ev->category);
    PUT_LIT(b, ",\"name\":");
    put_str(b, ev->name);
    if (ev->flow_bind_enclosing) PUT_LIT(b, ",\"bp\":\"e\"");
    put_c(b, '}');
    return flush_event(jp);
  default:
    return 0;
  }
}

/* The file's end: the base last, as Kineto writes it (known by then even
 * when it is the first event's). */
#define JSON_TAIL "\n],\n\"baseTimeNanoseconds\": %lld\n}\n"
static int64_t written_base(const json_part *jp) {
  return jp->base == TT_TIME_BASE_FIRST_EVENT ? 0 : jp->base;
}

#define JSON_TAIL_AFTER_FRAMES ",\n\"baseTimeNanoseconds\": %lld\n}\n"
/* "\n],\n\"stackFrames\": {" and "\n}" around the entries, the tail's "\n]"
 * not written then */
#define JSON_FRAMES_FRAME 20

static int json_end(void *state, hub_reader *r) {
  json_part *jp = state;
  int wrc = samples_before(jp, r, INT64_MAX) != 0 ? -1 : 0;
  wrc |= release_held(jp);
  if (jp->frames_bytes) {
    put_stack_frames(jp);
    tt_buf_printf(&jp->buf, JSON_TAIL_AFTER_FRAMES, (long long)written_base(jp));
  } else {
    tt_buf_printf(&jp->buf, JSON_TAIL, (long long)written_base(jp));
  }
  wrc |= write_buf(jp);
  /* fflush here so a full disk is reported with its reason (errno). */
  int rc = wrc | (fflush(jp->fp) != 0) | ferror(jp->fp) ? -1 : 0;
  if (rc) tt_error("%s: write failed: %s", jp->part->path, strerror(errno));
  tt_buf_free(&jp->buf);
  tt_buf_free(&jp->held);
  json_tracks_free(jp->tracks);
  tt_part_samples_close(&jp->samples);
  free(jp->site_used);
  tt_buf_free(&jp->frame_entry);
  free(jp);
  return rc;
}

/* Exact: what is written, what is buffered, and the closing bracket. */
static uint64_t json_part_bytes(void *state) {
  json_part *jp = state;
  if (!jp->tail_len || jp->tail_base != jp->base) {
    jp->tail_base = jp->base;
    jp->tail_len = (uint64_t)snprintf(NULL, 0, JSON_TAIL, (long long)written_base(jp));
  }
  return jp->bytes_out + jp->buf.len + jp->held.len + jp->tail_len +
         (jp->frames_bytes ? jp->frames_bytes + JSON_FRAMES_FRAME : 0);
}

const tt_exporter *db2json_exporter(void) {
  static const tt_exporter ex = {
      .description = "Writes Chrome trace-event JSON (Kineto's dialect) for chrome://tracing\n"
                     "and the Perfetto UI.",
      .extension = ".json",
      .stdout_ok = 1,
      .relative_times = 1,
      .begin_part = json_begin,
      .event = json_event,
      .advance = json_advance,
      .end_part = json_end,
      .part_bytes = json_part_bytes,
      /* An end clipped: ,"clipped":"end" in its args (a shorter dur) */
      .clip_bytes = 16,
      /* The header (its shortest base) and the closing bracket (each
       * process's first event then takes one comma more). */
      .part_shared_bytes = 86,
      /* chrome://tracing reads the file as one string: JSON over about
       * 256 MB does not open (google/trace-viewer #627). Perfetto UI's
       * JSON importer is no better (google/perfetto #99). */
      .auto_max_part_size = 200ull << 20,
      .viewer_limit = "chrome://tracing",
  };
  return &ex;
}
