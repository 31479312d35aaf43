/* rpd2db: rocmProfileData's RPD files (an SQLite database of rocpd_api,
 * rocpd_op, rocpd_api_ops, ... tables, schema_version 2 or 3) into a hub
 * database. This file: opening (plain or .rpd.gz), the format and version
 * checks, metadata and node strides, which process owns each GPU, and the
 * helpers the table readers share. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/atomic_output.h"
#include "cli/import_cli.h"
#include "base/input_check.h"
#include "base/progress.h"
#include "rpd2db.h"
#include "rpd2db_parts.h"
#include "base/sqlite_setup.h"

/* Tables this importer reads; any other non-empty table is reported. */
static const char HANDLED[] =
    "rocpd_metadata,rocpd_string,rocpd_ustring,rocpd_api,rocpd_op,rocpd_api_ops,"
    "rocpd_kernelapi,rocpd_copyapi,rocpd_monitor,rocpd_counter,rocpd_stackframe,"
    "rocpd_kernelcodeobject,rocpd_barrierop,rocpd_op_inputSignals,sqlite_sequence";

/* ---- helpers shared by the readers ------------------------------------ */

int rpd_side_open(rpd *c, rpd_side *s, const char *table, const char *sql) {
  memset(s, 0, sizeof *s);
  s->c = c;
  s->table = table;
  if (!sql) return 0;
  s->st = nv_prepare(&c->src, sql);
  if (!s->st) return -1;
  rpd_side_next(s);
  /* A failed first step (a corrupt table) closes the side here: the
   * caller returns at once, and a statement left open keeps the
   * connection from closing. */
  if (s->err) rpd_side_close(s);
  return s->err;
}

void rpd_side_next(rpd_side *s) {
  if (!s->st) return;
  int step = sqlite3_step(s->st);
  s->has = step == SQLITE_ROW;
  if (s->has) {
    s->key = sqlite3_column_int64(s->st, 0);
  } else if (step != SQLITE_DONE && !s->err) {
    s->err = nv_step_error(&s->c->src, s->table);
  }
}

int rpd_side_at(rpd_side *s, int64_t k) {
  while (s->has && s->key < k) rpd_side_next(s);
  return s->has && s->key == k;
}

void rpd_side_close(rpd_side *s) {
  sqlite3_finalize(s->st);
  s->st = NULL;
  s->has = 0;
}

int64_t rpd_pid(const rpd *c, int64_t raw) { return c->decode_pid ? raw % c->pid_stride : raw; }
int64_t rpd_tid(const rpd *c, int64_t raw) { return c->decode_pid ? raw % c->pid_stride : raw; }
int64_t rpd_gpu(const rpd *c, int64_t raw) { return c->decode_gpu ? raw % c->gpu_stride : raw; }

int64_t rpd_gpu_known_owner(rpd *c, int64_t raw_gpu) {
  int64_t *pid = tt_i64map_get(&c->gpu_pid, raw_gpu);
  return pid && *pid != HUB_NULL ? *pid : c->single_pid;
}

int64_t rpd_gpu_owner(rpd *c, int64_t raw_gpu) {
  int64_t pid = rpd_gpu_known_owner(c, raw_gpu);
  if (pid != HUB_NULL) return pid;
  if (!c->placeholder_used) {
    c->placeholder_used = 1;
    hub_process_name(c->w, RPD_PLACEHOLDER_PID, RPD_PLACEHOLDER_NAME);
  }
  return RPD_PLACEHOLDER_PID;
}

int64_t rpd_gpu_agent(rpd *c, int64_t pid, int64_t raw_gpu) {
  if (!c->gpu_stride) return hub_gpu_agent(c->w, pid, raw_gpu);
  /* Encoded ids: the node and the device index on it go to extdata. */
  char name[64], ext[96];
  int64_t node = raw_gpu / c->gpu_stride, index = raw_gpu % c->gpu_stride;
  int64_t type_index = rpd_gpu(c, raw_gpu);
  if (c->decode_gpu)
    snprintf(name, sizeof name, "GPU %lld", (long long)type_index);
  else
    snprintf(name, sizeof name, "GPU %lld (node %lld)", (long long)index, (long long)node);
  snprintf(ext, sizeof ext, "{\"rpd_node\":%lld,\"rpd_gpu\":%lld}", (long long)node,
           (long long)index);
  hub_agent_info a = {.pid = pid, .type = "GPU", .type_index = type_index, .name = name,
                      .extdata = ext};
  return hub_agent(c->w, &a);
}

int64_t rpd_cpu_agent(rpd *c, int64_t pid) {
  if (!c->cpu_agent) {
    hub_agent_info a = {.pid = pid, .type = "CPU", .type_index = 0, .name = "CPU"};
    c->cpu_agent = hub_agent(c->w, &a);
  }
  return c->cpu_agent;
}

void rpd_progress(rpd *c) {
  if ((++c->rows & 0xFFF) == 0) tt_progress("rows", c->rows, 0);
}

/* One arg of event ev. The same name may come from two sources (the args
 * string and the kernelapi row both name the stream): an equal value is
 * written once, a different one as "name#2". */
void rpd_arg(rpd *c, int64_t ev, int *pos, hub_arg_type type, const char *name, const char *value) {
  if (ev != c->arg_event) {
    c->arg_event = ev;
    tt_buf_clear(&c->arg_seen);
    tt_buf_putc(&c->arg_seen, '\x1e');
  }
  tt_buf_clear(&c->key);
  tt_buf_putc(&c->key, '\x1e');
  tt_buf_puts(&c->key, name);
  tt_buf_putc(&c->key, '\x1f');
  size_t klen = c->key.len;
  int same_name = 0; /* earlier args of this name */
  if (c->arg_seen.len > 1) {
    tt_buf_puts(&c->key, value);
    tt_buf_putc(&c->key, '\x1e');
    if (strstr(c->arg_seen.data, c->key.data)) return;
    c->key.data[klen] = '\0';
    for (const char *p = c->arg_seen.data; (p = strstr(p, c->key.data)); p += klen) same_name++;
    c->key.len = klen;
    tt_buf_puts(&c->key, value);
    tt_buf_putc(&c->key, '\x1e');
  } else {
    tt_buf_puts(&c->key, value);
    tt_buf_putc(&c->key, '\x1e');
  }
  tt_buf_append(&c->arg_seen, c->key.data + 1, c->key.len - 1);
  if (same_name) {
    char renamed[256];
    snprintf(renamed, sizeof renamed, "%s#%d", name, same_name + 1);
    hub_arg(c->w, ev, (*pos)++, type, renamed, value);
  } else {
    hub_arg(c->w, ev, (*pos)++, type, name, value);
  }
}

void rpd_arg_value(rpd *c, int64_t ev, int *pos, const char *name, sqlite3_value *v) {
  char num[40];
  switch (sqlite3_value_type(v)) {
  case SQLITE_INTEGER:
    *tt_format_i64(num, sqlite3_value_int64(v)) = '\0';
    rpd_arg(c, ev, pos, HUB_ARG_INT, name, num);
    break;
  case SQLITE_FLOAT:
    snprintf(num, sizeof num, "%.17g", sqlite3_value_double(v));
    rpd_arg(c, ev, pos, HUB_ARG_DOUBLE, name, num);
    break;
  case SQLITE_TEXT: /* '' (v2 writes it in unused integer columns) says nothing */
    if (sqlite3_value_bytes(v) > 0)
      rpd_arg(c, ev, pos, HUB_ARG_STRING, name, (const char *)sqlite3_value_text(v));
    break;
  case SQLITE_BLOB: { /* hex, as nv_rest_json writes blobs */
    tt_buf_clear(&c->name);
    const unsigned char *b = sqlite3_value_blob(v);
    for (int i = 0, n = sqlite3_value_bytes(v); i < n; i++) tt_buf_printf(&c->name, "%02x", b[i]);
    rpd_arg(c, ev, pos, HUB_ARG_STRING, name, c->name.data ? c->name.data : "");
    break;
  }
  default: break;
  }
}

void rpd_arg_int(rpd *c, int64_t ev, int *pos, const char *name, int64_t v) {
  char num[TT_I64_CHARS + 1];
  *tt_format_i64(num, v) = '\0';
  rpd_arg(c, ev, pos, HUB_ARG_INT, name, num);
}

/* Most of these columns are NULL (the other table of a LEFT JOIN) or ''
 * (v2's unfilled columns), which say nothing: skipped before their name
 * is looked up. */
void rpd_args_from(rpd *c, int64_t ev, int *pos, sqlite3_stmt *st, int from, int to) {
  for (int i = from; i < to; i++) {
    sqlite3_value *v = sqlite3_column_value(st, i);
    int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL || (type == SQLITE_TEXT && sqlite3_value_bytes(v) == 0)) continue;
    rpd_arg_value(c, ev, pos, sqlite3_column_name(st, i), v);
  }
}

int rpd_rest_count(rpd *c, const char *table, const char *consumed) {
  tt_buf b = {0};
  nv_rest_columns(&c->src, table, "x", consumed, &b);
  int n = 0;
  for (const char *p = b.data; p && (p = strstr(p, ", x.\"")); p += 5) n++;
  tt_buf_free(&b);
  return n;
}

void rpd_launch_joins(rpd *c, tt_buf *q, const char *api_id) {
  if (c->have_kernelapi) {
    tt_buf_printf(q, " LEFT JOIN rocpd_kernelapi k ON k.api_ptr_id = %s"
                     " LEFT JOIN rocpd_string kn ON kn.id = k.kernelName_id", api_id);
    if (c->have_codeobject)
      tt_buf_puts(q, " LEFT JOIN rocpd_kernelcodeobject co ON co.id = k.codeObject_id");
  }
  if (c->have_copyapi)
    tt_buf_printf(q, " LEFT JOIN rocpd_copyapi cp ON cp.api_ptr_id = %s", api_id);
}

/* ---- opening ----------------------------------------------------------- */

static int is_gzip(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char m[2] = {0};
  size_t n = fread(m, 1, 2, f);
  fclose(f);
  return n == 2 && m[0] == 0x1f && m[1] == 0x8b;
}

/* ---- checks, metadata, processes --------------------------------------- */

static int check_format(rpd *c) {
  nv_src *s = &c->src;
  if (!nv_has_table(s, "rocpd_api") && !nv_has_table(s, "rocpd_op")) {
    sqlite3_stmt *st = nv_prepare(s, "SELECT 1 FROM sqlite_master WHERE type='table' AND "
                                      "name GLOB 'rocpd_event*'");
    int hub = st && sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    if (hub)
      tt_error("%s: a rocpd v3 database (rocprofv3 or a *2db hub), not an RPD file: "
               "export it directly with db2json or db2perfetto",
               s->path);
    else
      tt_error("%s: not an RPD file: no rocpd_api or rocpd_op table", s->path);
    return -1;
  }
  static const char *const required[] = {"rocpd_metadata", "rocpd_string", "rocpd_api",
                                         "rocpd_op", "rocpd_api_ops"};
  for (size_t i = 0; i < sizeof required / sizeof *required; i++)
    if (!nv_has_table(s, required[i])) {
      tt_error("%s: not a complete RPD file: missing table %s", s->path, required[i]);
      return -1;
    }
  sqlite3_stmt *st =
      nv_prepare(s, "SELECT value FROM rocpd_metadata WHERE tag = 'schema_version' LIMIT 1");
  if (!st) return -1;
  const char *v = sqlite3_step(st) == SQLITE_ROW ? (const char *)sqlite3_column_text(st, 0) : NULL;
  c->version = v && (strcmp(v, "2") == 0 || strcmp(v, "3") == 0) ? v[0] - '0' : 0;
  if (!c->version) {
    if (v)
      tt_error("%s: RPD schema_version %s in rocpd_metadata: rpd2db reads versions 2 and 3",
               s->path, v);
    else
      tt_error("%s: rocpd_metadata has no schema_version row: rpd2db reads RPD versions 2 and 3",
               s->path);
    sqlite3_finalize(st);
    return -1;
  }
  sqlite3_finalize(st);
  if (nv_require_columns(s, "rocpd_metadata", "tag,value") ||
      nv_require_columns(s, "rocpd_string", "id,string") ||
      nv_require_columns(s, "rocpd_api", c->version == 3
                                             ? "id,pid,tid,start,end,apiName_id,args_id,"
                                               "domain_id,category_id"
                                             : "id,pid,tid,start,end,apiName_id,args_id") ||
      nv_require_columns(s, "rocpd_op",
                         "id,gpuId,queueId,sequenceId,start,end,description_id,opType_id") ||
      nv_require_columns(s, "rocpd_api_ops", "api_id,op_id"))
    return -1;
  c->args_table = "rocpd_string";
  if (c->version == 3) {
    if (!nv_has_table(s, "rocpd_ustring")) {
      tt_error("%s: RPD schema_version 3 without its table rocpd_ustring", s->path);
      return -1;
    }
    if (nv_require_columns(s, "rocpd_ustring", "id,string")) return -1;
    c->args_table = "rocpd_ustring";
  }
  c->have_kernelapi = nv_has_table(s, "rocpd_kernelapi");
  c->have_copyapi = nv_has_table(s, "rocpd_copyapi");
  c->have_monitor = nv_has_table(s, "rocpd_monitor");
  c->have_counter = nv_has_table(s, "rocpd_counter");
  c->have_stackframe = nv_has_table(s, "rocpd_stackframe");
  c->have_barrierop = nv_has_table(s, "rocpd_barrierop");
  c->have_signals = nv_has_table(s, "rocpd_op_inputSignals");
  c->have_codeobject = nv_has_table(s, "rocpd_kernelcodeobject");
  if ((c->have_kernelapi &&
       nv_require_columns(s, "rocpd_kernelapi",
                          "api_ptr_id,gridX,gridY,gridZ,workgroupX,workgroupY,workgroupZ,"
                          "groupSegmentSize,privateSegmentSize,kernelName_id")) ||
      (c->have_copyapi &&
       nv_require_columns(s, "rocpd_copyapi", "api_ptr_id,size,kind,dst,src")) ||
      (c->have_monitor &&
       nv_require_columns(s, "rocpd_monitor", "deviceType,deviceId,monitorType,start,end,value")) ||
      (c->have_counter && nv_require_columns(s, "rocpd_counter", "op_id,name_id,value")) ||
      (c->have_stackframe &&
       nv_require_columns(s, "rocpd_stackframe", "api_ptr_id,depth,name_id")) ||
      (c->have_barrierop && nv_require_columns(s, "rocpd_barrierop", "op_ptr_id")) ||
      (c->have_signals && nv_require_columns(s, "rocpd_op_inputSignals", "from_op_id,to_op_id")))
    return -1;
  if (c->have_codeobject && (!c->have_kernelapi || !nv_has_column(s, "rocpd_kernelapi",
                                                                  "codeObject_id")))
    c->have_codeobject = 0;
  return 0;
}

/* A positive integer metadata value (the strides), 0 when absent. */
static int stride(rpd *c, const char *tag, int64_t *out) {
  *out = 0;
  sqlite3_stmt *st = nv_prepare(&c->src, "SELECT value FROM rocpd_metadata WHERE tag = ?1 LIMIT 1");
  if (!st) return -1;
  sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
  int rc = 0;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
    const char *v = (const char *)sqlite3_column_text(st, 0);
    char *end = NULL;
    errno = 0;
    long long n = v ? strtoll(v, &end, 10) : 0;
    if (!v || end == v || *end || errno || n <= 0) {
      tt_error("%s: rocpd_metadata %s = '%s': not a positive integer", c->src.path, tag,
               v ? v : "");
      rc = -1;
    } else {
      *out = n;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* Every rocpd_metadata row as hub metadata rpd.<tag>. */
static int copy_metadata(rpd *c) {
  sqlite3_stmt *st = nv_prepare(&c->src, "SELECT tag, value FROM rocpd_metadata ORDER BY rowid");
  if (!st) return -1;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *tag = (const char *)sqlite3_column_text(st, 0);
    const char *value = (const char *)sqlite3_column_text(st, 1);
    tt_buf_clear(&c->name);
    tt_buf_printf(&c->name, "rpd.%s", tag ? tag : "");
    hub_writer_metadata(c->w, c->name.data, value ? value : "");
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, "rocpd_metadata");
}

/* Node strides (v3): pid = node * pid_stride + pid, gpuId = node *
 * gpu_stride + gpu, as rocmProfileData's napi/nop views decode them. The
 * hub keeps the decoded ids, unless two nodes share one (the hub writer
 * has one node per database): then the encoded ids stay, so no two
 * processes or GPUs merge. */
/* Whether `column` of `table` decodes without two nodes sharing an id. */
static int decodes(rpd *c, const char *table, const char *column, int64_t stride,
                   const char *what) {
  if (!stride) return 0;
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT count(DISTINCT %s) = count(DISTINCT %s %% %lld) FROM %s",
           column, column, (long long)stride, table);
  int ok = nv_first_int(&c->src, sql, 0) == 1;
  if (!ok)
    tt_warn("%s: %s of different nodes share an id: kept encoded (node * %lld + id)", c->src.path,
            what, (long long)stride);
  return ok;
}

static int strides(rpd *c) {
  if (stride(c, "pid_stride", &c->pid_stride) || stride(c, "gpu_stride", &c->gpu_stride))
    return -1;
  c->decode_pid = decodes(c, "rocpd_api", "pid", c->pid_stride, "processes");
  c->decode_gpu = decodes(c, "rocpd_op", "gpuId", c->gpu_stride, "GPUs");
  return 0;
}

/* Every process of the file (each keeps its pid), and the process of each
 * GPU: the one process whose calls launched work on it, if only one did. */
static int processes(rpd *c) {
  sqlite3_stmt *st = nv_prepare(&c->src, "SELECT DISTINCT pid FROM rocpd_api ORDER BY pid");
  if (!st) return -1;
  int64_t n = 0, last = HUB_NULL;
  int step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t raw = sqlite3_column_int64(st, 0), pid = rpd_pid(c, raw);
    hub_touch_process(c->w, pid, HUB_NULL, HUB_NULL);
    if (c->pid_stride) {
      char node[48];
      snprintf(node, sizeof node, "%lld", (long long)(raw / c->pid_stride));
      hub_process_extdata(c->w, pid, "rpd_node", node);
    }
    if (pid != last) n++;
    last = pid;
  }
  sqlite3_finalize(st);
  if (step != SQLITE_DONE) return nv_step_error(&c->src, "rocpd_api");
  c->single_pid = n == 1 ? last : HUB_NULL;
  /* One process owns every GPU (rpd_gpu_owner): no need to join every
   * launch to its call and op (5% of the import on a real RPD). */
  if (c->single_pid != HUB_NULL) return 0;
  st = nv_prepare(&c->src, "SELECT o.gpuId, min(a.pid), max(a.pid) FROM rocpd_api_ops l "
                           "JOIN rocpd_op o ON o.id = l.op_id JOIN rocpd_api a ON a.id = l.api_id "
                           "GROUP BY o.gpuId");
  if (!st) return -1;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t lo = sqlite3_column_int64(st, 1), hi = sqlite3_column_int64(st, 2);
    tt_i64map_put(&c->gpu_pid, sqlite3_column_int64(st, 0),
                  lo == hi ? rpd_pid(c, lo) : HUB_NULL);
  }
  sqlite3_finalize(st);
  return step == SQLITE_DONE ? 0 : nv_step_error(&c->src, "rocpd_api_ops");
}

/* ---- the import -------------------------------------------------------- */

static int import_file(rpd *c, const char *file, const char *path) {
  if (tt_sqlite_check_header(file, path) || nv_src_open_named(&c->src, file, path)) return -1;
  /* RPD files rarely carry indexes: the op query's one lookup into the
   * grouped api_ops relies on SQLite's automatic (transient) index. */
  sqlite3_exec(c->src.db, "PRAGMA automatic_index=ON;", NULL, NULL, NULL);
  int rc = check_format(c) || copy_metadata(c) || strides(c) || processes(c);
  if (!rc) rc = rpd_apis(c) || rpd_ops(c) || rpd_monitor(c) || nv_time_error(&c->src);
  if (!rc) {
    hub_writer_metadata(c->w, "rpd2db.schema_version", c->version == 3 ? "3" : "2");
    /* rpd_tracer stamps CLOCK_MONOTONIC (roctracer's and CUPTI's times
     * converted to it) and records no wall-clock anchor. */
    hub_writer_clock(c->w, HUB_CLOCK_MONOTONIC, HUB_NULL);
    if (c->placeholder_used)
      tt_warn("%s: GPU work without a launching call, on a GPU no single process launched "
              "work on: written to pid %d (\"%s\")",
              path, RPD_PLACEHOLDER_PID, RPD_PLACEHOLDER_NAME);
    nv_warn_unhandled(&c->src, HANDLED, NULL);
  }
  nv_src_close(&c->src);
  return rc ? -1 : 0;
}

int rpd2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  (void)ctx;
  rpd c = {.w = w, .single_pid = HUB_NULL, .arg_event = HUB_NULL, .ksym_pid = HUB_NULL};
  int rc;
  if (is_gzip(opts->input)) {
    /* SQLite reads files only: a .rpd.gz is unpacked beside the output,
     * under a temporary name that every exit path removes. */
    tt_buf unz = {0};
    tt_buf_printf(&unz, "%s.rpd", opts->output);
    tt_output *tmp = tt_output_begin(unz.data);
    tt_buf_free(&unz);
    rc = rpd_gunzip(opts->input, tt_output_tmp_path(tmp));
    if (!rc) rc = import_file(&c, tt_output_tmp_path(tmp), opts->input);
    tt_output_abort(tmp);
  } else {
    rc = import_file(&c, opts->input, opts->input);
  }
  tt_i64map_free(&c.gpu_pid);
  tt_i64map_free(&c.ksyms);
  tt_buf_free(&c.ext);
  tt_buf_free(&c.sql);
  tt_buf_free(&c.name);
  tt_buf_free(&c.key);
  tt_buf_free(&c.arg_seen);
  return rc ? 1 : 0;
}
