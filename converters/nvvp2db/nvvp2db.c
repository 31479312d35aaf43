/* nvvp2db: nvprof's SQLite output (-o x.nvvp, --export-profile x.sql) into
 * a hub database. This file: the shared lookups, the descriptive tables
 * (NAME, DEVICE, CONTEXT, STREAM, PCIE, Version) and the order in which
 * the activity tables are read. */
#include <stdlib.h>
#include <string.h>

#include "nvvp2db.h"
#include "nvvp2db_parts.h"
#include "base/progress.h"

/* Tables this importer reads; any other non-empty table is reported. */
static const char HANDLED[] =
    "StringTable,Version," NVP_TABLE("RUNTIME") "," NVP_TABLE("DRIVER") "," NVP_TABLE(
        "CONCURRENT_KERNEL") "," NVP_TABLE("KERNEL") "," NVP_TABLE("MEMCPY") "," NVP_TABLE("MEMCPY2") "," NVP_TABLE("MEMSET") "," NVP_TABLE("SYNCHRONIZATION") "," NVP_TABLE("CUDA_EVENT") "," NVP_TABLE("OVERHEAD") "," NVP_TABLE("MARKER") "," NVP_TABLE("MARKER_DATA") "," NVP_TABLE("DEVICE") "," NVP_TABLE("DEVICE_ATTRIBUTE") "," NVP_TABLE("CONTEXT") "," NVP_TABLE("STREAM") "," NVP_TABLE("NAME") "," NVP_TABLE("PCIE");

/* ---- lookups shared by the readers ------------------------------------ */

void nvp_launch_expr(nvp *c, const char *corr, tt_buf *sql) {
  tt_buf_puts(sql, ", COALESCE(");
  int n = 0;
  const char *tables[2] = {c->have_runtime ? NVP_TABLE("RUNTIME") : NULL,
                           c->have_driver ? NVP_TABLE("DRIVER") : NULL};
  for (int i = 0; i < 2; i++) {
    if (!tables[i]) continue;
    tt_buf_printf(sql,
                  "%s(SELECT a.processId * 4294967296 + (a.threadId & 4294967295) FROM %s a "
                  "WHERE a.correlationId = %s LIMIT 1)",
                  n++ ? ", " : "", tables[i], corr);
  }
  tt_buf_puts(sql, n ? ", NULL)" : "NULL, NULL)");
}

void nvp_launch_decode(nvp *c, sqlite3_stmt *st, int col, int64_t *pid, int64_t *tid,
                       int64_t fallback_tid) {
  if (sqlite3_column_type(st, col) == SQLITE_NULL) {
    *pid = c->main_pid;
    *tid = fallback_tid;
    return;
  }
  uint64_t v = (uint64_t)sqlite3_column_int64(st, col);
  *pid = (int64_t)(v >> 32);
  *tid = (int64_t)(v & 0xFFFFFFFFu);
}

static uint32_t le32(const unsigned char *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int nvp_object_ids(nvp *c, sqlite3_stmt *st, int kind_col, int blob_col, int64_t *pid,
                   int64_t *tid) {
  const unsigned char *b = sqlite3_column_blob(st, blob_col);
  int len = sqlite3_column_bytes(st, blob_col);
  int64_t kind = sqlite3_column_int64(st, kind_col);
  if (!b || len < 8 || (kind != 1 && kind != 2)) {
    *pid = c->main_pid; /* device/context/stream objects: the profiled process */
    *tid = c->main_pid;
    return b && len >= 8;
  }
  *pid = le32(b);
  *tid = kind == 2 ? (int64_t)le32(b + 4) : *pid;
  return 1;
}

int nvp_string(nvp *c, sqlite3_stmt *st, int col, const char *table, int64_t row,
               const char **out) {
  int64_t id = sqlite3_column_int64(st, col);
  *out = (const char *)sqlite3_column_text(st, col + 1);
  if (id == 0 && !*out) return 0; /* 0 is "-- null --", absent in some files */
  if (!*out) {
    tt_error("%s: table %s row _id_ %lld: string id %lld is not in StringTable",
             c->b.src.path, table, (long long)row, (long long)id);
    return -1;
  }
  return 0;
}

static int64_t nvp_agent(cupti_rows *b, int64_t device) {
  nvp *c = (nvp *)b;
  int64_t *id = tt_i64map_get(&c->agents, device);
  if (id) return *id;
  int64_t a = hub_gpu_agent(c->b.w, c->main_pid, device);
  tt_i64map_put(&c->agents, device, a);
  return a;
}

static int64_t nvp_cpu_agent(cupti_rows *b) {
  nvp *c = (nvp *)b;
  if (!c->cpu_agent) {
    hub_agent_info a = {.pid = c->main_pid, .type = "CPU", .type_index = 0, .name = "CPU"};
    c->cpu_agent = hub_agent(c->b.w, &a);
  }
  return c->cpu_agent;
}

static int64_t nvp_stream(cupti_rows *b, int64_t pid, int64_t stream) {
  nvp *c = (nvp *)b;
  int64_t *id = pid == c->main_pid ? tt_i64map_get(&c->streams, stream) : NULL;
  if (id) return *id;
  char name[48];
  snprintf(name, sizeof name, "stream %lld", (long long)stream);
  int64_t s = hub_stream(c->b.w, pid, name, NULL);
  if (pid == c->main_pid) tt_i64map_put(&c->streams, stream, s);
  return s;
}

const cupti_hooks nvp_hooks = {.agent = nvp_agent,
                               .cpu_agent = nvp_cpu_agent,
                               .stream = nvp_stream,
                               .memory_kind = tt_cupti_memory_kind};

/* ---- descriptive tables ------------------------------------------------ */

/* The profiled process: nvprof writes one file per process, and the GPU
 * tables carry no pid, so their rows belong to the process of the calls. */
static void find_main_pid(nvp *c) {
  c->main_pid = HUB_NULL;
  if (c->have_runtime)
    c->main_pid = nv_first_int(&c->b.src, "SELECT processId FROM " NVP_TABLE("RUNTIME") " LIMIT 1",
                               HUB_NULL);
  if (c->main_pid == HUB_NULL && c->have_driver)
    c->main_pid = nv_first_int(&c->b.src, "SELECT processId FROM " NVP_TABLE("DRIVER") " LIMIT 1",
                               HUB_NULL);
  if (c->main_pid == HUB_NULL && nv_has_column(&c->b.src, NVP_TABLE("MARKER"), "objectKind") &&
      nv_has_column(&c->b.src, NVP_TABLE("MARKER"), "objectId")) {
    sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT objectKind, objectId FROM " NVP_TABLE(
                                               "MARKER") " WHERE objectKind IN (1,2) LIMIT 1");
    int64_t pid, tid;
    c->main_pid = 0; /* nvp_object_ids' fallback */
    if (st && sqlite3_step(st) == SQLITE_ROW && nvp_object_ids(c, st, 0, 1, &pid, &tid))
      c->main_pid = pid;
    sqlite3_finalize(st);
  }
  if (c->main_pid == HUB_NULL) c->main_pid = 0;
}

/* NAME: process and thread names; other objects' names go to the process
 * extdata "object_names". */
static int read_names(nvp *c) {
  const char *t = NVP_TABLE("NAME");
  int usable = nv_table_usable(&c->b.src, t, "_id_,objectKind,objectId,name", 1);
  if (usable <= 0) return usable;
  sqlite3_stmt *st = nv_prepare(&c->b.src,
                                "SELECT n._id_, n.objectKind, n.objectId, n.name, s.value FROM " NVP_TABLE(
                                    "NAME") " n LEFT JOIN StringTable s ON s._id_ = n.name");
  if (!st) return -1;
  tt_buf others = {0};
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name;
    if ((rc = nvp_string(c, st, 3, t, sqlite3_column_int64(st, 0), &name))) break;
    int64_t kind = sqlite3_column_int64(st, 1), pid, tid;
    nvp_object_ids(c, st, 1, 2, &pid, &tid);
    if (kind == 1) {
      hub_process_name(c->b.w, pid, name ? name : "");
    } else if (kind == 2) {
      hub_thread_name(c->b.w, pid, tid, name ? name : "");
    } else {
      tt_buf_puts(&others, others.len ? "," : "[");
      nv_json_begin(&c->b.ext);
      nv_json_int(&c->b.ext, "objectKind", kind);
      nv_rest_json(st, 2, &c->b.ext); /* objectId blob as hex, name id */
      nv_json_str(&c->b.ext, "value", name);
      tt_buf_puts(&others, nv_json_end(&c->b.ext));
    }
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  if (!rc && others.len) {
    tt_buf_putc(&others, ']');
    hub_process_extdata(c->b.w, c->main_pid, "object_names", others.data);
  }
  tt_buf_free(&others);
  sqlite3_finalize(st);
  return rc;
}

/* DEVICE (+ DEVICE_ATTRIBUTE): one GPU agent per device id, every property
 * in extdata. */
static int read_devices(nvp *c) {
  const char *t = NVP_TABLE("DEVICE");
  int usable = nv_table_usable(&c->b.src, t, "_id_,id,name", 1);
  if (usable <= 0) return usable; /* GPUs then come from the activity rows */
  int attrs = nv_table_usable(&c->b.src, NVP_TABLE("DEVICE_ATTRIBUTE"),
                              "deviceId,flags,attribute,value", 1);
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT d._id_, d.id, d.name, s.value");
  nv_rest_columns(&c->b.src, t, "d", "_id_,id,name", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("DEVICE") " d LEFT JOIN StringTable s ON s._id_ = d.name");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data), *at = NULL;
  if (!st) return -1;
  if (attrs)
    at = nv_prepare(&c->b.src, "SELECT flags, attribute, value FROM " NVP_TABLE(
                                 "DEVICE_ATTRIBUTE") " WHERE deviceId = ?1 ORDER BY _id_");
  tt_buf list = {0};
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name;
    if ((rc = nvp_string(c, st, 2, t, sqlite3_column_int64(st, 0), &name))) break;
    int64_t dev = sqlite3_column_int64(st, 1);
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 4, &c->b.ext);
    if (at) { /* [flags, attribute, value] with the blobs read as LE integers */
      tt_buf_clear(&list);
      sqlite3_bind_int64(at, 1, dev);
      while (sqlite3_step(at) == SQLITE_ROW) {
        uint64_t v[2] = {0, 0};
        for (int k = 0; k < 2; k++) {
          const unsigned char *p = sqlite3_column_blob(at, 1 + k);
          int len = sqlite3_column_bytes(at, 1 + k);
          for (int i = len > 8 ? 7 : len - 1; p && i >= 0; i--) v[k] = v[k] << 8 | p[i];
        }
        tt_buf_printf(&list, "%s[%lld,%llu,%llu]", list.len ? "," : "",
                      (long long)sqlite3_column_int64(at, 0), (unsigned long long)v[0],
                      (unsigned long long)v[1]);
      }
      sqlite3_reset(at);
      if (list.len) {
        tt_buf_putc(&list, ']');
        tt_buf tmp = {0};
        tt_buf_putc(&tmp, '[');
        tt_buf_puts(&tmp, list.data);
        nv_json_raw(&c->b.ext, "attributes", tmp.data);
        tt_buf_free(&tmp);
      }
    }
    hub_agent_info a = {.pid = c->main_pid, .type = "GPU", .type_index = dev, .name = name,
                        .model_name = name, .vendor_name = "NVIDIA", .product_name = name,
                        .extdata = nv_json_end(&c->b.ext)};
    tt_i64map_put(&c->agents, dev, hub_agent(c->b.w, &a));
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  tt_buf_free(&list);
  sqlite3_finalize(at);
  sqlite3_finalize(st);
  return rc;
}

/* Runs sql (one row per item) and stores each row's columns from `from` as
 * one JSON object of the array `key` in the main process's extdata. */
static int rows_to_process_extdata(nvp *c, const char *table, const char *sql, int from,
                                   const char *key) {
  sqlite3_stmt *st = nv_prepare(&c->b.src, sql);
  if (!st) return -1;
  tt_buf arr = {0};
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, from, &c->b.ext);
    tt_buf_puts(&arr, arr.len ? "," : "[");
    tt_buf_puts(&arr, nv_json_end(&c->b.ext));
  }
  int rc = step == SQLITE_DONE ? 0 : nv_step_error(&c->b.src, table);
  if (!rc && arr.len) {
    tt_buf_putc(&arr, ']');
    hub_process_extdata(c->b.w, c->main_pid, key, arr.data);
  }
  tt_buf_free(&arr);
  sqlite3_finalize(st);
  return rc;
}

/* STREAM and CONTEXT: streams named "stream N" with their context,
 * device, priority and flags; each context's null stream. */
static int read_streams(nvp *c) {
  const char *ts = NVP_TABLE("STREAM"), *tc = NVP_TABLE("CONTEXT");
  /* Descriptions only: streams are named from the activity rows without them. */
  int have_s = nv_table_usable(&c->b.src, ts, "contextId,streamId", 1) > 0;
  int have_c = nv_table_usable(&c->b.src, tc, "contextId,deviceId,nullStreamId", 1) > 0;
  for (int pass = 0; pass < 2; pass++) {
    if (!(pass ? have_c : have_s)) continue;
    tt_buf_clear(&c->sql);
    if (pass == 0) {
      tt_buf_puts(&c->sql, "SELECT s.streamId");
      nv_rest_columns(&c->b.src, ts, "s", "_id_", &c->sql);
      if (have_c)
        tt_buf_puts(&c->sql, ", c.deviceId, c.computeApiKind, c.nullStreamId = s.streamId AS "
                             "nullStream FROM " NVP_TABLE("STREAM") " s LEFT JOIN " NVP_TABLE(
                                 "CONTEXT") " c ON c.contextId = s.contextId");
      else
        tt_buf_puts(&c->sql, " FROM " NVP_TABLE("STREAM") " s");
    } else {
      tt_buf_puts(&c->sql, "SELECT c.nullStreamId");
      nv_rest_columns(&c->b.src, tc, "c", "_id_", &c->sql);
      tt_buf_puts(&c->sql, ", 1 AS nullStream FROM " NVP_TABLE("CONTEXT") " c");
    }
    sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
    if (!st) return -1;
    int step;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
      int64_t sid = sqlite3_column_int64(st, 0);
      if (tt_i64map_get(&c->streams, sid)) continue; /* described by STREAM already */
      char name[48];
      snprintf(name, sizeof name, "stream %lld", (long long)sid);
      nv_json_begin(&c->b.ext);
      nv_rest_json(st, 1, &c->b.ext);
      tt_i64map_put(&c->streams, sid,
                    hub_stream(c->b.w, c->main_pid, name, nv_json_end(&c->b.ext)));
    }
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) return nv_step_error(&c->b.src, pass ? tc : ts);
  }
  return 0;
}

/* The Version table's number names the layout in every message about it. */
static void read_layout(nvp *c) {
  if (!nv_has_table(&c->b.src, "Version")) return;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT * FROM Version LIMIT 1");
  if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    snprintf(c->b.src.layout, sizeof c->b.src.layout, "nvprof Version %.40s",
             (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
}

static int read_version(nvp *c) {
  if (!nv_has_table(&c->b.src, "Version")) return 0;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT * FROM Version LIMIT 1");
  if (!st) return -1;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
    hub_writer_metadata(c->b.w, "nvprof_version", (const char *)sqlite3_column_text(st, 0));
  sqlite3_finalize(st);
  return 0;
}

/* ---- the import -------------------------------------------------------- */

static int check_format(nvp *c) {
  if (!nv_has_table(&c->b.src, "StringTable")) {
    if (nv_has_table(&c->b.src, "StringIds"))
      tt_error("%s: this is an Nsight Systems export (table StringIds), not nvprof: use nsys2db",
               c->b.src.path);
    else
      tt_error("%s: not an nvprof database: missing table StringTable", c->b.src.path);
    return -1;
  }
  if (nv_require_columns(&c->b.src, "StringTable", "_id_,value")) return -1;
  sqlite3_stmt *st = nv_prepare(&c->b.src, "SELECT 1 FROM sqlite_master WHERE type='table' AND "
                                         "name LIKE 'CUPTI\\_ACTIVITY\\_KIND\\_%' ESCAPE '\\'");
  int ok = st && sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  if (!ok) {
    tt_error("%s: not an nvprof database: no CUPTI_ACTIVITY_KIND_* tables", c->b.src.path);
    return -1;
  }
  return 0;
}

int nvvp2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  (void)ctx;
  nvp c = {.b = {.w = w, .hooks = &nvp_hooks, .max_ts = INT64_MIN}};
  if (nv_src_open(&c.b.src, opts->input)) return 1;
  int rc = check_format(&c);
  if (!rc) {
    read_layout(&c);
    static const char api_cols[] = "_id_,cbid,start,end,processId,threadId,correlationId";
    c.have_runtime = nv_table_usable(&c.b.src, NVP_TABLE("RUNTIME"), api_cols, 0);
    if (c.have_runtime >= 0)
      c.have_driver = nv_table_usable(&c.b.src, NVP_TABLE("DRIVER"), api_cols, 0);
    rc = c.have_runtime < 0 || c.have_driver < 0 ? -1 : 0;
  }
  if (!rc) {
    find_main_pid(&c);
    hub_touch_process(w, c.main_pid, HUB_NULL, HUB_NULL);
    rc = read_version(&c) || read_names(&c) || read_devices(&c) || read_streams(&c);
  }
  if (!rc && nv_table_usable(&c.b.src, NVP_TABLE("PCIE"), "_id_", 1) > 0)
    rc = rows_to_process_extdata(&c, NVP_TABLE("PCIE"),
                                 "SELECT * FROM " NVP_TABLE("PCIE") " ORDER BY _id_", 1, "pcie");
  if (!rc)
    rc = nvp_api(&c, NVP_TABLE("RUNTIME"), "CUDA_RUNTIME_API", 0) ||
         nvp_api(&c, NVP_TABLE("DRIVER"), "CUDA_DRIVER_API", 1) ||
         nvp_kernels(&c, NVP_TABLE("CONCURRENT_KERNEL")) || nvp_kernels(&c, NVP_TABLE("KERNEL")) ||
         nvp_memcpy(&c, NVP_TABLE("MEMCPY"), 0) || nvp_memcpy(&c, NVP_TABLE("MEMCPY2"), 1) ||
         nvp_memset(&c) || nvp_sync(&c) || nvp_cuda_events(&c) || nvp_overhead(&c) ||
         nvp_markers(&c) || nv_time_error(&c.b.src);
  if (!rc) nv_warn_unhandled(&c.b.src, HANDLED, NULL);
  /* nvprof stores CUPTI's timestamps as they came, Unix-epoch ns in the
   * profiles seen; times before 2000 count from elsewhere: unknown. */
  if (!rc && c.b.max_ts != INT64_MIN && c.b.max_ts >= HUB_WALL_FROM_NS)
    hub_writer_clock(w, HUB_CLOCK_WALL, 0);
  nv_src_close(&c.b.src);
  tt_i64map_free(&c.streams);
  tt_i64map_free(&c.agents);
  tt_i64map_free(&c.ksyms);
  tt_buf_free(&c.b.ext);
  tt_buf_free(&c.sql);
  return rc ? 1 : 0;
}
