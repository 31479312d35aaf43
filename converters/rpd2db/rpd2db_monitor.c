/* rocpd_monitor: device readings (SMI clocks, power, temperature), each a
 * value held over [start, end]. Each (deviceType, deviceId, monitorType)
 * is a counter track ("GPU 0 sclk"): a GPU's on its agent (in its process
 * when one is known), another device's in the file's process; each row a
 * sample at its start; where a row's interval ends before the next one
 * starts (always after the last), one more sample at its end with the
 * same value closes it, as rpd2tracing.py ends the last interval. Rows
 * are read sorted by track and time: one pending row is all the state. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rpd2db_parts.h"

enum { C_ID, C_DTYPE, C_DEV, C_MTYPE, C_START, C_END, C_VALUE };

typedef struct pending {
  int active;
  int64_t track, start, end;
  double value;
} pending;

static void close_interval(rpd *c, pending *p, int64_t next_start) {
  if (p->active && p->end != next_start && p->end > p->start)
    hub_counter_sample(c->w, p->track, p->end, p->value, "RPD_MONITOR");
  p->active = 0;
}

int rpd_monitor(rpd *c) {
  if (!c->have_monitor) return 0;
  sqlite3_stmt *st = nv_prepare(
      &c->src, "SELECT id, deviceType, deviceId, monitorType, start, end, value FROM rocpd_monitor "
               "ORDER BY deviceType, deviceId, monitorType, start, id");
  if (!st) return -1;
  pending p = {0};
  tt_buf key = {0}, last_key = {0};
  int64_t skipped = 0, first_skipped = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *dtype = (const char *)sqlite3_column_text(st, C_DTYPE);
    const char *mtype = (const char *)sqlite3_column_text(st, C_MTYPE);
    const char *value = (const char *)sqlite3_column_text(st, C_VALUE);
    int64_t raw_dev = sqlite3_column_int64(st, C_DEV);
    int64_t start = nv_time(&c->src, st, C_START, 0);
    char *end = NULL;
    double v = value ? strtod(value, &end) : 0;
    if (!value || end == value || *end) { /* not a number: no counter value */
      if (!skipped++) first_skipped = sqlite3_column_int64(st, C_ID);
      continue;
    }
    tt_buf_clear(&key);
    tt_buf_puts(&key, dtype ? dtype : ""); /* dtype \x1f dev \x1f mtype, no printf per row */
    tt_buf_putc(&key, '\x1f');
    tt_buf_put_i64(&key, raw_dev);
    tt_buf_putc(&key, '\x1f');
    tt_buf_puts(&key, mtype ? mtype : "");
    if (!last_key.data || strcmp(key.data, last_key.data) != 0) {
      close_interval(c, &p, INT64_MIN);
      tt_buf_clear(&last_key);
      tt_buf_puts(&last_key, key.data);
      int gpu = dtype && strcasecmp(dtype, "gpu") == 0;
      int64_t dev = gpu ? rpd_gpu(c, raw_dev) : raw_dev;
      tt_buf_clear(&c->name);
      if (gpu) {
        /* The GPU's own counter, on its agent: no launching call to miss,
         * so a GPU no process owns takes no placeholder process. */
        int64_t pid = rpd_gpu_known_owner(c, raw_dev);
        tt_buf_printf(&c->name, "GPU %lld %s", (long long)dev, mtype ? mtype : "");
        p.track = hub_gpu_counter_track(c->w, pid, rpd_gpu_agent(c, pid, raw_dev), c->name.data);
      } else {
        int64_t pid = c->single_pid != HUB_NULL ? c->single_pid : rpd_gpu_owner(c, -1);
        tt_buf_printf(&c->name, "%s %lld %s", dtype ? dtype : "", (long long)dev,
                      mtype ? mtype : "");
        p.track = hub_counter_track(c->w, pid, c->name.data);
      }
    } else {
      close_interval(c, &p, start);
    }
    hub_counter_sample(c->w, p.track, start, v, "RPD_MONITOR");
    p.active = 1;
    p.start = start;
    p.end = nv_time(&c->src, st, C_END, 0);
    p.value = v;
    rpd_progress(c);
  }
  int rc = step == SQLITE_DONE ? 0 : nv_step_error(&c->src, "rocpd_monitor");
  if (!rc) close_interval(c, &p, INT64_MIN);
  if (!rc && skipped)
    tt_warn("%s: %lld rocpd_monitor rows (first: id %lld) hold no number in value: not imported",
            c->src.path, (long long)skipped, (long long)first_skipped);
  tt_buf_free(&key);
  tt_buf_free(&last_key);
  sqlite3_finalize(st);
  return rc;
}
