/* nvprof's CPU-side tables: RUNTIME and DRIVER API calls (named from their
 * cbid) and profiler OVERHEAD intervals, all as regions on the thread. */
#include <stdlib.h>
#include <string.h>

#include "nvvp2db_parts.h"

int nvp_api(nvp *c, const char *table, const char *category, int driver) {
  if (!(driver ? c->have_driver : c->have_runtime)) return 0;
  tt_buf_clear(&c->sql);
  /* cbid, correlationId and returnValue stay in extdata as the source
   * wrote them; the hub columns take the times, ids and function name. */
  tt_buf_puts(&c->sql, "SELECT r.cbid, r.start, r.end, r.processId, r.threadId, r.correlationId");
  nv_rest_columns(&c->b.src, table, "r", "_id_,start,end,processId,threadId", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s r", table);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  char unknown[32];
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t cbid = sqlite3_column_int64(st, 0);
    const char *name = driver ? tt_cupti_driver_name(cbid) : tt_cupti_runtime_name(cbid);
    if (!name) { /* a cbid newer than our table: kept, under its number */
      snprintf(unknown, sizeof unknown, "cbid %lld", (long long)cbid);
      name = unknown;
    }
    int64_t start = cupti_time(&c->b, st, 1), end = cupti_time(&c->b, st, 2);
    int64_t pid = sqlite3_column_int64(st, 3);
    int64_t tid = sqlite3_column_int64(st, 4) & 0xFFFFFFFF; /* stored signed */
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 6, &c->b.ext);
    int64_t ev = hub_event(c->b.w, category, sqlite3_column_int64(st, 5), NULL);
    hub_region(c->b.w, pid, tid, start, end, name, ev, nv_json_end(&c->b.ext));
    cupti_cover(&c->b, end);
    cupti_progress(&c->b);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, table);
}

int nvp_overhead(nvp *c) {
  const char *t = NVP_TABLE("OVERHEAD");
  int usable = nv_table_usable(&c->b.src, t, "overheadKind,objectKind,objectId,start,end", 0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT o.overheadKind, o.objectKind, o.objectId, o.start, o.end");
  nv_rest_columns(&c->b.src, t, "o", "_id_,objectId,start,end", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("OVERHEAD") " o");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_object_ids(c, st, 1, 2, &pid, &tid);
    int64_t start = cupti_time(&c->b, st, 3), end = cupti_time(&c->b, st, 4);
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 5, &c->b.ext);
    int64_t ev = hub_event(c->b.w, "PROFILER_OVERHEAD", HUB_NULL, NULL);
    hub_region(c->b.w, pid, tid, start, end, tt_cupti_overhead_kind(sqlite3_column_int64(st, 0)),
               ev, nv_json_end(&c->b.ext));
    cupti_cover(&c->b, end);
    cupti_progress(&c->b);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}
