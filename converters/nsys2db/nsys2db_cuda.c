/* Nsight Systems' CUDA tables: API calls (RUNTIME, which also holds
 * driver calls and backtrace records, told apart by eventClass), kernels,
 * copies, memsets and synchronization. GPU rows link to their launching
 * call through the correlation id on their rocpd_event, and take the
 * call's thread. The export has no index on correlationId: each GPU table
 * joins one grouped pass over the calls (SQLite indexes it on the fly). */
#include <stdlib.h>
#include <string.h>

#include "nsys2db_parts.h"

enum { CLASS_RUNTIME = 0, CLASS_DRIVER = 1, CLASS_BACKTRACE = 67 };

/* Appends the join giving a.g = globalTid of the call that launched the
 * row aliased `x` (by process and correlation id), and with `start` its
 * start as a.ts. */
static void launch_join_at(ns *c, const char *x, int start, tt_buf *sql) {
  const char *tables[2] = {NS_TABLE("RUNTIME"), NS_TABLE("DRIVER")};
  tt_buf_printf(sql, " LEFT JOIN (SELECT gp, cid, min(g) AS g%s FROM (",
                start ? ", min(ts) AS ts" : "");
  int n = 0;
  for (int i = 0; i < 2; i++) {
    if (!nv_has_table(&c->b.src, tables[i])) continue;
    int cls = nv_has_column(&c->b.src, tables[i], "eventClass");
    tt_buf_printf(sql,
                  "%sSELECT globalTid >> 24 AS gp, correlationId AS cid, globalTid AS g%s"
                  " FROM %s%s",
                  n++ ? " UNION ALL " : "", start ? ", start AS ts" : "", tables[i],
                  cls ? " WHERE eventClass != 67" : "");
  }
  if (!n) tt_buf_puts(sql, "SELECT NULL AS gp, NULL AS cid, NULL AS g, NULL AS ts");
  tt_buf_printf(sql, ") GROUP BY gp, cid) a ON a.gp = %s.globalPid >> 24 AND a.cid = %s.correlationId",
                x, x);
}

static void launch_join(ns *c, const char *x, tt_buf *sql) { launch_join_at(c, x, 0, sql); }

/* Thread of the launching call (a.g), HUB_NULL when there is none. */
static int64_t launch_tid(sqlite3_stmt *st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? HUB_NULL
                                                      : ns_tid(sqlite3_column_int64(st, col));
}

int ns_cuda_api(ns *c, const char *table) {
  int usable = nv_table_usable(&c->b.src, table, "start,end,globalTid,correlationId,nameId", 0);
  if (usable <= 0) return usable;
  int cls = nv_has_column(&c->b.src, table, "eventClass");
  int chain = cls && nv_has_column(&c->b.src, table, "callchainId");
  int driver_table = strcmp(table, NS_TABLE("DRIVER")) == 0;
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT r.rowid, r.start, r.end, r.globalTid, r.correlationId, r.nameId, "
                         "s.value, %s, %s",
                cls ? "r.eventClass" : (driver_table ? "1" : "0"), chain ? "b.cc" : "NULL");
  nv_rest_columns(&c->b.src, table, "r", "start,end,globalTid,nameId,eventClass", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s r LEFT JOIN StringIds s ON s.id = r.nameId", table);
  /* Backtrace records (eventClass 67) repeat a call's interval and
   * correlation to carry its call stack: folded into that call. */
  if (chain)
    tt_buf_printf(&c->sql,
                  " LEFT JOIN (SELECT globalTid AS g, correlationId AS cid, min(callchainId) AS cc"
                  " FROM %s WHERE eventClass = 67 GROUP BY 1, 2) b"
                  " ON b.g = r.globalTid AND b.cid = r.correlationId",
                  table);
  if (cls) tt_buf_puts(&c->sql, " WHERE r.eventClass != 67");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  char category[48];
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *raw;
    if ((rc = ns_string(c, st, 5, table, sqlite3_column_int64(st, 0), &raw))) break;
    char *name = tt_strndup(raw ? raw : "", raw ? tt_cuda_api_name_len(raw) : 0);
    int64_t klass = sqlite3_column_int64(st, 7);
    const char *cat = category;
    if (klass == CLASS_RUNTIME) cat = "CUDA_RUNTIME_API";
    else if (klass == CLASS_DRIVER) cat = "CUDA_DRIVER_API";
    else snprintf(category, sizeof category, "CUDA_API_CLASS_%lld", (long long)klass);
    int64_t g = sqlite3_column_int64(st, 3);
    int64_t pid = ns_seen(c, ns_pid(g));
    int64_t start = cupti_time(&c->b, st, 1);
    int64_t end = cupti_time(&c->b, st, 2);
    nv_json_begin(&c->b.ext);
    nv_json_int(&c->b.ext, "eventClass", klass);
    if (sqlite3_column_type(st, 8) != SQLITE_NULL)
      nv_json_int(&c->b.ext, "backtraceCallchainId", sqlite3_column_int64(st, 8));
    nv_rest_json(st, 9, &c->b.ext);
    if (raw && strcmp(name, raw) != 0) nv_json_str(&c->b.ext, "nsysName", raw);
    int64_t ev = hub_event(c->b.w, cat, sqlite3_column_int64(st, 4), NULL);
    hub_region(c->b.w, pid, ns_tid(g), start, end, name, ev, nv_json_end(&c->b.ext));
    free(name);
    cupti_cover(&c->b, end);
    cupti_progress(&c->b);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, table);
  sqlite3_finalize(st);
  if (!rc && chain) { /* backtraces without their call cannot be folded */
    tt_buf_clear(&c->sql);
    tt_buf_printf(&c->sql,
                  "SELECT count(*) FROM %s b WHERE b.eventClass = 67 AND NOT EXISTS (SELECT 1 "
                  "FROM %s r WHERE r.eventClass != 67 AND r.globalTid = b.globalTid AND "
                  "r.correlationId = b.correlationId)",
                  table, table);
    st = nv_prepare(&c->b.src, c->sql.data);
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
      tt_warn("%s: %lld CUDA backtrace records (eventClass 67) match no API call: not imported",
              c->b.src.path, (long long)sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
  }
  return rc;
}

int ns_kernels(ns *c) {
  const char *t = NS_TABLE("KERNEL");
  int usable = nv_table_usable(&c->b.src, t,
                               "start,end,deviceId,streamId,correlationId,globalPid,demangledName,"
                               "shortName,gridX,gridY,gridZ,blockX,blockY,blockZ,staticSharedMemory,"
                               "dynamicSharedMemory,localMemoryPerThread",
                               0);
  if (usable <= 0) return usable;
  int mangled = nv_has_column(&c->b.src, t, "mangledName");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT k.rowid, k.start, k.end, k.deviceId, k.streamId, k.correlationId, "
                "k.globalPid, k.demangledName, dn.value, %s, mn.value, k.shortName, sn.value, "
                "k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, k.staticSharedMemory, "
                "k.dynamicSharedMemory, k.localMemoryPerThread, a.g",
                mangled ? "k.mangledName" : "NULL");
  nv_rest_columns(&c->b.src, t, "k",
                  "start,end,deviceId,streamId,correlationId,globalPid,demangledName,"
                  "mangledName,shortName,blockX,blockY,blockZ,localMemoryPerThread",
                  &c->sql);
  tt_buf_printf(&c->sql,
                " FROM %s k LEFT JOIN StringIds dn ON dn.id = k.demangledName"
                " LEFT JOIN StringIds sn ON sn.id = k.shortName"
                " LEFT JOIN StringIds mn ON mn.id = %s",
                t, mangled ? "k.mangledName" : "NULL");
  launch_join(c, "k", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_kernel_cols cols = {.row = 0, .start = 1, .end = 2, .device = 3,
                                         .stream = 4, .corr = 5, .grid = 13, .block = 16,
                                         .shared = 19, .local = 21, .rest = 23,
                                         .id_name = "rowid"};
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t row = sqlite3_column_int64(st, 0);
    const char *demangled, *mangled_name, *short_name;
    if ((rc = ns_string(c, st, 7, t, row, &demangled)) ||
        (rc = ns_string(c, st, 9, t, row, &mangled_name)) ||
        (rc = ns_string(c, st, 11, t, row, &short_name)))
      break;
    int64_t pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 6)));
    const char *display = demangled ? demangled : "";
    int64_t sym = hub_kernel_symbol(c->b.w, pid, mangled_name ? mangled_name : display, display);
    if ((rc = cupti_kernel(&c->b, st, t, &cols, pid, launch_tid(st, 22), sym, short_name))) break;
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  sqlite3_finalize(st);
  return rc;
}

int ns_memcpy(ns *c) {
  const char *t = NS_TABLE("MEMCPY");
  int usable = nv_table_usable(&c->b.src, t,
                               "start,end,deviceId,streamId,correlationId,globalPid,bytes,"
                               "copyKind,srcKind,dstKind",
                               0);
  if (usable <= 0) return usable;
  int peer = nv_has_column(&c->b.src, t, "srcDeviceId") && nv_has_column(&c->b.src, t, "dstDeviceId");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, m.globalPid, "
                "m.bytes, m.copyKind, m.srcKind, m.dstKind, %s, %s, a.g",
                peer ? "COALESCE(m.srcDeviceId, m.deviceId)" : "m.deviceId",
                peer ? "COALESCE(m.dstDeviceId, m.deviceId)" : "m.deviceId");
  nv_rest_columns(&c->b.src, t, "m", "start,end,streamId,correlationId,globalPid,bytes", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", t);
  launch_join(c, "m", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_copy_cols cols = {.start = 0, .end = 1, .stream = 3, .corr = 4,
                                       .bytes = 6, .kind = 7, .src_kind = 8, .dst_kind = 9,
                                       .src_device = 10, .dst_device = 11, .rest = 13};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW)
    cupti_memcpy(&c->b, st, &cols, ns_seen(c, ns_pid(sqlite3_column_int64(st, 5))),
                 launch_tid(st, 12));
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* Memsets: dispatches of "Memset (<kind>)" (cupti_memset). */
int ns_memset(ns *c) {
  const char *t = NS_TABLE("MEMSET");
  int usable =
      nv_table_usable(&c->b.src, t, "start,end,deviceId,streamId,correlationId,globalPid", 0);
  if (usable <= 0) return usable;
  int kind = nv_has_column(&c->b.src, t, "memKind");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, m.globalPid, %s, "
                "a.g",
                kind ? "m.memKind" : "NULL");
  nv_rest_columns(&c->b.src, t, "m", "start,end,deviceId,streamId,correlationId,globalPid", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", t);
  launch_join(c, "m", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_memset_cols cols = {.start = 0, .end = 1, .device = 2, .stream = 3,
                                         .corr = 4, .kind = 6, .rest = 8};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW)
    cupti_memset(&c->b, st, &cols, ns_seen(c, ns_pid(sqlite3_column_int64(st, 5))),
                 launch_tid(st, 7));
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* Synchronization: regions on the waiting thread (the call's thread; the
 * process's pid as tid when no call matches). */
int ns_sync(ns *c) {
  const char *t = NS_TABLE("SYNCHRONIZATION");
  int usable = nv_table_usable(&c->b.src, t, "start,end,correlationId,globalPid,syncType", 0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT y.start, y.end, y.correlationId, y.globalPid, y.syncType, a.g");
  nv_rest_columns(&c->b.src, t, "y", "start,end,correlationId,globalPid", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s y", t);
  launch_join(c, "y", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_sync_cols cols = {.start = 0, .end = 1, .corr = 2, .type = 4, .rest = 6};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 3))), tid = launch_tid(st, 5);
    cupti_sync(&c->b, st, &cols, pid, tid == HUB_NULL ? pid : tid);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* CUDA event records (cudaEventRecord) carry no time: samples at the
 * recording call's start, as nvvp2db writes them (cupti_cuda_event). */
int ns_cuda_events(ns *c) {
  const char *t = NS_TABLE("CUDA_EVENT");
  int usable = nv_table_usable(&c->b.src, t, "correlationId,globalPid", 0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT e.correlationId, a.ts, e.globalPid, a.g");
  nv_rest_columns(&c->b.src, t, "e", "globalPid", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s e", t);
  launch_join_at(c, "e", 1, &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_event_cols cols = {.corr = 0, .call_start = 1, .rest = 4};
  int64_t orphans = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 2))), tid = launch_tid(st, 3);
    orphans += cupti_cuda_event(&c->b, st, &cols, pid, tid == HUB_NULL ? pid : tid);
  }
  sqlite3_finalize(st);
  cupti_cuda_event_warn_orphans(&c->b, t, orphans);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}
