/* nvprof's GPU-side tables: kernels, copies, memsets, synchronization and
 * CUDA event records. Each row links to its launching API call through
 * the correlation id on its rocpd_event; its process and thread come from
 * that call (GPU rows carry none). */
#include <stdlib.h>
#include <string.h>

#include "nvvp2db_parts.h"

/* Kernel symbol for a StringTable id, demangled once per distinct name. */
static int64_t kernel_symbol(nvp *c, int64_t pid, int64_t name_id, const char *name) {
  int64_t *id = pid == c->main_pid ? tt_i64map_get(&c->ksyms, name_id) : NULL;
  if (id) return *id;
  char *display = nvp_demangle(name);
  int64_t k = hub_kernel_symbol(c->w, pid, name, display ? display : name);
  free(display);
  if (pid == c->main_pid) tt_i64map_put(&c->ksyms, name_id, k);
  return k;
}

int nvp_kernels(nvp *c, const char *table) {
  if (!nv_has_table(&c->src, table)) return 0;
  if (nv_require_columns(&c->src, table,
                         "_id_,start,end,deviceId,streamId,gridX,gridY,gridZ,blockX,blockY,blockZ,"
                         "staticSharedMemory,dynamicSharedMemory,localMemoryPerThread,"
                         "correlationId,name"))
    return -1;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT k._id_, k.start, k.end, k.deviceId, k.streamId, k.gridX, k.gridY, "
                       "k.gridZ, k.blockX, k.blockY, k.blockZ, k.staticSharedMemory, "
                       "k.dynamicSharedMemory, k.localMemoryPerThread, k.correlationId, k.name, "
                       "s.value");
  nvp_launch_expr(c, "k.correlationId", &c->sql);
  /* CUDA's grid (in blocks) and shared memory split stay in extdata: the
   * hub columns hold rocpd's work-item grid and the per-group total. */
  nv_rest_columns(&c->src, table, "k",
                  "_id_,start,end,deviceId,streamId,blockX,blockY,blockZ,localMemoryPerThread,"
                  "correlationId,name",
                  &c->sql);
  tt_buf_printf(&c->sql, " FROM %s k LEFT JOIN StringTable s ON s._id_ = k.name", table);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name;
    if ((rc = nvp_string(c, st, 15, table, sqlite3_column_int64(st, 0), &name))) break;
    hub_kernel_row k;
    hub_kernel_row_init(&k);
    nvp_launch_decode(c, st, 17, &k.pid, &k.tid, HUB_NULL);
    int64_t corr = sqlite3_column_int64(st, 14);
    k.start = nv_time(&c->src, st, 1, 0);
    k.end = nv_time(&c->src, st, 2, 0);
    k.agent_id = nvp_agent(c, sqlite3_column_int64(st, 3));
    k.stream_id = nvp_stream(c, k.pid, sqlite3_column_int64(st, 4));
    k.kernel_id = kernel_symbol(c, k.pid, sqlite3_column_int64(st, 15), name ? name : "");
    k.dispatch_id = corr;
    /* grid in work-items = blocks x block size; shared memory = static +
     * dynamic, hostile values refused */
    if ((rc = nv_kernel_sizes(&c->src, st, table, "_id_", sqlite3_column_int64(st, 0), 5, 8, 11,
                              k.grid, k.workgroup, &k.group_segment_size)))
      break;
    k.private_segment_size = sqlite3_column_int64(st, 13);
    nv_json_begin(&c->ext);
    nv_rest_json(st, 18, &c->ext);
    k.extdata = nv_json_end(&c->ext);
    k.event_id = hub_event(c->w, "KERNEL_DISPATCH", corr, NULL);
    hub_kernel_dispatch(c->w, &k);
    nvp_cover(c, k.end);
    nvp_progress(c);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->src, table);
  sqlite3_finalize(st);
  return rc;
}

int nvp_memcpy(nvp *c, const char *table, int peer) {
  if (!nv_has_table(&c->src, table)) return 0;
  const char *cols = peer ? "start,end,deviceId,streamId,copyKind,srcKind,dstKind,bytes,"
                            "correlationId,srcDeviceId,dstDeviceId"
                          : "start,end,deviceId,streamId,copyKind,srcKind,dstKind,bytes,"
                            "correlationId";
  if (nv_require_columns(&c->src, table, cols)) return -1;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT m.start, m.end, m.deviceId, m.streamId, m.copyKind, m.srcKind, "
                       "m.dstKind, m.bytes, m.correlationId");
  tt_buf_puts(&c->sql, peer ? ", m.srcDeviceId, m.dstDeviceId" : ", m.deviceId, m.deviceId");
  nvp_launch_expr(c, "m.correlationId", &c->sql);
  nv_rest_columns(&c->src, table, "m", "_id_,start,end,streamId,bytes,correlationId", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", table);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  char name[96];
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    hub_copy_row r;
    hub_copy_row_init(&r);
    nvp_launch_decode(c, st, 11, &r.pid, &r.tid, HUB_NULL);
    r.start = nv_time(&c->src, st, 0, 0);
    r.end = nv_time(&c->src, st, 1, 0);
    r.stream_id = nvp_stream(c, r.pid, sqlite3_column_int64(st, 3));
    const char *src = tt_cupti_memory_kind(sqlite3_column_int64(st, 5));
    const char *dst = tt_cupti_memory_kind(sqlite3_column_int64(st, 6));
    tt_cuda_memcpy_name(name, sizeof name, sqlite3_column_int64(st, 4), src, dst);
    r.name = name;
    r.size = sqlite3_column_int64(st, 7);
    r.src_agent_id = tt_memory_kind_on_device(src) ? nvp_agent(c, sqlite3_column_int64(st, 9))
                                                   : nvp_cpu_agent(c);
    r.dst_agent_id = tt_memory_kind_on_device(dst) ? nvp_agent(c, sqlite3_column_int64(st, 10))
                                                   : nvp_cpu_agent(c);
    nv_json_begin(&c->ext);
    nv_rest_json(st, 12, &c->ext);
    r.extdata = nv_json_end(&c->ext);
    r.event_id = hub_event(c->w, "MEMORY_COPY", sqlite3_column_int64(st, 8), NULL);
    hub_memory_copy(c->w, &r);
    nvp_cover(c, r.end);
    nvp_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, table);
}

/* Memsets run on the GPU like kernels: a dispatch of the symbol
 * "Memset (<memory kind>)", category CUDA_MEMSET (as kineto2db does). */
int nvp_memset(nvp *c) {
  const char *t = NVP_TABLE("MEMSET");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t, "start,end,deviceId,streamId,correlationId")) return -1;
  int kind = nv_has_column(&c->src, t, "memoryKind");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, %s",
                kind ? "m.memoryKind" : "NULL");
  nvp_launch_expr(c, "m.correlationId", &c->sql);
  nv_rest_columns(&c->src, t, "m", "_id_,start,end,deviceId,streamId,correlationId", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("MEMSET") " m");
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  char name[64];
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    hub_kernel_row k;
    hub_kernel_row_init(&k);
    nvp_launch_decode(c, st, 6, &k.pid, &k.tid, HUB_NULL);
    k.start = nv_time(&c->src, st, 0, 0);
    k.end = nv_time(&c->src, st, 1, 0);
    k.agent_id = nvp_agent(c, sqlite3_column_int64(st, 2));
    k.stream_id = nvp_stream(c, k.pid, sqlite3_column_int64(st, 3));
    int64_t corr = sqlite3_column_int64(st, 4);
    tt_cuda_memset_name(name, sizeof name,
                        sqlite3_column_type(st, 5) == SQLITE_NULL
                            ? NULL
                            : tt_cupti_memory_kind(sqlite3_column_int64(st, 5)));
    k.kernel_id = hub_kernel_symbol(c->w, k.pid, name, name);
    k.dispatch_id = corr;
    nv_json_begin(&c->ext);
    nv_rest_json(st, 7, &c->ext);
    k.extdata = nv_json_end(&c->ext);
    k.event_id = hub_event(c->w, "CUDA_MEMSET", corr, NULL);
    hub_kernel_dispatch(c->w, &k);
    nvp_cover(c, k.end);
    nvp_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}

/* Synchronization intervals: regions on the thread that waited. */
int nvp_sync(nvp *c) {
  const char *t = NVP_TABLE("SYNCHRONIZATION");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t, "type,start,end,correlationId")) return -1;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT y.type, y.start, y.end, y.correlationId");
  nvp_launch_expr(c, "y.correlationId", &c->sql);
  nv_rest_columns(&c->src, t, "y", "_id_,start,end,correlationId", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("SYNCHRONIZATION") " y");
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_launch_decode(c, st, 4, &pid, &tid, 0);
    int64_t end = nv_time(&c->src, st, 2, 0);
    nv_json_begin(&c->ext);
    nv_rest_json(st, 5, &c->ext);
    int64_t ev = hub_event(c->w, "CUDA_SYNC", sqlite3_column_int64(st, 3), NULL);
    hub_region(c->w, pid, tid, nv_time(&c->src, st, 1, 0), end,
               tt_cupti_sync_type(sqlite3_column_int64(st, 0)), ev, nv_json_end(&c->ext));
    nvp_cover(c, end);
    nvp_progress(c);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}

/* CUDA_EVENT rows (cudaEventRecord) carry no time: they become samples on
 * the recording thread's "CUDA events" track at the start of the call
 * that recorded them. A record with no such call has no time at all: it
 * is counted in a warning. */
int nvp_cuda_events(nvp *c) {
  const char *t = NVP_TABLE("CUDA_EVENT");
  if (!nv_has_table(&c->src, t)) return 0;
  if (nv_require_columns(&c->src, t, "correlationId")) return -1;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT e.correlationId, COALESCE(");
  if (c->have_runtime)
    tt_buf_puts(&c->sql, "(SELECT a.start FROM " NVP_TABLE(
                             "RUNTIME") " a WHERE a.correlationId = e.correlationId LIMIT 1), ");
  if (c->have_driver)
    tt_buf_puts(&c->sql, "(SELECT a.start FROM " NVP_TABLE(
                             "DRIVER") " a WHERE a.correlationId = e.correlationId LIMIT 1), ");
  tt_buf_puts(&c->sql, "NULL, NULL)");
  nvp_launch_expr(c, "e.correlationId", &c->sql);
  nv_rest_columns(&c->src, t, "e", "_id_", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("CUDA_EVENT") " e");
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) return -1;
  int64_t orphans = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
      orphans++;
      continue;
    }
    int64_t pid, tid, ts = sqlite3_column_int64(st, 1);
    nvp_launch_decode(c, st, 2, &pid, &tid, 0);
    hub_touch_thread(c->w, pid, tid, ts, ts);
    int64_t track = hub_track(c->w, pid, tid, "CUDA events", HUB_TRACK_CUDA_EVENT);
    nv_json_begin(&c->ext);
    nv_json_str(&c->ext, "name", "CUDA event record");
    nv_rest_json(st, 3, &c->ext);
    int64_t ev = hub_event(c->w, "CUDA_EVENT", sqlite3_column_int64(st, 0), nv_json_end(&c->ext));
    hub_sample(c->w, track, ts, ev, NULL);
    nvp_progress(c);
  }
  sqlite3_finalize(st);
  if (orphans)
    tt_warn("%s: %lld CUDA_EVENT rows have no recording API call (no time): not imported",
            c->src.path, (long long)orphans);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, t);
}
