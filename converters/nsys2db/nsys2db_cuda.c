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
 * row aliased `x` (by process and correlation id). */
static void launch_join(ns *c, const char *x, tt_buf *sql) {
  const char *tables[2] = {NS_TABLE("RUNTIME"), NS_TABLE("DRIVER")};
  tt_buf_puts(sql, " LEFT JOIN (SELECT gp, cid, min(g) AS g FROM (");
  int n = 0;
  for (int i = 0; i < 2; i++) {
    if (!nv_has_table(&c->src, tables[i])) continue;
    int cls = nv_has_column(&c->src, tables[i], "eventClass");
    tt_buf_printf(sql, "%sSELECT globalTid >> 24 AS gp, correlationId AS cid, globalTid AS g FROM %s%s",
                  n++ ? " UNION ALL " : "", tables[i],
                  cls ? " WHERE eventClass != 67" : "");
  }
  if (!n) tt_buf_puts(sql, "SELECT NULL AS gp, NULL AS cid, NULL AS g");
  tt_buf_printf(sql, ") GROUP BY gp, cid) a ON a.gp = %s.globalPid >> 24 AND a.cid = %s.correlationId",
                x, x);
}

/* Thread of the launching call (a.g), HUB_NULL when there is none. */
static int64_t launch_tid(sqlite3_stmt *st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? HUB_NULL
                                                      : ns_tid(sqlite3_column_int64(st, col));
}

static int64_t stream_of(ns *c, int64_t pid, int64_t stream) {
  char name[48];
  snprintf(name, sizeof name, "stream %lld", (long long)stream);
  return hub_stream(c->w, pid, name, NULL);
}

int ns_cuda_api(ns *c, const char *table) {
  if (!nv_has_table(&c->src, table)) return 0;
  if (nv_require_columns(&c->src, table, "start,end,globalTid,correlationId,nameId")) return -1;
  int cls = nv_has_column(&c->src, table, "eventClass");
  int chain = cls && nv_has_column(&c->src, table, "callchainId");
  int driver_table = strcmp(table, NS_TABLE("DRIVER")) == 0;
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT r.rowid, r.start, r.end, r.globalTid, r.correlationId, r.nameId, "
                         "s.value, %s, %s",
                cls ? "r.eventClass" : (driver_table ? "1" : "0"), chain ? "b.cc" : "NULL");
  nv_rest_columns(&c->src, table, "r", "start,end,globalTid,nameId,eventClass", &c->sql);
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
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
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
    int64_t start = ns_time(c, st, 1);
    int64_t end = ns_time(c, st, 2);
    nv_json_begin(&c->ext);
    nv_json_int(&c->ext, "eventClass", klass);
    if (sqlite3_column_type(st, 8) != SQLITE_NULL)
      nv_json_int(&c->ext, "backtraceCallchainId", sqlite3_column_int64(st, 8));
    nv_rest_json(st, 9, &c->ext);
    if (raw && strcmp(name, raw) != 0) nv_json_str(&c->ext, "nsysName", raw);
    int64_t ev = hub_event(c->w, cat, sqlite3_column_int64(st, 4), NULL);
    hub_region(c->w, pid, ns_tid(g), start, end, name, ev, nv_json_end(&c->ext));
    free(name);
    ns_cover(c, end);
    ns_progress(c);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->src, table);
  sqlite3_finalize(st);
  if (!rc && chain) { /* backtraces without their call cannot be folded */
    tt_buf_clear(&c->sql);
    tt_buf_printf(&c->sql,
                  "SELECT count(*) FROM %s b WHERE b.eventClass = 67 AND NOT EXISTS (SELECT 1 "
                  "FROM %s r WHERE r.eventClass != 67 AND r.globalTid = b.globalTid AND "
                  "r.correlationId = b.correlationId)",
                  table, table);
    st = nv_prepare(&c->src, c->sql.data);
    if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0)
      tt_warn("%s: %lld CUDA backtrace records (eventClass 67) match no API call: not imported",
              c->src.path, (long long)sqlite3_column_int64(st, 0));
    sqlite3_finalize(st);
  }
  return rc;
}

int ns_kernels(ns *c) {
  const char *t = NS_TABLE("KERNEL");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t,
                         "start,end,deviceId,streamId,correlationId,globalPid,demangledName,"
                         "shortName,gridX,gridY,gridZ,blockX,blockY,blockZ,staticSharedMemory,"
                         "dynamicSharedMemory,localMemoryPerThread"))
    return -1;
  int mangled = nv_has_column(&c->src, t, "mangledName");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT k.rowid, k.start, k.end, k.deviceId, k.streamId, k.correlationId, "
                "k.globalPid, k.demangledName, dn.value, %s, mn.value, k.shortName, sn.value, "
                "k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, k.blockZ, k.staticSharedMemory, "
                "k.dynamicSharedMemory, k.localMemoryPerThread, a.g",
                mangled ? "k.mangledName" : "NULL");
  nv_rest_columns(&c->src, t, "k",
                  "start,end,deviceId,streamId,correlationId,globalPid,demangledName,"
                  "mangledName,shortName,blockX,blockY,blockZ,localMemoryPerThread",
                  &c->sql);
  tt_buf_printf(&c->sql,
                " FROM %s k LEFT JOIN StringIds dn ON dn.id = k.demangledName"
                " LEFT JOIN StringIds sn ON sn.id = k.shortName"
                " LEFT JOIN StringIds mn ON mn.id = %s",
                t, mangled ? "k.mangledName" : "NULL");
  launch_join(c, "k", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t row = sqlite3_column_int64(st, 0);
    const char *demangled, *mangled_name, *short_name;
    if ((rc = ns_string(c, st, 7, t, row, &demangled)) ||
        (rc = ns_string(c, st, 9, t, row, &mangled_name)) ||
        (rc = ns_string(c, st, 11, t, row, &short_name)))
      break;
    hub_kernel_row k;
    hub_kernel_row_init(&k);
    k.pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 6)));
    k.tid = launch_tid(st, 22);
    int64_t corr = sqlite3_column_int64(st, 5);
    k.start = ns_time(c, st, 1);
    k.end = ns_time(c, st, 2);
    k.agent_id = hub_gpu_agent(c->w, HUB_NULL, sqlite3_column_int64(st, 3));
    k.stream_id = stream_of(c, k.pid, sqlite3_column_int64(st, 4));
    const char *display = demangled ? demangled : "";
    k.kernel_id = hub_kernel_symbol(c->w, k.pid, mangled_name ? mangled_name : display, display);
    k.dispatch_id = corr;
    if ((rc = nv_kernel_sizes(&c->src, st, t, "rowid", row, 13, 16, 19, k.grid, k.workgroup,
                              &k.group_segment_size)))
      break;
    k.private_segment_size = sqlite3_column_int64(st, 21);
    nv_json_begin(&c->ext);
    if (short_name) nv_json_str(&c->ext, "shortName", short_name);
    nv_rest_json(st, 23, &c->ext);
    k.extdata = nv_json_end(&c->ext);
    k.event_id = hub_event(c->w, "KERNEL_DISPATCH", corr, NULL);
    hub_kernel_dispatch(c->w, &k);
    ns_cover(c, k.end);
    ns_progress(c);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->src, t);
  sqlite3_finalize(st);
  return rc;
}

static int64_t cpu_agent(ns *c) {
  hub_agent_info a = {.pid = HUB_NULL, .type = "CPU", .type_index = 0, .name = "CPU"};
  return hub_agent(c->w, &a);
}

int ns_memcpy(ns *c) {
  const char *t = NS_TABLE("MEMCPY");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t,
                         "start,end,deviceId,streamId,correlationId,globalPid,bytes,copyKind,"
                         "srcKind,dstKind"))
    return -1;
  int peer = nv_has_column(&c->src, t, "srcDeviceId") && nv_has_column(&c->src, t, "dstDeviceId");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, m.globalPid, "
                "m.bytes, m.copyKind, m.srcKind, m.dstKind, %s, %s, a.g",
                peer ? "COALESCE(m.srcDeviceId, m.deviceId)" : "m.deviceId",
                peer ? "COALESCE(m.dstDeviceId, m.deviceId)" : "m.deviceId");
  nv_rest_columns(&c->src, t, "m", "start,end,streamId,correlationId,globalPid,bytes", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", t);
  launch_join(c, "m", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  char name[96];
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    hub_copy_row r;
    hub_copy_row_init(&r);
    r.pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 5)));
    r.tid = launch_tid(st, 12);
    r.start = ns_time(c, st, 0);
    r.end = ns_time(c, st, 1);
    r.stream_id = stream_of(c, r.pid, sqlite3_column_int64(st, 3));
    const char *src = tt_nsys_memory_kind(sqlite3_column_int64(st, 8));
    const char *dst = tt_nsys_memory_kind(sqlite3_column_int64(st, 9));
    tt_cuda_memcpy_name(name, sizeof name, sqlite3_column_int64(st, 7), src, dst);
    r.name = name;
    r.size = sqlite3_column_int64(st, 6);
    r.src_agent_id = tt_memory_kind_on_device(src)
                         ? hub_gpu_agent(c->w, HUB_NULL, sqlite3_column_int64(st, 10))
                         : cpu_agent(c);
    r.dst_agent_id = tt_memory_kind_on_device(dst)
                         ? hub_gpu_agent(c->w, HUB_NULL, sqlite3_column_int64(st, 11))
                         : cpu_agent(c);
    nv_json_begin(&c->ext);
    nv_rest_json(st, 13, &c->ext);
    r.extdata = nv_json_end(&c->ext);
    r.event_id = hub_event(c->w, "MEMORY_COPY", sqlite3_column_int64(st, 4), NULL);
    hub_memory_copy(c->w, &r);
    ns_cover(c, r.end);
    ns_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}

/* Memsets as kernel dispatches of "Memset (<kind>)", category CUDA_MEMSET,
 * the same as nvvp2db and kineto2db. */
int ns_memset(ns *c) {
  const char *t = NS_TABLE("MEMSET");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t, "start,end,deviceId,streamId,correlationId,globalPid"))
    return -1;
  int kind = nv_has_column(&c->src, t, "memKind");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql,
                "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, m.globalPid, %s, "
                "a.g",
                kind ? "m.memKind" : "NULL");
  nv_rest_columns(&c->src, t, "m", "start,end,deviceId,streamId,correlationId,globalPid", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", t);
  launch_join(c, "m", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  char name[64];
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    hub_kernel_row k;
    hub_kernel_row_init(&k);
    k.pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 5)));
    k.tid = launch_tid(st, 7);
    k.start = ns_time(c, st, 0);
    k.end = ns_time(c, st, 1);
    k.agent_id = hub_gpu_agent(c->w, HUB_NULL, sqlite3_column_int64(st, 2));
    k.stream_id = stream_of(c, k.pid, sqlite3_column_int64(st, 3));
    int64_t corr = sqlite3_column_int64(st, 4);
    tt_cuda_memset_name(name, sizeof name,
                        sqlite3_column_type(st, 6) == SQLITE_NULL
                            ? NULL
                            : tt_nsys_memory_kind(sqlite3_column_int64(st, 6)));
    k.kernel_id = hub_kernel_symbol(c->w, k.pid, name, name);
    k.dispatch_id = corr;
    nv_json_begin(&c->ext);
    nv_rest_json(st, 8, &c->ext);
    k.extdata = nv_json_end(&c->ext);
    k.event_id = hub_event(c->w, "CUDA_MEMSET", corr, NULL);
    hub_kernel_dispatch(c->w, &k);
    ns_cover(c, k.end);
    ns_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}

/* Synchronization: regions on the waiting thread (the call's thread; the
 * process's pid as tid when no call matches). */
int ns_sync(ns *c) {
  const char *t = NS_TABLE("SYNCHRONIZATION");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t, "start,end,correlationId,globalPid,syncType")) return -1;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT y.start, y.end, y.correlationId, y.globalPid, y.syncType, a.g");
  nv_rest_columns(&c->src, t, "y", "start,end,correlationId,globalPid", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s y", t);
  launch_join(c, "y", &c->sql);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid = ns_seen(c, ns_pid(sqlite3_column_int64(st, 3))), tid;
    tid = launch_tid(st, 5);
    if (tid == HUB_NULL) tid = pid;
    int64_t end = ns_time(c, st, 1);
    nv_json_begin(&c->ext);
    nv_rest_json(st, 6, &c->ext);
    int64_t ev = hub_event(c->w, "CUDA_SYNC", sqlite3_column_int64(st, 2), NULL);
    hub_region(c->w, pid, tid, ns_time(c, st, 0), end,
               tt_cupti_sync_type(sqlite3_column_int64(st, 4)), ev, nv_json_end(&c->ext));
    ns_cover(c, end);
    ns_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}
