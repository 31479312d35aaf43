/* db2json: hub databases -> Chrome trace-event JSON in Kineto's dialect
 * (X events with µs timestamps to three decimals, M metadata for names and
 * sort order, s/f flows from launch to GPU work, C counters), streamed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "json_check.h"
#include "tracks.h"
#include "util.h"

typedef struct json_part {
  FILE *fp;
  const tt_export_opts *o;
  const tt_part *part;
  tt_buf buf;
  int first;      /* no event written yet (comma handling) */
  int single_db;  /* flow ids as the source wrote them */
  uint64_t written;
} json_part;

/* ns -> µs with exactly three decimals. */
static void put_us(tt_buf *b, int64_t ns) {
  if (ns < 0) {
    tt_buf_putc(b, '-');
    ns = ns == INT64_MIN ? INT64_MAX : -ns;
  }
  tt_buf_put_i64(b, ns / 1000);
  char frac[4] = {'.', (char)('0' + ns % 1000 / 100), (char)('0' + ns % 100 / 10),
                  (char)('0' + ns % 10)};
  tt_buf_append(b, frac, 4);
}

static void put_str(tt_buf *b, const char *s) { tt_json_string(b, s, strlen(s)); }

static void begin_event(json_part *jp) {
  tt_buf_clear(&jp->buf);
  tt_buf_puts(&jp->buf, jp->first ? "\n  " : ",\n  ");
  jp->first = 0;
}

static int flush_event(json_part *jp) {
  jp->written++;
  return fwrite(jp->buf.data, 1, jp->buf.len, jp->fp) == jp->buf.len ? 0 : -1;
}

static void metadata(json_part *jp, const char *what, int64_t pid, int64_t tid,
                     const char *key, const char *str, int64_t num) {
  begin_event(jp);
  tt_buf *b = &jp->buf;
  tt_buf_puts(b, "{\"name\":");
  put_str(b, what);
  tt_buf_printf(b, ",\"ph\":\"M\",\"ts\":0,\"pid\":%lld,\"tid\":%lld,\"args\":{", (long long)pid,
                (long long)tid);
  put_str(b, key);
  tt_buf_putc(b, ':');
  if (str)
    put_str(b, str);
  else
    tt_buf_printf(b, "%lld", (long long)num);
  tt_buf_puts(b, "}}");
  flush_event(jp);
}

/* Names and sort order of every process, thread, GPU and stream in the
 * inputs (restricted to the part's process when split by process). */
static void write_metadata(json_part *jp, hub_reader *r) {
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (jp->part->pid != HUB_NULL && p->pid != jp->part->pid) continue;
    if (p->name[0]) metadata(jp, "process_name", p->pid, 0, "name", p->name, 0);
    if (p->labels[0]) metadata(jp, "process_labels", p->pid, 0, "labels", p->labels, 0);
    metadata(jp, "process_sort_index", p->pid, 0, "sort_index", NULL, p->sort_index);
  }
  for (size_t i = 0; i < hub_reader_nthreads(r); i++) {
    const hub_thread_info *t = hub_reader_thread(r, i);
    if (jp->part->pid != HUB_NULL && t->pid != jp->part->pid) continue;
    if (t->synthetic) continue; /* a GPU lane's or process's tracks: no OS thread */
    if (t->name[0]) metadata(jp, "thread_name", t->pid, t->tid, "name", t->name, 0);
    metadata(jp, "thread_sort_index", t->pid, t->tid, "sort_index", NULL, t->sort_index);
  }
  for (size_t i = 0; i < hub_reader_nagents(r); i++) {
    const hub_agent_view *a = hub_reader_agent(r, i);
    if (strcmp(a->type, "GPU") != 0) continue;
    if (jp->part->pid != HUB_NULL && a->pid != jp->part->pid && a->pid != 0) continue;
    hub_record probe = {.kind = HUB_KERNEL, .db = a->db, .agent_id = a->id, .lane_id = HUB_NULL,
                        .tid = HUB_NULL};
    tt_track_ref t;
    tt_track_of(r, &probe, &t);
    char label[48];
    snprintf(label, sizeof label, "GPU %lld", (long long)a->type_index);
    metadata(jp, "process_name", t.group, 0, "name", t.group_name, 0);
    metadata(jp, "process_labels", t.group, 0, "labels", label, 0);
    metadata(jp, "process_sort_index", t.group, 0, "sort_index", NULL, t.group_sort);
  }
}

static void *json_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                        tt_output *out) {
  json_part *jp = tt_calloc(1, sizeof *jp);
  jp->o = o;
  jp->part = p;
  jp->first = 1;
  jp->single_db = hub_reader_ndbs(r) == 1;
  jp->fp = tt_output_fopen(out, "w");
  setvbuf(jp->fp, NULL, _IOFBF, 1 << 20);
  fputs("{\n\"schemaVersion\": 1,\n\"displayTimeUnit\": \"ms\",\n\"traceEvents\": [", jp->fp);
  write_metadata(jp, r);
  return jp;
}

static void put_arg_value(tt_buf *b, const hub_arg_view *a) {
  if ((strcmp(a->type, "int") == 0 || strcmp(a->type, "double") == 0) &&
      tt_json_is_number(a->value))
    tt_buf_puts(b, a->value);
  else if (strcmp(a->type, "bool") == 0 &&
           (strcmp(a->value, "true") == 0 || strcmp(a->value, "false") == 0))
    tt_buf_puts(b, a->value);
  else if (strcmp(a->type, "null") == 0)
    tt_buf_puts(b, "null");
  else if (strcmp(a->type, "json") == 0 && tt_json_valid(a->value, strlen(a->value)))
    tt_buf_puts(b, a->value);
  else
    put_str(b, a->value);
}

/* "args":{...}: the event's own args, then what the hub knows beside them. */
static void put_args(json_part *jp, hub_reader *r, const hub_record *ev) {
  tt_buf *b = &jp->buf;
  tt_buf_puts(b, ",\"args\":{");
  int n = 0, has_corr = 0;
  if (!jp->o->no_args && ev->event_id != HUB_NULL) {
    hub_arg_view a;
    hub_args_begin(r, ev->db, ev->event_id);
    while (hub_args_next(r, &a)) {
      if (strcmp(a.name, "correlation") == 0) has_corr = 1;
      if (n++) tt_buf_putc(b, ',');
      put_str(b, a.name);
      tt_buf_putc(b, ':');
      put_arg_value(b, &a);
    }
  }
  if (!has_corr && ev->correlation_id != HUB_NULL && ev->kind != HUB_FLOW) {
    tt_buf_puts(b, n++ ? ",\"correlation\":" : "\"correlation\":");
    tt_buf_put_i64(b, ev->correlation_id);
  }
  if (ev->size != HUB_NULL && ev->kind == HUB_ALLOC)
    tt_buf_printf(b, "%s\"bytes\":%lld", n++ ? "," : "", (long long)ev->size);
  if (ev->clipped)
    tt_buf_printf(b, "%s\"clipped\":\"%s\"", n++ ? "," : "",
                  ev->clipped == (HUB_CLIP_START | HUB_CLIP_END) ? "both"
                  : ev->clipped & HUB_CLIP_START                 ? "start"
                                                                 : "end");
  tt_buf_putc(b, '}');
}

static void put_common(json_part *jp, const hub_record *ev, const tt_track_ref *t,
                       const char *ph) {
  tt_buf *b = &jp->buf;
  tt_buf_puts(b, "{\"ph\":\"");
  tt_buf_puts(b, ph);
  tt_buf_puts(b, "\",\"cat\":");
  put_str(b, hub_record_category(ev));
  tt_buf_puts(b, ",\"name\":");
  put_str(b, ev->name);
  tt_buf_puts(b, ",\"pid\":");
  tt_buf_put_i64(b, t->group);
  tt_buf_puts(b, ",\"tid\":");
  tt_buf_put_i64(b, t->lane);
  tt_buf_puts(b, ",\"ts\":");
  put_us(b, ev->start);
}

/* A flow end is written only when its other end is in this part too. */
static int partner_in_part(const json_part *jp, const hub_record *ev) {
  return ev->link_ts != HUB_NULL && !(ev->clipped & HUB_CLIP_START) &&
         ev->link_ts >= jp->part->start && ev->link_ts < jp->part->end;
}

static int64_t flow_id(const json_part *jp, const hub_record *ev) {
  return jp->single_db ? ev->correlation_id : ev->link_id;
}

static int json_event(void *state, hub_reader *r, const hub_record *ev) {
  json_part *jp = state;
  tt_track_ref t;
  tt_track_of(r, ev, &t);
  tt_buf *b = &jp->buf;
  switch (ev->kind) {
  case HUB_REGION:
  case HUB_KERNEL:
  case HUB_COPY:
  case HUB_ALLOC:
    begin_event(jp);
    put_common(jp, ev, &t, "X");
    tt_buf_puts(b, ",\"dur\":");
    put_us(b, ev->end - ev->start);
    put_args(jp, r, ev);
    tt_buf_putc(b, '}');
    if (flush_event(jp)) return -1;
    /* Arrows derived from correlation: launch (s) -> GPU work (f). */
    if (partner_in_part(jp, ev)) {
      int launch = ev->kind == HUB_REGION;
      begin_event(jp);
      tt_buf_puts(b, launch ? "{\"ph\":\"s\",\"id\":" : "{\"ph\":\"f\",\"id\":");
      tt_buf_put_i64(b, flow_id(jp, ev));
      tt_buf_puts(b, ",\"pid\":");
      tt_buf_put_i64(b, t.group);
      tt_buf_puts(b, ",\"tid\":");
      tt_buf_put_i64(b, t.lane);
      tt_buf_puts(b, ",\"ts\":");
      put_us(b, ev->start);
      tt_buf_puts(b, launch ? ",\"cat\":\"ac2g\",\"name\":\"ac2g\"}"
                            : ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
      if (flush_event(jp)) return -1;
    }
    return 0;
  case HUB_INSTANT:
    begin_event(jp);
    put_common(jp, ev, &t, "i");
    tt_buf_puts(b, ",\"s\":\"t\"");
    put_args(jp, r, ev);
    tt_buf_putc(b, '}');
    return flush_event(jp);
  case HUB_COUNTER:
    begin_event(jp);
    put_common(jp, ev, &t, "C");
    tt_buf_printf(b, ",\"args\":{\"value\":%.17g}}", ev->value);
    return flush_event(jp);
  case HUB_FLOW:
    if (!partner_in_part(jp, ev)) return 0;
    begin_event(jp);
    tt_buf_printf(b, "{\"ph\":\"%c\",\"id\":%lld,\"pid\":%lld,\"tid\":%lld,\"ts\":",
                  ev->flow_phase, (long long)flow_id(jp, ev), (long long)t.group,
                  (long long)t.lane);
    put_us(b, ev->start);
    tt_buf_puts(b, ",\"cat\":");
    put_str(b, ev->category);
    tt_buf_puts(b, ",\"name\":");
    put_str(b, ev->name);
    if (ev->flow_bind_enclosing) tt_buf_puts(b, ",\"bp\":\"e\"");
    tt_buf_putc(b, '}');
    return flush_event(jp);
  default:
    return 0;
  }
}

static int json_end(void *state, hub_reader *r) {
  (void)r;
  json_part *jp = state;
  fputs("\n]\n}\n", jp->fp);
  /* fflush here so a full disk is reported with its reason (errno). */
  int rc = (fflush(jp->fp) != 0) | ferror(jp->fp) ? -1 : 0;
  if (rc) tt_error("%s: write failed: %s", jp->part->path, strerror(errno));
  tt_buf_free(&jp->buf);
  free(jp);
  return rc;
}

int main(int argc, char **argv) {
  static const tt_exporter ex = {
      .description = "Writes Chrome trace-event JSON (Kineto's dialect) for chrome://tracing "
                     "and the Perfetto UI.",
      .extension = ".json",
      .stdout_ok = 1,
      .begin_part = json_begin,
      .event = json_event,
      .end_part = json_end,
  };
  return tt_export_main(argc, argv, &ex);
}
