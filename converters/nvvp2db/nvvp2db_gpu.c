/* nvprof's GPU-side tables: kernels, copies, memsets, synchronization and
 * CUDA event records. Each row links to its launching API call through
 * the correlation id on its rocpd_event; its process and thread come from
 * that call (GPU rows carry none). */
#include <stdlib.h>
#include <string.h>

#include "nvvp2db_parts.h"
#include "sources/demangle.h"

/* Kernel symbol for a StringTable id, demangled once per distinct name. */
static int64_t kernel_symbol(nvp *c, int64_t pid, int64_t name_id, const char *name) {
  int64_t *id = pid == c->main_pid ? tt_i64map_get(&c->ksyms, name_id) : NULL;
  if (id) return *id;
  char *display = tt_demangle(name);
  int64_t k = hub_kernel_symbol(c->b.w, pid, name, display ? display : name);
  free(display);
  if (pid == c->main_pid) tt_i64map_put(&c->ksyms, name_id, k);
  return k;
}

int nvp_kernels(nvp *c, const char *table) {
  int usable = nv_table_usable(&c->b.src, table,
                               "_id_,start,end,deviceId,streamId,gridX,gridY,gridZ,blockX,blockY,"
                               "blockZ,staticSharedMemory,dynamicSharedMemory,"
                               "localMemoryPerThread,correlationId,name",
                               0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT k._id_, k.start, k.end, k.deviceId, k.streamId, k.gridX, k.gridY, "
                       "k.gridZ, k.blockX, k.blockY, k.blockZ, k.staticSharedMemory, "
                       "k.dynamicSharedMemory, k.localMemoryPerThread, k.correlationId, k.name, "
                       "s.value");
  nvp_launch_expr(c, "k.correlationId", &c->sql);
  /* CUDA's grid (in blocks) and shared memory split stay in extdata: the
   * hub columns hold rocpd's work-item grid and the per-group total. */
  nv_rest_columns(&c->b.src, table, "k",
                  "_id_,start,end,deviceId,streamId,blockX,blockY,blockZ,localMemoryPerThread,"
                  "correlationId,name",
                  &c->sql);
  tt_buf_printf(&c->sql, " FROM %s k LEFT JOIN StringTable s ON s._id_ = k.name", table);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_kernel_cols cols = {.row = 0, .start = 1, .end = 2, .device = 3,
                                         .stream = 4, .grid = 5, .block = 8, .shared = 11,
                                         .local = 13, .corr = 14, .rest = 18, .id_name = "_id_"};
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name;
    if ((rc = nvp_string(c, st, 15, table, sqlite3_column_int64(st, 0), &name))) break;
    int64_t pid, tid;
    nvp_launch_decode(c, st, 17, &pid, &tid, HUB_NULL);
    if ((rc = cupti_kernel(&c->b, st, table, &cols, pid, tid,
                           kernel_symbol(c, pid, sqlite3_column_int64(st, 15), name ? name : ""),
                           NULL)))
      break;
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, table);
  sqlite3_finalize(st);
  return rc;
}

int nvp_memcpy(nvp *c, const char *table, int peer) {
  const char *need = peer ? "start,end,deviceId,streamId,copyKind,srcKind,dstKind,bytes,"
                            "correlationId,srcDeviceId,dstDeviceId"
                          : "start,end,deviceId,streamId,copyKind,srcKind,dstKind,bytes,"
                            "correlationId";
  int usable = nv_table_usable(&c->b.src, table, need, 0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT m.start, m.end, m.deviceId, m.streamId, m.copyKind, m.srcKind, "
                       "m.dstKind, m.bytes, m.correlationId");
  tt_buf_puts(&c->sql, peer ? ", m.srcDeviceId, m.dstDeviceId" : ", m.deviceId, m.deviceId");
  nvp_launch_expr(c, "m.correlationId", &c->sql);
  nv_rest_columns(&c->b.src, table, "m", "_id_,start,end,streamId,bytes,correlationId", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s m", table);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_copy_cols cols = {.start = 0, .end = 1, .stream = 3, .kind = 4,
                                       .src_kind = 5, .dst_kind = 6, .bytes = 7, .corr = 8,
                                       .src_device = 9, .dst_device = 10, .rest = 12};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_launch_decode(c, st, 11, &pid, &tid, HUB_NULL);
    cupti_memcpy(&c->b, st, &cols, pid, tid);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, table);
}

/* Memsets: dispatches of "Memset (<memory kind>)" (cupti_memset). */
int nvp_memset(nvp *c) {
  const char *t = NVP_TABLE("MEMSET");
  int usable = nv_table_usable(&c->b.src, t, "start,end,deviceId,streamId,correlationId", 0);
  if (usable <= 0) return usable;
  int kind = nv_has_column(&c->b.src, t, "memoryKind");
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT m.start, m.end, m.deviceId, m.streamId, m.correlationId, %s",
                kind ? "m.memoryKind" : "NULL");
  nvp_launch_expr(c, "m.correlationId", &c->sql);
  nv_rest_columns(&c->b.src, t, "m", "_id_,start,end,deviceId,streamId,correlationId", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("MEMSET") " m");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_memset_cols cols = {.start = 0, .end = 1, .device = 2, .stream = 3,
                                         .corr = 4, .kind = 5, .rest = 7};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_launch_decode(c, st, 6, &pid, &tid, HUB_NULL);
    cupti_memset(&c->b, st, &cols, pid, tid);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* Synchronization intervals: regions on the thread that waited. */
int nvp_sync(nvp *c) {
  const char *t = NVP_TABLE("SYNCHRONIZATION");
  int usable = nv_table_usable(&c->b.src, t, "type,start,end,correlationId", 0);
  if (usable <= 0) return usable;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT y.type, y.start, y.end, y.correlationId");
  nvp_launch_expr(c, "y.correlationId", &c->sql);
  nv_rest_columns(&c->b.src, t, "y", "_id_,start,end,correlationId", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("SYNCHRONIZATION") " y");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_sync_cols cols = {.type = 0, .start = 1, .end = 2, .corr = 3, .rest = 5};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_launch_decode(c, st, 4, &pid, &tid, 0);
    cupti_sync(&c->b, st, &cols, pid, tid);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* CUDA_EVENT rows (cudaEventRecord) carry no time: they become samples on
 * the recording thread's "CUDA events" track at the start of the call
 * that recorded them. A record with no such call has no time at all: it
 * is counted in a warning. */
int nvp_cuda_events(nvp *c) {
  const char *t = NVP_TABLE("CUDA_EVENT");
  int usable = nv_table_usable(&c->b.src, t, "correlationId", 0);
  if (usable <= 0) return usable;
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
  nv_rest_columns(&c->b.src, t, "e", "_id_", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("CUDA_EVENT") " e");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  static const cupti_event_cols cols = {.corr = 0, .call_start = 1, .rest = 3};
  int64_t orphans = 0;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid, tid;
    nvp_launch_decode(c, st, 2, &pid, &tid, 0);
    orphans += cupti_cuda_event(&c->b, st, &cols, pid, tid);
  }
  sqlite3_finalize(st);
  cupti_cuda_event_warn_orphans(&c->b, "CUDA_EVENT", orphans);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}
