/* etprof2db's import (etprof2db.h): the choice of reader, and what both
 * readers write (one thread per code block, one region per profile event,
 * memory_allocate rows for allocations, the blocks in metadata), plus the
 * figures --summary prints. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "etprof2db.h"
#include "base/progress.h"

const char *const etp_scale_names[4] = {"ns", "us", "ms", "cycles"};

/* ---- what both readers share ------------------------------------------ */

void etp_warn(etp *c, const char *fmt, ...) {
  c->warnings++;
  if (tt_progress_quiet()) return;
  if (c->warnings > 50) {
    if (c->warnings == 51) tt_warn("%s: more warnings (counted in etprof2db.counts)", c->path);
    return;
  }
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  tt_warn("%s: %s", c->path, line);
}

int etp_inconsistent(etp *c, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (!c->o->lenient) {
    tt_error("%s: %s (--lenient imports anyway)", c->path, line);
    return -1;
  }
  c->inconsistencies++;
  etp_warn(c, "%s", line);
  return 0;
}

int etp_ticks_to_ns(etp *c, uint64_t ticks, uint64_t byte, int64_t *ns) {
  static const uint64_t mult[] = {1, 1000, 1000000};
  if (c->o->scale != ETP_CYCLES) {
    uint64_t m = mult[c->o->scale];
    if (ticks > (uint64_t)HUB_TIME_LIMIT / m) goto overflow;
    *ns = (int64_t)(ticks * m);
    return 0;
  }
  /* ns = ticks * 1e9 / Hz, rounded to nearest, in 128-bit integers */
  unsigned __int128 hz = (unsigned __int128)c->o->cpu_freq;
  unsigned __int128 v = ((unsigned __int128)ticks * 1000000000u + hz / 2) / hz;
  if (v > (unsigned __int128)HUB_TIME_LIMIT) goto overflow;
  *ns = (int64_t)v;
  return 0;
overflow:
  tt_error("%s: byte %llu: time %llu %s is beyond 2^62 ns, the hub's time range", c->path,
           (unsigned long long)byte, (unsigned long long)ticks, etp_scale_names[c->o->scale]);
  return -1;
}

etp_block *etp_block_get(etp *c, const char *name) {
  int64_t *i = tt_strmap_get(&c->block_index, name);
  if (i) return &c->blocks[*i];
  tt_grow(c->blocks, c->nblocks + 1, c->capblocks);
  etp_block *b = &c->blocks[c->nblocks];
  memset(b, 0, sizeof *b);
  b->name = tt_strdup(name);
  b->tid = (int64_t)c->nblocks + 1;
  tt_strmap_put(&c->block_index, name, (int64_t)c->nblocks);
  c->nblocks++;
  if (c->w) {
    hub_thread_name(c->w, c->pid, b->tid, name);
    tt_buf_clear(&c->tmp);
    tt_json_string(&c->tmp, name, strlen(name));
    hub_thread_extdata(c->w, c->pid, b->tid, "executorch_block", c->tmp.data);
  }
  return b;
}

/* hub_arg_int without its snprintf (the hot path: 3 args per event) */
static void int_arg(hub_writer *w, int64_t ev, int pos, const char *name, int64_t v) {
  char text[TT_I64_CHARS + 1];
  *tt_format_i64(text, v) = 0;
  hub_arg(w, ev, pos, HUB_ARG_INT, name, text);
}

static void hex_arg(etp *c, int64_t ev, int pos, const char *name, const uint8_t *p, size_t n) {
  static const char digits[] = "0123456789abcdef";
  tt_buf_clear(&c->tmp);
  tt_buf_reserve(&c->tmp, 2 * n + 1);
  for (size_t i = 0; i < n; i++) {
    c->tmp.data[c->tmp.len++] = digits[p[i] >> 4];
    c->tmp.data[c->tmp.len++] = digits[p[i] & 15];
  }
  c->tmp.data[c->tmp.len] = 0;
  hub_arg(c->w, ev, pos, HUB_ARG_STRING, name, c->tmp.data);
}

void etp_emit_event(etp *c, etp_block *b, int64_t iteration, int64_t run, const etp_ev *e) {
  c->nevents++;
  if (e->end > c->last_ns) c->last_ns = e->end;
  if (e->start > c->last_ns) c->last_ns = e->start;
  if (c->sum) etp_summary_event(c->sum, b->name, iteration, e);
  if (!c->w) return;
  int64_t ev = hub_event(c->w, e->category, HUB_NULL, NULL);
  int pos = 0;
  int_arg(c->w, ev, pos++, "iteration", iteration);
  if (run >= 0) int_arg(c->w, ev, pos++, "run", run);
  int_arg(c->w, ev, pos++, e->chain_arg, e->chain);
  int_arg(c->w, ev, pos++, e->instr_arg, e->instr);
  if (e->has_delegate_int) int_arg(c->w, ev, pos++, "delegate_debug_id_int", e->delegate_int);
  if (e->delegate_str) {
    char *s = tt_strndup(e->delegate_str, e->delegate_str_len);
    hub_arg(c->w, ev, pos++, HUB_ARG_STRING, "delegate_debug_id_str", s);
    free(s);
  }
  if (e->orig_name) hub_arg(c->w, ev, pos++, HUB_ARG_STRING, "event_name", e->orig_name);
  if (e->meta) hex_arg(c, ev, pos++, "delegate_debug_metadata", e->meta, e->meta_len);
  if (e->unfinished) int_arg(c->w, ev, pos++, "unfinished", 1);
  if (e->wrapped) int_arg(c->w, ev, pos++, "wrapped_32bit", 1);
  hub_region(c->w, c->pid, b->tid, e->start, e->end, e->name, ev, NULL);
  if ((c->nevents & 0xFFFF) == 0) tt_progress("events", (uint64_t)c->nevents, 0);
}

void etp_emit_alloc(etp *c, etp_block *b, int64_t iteration, int64_t run, int64_t ts,
                    const char *allocator, int64_t allocator_id, int64_t size) {
  c->nallocs++;
  if (c->sum) etp_summary_alloc(c->sum, b->name, allocator, size);
  if (!c->w) return;
  int64_t ev = hub_event(c->w, "executorch_allocation", HUB_NULL, NULL);
  int pos = 0;
  hub_arg(c->w, ev, pos++, HUB_ARG_STRING, "allocator", allocator);
  hub_arg_int(c->w, ev, pos++, "allocator_id", allocator_id);
  hub_arg_int(c->w, ev, pos++, "iteration", iteration);
  if (run >= 0) hub_arg_int(c->w, ev, pos++, "run", run);
  hub_arg_int(c->w, ev, pos++, "synthetic_time", 1);
  hub_alloc_row a;
  hub_alloc_row_init(&a);
  a.pid = c->pid;
  a.tid = b->tid;
  a.type = "ALLOC";
  a.level = "REAL";
  a.start = a.end = ts;
  a.size = size;
  a.event_id = ev;
  hub_touch_thread(c->w, c->pid, b->tid, ts, ts);
  hub_memory_allocate(c->w, &a);
}

void etp_allocator(etp *c, const char *block, int64_t id, const char *name) {
  tt_buf_clear(&c->tmp);
  tt_buf_printf(&c->tmp, "%s\x1f%lld\x1f%s", block, (long long)id, name);
  if (tt_strmap_get(&c->allocator_seen, c->tmp.data)) return;
  tt_strmap_put(&c->allocator_seen, c->tmp.data, 1);
  tt_buf_puts(&c->allocators, c->allocators.len ? ",{\"block\":" : "{\"block\":");
  tt_json_string(&c->allocators, block, strlen(block));
  tt_buf_printf(&c->allocators, ",\"id\":%lld,\"name\":", (long long)id);
  tt_json_string(&c->allocators, name, strlen(name));
  tt_buf_putc(&c->allocators, '}');
}

void etp_iteration_end(etp *c, etp_block *b, int64_t iteration) {
  if (c->sum) etp_summary_iteration_end(c->sum, b->name, iteration);
}

/* ---- the run ------------------------------------------------------------ */

static int read_input(etp *c, int etdump) {
  return etdump ? etp_read_etdump(c) : etp_read_legacy(c);
}

static void write_metadata(etp *c) {
  char v[64];
  hub_writer_metadata(c->w, "etprof2db.format", c->format);
  hub_writer_metadata(c->w, "etprof2db.time_scale", etp_scale_names[c->o->scale]);
  if (c->o->scale == ETP_CYCLES) {
    snprintf(v, sizeof v, "%.0f", c->o->cpu_freq);
    hub_writer_metadata(c->w, "etprof2db.cpu_freq_hz", v);
  }
  tt_buf_clear(&c->tmp);
  tt_buf_putc(&c->tmp, '[');
  for (size_t i = 0; i < c->nblocks; i++) {
    tt_buf_puts(&c->tmp, i ? ",{\"name\":" : "{\"name\":");
    tt_json_string(&c->tmp, c->blocks[i].name, strlen(c->blocks[i].name));
    tt_buf_printf(&c->tmp, ",\"pid\":%lld,\"tid\":%lld,\"iterations\":%lld}", (long long)c->pid,
                  (long long)c->blocks[i].tid, (long long)c->blocks[i].iterations);
  }
  tt_buf_putc(&c->tmp, ']');
  hub_writer_metadata(c->w, "etprof2db.blocks", c->tmp.data);
  tt_buf_clear(&c->tmp);
  tt_buf_printf(&c->tmp, "[%s]", c->allocators.len ? c->allocators.data : "");
  hub_writer_metadata(c->w, "etprof2db.allocators", c->tmp.data);
  tt_buf_clear(&c->tmp);
  tt_buf_printf(&c->tmp,
                "{\"events\":%lld,\"allocations\":%lld,\"debug_events\":%lld,\"warnings\":%lld,"
                "\"inconsistencies\":%lld,\"unfinished\":%lld,\"wrapped_32bit\":%lld}",
                (long long)c->nevents, (long long)c->nallocs, (long long)c->ndebug,
                (long long)c->warnings, (long long)c->inconsistencies, (long long)c->unfinished,
                (long long)c->wrapped);
  hub_writer_metadata(c->w, "etprof2db.counts", c->tmp.data);
}

static void etp_free(etp *c) {
  for (size_t i = 0; i < c->nblocks; i++) {
    etp_block *b = &c->blocks[i];
    for (size_t j = 0; j < b->nnames; j++) free(b->names[j]);
    free(b->names);
    free(b->allocs);
    free(b->name);
  }
  free(c->blocks);
  tt_strmap_free(&c->block_index);
  tt_strmap_free(&c->allocator_seen);
  tt_buf_free(&c->allocators);
  tt_buf_free(&c->tmp);
}

int etprof2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  const etprof2db_run *r = ctx;
  etp c;
  memset(&c, 0, sizeof c);
  c.path = opts->input;
  c.o = &r->o;
  c.w = w;
  c.sum = r->sum;
  c.pid = 1;
  c.format = r->etdump ? "etdump" : "legacy";
  if (w) {
    const char *base = strrchr(opts->input, '/');
    hub_process_name(w, c.pid, base ? base + 1 : opts->input);
  }
  int rc = read_input(&c, r->etdump);
  if (!rc && w) write_metadata(&c);
  if (!rc && c.inconsistencies && !tt_progress_quiet())
    tt_warn("%s: %lld inconsistencies between iterations imported (--lenient)", c.path,
            (long long)c.inconsistencies);
  etp_free(&c);
  return rc ? 1 : 0;
}

void etprof2db_summary_begin(etprof2db_run *r) {
  if (r->o.summary && !r->sum) r->sum = etp_summary_new();
}

int etprof2db_summary_end(etprof2db_run *r, int rc, FILE *out, const char *input) {
  if (!r->sum) return rc;
  if (rc == 0) etp_summary_print(r->sum, out, input, "ns");
  etp_summary_free(r->sum);
  r->sum = NULL;
  return rc;
}
