/* nsys2db: an Nsight Systems SQLite export (nsys export -t sqlite) into a
 * hub database. This file: the shared helpers, the descriptive tables
 * (session, export metadata, GPUs, streams, threads, processes) and the
 * order in which the event tables are read. */
#include <stdlib.h>
#include <string.h>

#include "nsys2db.h"
#include "nsys2db_parts.h"
#include "base/input_check.h"
#include "base/progress.h"

/* Tables read; other non-empty tables are reported (ENUM_* are lookups). */
static const char HANDLED[] =
    "StringIds,ThreadNames,PROCESSES,TARGET_INFO_GPU,TARGET_INFO_CUDA_STREAM,"
    "TARGET_INFO_CUDA_NULL_STREAM,TARGET_INFO_SESSION_START_TIME,TARGET_INFO_SYSTEM_ENV,"
    "EXPORT_META_DATA,META_DATA_EXPORT,ANALYSIS_DETAILS,NVTX_EVENTS,OSRT_API,PROFILER_OVERHEAD,"
    "COMPOSITE_EVENTS,SAMPLING_CALLCHAINS,OSRT_CALLCHAINS,UnwindMethodType,"
    "TARGET_INFO_CUDA_GPU,TARGET_INFO_NVTX_CUDA_STREAM,"
    "ENUM_*," NS_TABLE("RUNTIME") "," NS_TABLE("DRIVER") "," NS_TABLE("KERNEL") "," NS_TABLE(
        "MEMCPY") "," NS_TABLE("MEMSET") "," NS_TABLE("SYNCHRONIZATION") "," NS_TABLE("CUDA_EVENT") ","
        NS_TABLE("OVERHEAD");

/* What the tables left out hold, for the one line that names them
 * (nv_warn_unhandled); the same text makes one group, in this order. A
 * table that comes to be imported joins HANDLED and leaves the report
 * (its note may stay). */
static const nv_table_note NOT_IMPORTED[] = {
    {"CUDA_CALLCHAINS", "call stacks of CUDA calls"},
    {"SCHED_EVENTS", "thread scheduling"},
    {"CUDA_GRAPH_EVENTS", "CUDA graphs"},
    {NS_TABLE("GRAPH_TRACE"), "CUDA graphs"},
    {"OSRT_FILE_ACCESS_DESCRIPTORS", "file accesses"},
    {"OSRT_FILE_ACCESS_EVENTS", "file accesses"},
    {"ProcessStreams", "the processes' stdout and stderr"},
    {"TARGET_INFO_CUDA_CONTEXT_INFO", "CUDA contexts and devices"},
    {"TARGET_INFO_CUDA_DEVICE", "CUDA contexts and devices"},
    {"META_DATA_CAPTURE", "the profiler's settings and diagnostics"},
    {"DIAGNOSTIC_EVENT", "the profiler's settings and diagnostics"},
    {"ANALYSIS_FILE", "the profiler's settings and diagnostics"},
    {NULL, NULL}};

int64_t ns_seen(ns *c, int64_t pid) {
  if (!tt_i64map_get(&c->pids, pid)) tt_i64map_put(&c->pids, pid, 1);
  return pid;
}

static int64_t gpu_agent(cupti_rows *b, int64_t device) {
  return hub_gpu_agent(b->w, HUB_NULL, device);
}

static int64_t cpu_agent(cupti_rows *b) {
  hub_agent_info a = {.pid = HUB_NULL, .type = "CPU", .type_index = 0, .name = "CPU"};
  return hub_agent(b->w, &a);
}

static int64_t stream_of(cupti_rows *b, int64_t pid, int64_t stream) {
  char name[48];
  snprintf(name, sizeof name, "stream %lld", (long long)stream);
  return hub_stream(b->w, pid, name, NULL);
}

const cupti_hooks ns_hooks = {.agent = gpu_agent,
                              .cpu_agent = cpu_agent,
                              .stream = stream_of,
                              .memory_kind = tt_nsys_memory_kind};

int ns_string(ns *c, sqlite3_stmt *st, int col, const char *table, int64_t row,
              const char **out) {
  *out = (const char *)sqlite3_column_text(st, col + 1);
  if (sqlite3_column_type(st, col) == SQLITE_NULL || *out) return 0;
  tt_error("%s: table %s row %lld: string id %lld is not in StringIds", c->b.src.path, table,
           (long long)row, (long long)sqlite3_column_int64(st, col));
  return -1;
}

/* Every (name, value) row of sql becomes a rocpd_metadata row "prefix.name". */
static int metadata_rows(ns *c, const char *table, const char *sql, const char *prefix) {
  if (!nv_has_table(&c->b.src, table)) return 0;
  sqlite3_stmt *st = nv_prepare(&c->b.src, sql);
  if (!st) return -1;
  tt_buf tag = {0};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    tt_buf_clear(&tag);
    tt_buf_printf(&tag, "%s.%s", prefix, (const char *)sqlite3_column_text(st, 0));
    const char *v = (const char *)sqlite3_column_text(st, 1);
    hub_writer_metadata(c->b.w, tag.data, v ? v : "");
  }
  tt_buf_free(&tag);
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, table);
}

/* Each row of table as JSON in one rocpd_metadata row per row. */
static int metadata_json(ns *c, const char *table, const char *tag) {
  if (!nv_has_table(&c->b.src, table)) return 0;
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT 0");
  nv_rest_columns(&c->b.src, table, "t", "", &c->sql);
  tt_buf_printf(&c->sql, " FROM %s t", table);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 1, &c->b.ext);
    hub_writer_metadata(c->b.w, tag, nv_json_end(&c->b.ext));
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, table);
}

/* The host the report was recorded on: the node row's hostname. */
static int read_host(ns *c) {
  const char *t = "TARGET_INFO_SYSTEM_ENV";
  if (!nv_has_table(&c->b.src, t) || !nv_has_column(&c->b.src, t, "name") ||
      !nv_has_column(&c->b.src, t, "value"))
    return 0;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = "
                                         "'Hostname' AND value != '' LIMIT 1");
  if (!st) return -1;
  int step = sqlite3_step(st);
  if (step == SQLITE_ROW) hub_writer_hostname(c->b.w, (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return step == SQLITE_ROW || step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* nsys times count from the session start; the hub's are absolute. */
static int read_session(ns *c) {
  const char *t = "TARGET_INFO_SESSION_START_TIME";
  if (!nv_has_table(&c->b.src, t) || !nv_has_column(&c->b.src, t, "utcEpochNs")) {
    tt_warn("%s: no %s.utcEpochNs: times stay relative to the session start", c->b.src.path, t);
    return 0;
  }
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
  if (!st) return -1;
  if (sqlite3_step(st) == SQLITE_ROW) c->b.offset = cupti_time(&c->b, st, 0); /* + 0: checked alone */
  sqlite3_finalize(st);
  if (nv_time_error(&c->b.src)) return -1;
  char v[32];
  snprintf(v, sizeof v, "%lld", (long long)c->b.offset);
  hub_writer_metadata(c->b.w, "nsys.session_start_utc_ns", v);
  /* Times count from the session start, utcEpochNs: now Unix-epoch ns. */
  hub_writer_clock(c->b.w, HUB_CLOCK_WALL, 0);
  return metadata_json(c, t, "nsys.session_start");
}

static int read_gpus(ns *c) {
  const char *t = "TARGET_INFO_GPU";
  /* The device id column is `deviceId` in exports older than the version
   * tables, `id` since. Without it, GPUs come from the activity rows. */
  const char *id = nv_has_column(&c->b.src, t, "deviceId") && !nv_has_column(&c->b.src, t, "id")
                       ? "deviceId"
                       : "id";
  char need[32];
  snprintf(need, sizeof need, "%s,name", id);
  int usable = nv_table_usable(&c->b.src, t, need, 1);
  if (usable <= 0) return usable;
  /* Activity rows' deviceId is the CUDA ordinal: cuDevice where present. */
  int cu = nv_has_column(&c->b.src, t, "cuDevice");
  tt_buf_clear(&c->sql);
  if (cu) tt_buf_printf(&c->sql, "SELECT COALESCE(g.cuDevice, g.%s), g.name", id);
  else tt_buf_printf(&c->sql, "SELECT g.%s, g.name", id);
  nv_rest_columns(&c->b.src, t, "g", "name", &c->sql);
  tt_buf_puts(&c->sql, " FROM TARGET_INFO_GPU g");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 1);
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 2, &c->b.ext);
    hub_agent_info a = {.pid = HUB_NULL, .type = "GPU", .type_index = sqlite3_column_int64(st, 0),
                        .name = name, .model_name = name, .vendor_name = "NVIDIA",
                        .product_name = name, .extdata = nv_json_end(&c->b.ext)};
    hub_agent(c->b.w, &a);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* Streams named through NVTX (nvtxNameCudaStream), as one join adding
 * the name as `nvtxName` to a stream's description: the stream keeps its
 * "stream N" name, which the activity rows find it by. */
static void nvtx_stream_join(const char *s, tt_buf *sql) {
  tt_buf_printf(sql, " LEFT JOIN (SELECT processId AS p, streamId AS sid, min(name) AS nvtxName"
                     " FROM TARGET_INFO_NVTX_CUDA_STREAM GROUP BY 1, 2) n"
                     " ON n.p = %s.processId AND n.sid = %s.streamId",
                s, s);
}

static int read_streams(ns *c) {
  const char *tn = "TARGET_INFO_NVTX_CUDA_STREAM";
  int named = nv_table_usable(&c->b.src, tn, "name,processId,streamId", 1) > 0;
  /* Null streams first: a stream keeps the description it is created
   * with; streams known only by their NVTX name last. */
  static const char *const tables[] = {"TARGET_INFO_CUDA_NULL_STREAM", "TARGET_INFO_CUDA_STREAM",
                                       "TARGET_INFO_NVTX_CUDA_STREAM"};
  for (int i = 0; i < 3; i++) {
    const char *t = tables[i];
    if (i == 2 && !named) break;
    if (nv_table_usable(&c->b.src, t, "streamId,processId", 1) <= 0) continue;
    tt_buf_clear(&c->sql);
    tt_buf_printf(&c->sql, "SELECT s.streamId, s.processId, %d AS nullStream", i == 0);
    nv_rest_columns(&c->b.src, t, "s", i == 2 ? "name,processId,streamId" : "", &c->sql);
    if (named) tt_buf_puts(&c->sql, i == 2 ? ", s.name AS nvtxName" : ", n.nvtxName");
    tt_buf_printf(&c->sql, " FROM %s s", t);
    if (named && i < 2) nvtx_stream_join("s", &c->sql);
    sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
    if (!st) return -1;
    char name[48];
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
      snprintf(name, sizeof name, "stream %lld", (long long)sqlite3_column_int64(st, 0));
      nv_json_begin(&c->b.ext);
      nv_rest_json(st, 2, &c->b.ext);
      hub_stream(c->b.w, sqlite3_column_int64(st, 1), name, nv_json_end(&c->b.ext));
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) return nv_step_error(&c->b.src, t);
  }
  return 0;
}

static int read_threads(ns *c) {
  const char *t = "ThreadNames";
  int usable = nv_table_usable(&c->b.src, t, "nameId,globalTid", 1);
  if (usable <= 0) return usable;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT t.rowid, t.nameId, s.value, t.globalTid FROM "
                                         "ThreadNames t LEFT JOIN StringIds s ON s.id = t.nameId");
  if (!st) return -1;
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name;
    if ((rc = ns_string(c, st, 1, t, sqlite3_column_int64(st, 0), &name))) break;
    int64_t g = sqlite3_column_int64(st, 3);
    hub_thread_name(c->b.w, ns_seen(c, ns_pid(g)), ns_tid(g), name ? name : "");
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  sqlite3_finalize(st);
  return rc;
}

/* PROCESSES lists every process on the machine: only those with events
 * get a row (with their name). */
static int name_processes(ns *c) {
  const char *t = "PROCESSES";
  int usable = nv_table_usable(&c->b.src, t, "pid,name", 1);
  if (usable <= 0) return usable;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT pid, name FROM PROCESSES");
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t pid = sqlite3_column_int64(st, 0);
    const char *name = (const char *)sqlite3_column_text(st, 1);
    if (name && tt_i64map_get(&c->pids, pid)) hub_process_name(c->b.w, pid, name);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, t);
}

/* A name's value in the export metadata (EXPORT_META_DATA, or
 * META_DATA_EXPORT in older versions), into v; "" when absent. */
static void export_meta(ns *c, const char *name, char *v, size_t n) {
  static const char *const tables[] = {"EXPORT_META_DATA", "META_DATA_EXPORT"};
  v[0] = '\0';
  for (int i = 0; i < 2 && !v[0]; i++) {
    if (!nv_has_column(&c->b.src, tables[i], "name") ||
        !nv_has_column(&c->b.src, tables[i], "value"))
      continue;
    tt_buf_clear(&c->sql);
    tt_buf_printf(&c->sql, "SELECT value FROM %s WHERE name = ?1 AND value IS NOT NULL LIMIT 1",
                  tables[i]);
    sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
    if (!st) continue;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(st) == SQLITE_ROW)
      snprintf(v, n, "%.40s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
  }
}

/* The export's version, named in every message about its layout: NVIDIA
 * changes the tables from release to release. */
static void read_layout(ns *c) {
  char product[48], schema[48];
  export_meta(c, "EXPORT_PRODUCT_VERSION", product, sizeof product);
  export_meta(c, "EXPORT_SCHEMA_VERSION", schema, sizeof schema);
  if (!product[0] && !schema[0])
    snprintf(c->b.src.layout, sizeof c->b.src.layout,
             "an Nsight Systems export without version tables");
  else
    snprintf(c->b.src.layout, sizeof c->b.src.layout, "Nsight Systems %s, export schema %s",
             product[0] ? product : "?", schema[0] ? schema : "?");
}

static int check_format(ns *c) {
  if (nv_has_table(&c->b.src, "StringIds") && nv_has_column(&c->b.src, "StringIds", "id") &&
      nv_has_column(&c->b.src, "StringIds", "value"))
    return 0;
  if (nv_has_table(&c->b.src, "StringTable"))
    tt_error("%s: this is an nvprof database (table StringTable), not Nsight Systems: use nvvp2db",
             c->b.src.path);
  else if (nv_has_table(&c->b.src, "StringIds"))
    return nv_require_columns(&c->b.src, "StringIds", "id,value");
  else
    tt_error("%s: not an Nsight Systems SQLite export: missing table StringIds", c->b.src.path);
  return -1;
}

/* A report renamed .sqlite is not told by its bytes (input_check.h: the
 * .nsys-rep layout is NVIDIA's and unpublished), and it is what a user
 * most likely hands nsys2db that is not SQLite: a file with no SQLite
 * header of no kind we know gets the export command as a hint. */
static int refuse_not_sqlite(const char *path) {
  unsigned char head[16] = {0};
  FILE *f = fopen(path, "rb");
  size_t n = f ? fread(head, 1, sizeof head, f) : 0;
  if (f) fclose(f);
  if (!f || n == 0 || (n == 16 && memcmp(head, "SQLite format 3", 16) == 0) ||
      tt_input_kind_of(path) != TT_INPUT_OTHER)
    return 0; /* the header check says what it is */
  tt_error("%s: not a SQLite database (byte 0: no SQLite header); if it is an Nsight Systems "
           "report (.nsys-rep) renamed, export it with `nsys export --type sqlite -o X.sqlite "
           "%s`, then nsys2db X.sqlite",
           path, path);
  return -1;
}

int nsys2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  (void)ctx;
  ns c = {.b = {.w = w, .hooks = &ns_hooks, .max_ts = INT64_MIN}};
  if (refuse_not_sqlite(opts->input) || nv_src_open(&c.b.src, opts->input)) return 1;
  read_layout(&c);
  int rc = check_format(&c);
  if (!rc)
    rc = read_session(&c) ||
         metadata_rows(&c, "EXPORT_META_DATA", "SELECT name, value FROM EXPORT_META_DATA", "nsys") ||
         /* the same table under older nsys versions' name */
         metadata_rows(&c, "META_DATA_EXPORT", "SELECT name, value FROM META_DATA_EXPORT", "nsys") ||
         metadata_rows(&c, "TARGET_INFO_SYSTEM_ENV",
                       "SELECT name, value FROM TARGET_INFO_SYSTEM_ENV", "nsys.env") ||
         read_host(&c) ||
         metadata_json(&c, "ANALYSIS_DETAILS", "nsys.analysis") || read_gpus(&c) ||
         /* the CUDA view of the GPUs in exports without version tables */
         metadata_json(&c, "TARGET_INFO_CUDA_GPU", "nsys.cuda_gpu") ||
         read_streams(&c) || read_threads(&c) || ns_cuda_api(&c, NS_TABLE("RUNTIME")) ||
         ns_cuda_api(&c, NS_TABLE("DRIVER")) || ns_kernels(&c) || ns_memcpy(&c) ||
         ns_memset(&c) || ns_sync(&c) || ns_cuda_events(&c) ||
         ns_cpu_ranges(&c, "OSRT_API", "OSRT_API", "OSRT_CALLCHAINS") ||
         ns_cpu_ranges(&c, "PROFILER_OVERHEAD", "PROFILER_OVERHEAD", NULL) || ns_cpu_samples(&c) ||
         /* CUPTI's own overhead (2025 exports on), as nvvp2db's OVERHEAD rows */
         ns_cpu_ranges(&c, NS_TABLE("OVERHEAD"), "PROFILER_OVERHEAD", NULL) || ns_nvtx(&c) ||
         name_processes(&c) || nv_time_error(&c.b.src);
  if (!rc) nv_warn_unhandled(&c.b.src, HANDLED, NOT_IMPORTED);
  nv_src_close(&c.b.src);
  tt_i64map_free(&c.pids);
  tt_buf_free(&c.b.ext);
  tt_buf_free(&c.sql);
  return rc ? 1 : 0;
}
