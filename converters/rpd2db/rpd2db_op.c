/* rocpd_op: GPU work on the GPU and queue it names. KernelExecution ops
 * are kernel dispatches, Copy* / Memcpy ops memory copies, every other
 * type (FillBuffer, Memset, barriers) GPU work of its own category: a
 * dispatch whose symbol is its description or type. rocpd_api_ops links
 * an op to the call that launched it: the op takes that call's process,
 * thread and id (as correlation id, so exporters draw the launch arrow),
 * and the call's kernelapi / copyapi row fills grid, workgroup, segment
 * sizes, bytes, addresses and direction. An op no call launched goes to
 * the process of its GPU (rpd_gpu_owner). */
#include <stdlib.h>
#include <string.h>

#include "rpd2db_parts.h"
#include "base/sqlite_setup.h"
#include "sources/demangle.h"

enum {
  C_ID, C_GPU, C_QUEUE, C_SEQ, C_START, C_END, C_DESC_ID, C_DESC, C_TYPE, C_API, C_NLINKS,
  C_PID, C_TID, C_APINAME, C_GRID, C_WG = C_GRID + 3, C_GROUPSEG = C_WG + 3, C_PRIVSEG,
  C_KNAME, C_SIZE, C_KIND, C_DST, C_SRC, C_REST
};

static const char OP_COLS[] = "id,gpuId,queueId,sequenceId,start,end,description_id,opType_id";
static const char KAPI_MAPPED[] = "api_ptr_id,gridX,gridY,gridZ,workgroupX,workgroupY,workgroupZ,"
                                  "groupSegmentSize,privateSegmentSize,kernelName_id";
static const char CAPI_MAPPED[] = "api_ptr_id,size,dst,src";

static void build_query(rpd *c, int *ncols) {
  tt_buf *q = &c->sql;
  tt_buf_clear(q);
  tt_buf_puts(q, "SELECT o.id, o.gpuId, o.queueId, o.sequenceId, o.start, o.end, "
                 "o.description_id, d.string, t.string, l.api_id, l.n, a.pid, a.tid, an.string, ");
  tt_buf_puts(q, c->have_kernelapi
                     ? "k.gridX, k.gridY, k.gridZ, k.workgroupX, k.workgroupY, k.workgroupZ, "
                       "k.groupSegmentSize, k.privateSegmentSize, kn.string, "
                     : "NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, ");
  tt_buf_puts(q, c->have_copyapi ? "cp.size, cp.kind, cp.dst, cp.src"
                                 : "NULL, NULL, NULL, NULL");
  nv_rest_columns(&c->src, "rocpd_op", "o", OP_COLS, q);
  int n = C_REST + rpd_rest_count(c, "rocpd_op", OP_COLS);
  /* The launching call's kernelapi / copyapi / code object columns that
   * have no hub column, as args. */
  if (c->have_kernelapi) {
    nv_rest_columns(&c->src, "rocpd_kernelapi", "k", KAPI_MAPPED, q);
    n += rpd_rest_count(c, "rocpd_kernelapi", KAPI_MAPPED);
    if (c->have_codeobject) {
      nv_rest_columns(&c->src, "rocpd_kernelcodeobject", "co", "id", q);
      n += rpd_rest_count(c, "rocpd_kernelcodeobject", "id");
    }
  }
  if (c->have_copyapi) {
    nv_rest_columns(&c->src, "rocpd_copyapi", "cp", CAPI_MAPPED, q);
    n += rpd_rest_count(c, "rocpd_copyapi", CAPI_MAPPED);
  }
  if (c->have_barrierop) {
    nv_rest_columns(&c->src, "rocpd_barrierop", "b", "op_ptr_id", q);
    n += rpd_rest_count(c, "rocpd_barrierop", "op_ptr_id");
  }
  /* Each op finds its first launching call in temp.tt_op_link (op_links);
   * the call, its kernelapi and copyapi rows are found by their primary
   * keys. */
  tt_buf_puts(q, " FROM rocpd_op o LEFT JOIN rocpd_string d ON d.id = o.description_id"
                 " LEFT JOIN rocpd_string t ON t.id = o.opType_id"
                 " LEFT JOIN temp.tt_op_link l ON l.op_id = o.id"
                 " LEFT JOIN rocpd_api a ON a.id = l.api_id"
                 " LEFT JOIN rocpd_string an ON an.id = a.apiName_id");
  rpd_launch_joins(c, q, "l.api_id");
  if (c->have_barrierop) tt_buf_puts(q, " LEFT JOIN rocpd_barrierop b ON b.op_ptr_id = o.id");
  tt_buf_puts(q, " ORDER BY o.id");
  *ncols = n;
}

static const char *text(sqlite3_stmt *st, int col) {
  const char *s = (const char *)sqlite3_column_text(st, col);
  return s ? s : "";
}

/* An integer column's value; NULL for NULL and for text that is no
 * integer (schema 2 writes '' into integer columns it did not fill). */
static int64_t int_or_null(sqlite3_stmt *st, int col) {
  switch (sqlite3_column_type(st, col)) {
  case SQLITE_INTEGER: return sqlite3_column_int64(st, col);
  case SQLITE_FLOAT: return (int64_t)sqlite3_column_double(st, col);
  case SQLITE_TEXT: {
    const char *s = (const char *)sqlite3_column_text(st, col);
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    return end != s && *end == '\0' ? (int64_t)v : HUB_NULL;
  }
  default: return HUB_NULL;
  }
}

/* An address as the tracer prints a pointer ("0x7f3e..."); NULL if none. */
static int64_t address(sqlite3_stmt *st, int col) {
  const char *s = (const char *)sqlite3_column_text(st, col);
  if (!s || !*s) return HUB_NULL;
  char *end = NULL;
  unsigned long long v = strtoull(s, &end, 0);
  return end && *end == '\0' ? (int64_t)v : HUB_NULL;
}

/* Host (0) or device (1) for each end: from the op type Copy<X>To<Y>, or
 * from hipMemcpyKind (0 HtoH, 1 HtoD, 2 DtoH, 3 DtoD). -1: unknown. */
static void copy_ends(const char *type, sqlite3_stmt *st, int *src, int *dst) {
  *src = *dst = -1;
  if (strncmp(type, "Copy", 4) == 0) {
    const char *p = type + 4, *to = strstr(p, "To");
    if (to) {
      *src = strncmp(p, "Host", 4) == 0 ? 0 : strncmp(p, "Device", 6) == 0 ? 1 : -1;
      *dst = strncmp(to + 2, "Host", 4) == 0 ? 0 : strncmp(to + 2, "Device", 6) == 0 ? 1 : -1;
      return;
    }
  }
  if (sqlite3_column_type(st, C_KIND) == SQLITE_NULL) return;
  int64_t kind = sqlite3_column_int64(st, C_KIND);
  if (kind >= 0 && kind <= 3) {
    *src = (int)(kind >> 1);
    *dst = (int)(kind & 1);
  }
}

/* The kernelapi grid in work-items, as rocprofv3 writes grid_size: the
 * tracer records work-items for hipHccModuleLaunchKernel and
 * hipExtModuleLaunchKernel (globalWorkSize) and blocks for every other
 * launch (numBlocks, gridDim). */
static void kernel_geometry(sqlite3_stmt *st, hub_kernel_row *k) {
  if (sqlite3_column_type(st, C_GRID) == SQLITE_NULL) return;
  const char *api = text(st, C_APINAME);
  int work_items = strcmp(api, "hipHccModuleLaunchKernel") == 0 ||
                   strcmp(api, "hipExtModuleLaunchKernel") == 0;
  for (int i = 0; i < 3; i++) {
    int64_t g = int_or_null(st, C_GRID + i);
    k->workgroup[i] = int_or_null(st, C_WG + i);
    k->grid[i] = g == HUB_NULL || k->workgroup[i] == HUB_NULL ? g
                 : g * (work_items ? 1 : k->workgroup[i]);
  }
  k->group_segment_size = int_or_null(st, C_GROUPSEG);
  k->private_segment_size = int_or_null(st, C_PRIVSEG);
}

/* The symbol of a kernel: hub_kernel_symbol with the recorded (mangled)
 * name and its demangled display name, looked up once per string id of the
 * first process with kernels (most files have one). *demangled says
 * whether the display name differs. The cache keeps symbol id * 2 + that. */
static int64_t kernel_symbol(rpd *c, int64_t pid, sqlite3_stmt *st, const char *name,
                             int *demangled) {
  int64_t desc_id = sqlite3_column_int64(st, C_DESC_ID);
  int cacheable = *text(st, C_DESC) != '\0';
  if (c->ksym_pid == HUB_NULL) c->ksym_pid = pid;
  int64_t *id = cacheable && pid == c->ksym_pid ? tt_i64map_get(&c->ksyms, desc_id) : NULL;
  if (id) {
    *demangled = (int)(*id & 1);
    return *id >> 1;
  }
  char *display = tt_demangle(name);
  *demangled = display != NULL;
  int64_t k = hub_kernel_symbol(c->w, pid, name, display ? display : name);
  free(display);
  if (cacheable && pid == c->ksym_pid) tt_i64map_put(&c->ksyms, desc_id, k * 2 + *demangled);
  return k;
}

/* The GPU agent and queue row of an op's process, GPU and queue: from the
 * recent lanes, else made (named "GPU g queue q") and remembered in place
 * of the oldest. */
static const struct rpd_lane *op_lane(rpd *c, int64_t pid, int64_t raw_gpu, int64_t raw_queue) {
  for (int i = 0; i < c->nlanes; i++) {
    const struct rpd_lane *l = &c->lanes[i];
    if (l->pid == pid && l->gpu == raw_gpu && l->queue == raw_queue) return l;
  }
  int64_t gpu = rpd_gpu(c, raw_gpu);
  int64_t queue = c->decode_gpu ? raw_queue % c->gpu_stride : raw_queue;
  char qname[96], qext[96];
  snprintf(qname, sizeof qname, "GPU %lld queue %lld", (long long)gpu, (long long)queue);
  snprintf(qext, sizeof qext, "{\"gpu\":%lld,\"queue\":%lld}", (long long)gpu, (long long)queue);
  struct rpd_lane *l;
  if (c->nlanes < RPD_LANES) {
    l = &c->lanes[c->nlanes++];
  } else {
    l = &c->lanes[c->lane_next];
    c->lane_next = (c->lane_next + 1) % RPD_LANES;
  }
  l->pid = pid;
  l->gpu = raw_gpu;
  l->queue = raw_queue;
  l->agent = rpd_gpu_agent(c, pid, raw_gpu);
  l->queue_id = hub_queue(c->w, pid, qname, qext);
  return l;
}

/* rocpd_api_ops grouped by op once (one sort) into a TEMP table keyed by
 * the op's id, so each op's lookup is a rowid search: as a subquery SQLite
 * grouped it and then built a transient index on the result, twice the
 * work (RPD files carry no index on api_ops). Only TEMP is written
 * (tt_sqlite_exec_temp). Keyed by the op's own id, so an
 * op_id stored as text ('12') links op 12 once, as the join compares. */
static int op_links(rpd *c) {
  sqlite3 *db = c->src.db;
  char *err = NULL;
  int rc = tt_sqlite_exec_temp(db,
                        "DROP TABLE IF EXISTS temp.tt_op_link;"
                        "CREATE TEMP TABLE tt_op_link(op_id INTEGER PRIMARY KEY, api_id, n);"
                        "INSERT INTO temp.tt_op_link SELECT o.id, min(l.api_id), count(*) FROM "
                        "rocpd_api_ops l JOIN rocpd_op o ON o.id = l.op_id GROUP BY o.id;",
                        &err);
  if (rc != SQLITE_OK) {
    tt_error("%s: reading table rocpd_api_ops: %s", c->src.path, err ? err : sqlite3_errmsg(db));
    sqlite3_free(err);
    return -1;
  }
  return 0;
}

int rpd_ops(rpd *c) {
  if (op_links(c)) return -1;
  rpd_side counters, signals;
  if (rpd_side_open(c, &counters, "rocpd_counter",
                    c->have_counter
                        ? "SELECT r.op_id, s.string, r.value FROM rocpd_counter r "
                          "LEFT JOIN rocpd_string s ON s.id = r.name_id ORDER BY r.op_id, r.id"
                        : NULL))
    return -1;
  if (rpd_side_open(c, &signals, "rocpd_op_inputSignals",
                    c->have_signals ? "SELECT to_op_id, from_op_id FROM rocpd_op_inputSignals "
                                      "ORDER BY to_op_id, id"
                                    : NULL)) {
    rpd_side_close(&counters);
    return -1;
  }
  int ncols;
  build_query(c, &ncols);
  sqlite3_stmt *st = nv_prepare(&c->src, c->sql.data);
  if (!st) {
    rpd_side_close(&counters);
    rpd_side_close(&signals);
    return -1;
  }
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, C_ID);
    if (sqlite3_column_type(st, C_TYPE) == SQLITE_NULL) {
      tt_error("%s: table rocpd_op row id %lld: opType_id is not in rocpd_string", c->src.path,
               (long long)id);
      rc = -1;
      break;
    }
    const char *type = text(st, C_TYPE), *desc = text(st, C_DESC);
    int64_t raw_gpu = sqlite3_column_int64(st, C_GPU);
    int64_t raw_queue = sqlite3_column_int64(st, C_QUEUE);
    int linked = sqlite3_column_type(st, C_PID) != SQLITE_NULL;
    int64_t pid = linked ? rpd_pid(c, sqlite3_column_int64(st, C_PID)) : rpd_gpu_owner(c, raw_gpu);
    int64_t tid = linked ? rpd_tid(c, sqlite3_column_int64(st, C_TID)) : HUB_NULL;
    int64_t corr = linked ? sqlite3_column_int64(st, C_API) : HUB_NULL;
    const struct rpd_lane *lane = op_lane(c, pid, raw_gpu, raw_queue);
    int64_t agent = lane->agent, queue_id = lane->queue_id;
    int is_kernel = strcmp(type, "KernelExecution") == 0;
    int is_copy = strncmp(type, "Copy", 4) == 0 || strcmp(type, "Memcpy") == 0;
    const char *category = is_kernel ? "KERNEL_DISPATCH" : is_copy ? "MEMORY_COPY"
                                     : *type ? type : "GPU_OP";
    int64_t ev = hub_event(c->w, category, corr, NULL);
    int pos = 0;
    /* The type is the category of typed GPU work and the name of a copy
     * without description; otherwise it is said here. */
    const char *name = *desc ? desc : type;
    if ((is_kernel && *desc == '\0') || (is_copy && *desc))
      rpd_arg(c, ev, &pos, HUB_ARG_STRING, "opType", type);
    const char *kname = text(st, C_KNAME);
    if (*kname && strcmp(kname, name) != 0)
      rpd_arg(c, ev, &pos, HUB_ARG_STRING, "kernelName", kname);
    if (linked && sqlite3_column_int64(st, C_NLINKS) > 1)
      rpd_arg_int(c, ev, &pos, "api_ops", sqlite3_column_int64(st, C_NLINKS));
    if (!linked && sqlite3_column_type(st, C_API) != SQLITE_NULL) /* a link to a missing call */
      rpd_arg_int(c, ev, &pos, "api_id", sqlite3_column_int64(st, C_API));
    rpd_args_from(c, ev, &pos, st, C_REST, ncols);
    while (rpd_side_at(&counters, id)) {
      rpd_arg_value(c, ev, &pos, text(counters.st, 1), sqlite3_column_value(counters.st, 2));
      rpd_side_next(&counters);
    }
    while (rpd_side_at(&signals, id)) {
      rpd_arg_int(c, ev, &pos, "inputSignal_from_op", sqlite3_column_int64(signals.st, 1));
      rpd_side_next(&signals);
    }
    int64_t start = nv_time(&c->src, st, C_START, 0), end = nv_time(&c->src, st, C_END, 0);
    if (is_copy) {
      hub_copy_row r;
      hub_copy_row_init(&r);
      r.pid = pid;
      r.tid = tid;
      r.start = start;
      r.end = end;
      r.name = name;
      r.queue_id = queue_id;
      r.size = int_or_null(st, C_SIZE);
      r.src_address = address(st, C_SRC);
      r.dst_address = address(st, C_DST);
      int src, dst;
      copy_ends(type, st, &src, &dst);
      if (src >= 0) r.src_agent_id = src ? agent : rpd_cpu_agent(c, pid);
      if (dst >= 0) r.dst_agent_id = dst ? agent : rpd_cpu_agent(c, pid);
      r.event_id = ev;
      hub_memory_copy(c->w, &r);
    } else {
      hub_kernel_row k;
      hub_kernel_row_init(&k);
      k.pid = pid;
      k.tid = tid;
      k.start = start;
      k.end = end;
      k.agent_id = agent;
      k.queue_id = queue_id;
      int64_t seq = sqlite3_column_int64(st, C_SEQ);
      k.dispatch_id = seq ? seq : id;
      const char *symbol = *desc ? desc : *kname ? kname : type;
      int demangled;
      k.kernel_id = kernel_symbol(c, pid, st, symbol, &demangled);
      if (demangled) rpd_arg(c, ev, &pos, HUB_ARG_STRING, "mangledName", symbol);
      kernel_geometry(st, &k);
      k.event_id = ev;
      hub_kernel_dispatch(c->w, &k);
    }
    rpd_progress(c);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->src, "rocpd_op");
  if (!rc && (counters.err || signals.err)) rc = -1;
  sqlite3_finalize(st);
  rpd_side_close(&counters);
  rpd_side_close(&signals);
  return rc;
}
