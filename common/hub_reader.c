#include "hub_reader.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hashmap.h"
#include "input_check.h"
#include "sqlite_setup.h"
#include "util.h"

/* One logical hub: a connection and the uuid suffix of its physical tables
 * (a file merged by rocpd's tools can hold several). */
typedef struct hub_db {
  sqlite3 *conn;
  int owns_conn;
  char *path;
  char *suffix; /* "_<uuid>" or "" */
  int has_table[HUB_KIND_COUNT];
  int has_flows;       /* the source recorded flow ends itself */
  int can_link;        /* indexes for correlation lookups exist */
  /* Where launch->GPU lookups read: the hub's own tables when they carry
   * the indexes, else indexed TEMP copies of the few columns needed
   * (rocprofv3 databases have no such indexes; the input stays untouched). */
  char *ev_link, *k_link, *m_link;
  /* Where args are read by event: the hub's rocpd_arg when indexed on
   * event_id, else an indexed TEMP copy (rocprofv3 writes no such index:
   * a lookup per event would scan the table each time). */
  char *args_src;
  sqlite3_stmt *args_st, *track_st;
} hub_db;

/* The tables a cursor can read. */
typedef enum { T_REGION, T_KERNEL, T_COPY, T_ALLOC, T_SAMPLE, T_COUNT } table_id;
static const char *const table_names[T_COUNT] = {
    "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_memory_allocate",
    "rocpd_sample"};

typedef struct cursor {
  int db;
  table_id table;
  sqlite3_stmt *st;
  int64_t start, end, row_id; /* heap key of the current row */
} cursor;

struct hub_reader {
  hub_db *dbs;
  size_t ndbs;
  cursor *cursors;
  cursor **heap;
  size_t ncursors, heap_len;
  cursor *to_advance; /* yielded last time; stepped on the next call */
  hub_filter filter;
  hub_process_info *processes; size_t nprocesses;
  hub_thread_info *threads; size_t nthreads;
  hub_agent_view *agents; size_t nagents;
  hub_lane_info *lanes; size_t nlanes;
  tt_i64map process_ix, thread_ix, agent_ix, lane_ix; /* (db, id) hashed -> index */
  sqlite3_stmt *args_iter;
  int failed;
  /* Launches read whose GPU work is still ahead: (db, pid, correlation)
   * -> launch start, and -> start of that GPU work (to forget it once the
   * stream has passed it). Bounded by the launches in flight. */
  tt_i64map pending_launch, pending_gpu;
  uint64_t since_sweep;
  int has_lane_threads; /* some thread stands for a GPU lane */
};

const char *hub_kind_name(hub_kind k) {
  static const char *const names[] = {"region", "kernel", "copy", "alloc",
                                      "instant", "counter", "flow"};
  return k < HUB_KIND_COUNT ? names[k] : "?";
}

const char *hub_record_category(const hub_record *ev) {
  if (ev->category[0]) return ev->category;
  switch (ev->kind) {
  case HUB_KERNEL: return "kernel";
  case HUB_COPY: return "gpu_memcpy";
  case HUB_ALLOC: return "memory";
  default: return "";
  }
}

static int64_t key_db_id(int db, int64_t id, int salt) {
  return (int64_t)(((uint64_t)db << 48) ^ ((uint64_t)salt << 46) ^ (uint64_t)id);
}

/* Reads the first 16 bytes: a clear message for files that are not SQLite
 * at all, before SQLite's generic "file is not a database". */
static int check_sqlite_magic(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    tt_error("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  unsigned char head[100] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
  fclose(f);
  if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
    tt_input_kind k = tt_input_kind_of(path);
    const char *tools = tt_input_kind_tools(k);
    if (tools)
      tt_error("%s: not a SQLite database: this is %s; import it with %s first", path,
               tt_input_kind_name(k), tools);
    else
      tt_error("%s: not a SQLite database (byte 0: no SQLite header)", path);
    return -1;
  }
  /* A half-copied file: the header's page count (valid when its
   * version-valid-for number matches the change counter) says how long the
   * file must be; SQLite itself notices only when it reads a missing page.
   * In WAL mode newer pages may live in the -wal: not checked then. */
  if (n == sizeof head && head[18] != 2) {
    uint32_t psz = (uint32_t)head[16] << 8 | head[17];
    uint64_t page_size = psz == 1 ? 65536 : psz;
    uint32_t pages = (uint32_t)head[28] << 24 | (uint32_t)head[29] << 16 | (uint32_t)head[30] << 8 | head[31];
    int valid = memcmp(head + 24, head + 92, 4) == 0;
    if (valid && size >= 0 && page_size * pages > (uint64_t)size) {
      tt_error("%s: truncated: the SQLite header says %llu bytes (%u pages), the file has %ld",
               path, (unsigned long long)(page_size * pages), pages, size);
      return -1;
    }
  }
  return 0;
}

static sqlite3_stmt *prep(hub_db *d, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) != SQLITE_OK) {
    tt_error("%s: %s", d->path, sqlite3_errmsg(d->conn));
    return NULL;
  }
  return st;
}

static int table_exists(sqlite3 *conn, const char *name) {
  sqlite3_stmt *st;
  int found = 0;
  if (sqlite3_prepare_v2(conn, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1",
                         -1, &st, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
  found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

static int index_on(sqlite3 *conn, const char *table, const char *column) {
  char *sql = sqlite3_mprintf(
      "SELECT 1 FROM sqlite_master m, pragma_index_info(m.name) i WHERE m.type='index' "
      "AND m.tbl_name=%Q AND i.seqno=0 AND i.name=%Q",
      table, column);
  sqlite3_stmt *st;
  int found = 0;
  if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) == SQLITE_OK) {
    found = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
  }
  sqlite3_free(sql);
  return found;
}

/* Physical table name of `base` in d, e.g. rocpd_region_<uuid>. */
static char *tname(const hub_db *d, const char *base) {
  return sqlite3_mprintf("%s%s", base, d->suffix);
}

/* Copies `cols` of table `src` into an indexed TEMP table, and points
 * *name at it. One pass over the table, on disk (temp_store=FILE), done
 * before the connection turns query_only. Returns 1 on success. */
static int link_table(hub_db *d, char **name, const char *tag, const char *src,
                      const char *cols, const char *where, const char *key) {
  char *tmp = sqlite3_mprintf("tt_link_%s%s", tag, d->suffix);
  char *sql = sqlite3_mprintf("DROP TABLE IF EXISTS temp.\"%w\";"
                              "CREATE TEMP TABLE \"%w\" AS SELECT %s FROM \"%w\" WHERE %s;"
                              "CREATE INDEX temp.\"%w_ix\" ON \"%w\"(%s);",
                              tmp, tmp, cols, src, where, tmp, tmp, key);
  int ok = sqlite3_exec(d->conn, sql, NULL, NULL, NULL) == SQLITE_OK;
  sqlite3_free(sql);
  if (ok) {
    sqlite3_free(*name);
    *name = sqlite3_mprintf("temp.\"%w\"", tmp);
  }
  sqlite3_free(tmp);
  return ok;
}

/* Args are looked up per event: by the input's index on rocpd_arg's
 * event_id when it has one, else through an indexed TEMP copy made in one
 * pass (SQLite refuses a TEMP index on an input's table; the input is
 * never written). Either way a lookup is a key search, never a scan. */
static void args_source(hub_db *d) {
  char *args = tname(d, "rocpd_arg");
  if (!table_exists(d->conn, args) || index_on(d->conn, args, "event_id") ||
      !link_table(d, &d->args_src, "arg", args, "event_id, position, name, type, value", "1",
                  "event_id, position"))
    d->args_src = sqlite3_mprintf("\"%w\"", args);
  sqlite3_free(args);
}

static void setup_db(hub_db *d) {
  static const char *const kinds[T_COUNT] = {"rocpd_region", "rocpd_kernel_dispatch",
                                             "rocpd_memory_copy", "rocpd_memory_allocate",
                                             "rocpd_sample"};
  for (int t = 0; t < T_COUNT; t++) {
    char *n = tname(d, kinds[t]);
    d->has_table[t] = table_exists(d->conn, n);
    sqlite3_free(n);
  }
  if (d->has_table[T_SAMPLE]) {
    char *sql = sqlite3_mprintf(
        "SELECT 1 FROM \"rocpd_track%s\" WHERE json_valid(extdata) AND "
        "json_extract(extdata,'$.kind')='flow' LIMIT 1",
        d->suffix);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK) {
      d->has_flows = sqlite3_step(st) == SQLITE_ROW;
      sqlite3_finalize(st);
    }
    sqlite3_free(sql);
  }
  char *ev = tname(d, "rocpd_event");
  char *kd = tname(d, "rocpd_kernel_dispatch");
  char *mc = tname(d, "rocpd_memory_copy");
  char *sm = tname(d, "rocpd_sample");
  d->ev_link = sqlite3_mprintf("\"%w\"", ev);
  d->k_link = sqlite3_mprintf("\"%w\"", kd);
  d->m_link = sqlite3_mprintf("\"%w\"", mc);
  if (d->has_flows) {
    d->can_link = index_on(d->conn, ev, "correlation_id") && index_on(d->conn, sm, "event_id");
  } else {
    d->can_link = 1;
    if (!index_on(d->conn, ev, "correlation_id"))
      d->can_link &= link_table(d, &d->ev_link, "ev", ev, "id, correlation_id, category_id",
                                "correlation_id IS NOT NULL", "correlation_id");
    if (d->has_table[T_KERNEL] && !index_on(d->conn, kd, "event_id"))
      d->can_link &= link_table(d, &d->k_link, "k", kd, "event_id, start, pid, kernel_id",
                                "event_id IS NOT NULL", "event_id");
    if (d->has_table[T_COPY] && !index_on(d->conn, mc, "event_id"))
      d->can_link &= link_table(d, &d->m_link, "m", mc, "event_id, start, pid, name_id",
                                "event_id IS NOT NULL", "event_id");
  }
  sqlite3_free(ev);
  sqlite3_free(kd);
  sqlite3_free(mc);
  sqlite3_free(sm);
  args_source(d);
}

/* The rocpd schema each uuid of a file declares in its rocpd_metadata:
 * version 3.x is read; another version, or compressed columns (rocpd 4
 * can store extdata lz4-compressed), would be misread, so the file is
 * refused with what was found. Returns 0 when every uuid is readable. */
static int check_schema(sqlite3 *conn, const char *path) {
  sqlite3_stmt *st;
  /* The metadata of each uuid that has rocpd_event (an RPD file has a
   * rocpd_metadata of its own, and gets open_file's message). */
  if (sqlite3_prepare_v2(conn,
                         "SELECT 'rocpd_metadata' || substr(e.name, 12), m.name IS NOT NULL FROM "
                         "sqlite_master e LEFT JOIN sqlite_master m ON m.type = 'table' AND "
                         "m.name = 'rocpd_metadata' || substr(e.name, 12) WHERE e.type = 'table' "
                         "AND (e.name GLOB 'rocpd_event_*' OR e.name = 'rocpd_event')",
                         -1, &st, NULL) != SQLITE_OK)
    return 0; /* not even a readable SQLite file: open_file says so */
  int rc = 0;
  while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
    const char *table = (const char *)sqlite3_column_text(st, 0);
    if (!sqlite3_column_int(st, 1)) {
      tt_error("%s: no %s table: schema version unknown, not a rocpd 3.x database", path, table);
      rc = -1;
      break;
    }
    char *sql = sqlite3_mprintf("SELECT tag, value FROM \"%w\" WHERE tag = 'schema_version' "
                                "OR lower(tag) GLOB '*compress*'",
                                table);
    sqlite3_stmt *m;
    int have_version = 0;
    if (sqlite3_prepare_v2(conn, sql, -1, &m, NULL) == SQLITE_OK) {
      while (rc == 0 && sqlite3_step(m) == SQLITE_ROW) {
        const char *tag = (const char *)sqlite3_column_text(m, 0);
        const char *value = (const char *)sqlite3_column_text(m, 1);
        if (!tag) continue;
        if (!value) value = "";
        if (strcmp(tag, "schema_version") == 0) {
          have_version = 1;
          char *end;
          long major = strtol(value, &end, 10);
          if (end == value || major != 3 || (*end && *end != '.')) {
            tt_error("%s: rocpd schema_version '%s' in %s: this reader reads version 3.x", path,
                     value, table);
            rc = -1;
          }
        } else if (value[0] && strcmp(value, "none") != 0 && strcmp(value, "0") != 0 &&
                   strcmp(value, "false") != 0) {
          tt_error("%s: %s = '%s' in %s: compressed rocpd data is not supported (only "
                   "uncompressed rocpd 3.x)",
                   path, tag, value, table);
          rc = -1;
        }
      }
      sqlite3_finalize(m);
    }
    sqlite3_free(sql);
    if (rc == 0 && !have_version) {
      tt_error("%s: %s has no schema_version: not a rocpd 3.x database", path, table);
      rc = -1;
    }
  }
  sqlite3_finalize(st);
  return rc;
}

/* Finds every uuid suffix in one file (tables named rocpd_event<suffix>). */
static int open_file(hub_reader *r, const char *path) {
  tt_sqlite_setup();
  if (check_sqlite_magic(path) != 0) return -1;
  sqlite3 *conn = NULL;
  if (tt_sqlite_open_input(path, &conn) != SQLITE_OK) {
    tt_error("%s: cannot open: %s", path, conn ? sqlite3_errmsg(conn) : "out of memory");
    sqlite3_close(conn);
    return -1;
  }
  /* Never run SQL an input brings along (views, triggers, functions). */
  sqlite3_exec(conn, "PRAGMA trusted_schema=OFF;", NULL, NULL, NULL);
  if (check_schema(conn, path) != 0) {
    sqlite3_close(conn);
    return -1;
  }
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn,
                         "SELECT substr(name, 12) FROM sqlite_master WHERE type='table' AND "
                         "(name GLOB 'rocpd_event_*' OR name = 'rocpd_event') ORDER BY name",
                         -1, &st, NULL) != SQLITE_OK) {
    tt_error("%s: not a readable SQLite database: %s", path, sqlite3_errmsg(conn));
    sqlite3_close(conn);
    return -1;
  }
  size_t found = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *suffix = (const char *)sqlite3_column_text(st, 0);
    char *s = tt_strdup(suffix ? suffix : "");
    char *strings = sqlite3_mprintf("rocpd_string%s", s);
    int ok = table_exists(conn, strings);
    sqlite3_free(strings);
    if (!ok) {
      free(s);
      continue;
    }
    r->dbs = tt_realloc(r->dbs, (r->ndbs + 1) * sizeof *r->dbs);
    hub_db *d = &r->dbs[r->ndbs++];
    memset(d, 0, sizeof *d);
    d->conn = conn;
    d->owns_conn = found == 0;
    d->path = tt_strdup(path);
    d->suffix = s;
    setup_db(d);
    found++;
  }
  sqlite3_finalize(st);
  /* From here on nothing may change, not even TEMP (link tables are made). */
  sqlite3_exec(conn, "PRAGMA query_only=1;", NULL, NULL, NULL);
  if (found == 0) {
    tt_input_kind k = tt_input_kind_of(path);
    if (k == TT_INPUT_RPD || k == TT_INPUT_NVPROF || k == TT_INPUT_NSYS)
      tt_error("%s: this is %s, not a rocpd v3 hub; import it with %s first", path,
               tt_input_kind_name(k), tt_input_kind_tools(k));
    else
      tt_error("%s: not a rocpd hub database (no rocpd_event/rocpd_string tables)", path);
    sqlite3_close(conn);
    return -1;
  }
  return 0;
}

/* --- SQL generation --------------------------------------------------- */

/* JSON member of a column, NULL when the column is not valid JSON. */
#define JX(col, path) "(CASE WHEN json_valid(" col ") THEN json_extract(" col ",'" path "') END)"

/* Category and name globs match case-insensitively: importers spell the
 * same category "kernel", "Kernel" and "KERNEL_DISPATCH". */
static void glob_any(tt_buf *b, const char *expr, const char **globs, size_t n) {
  tt_buf_putc(b, '(');
  for (size_t i = 0; i < n; i++) {
    char *lower = tt_strdup(globs[i]);
    for (char *c = lower; *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    char *lit = sqlite3_mprintf("%Q", lower);
    tt_buf_printf(b, "%slower(%s) GLOB %s", i ? " OR " : "", expr, lit);
    sqlite3_free(lit);
    free(lower);
  }
  tt_buf_putc(b, ')');
}

/* Category filter on a category expression, "" when no category filter. */
static void category_filter(tt_buf *b, const hub_filter *f, const char *cat_expr) {
  if (f->ncategories) {
    tt_buf_puts(b, " AND ");
    glob_any(b, cat_expr, f->categories, f->ncategories);
  }
  if (f->nexclude) {
    tt_buf_puts(b, " AND NOT ");
    glob_any(b, cat_expr, f->exclude_categories, f->nexclude);
  }
}

static void common_filters(tt_buf *b, const hub_filter *f, const char *start, const char *end,
                           const char *pid, const char *name, const char *cat,
                           int instant) {
  tt_buf_puts(b, " WHERE 1");
  if (f->end != HUB_NULL) tt_buf_printf(b, " AND %s < %lld", start, (long long)f->end);
  if (f->start != HUB_NULL) {
    if (instant)
      tt_buf_printf(b, " AND %s >= %lld", start, (long long)f->start);
    else
      tt_buf_printf(b, " AND (%s > %lld OR %s >= %lld)", end, (long long)f->start, start,
                    (long long)f->start);
  }
  if (f->pid != HUB_NULL) tt_buf_printf(b, " AND %s = %lld", pid, (long long)f->pid);
  if (cat) category_filter(b, f, cat);
  if (name && f->nnames) {
    tt_buf_puts(b, " AND ");
    glob_any(b, name, f->names, f->nnames);
  }
}

/* A kernel's display name from its symbol row `ks`: the demangled name
 * when the kernel name is mangled. */
#define KERNEL_NAME(ks)                                                                  \
  "(CASE WHEN " ks ".kernel_name GLOB '_Z*' AND COALESCE(" ks ".display_name,'') != '' " \
  "THEN " ks ".display_name ELSE COALESCE(" ks ".kernel_name, " ks ".display_name, '') END)"

static void name_filter(tt_buf *b, const hub_filter *f, const char *name_expr) {
  if (!f->nnames) return;
  tt_buf_puts(b, " AND ");
  glob_any(b, name_expr, f->names, f->nnames);
}

/* Start of the first GPU work sharing a launch's correlation (in the same
 * process, as correlation ids are per process), among the work the filters
 * keep: a launch's arrow is drawn only when its other end is written. */
static void link_to_gpu(tt_buf *b, const hub_db *d, const hub_filter *f) {
  const char *S = d->suffix;
  tt_buf_puts(b, "(CASE WHEN e.correlation_id IS NULL THEN NULL ELSE (SELECT min(x.start) FROM (");
  int first = 1;
  if (d->has_table[T_KERNEL]) {
    tt_buf_printf(b,
                  "SELECT k2.start AS start FROM %s e2 JOIN %s k2 ON k2.event_id = e2.id "
                  "LEFT JOIN \"rocpd_string%s\" c2 ON c2.id = e2.category_id LEFT JOIN "
                  "\"rocpd_info_kernel_symbol%s\" ks2 ON ks2.id = k2.kernel_id WHERE "
                  "e2.correlation_id = e.correlation_id AND k2.pid = r.pid",
                  d->ev_link, d->k_link, S, S);
    category_filter(b, f, "COALESCE(c2.string,'')");
    name_filter(b, f, KERNEL_NAME("ks2"));
    first = 0;
  }
  if (d->has_table[T_COPY]) {
    if (!first) tt_buf_puts(b, " UNION ALL ");
    tt_buf_printf(b,
                  "SELECT m2.start AS start FROM %s e2 JOIN %s m2 ON m2.event_id = e2.id "
                  "LEFT JOIN \"rocpd_string%s\" c2 ON c2.id = e2.category_id LEFT JOIN "
                  "\"rocpd_string%s\" n2 ON n2.id = m2.name_id WHERE e2.correlation_id = "
                  "e.correlation_id AND m2.pid = r.pid",
                  d->ev_link, d->m_link, S, S);
    category_filter(b, f, "COALESCE(c2.string,'')");
    name_filter(b, f, "COALESCE(n2.string,'')");
    first = 0;
  }
  if (first) tt_buf_puts(b, "SELECT NULL AS start");
  tt_buf_puts(b, ") x) END)");
}

/* Under a category or name filter, a recorded flow end is kept only when
 * a slice the filters keep starts at its time on its lane (every Kineto
 * flow end does: s on the launching call, f on the kernel), so no arrow
 * points at a slice that is not written. `ts` and `t` are the SQL of the
 * flow end's timestamp and the alias of its rocpd_track row. Each check
 * is one lookup on the start index of the hubs importers write. */
static void flow_anchor(tt_buf *b, const hub_db *d, const hub_filter *f, const char *ts,
                        const char *t) {
  const char *S = d->suffix;
  tt_buf_printf(b, "(CASE WHEN (CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                   "'$.stream_id') END) IS NULL THEN ",
                t, t);
  if (d->has_table[T_REGION]) {
    tt_buf_printf(b,
                  "EXISTS(SELECT 1 FROM \"rocpd_region%s\" ra LEFT JOIN \"rocpd_string%s\" na ON "
                  "na.id = ra.name_id LEFT JOIN \"rocpd_event%s\" ea ON ea.id = ra.event_id LEFT "
                  "JOIN \"rocpd_string%s\" ca ON ca.id = ea.category_id WHERE ra.start = %s AND "
                  "ra.pid = %s.pid AND ra.tid IS %s.tid",
                  S, S, S, S, ts, t, t);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, "COALESCE(na.string,'')");
    tt_buf_putc(b, ')');
  } else {
    tt_buf_puts(b, "0");
  }
  tt_buf_puts(b, " ELSE (0");
  char *lane = sqlite3_mprintf("(CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                               "'$.stream_id') END)",
                               t, t);
  if (d->has_table[T_KERNEL]) {
    tt_buf_printf(b,
                  " OR EXISTS(SELECT 1 FROM \"rocpd_kernel_dispatch%s\" ka LEFT JOIN "
                  "\"rocpd_info_kernel_symbol%s\" ksa ON ksa.id = ka.kernel_id LEFT JOIN "
                  "\"rocpd_event%s\" ea ON ea.id = ka.event_id LEFT JOIN \"rocpd_string%s\" ca ON "
                  "ca.id = ea.category_id WHERE ka.start = %s AND ka.stream_id = %s",
                  S, S, S, S, ts, lane);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, KERNEL_NAME("ksa"));
    tt_buf_putc(b, ')');
  }
  if (d->has_table[T_COPY]) {
    tt_buf_printf(b,
                  " OR EXISTS(SELECT 1 FROM \"rocpd_memory_copy%s\" ma LEFT JOIN \"rocpd_string%s\" "
                  "na ON na.id = ma.name_id LEFT JOIN \"rocpd_event%s\" ea ON ea.id = ma.event_id "
                  "LEFT JOIN \"rocpd_string%s\" ca ON ca.id = ea.category_id WHERE ma.start = %s "
                  "AND ma.stream_id = %s",
                  S, S, S, S, ts, lane);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, "COALESCE(na.string,'')");
    tt_buf_putc(b, ')');
  }
  sqlite3_free(lane);
  tt_buf_puts(b, ") END)");
}

static int has_event_filter(const hub_filter *f) {
  return f->ncategories || f->nexclude || f->nnames;
}

/* Columns every cursor query returns, in this order. */
enum {
  C_ID, C_START, C_END, C_PID, C_TID, C_NAME, C_CAT, C_CORR, C_EVENT, C_AGENT, C_LANE,
  C_LANE_IS_QUEUE, C_SIZE, C_TRACK, C_VALUE, C_TRACK_KIND, C_PH, C_BP, C_LINK,
  C_MANGLED /* only in the kernel query */
};

static char *cursor_sql(const hub_db *d, table_id t, const hub_filter *f) {
  const char *S = d->suffix;
  tt_buf b = {0};
  int link = d->can_link;
  switch (t) {
  case T_REGION:
    tt_buf_puts(&b, "SELECT r.id, r.start, r.end, r.pid, r.tid, COALESCE(n.string,''), "
                    "COALESCE(c.string,''), e.correlation_id, r.event_id, NULL, NULL, 0, NULL, "
                    "NULL, NULL, NULL, NULL, NULL, ");
    if (link && !d->has_flows) link_to_gpu(&b, d, f); else tt_buf_puts(&b, "NULL");
    tt_buf_printf(&b,
                  " FROM \"rocpd_region%s\" r LEFT JOIN \"rocpd_string%s\" n ON n.id = "
                  "r.name_id LEFT JOIN \"rocpd_event%s\" e ON e.id = r.event_id LEFT JOIN "
                  "\"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    common_filters(&b, f, "r.start", "r.end", "r.pid", "COALESCE(n.string,'')",
                   "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY r.start, r.end DESC");
    break;
  case T_KERNEL: {
    const char *kname = KERNEL_NAME("ks");
    tt_buf_printf(&b,
                  "SELECT k.id, k.start, k.end, k.pid, k.tid, %s, COALESCE(c.string,''), "
                  "e.correlation_id, k.event_id, k.agent_id, COALESCE(k.stream_id, k.queue_id), "
                  "(k.stream_id IS NULL AND k.queue_id IS NOT NULL), NULL, NULL, NULL, NULL, "
                  "NULL, NULL, NULL, " /* link: the launch is found in memory (fill_event) */
                  "COALESCE(ks.kernel_name, '')", /* C_MANGLED: kernels only */
                  kname);
    tt_buf_printf(&b,
                  " FROM \"rocpd_kernel_dispatch%s\" k LEFT JOIN \"rocpd_info_kernel_symbol%s\" "
                  "ks ON ks.id = k.kernel_id LEFT JOIN \"rocpd_event%s\" e ON e.id = k.event_id "
                  "LEFT JOIN \"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    common_filters(&b, f, "k.start", "k.end", "k.pid", kname, "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY k.start, k.end DESC");
    break;
  }
  case T_COPY: {
    /* The copy's GPU agent: the other side may be the host's CPU agent. */
    char *agents = tname(d, "rocpd_info_agent");
    int typed = table_exists(d->conn, agents);
    sqlite3_free(agents);
    tt_buf_puts(&b, "SELECT m.id, m.start, m.end, m.pid, m.tid, COALESCE(n.string,''), "
                    "COALESCE(c.string,''), e.correlation_id, m.event_id, COALESCE(");
    if (typed)
      tt_buf_printf(&b,
                    "(SELECT ga.id FROM \"rocpd_info_agent%s\" ga WHERE ga.id = m.dst_agent_id "
                    "AND ga.type = 'GPU'), (SELECT ga.id FROM \"rocpd_info_agent%s\" ga WHERE "
                    "ga.id = m.src_agent_id AND ga.type = 'GPU'), ",
                    S, S);
    tt_buf_puts(&b, "m.dst_agent_id, m.src_agent_id), COALESCE(m.stream_id, m.queue_id), "
                    "(m.stream_id IS NULL AND m.queue_id IS NOT NULL), m.size, NULL, NULL, NULL, "
                    "NULL, NULL, NULL");
    tt_buf_printf(&b,
                  " FROM \"rocpd_memory_copy%s\" m LEFT JOIN \"rocpd_string%s\" n ON n.id = "
                  "m.name_id LEFT JOIN \"rocpd_event%s\" e ON e.id = m.event_id LEFT JOIN "
                  "\"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    common_filters(&b, f, "m.start", "m.end", "m.pid", "COALESCE(n.string,'')",
                   "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY m.start, m.end DESC");
    break;
  }
  case T_ALLOC:
    tt_buf_printf(&b,
                  "SELECT a.id, a.start, a.end, a.pid, a.tid, COALESCE(a.type,'') || "
                  "CASE WHEN a.level IS NOT NULL THEN ' ' || a.level ELSE '' END, "
                  "COALESCE(c.string,''), e.correlation_id, a.event_id, a.agent_id, "
                  "COALESCE(a.stream_id, a.queue_id), (a.stream_id IS NULL AND a.queue_id IS "
                  "NOT NULL), a.size, NULL, NULL, NULL, NULL, NULL, NULL FROM "
                  "\"rocpd_memory_allocate%s\" a LEFT JOIN \"rocpd_event%s\" e ON e.id = "
                  "a.event_id LEFT JOIN \"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S);
    common_filters(&b, f, "a.start", "a.end", "a.pid", "COALESCE(a.type,'')",
                   "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY a.start, a.end DESC");
    break;
  case T_SAMPLE: {
    const char *kind = JX("t.extdata", "$.kind");
    tt_buf_printf(&b,
                  "SELECT s.id, s.timestamp, s.timestamp, t.pid, t.tid, CASE %s WHEN 'flow' THEN "
                  "COALESCE(%s,'') WHEN 'counter' THEN COALESCE(tn.string,'') ELSE "
                  "COALESCE(%s, tn.string, '') END, COALESCE(c.string,''), e.correlation_id, "
                  "s.event_id, %s, %s, 0, NULL, s.track_id, %s, %s, %s, %s, ",
                  kind, JX("e.extdata", "$.name"), JX("s.extdata", "$.name"),
                  JX("t.extdata", "$.agent_id"), JX("t.extdata", "$.stream_id"),
                  JX("s.extdata", "$.value"), kind, JX("e.extdata", "$.ph"),
                  JX("e.extdata", "$.bp"));
    /* Split by process: the other end must be in the same part; under
     * filters it must have a slice that is written (flow_anchor). */
    tt_buf pidjoin = {0}, pidcond = {0};
    if (f->pid != HUB_NULL || has_event_filter(f))
      tt_buf_printf(&pidjoin, " JOIN \"rocpd_track%s\" t2 ON t2.id = s2.track_id", S);
    if (f->pid != HUB_NULL) tt_buf_printf(&pidcond, " AND t2.pid = %lld", (long long)f->pid);
    if (has_event_filter(f)) {
      tt_buf_puts(&pidcond, " AND ");
      flow_anchor(&pidcond, d, f, "s2.timestamp", "t2");
    }
    if (link && d->has_flows)
      tt_buf_printf(&b,
                    "(CASE WHEN %s = 'flow' THEN (SELECT min(s2.timestamp) FROM "
                    "\"rocpd_event%s\" e2 JOIN \"rocpd_sample%s\" s2 ON s2.event_id = e2.id "
                    "%s WHERE e2.correlation_id = e.correlation_id AND e2.category_id IS "
                    "e.category_id AND e2.id != e.id AND %s IS NOT %s%s) END)",
                    kind, S, S, pidjoin.len ? pidjoin.data : "", JX("e2.extdata", "$.ph"),
                    JX("e.extdata", "$.ph"), pidcond.len ? pidcond.data : "");
    else
      tt_buf_puts(&b, "NULL");
    tt_buf_free(&pidjoin);
    tt_buf_free(&pidcond);
    tt_buf_printf(&b,
                  " FROM \"rocpd_sample%s\" s JOIN \"rocpd_track%s\" t ON t.id = s.track_id "
                  "LEFT JOIN \"rocpd_string%s\" tn ON tn.id = t.name_id LEFT JOIN "
                  "\"rocpd_event%s\" e ON e.id = s.event_id LEFT JOIN \"rocpd_string%s\" c ON "
                  "c.id = e.category_id",
                  S, S, S, S, S);
    /* Flow ends carry no name or category a user would filter on: they
     * follow the time range, the process and the slices they bind to. */
    tt_buf_printf(&b, " WHERE 1");
    if (f->end != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp < %lld", (long long)f->end);
    if (f->start != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp >= %lld", (long long)f->start);
    if (f->pid != HUB_NULL) tt_buf_printf(&b, " AND t.pid = %lld", (long long)f->pid);
    if (has_event_filter(f)) {
      tt_buf b2 = {0};
      category_filter(&b2, f, "COALESCE(c.string,'')");
      if (f->nnames) {
        tt_buf_puts(&b2, " AND ");
        glob_any(&b2, "COALESCE(tn.string,'')", f->names, f->nnames);
      }
      tt_buf_printf(&b, " AND (CASE WHEN COALESCE(%s,'') = 'flow' THEN ", kind);
      flow_anchor(&b, d, f, "s.timestamp", "t");
      tt_buf_printf(&b, " ELSE (1%s) END)", b2.data ? b2.data : "");
      tt_buf_free(&b2);
    }
    tt_buf_puts(&b, " ORDER BY s.timestamp");
    break;
  }
  default:
    break;
  }
  return b.data;
}

/* --- the merge -------------------------------------------------------- */

/* Time order; at one start time a launch (region) before GPU work, since
 * the GPU work finds its launch among the launches already read; within a
 * table the enclosing interval first; samples (flow ends) last. */
static int cursor_less(const cursor *a, const cursor *b) {
  if (a->start != b->start) return a->start < b->start;
  if (a->table != b->table) return a->table < b->table;
  if (a->end != b->end) return a->end > b->end;
  if (a->db != b->db) return a->db < b->db;
  return a->row_id < b->row_id;
}

static void heap_sift_down(hub_reader *r, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, rr = l + 1, m = i;
    if (l < r->heap_len && cursor_less(r->heap[l], r->heap[m])) m = l;
    if (rr < r->heap_len && cursor_less(r->heap[rr], r->heap[m])) m = rr;
    if (m == i) return;
    cursor *t = r->heap[i];
    r->heap[i] = r->heap[m];
    r->heap[m] = t;
    i = m;
  }
}

static void heap_sift_up(hub_reader *r, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!cursor_less(r->heap[i], r->heap[p])) return;
    cursor *t = r->heap[i];
    r->heap[i] = r->heap[p];
    r->heap[p] = t;
    i = p;
  }
}

/* A time the exporters can do arithmetic on: an integer (not text, a
 * float or a blob) within +-2^62 ns (146 years), so end - start and the
 * exporters' unit conversions cannot overflow. */
#define HUB_TIME_LIMIT ((int64_t)1 << 62)
static int bad_time(sqlite3_stmt *st, int col) {
  if (sqlite3_column_type(st, col) != SQLITE_INTEGER) return 1;
  int64_t v = sqlite3_column_int64(st, col);
  return v > HUB_TIME_LIMIT || v < -HUB_TIME_LIMIT;
}

/* Steps a cursor: 1 row ready, 0 exhausted, -1 error. */
static int cursor_step(hub_reader *r, cursor *c) {
  int rc = sqlite3_step(c->st);
  hub_db *d = &r->dbs[c->db];
  if (rc == SQLITE_ROW) {
    c->row_id = sqlite3_column_int64(c->st, C_ID);
    c->start = sqlite3_column_int64(c->st, C_START);
    c->end = sqlite3_column_int64(c->st, C_END);
    if (bad_time(c->st, C_START) || bad_time(c->st, C_END)) {
      int col = bad_time(c->st, C_START) ? C_START : C_END;
      tt_error("%s: %s%s row id %lld: %s '%.40s' is not an integer time in ns within +-2^62",
               d->path, table_names[c->table], d->suffix, (long long)c->row_id,
               col == C_START ? "start" : "end", (const char *)sqlite3_column_text(c->st, col));
      return -1;
    }
    return 1;
  }
  if (rc == SQLITE_DONE) return 0;
  tt_error("%s: reading %s%s: %s", d->path, table_names[c->table], d->suffix,
           sqlite3_errmsg(d->conn));
  return -1;
}

static void load_info(hub_reader *r);

/* The same hub twice would double every event: refuse the same file
 * (any name of it) and a copy of a hub (the same uuid in two files). */
static int refuse_duplicates(const hub_reader *r, const char *const *paths, size_t npaths) {
  for (size_t i = 0; i < npaths; i++) {
    struct stat a;
    if (stat(paths[i], &a) != 0) continue;
    for (size_t j = 0; j < i; j++) {
      struct stat b;
      if (stat(paths[j], &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
        tt_error("%s: given twice (the same file as %s): give each hub once", paths[i], paths[j]);
        return -1;
      }
    }
  }
  for (size_t i = 0; i < r->ndbs; i++) {
    if (!r->dbs[i].suffix[0]) continue; /* no uuid in the table names */
    for (size_t j = 0; j < i; j++)
      if (strcmp(r->dbs[i].suffix, r->dbs[j].suffix) == 0) {
        tt_error("%s: the same hub as %s (uuid%s): give each hub once", r->dbs[i].path,
                 r->dbs[j].path, r->dbs[i].suffix);
        return -1;
      }
  }
  return 0;
}

hub_reader *hub_reader_open(const char *const *paths, size_t npaths, const hub_filter *f) {
  hub_reader *r = tt_calloc(1, sizeof *r);
  r->filter = *f;
  if (refuse_duplicates(r, paths, npaths) != 0) {
    hub_reader_close(r);
    return NULL;
  }
  for (size_t i = 0; i < npaths; i++) {
    if (open_file(r, paths[i]) != 0) {
      hub_reader_close(r);
      return NULL;
    }
  }
  if (refuse_duplicates(r, paths, npaths) != 0) {
    hub_reader_close(r);
    return NULL;
  }
  r->cursors = tt_calloc(r->ndbs * T_COUNT, sizeof *r->cursors);
  r->heap = tt_calloc(r->ndbs * T_COUNT, sizeof *r->heap);
  for (size_t d = 0; d < r->ndbs; d++) {
    for (int t = 0; t < T_COUNT; t++) {
      if (!r->dbs[d].has_table[t]) continue;
      char *sql = cursor_sql(&r->dbs[d], (table_id)t, f);
      cursor *c = &r->cursors[r->ncursors];
      c->db = (int)d;
      c->table = (table_id)t;
      c->st = prep(&r->dbs[d], sql);
      free(sql);
      if (!c->st) {
        hub_reader_close(r);
        return NULL;
      }
      r->ncursors++;
      int rc = cursor_step(r, c);
      if (rc < 0) {
        hub_reader_close(r);
        return NULL;
      }
      if (rc > 0) {
        r->heap[r->heap_len] = c;
        heap_sift_up(r, r->heap_len++);
      }
    }
  }
  load_info(r);
  return r;
}

static const char *col_text(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return s ? s : "";
}

static int64_t col_i64_or_null(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? HUB_NULL : sqlite3_column_int64(st, i);
}

/* A flow id unique across databases and flow categories. */
static int64_t mix_link_id(int db, const char *cat, int64_t id) {
  uint64_t h = tt_hash_bytes(cat, strlen(cat));
  h ^= (uint64_t)id + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= (uint64_t)db * 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return (int64_t)(h & 0x7fffffffffffffffULL);
}

static int64_t launch_key(const hub_record *ev) {
  int64_t k[3] = {ev->db, ev->pid, ev->correlation_id};
  return (int64_t)tt_hash_bytes(k, sizeof k);
}

/* Forgets launches whose GPU work the stream has passed (it was filtered
 * out, or already matched): the maps have no delete, so rebuild them. */
static void sweep_launches(hub_reader *r, int64_t now) {
  tt_i64map keep_l = {0}, keep_g = {0};
  for (size_t i = 0; i < r->pending_gpu.cap; i++) {
    if (!r->pending_gpu.used[i] || r->pending_gpu.vals[i] < now) continue;
    int64_t key = r->pending_gpu.keys[i];
    int64_t *launch = tt_i64map_get(&r->pending_launch, key);
    if (!launch || *launch == HUB_NULL) continue;
    tt_i64map_put(&keep_l, key, *launch);
    tt_i64map_put(&keep_g, key, r->pending_gpu.vals[i]);
  }
  tt_i64map_free(&r->pending_launch);
  tt_i64map_free(&r->pending_gpu);
  r->pending_launch = keep_l;
  r->pending_gpu = keep_g;
}

static void remember_launch(hub_reader *r, const hub_record *ev) {
  if (++r->since_sweep >= 4096 && r->pending_gpu.count >= 4096) {
    sweep_launches(r, ev->start);
    r->since_sweep = 0;
  }
  int64_t key = launch_key(ev);
  tt_i64map_put(&r->pending_launch, key, ev->start);
  tt_i64map_put(&r->pending_gpu, key, ev->link_ts);
}

/* The launch of this GPU work, when it was read and the work is the first
 * it launched (one arrow per launch): its start, else HUB_NULL. */
static int64_t take_launch(hub_reader *r, const hub_record *ev) {
  int64_t key = launch_key(ev);
  int64_t *launch = tt_i64map_get(&r->pending_launch, key);
  int64_t *gpu = tt_i64map_get(&r->pending_gpu, key);
  if (!launch || *launch == HUB_NULL || !gpu || *gpu != ev->start) return HUB_NULL;
  int64_t ts = *launch;
  *launch = HUB_NULL;
  return ts;
}

/* A region written on a GPU lane's thread (Kineto's GPU annotations) is
 * drawn on that lane. */
static void region_on_lane(const hub_reader *r, hub_record *ev) {
  const hub_thread_info *th = hub_reader_find_thread(r, ev->db, ev->tid);
  if (!th || th->agent_id == HUB_NULL) return;
  ev->agent_id = th->agent_id;
  ev->lane_id = th->lane_id;
}

static void fill_event(hub_reader *r, const cursor *c, hub_record *ev) {
  sqlite3_stmt *st = c->st;
  memset(ev, 0, sizeof *ev);
  ev->db = c->db;
  ev->row_id = c->row_id;
  ev->start = c->start;
  ev->end = c->end < c->start ? c->start : c->end;
  ev->pid = col_i64_or_null(st, C_PID);
  ev->tid = col_i64_or_null(st, C_TID);
  ev->name = col_text(st, C_NAME);
  ev->category = col_text(st, C_CAT);
  ev->correlation_id = col_i64_or_null(st, C_CORR);
  ev->event_id = col_i64_or_null(st, C_EVENT);
  ev->agent_id = col_i64_or_null(st, C_AGENT);
  ev->lane_id = col_i64_or_null(st, C_LANE);
  ev->lane_is_queue = sqlite3_column_int(st, C_LANE_IS_QUEUE);
  ev->size = col_i64_or_null(st, C_SIZE);
  ev->track_id = col_i64_or_null(st, C_TRACK);
  ev->link_ts = col_i64_or_null(st, C_LINK);
  ev->kernel_name = c->table == T_KERNEL ? col_text(st, C_MANGLED) : "";
  switch (c->table) {
  case T_REGION:
    ev->kind = HUB_REGION;
    if (r->has_lane_threads && ev->tid != HUB_NULL) region_on_lane(r, ev);
    break;
  case T_KERNEL: ev->kind = HUB_KERNEL; break;
  case T_COPY: ev->kind = HUB_COPY; break;
  case T_ALLOC: ev->kind = HUB_ALLOC; break;
  default: {
    const char *k = col_text(st, C_TRACK_KIND);
    if (strcmp(k, "flow") == 0) {
      ev->kind = HUB_FLOW;
      const char *ph = col_text(st, C_PH);
      ev->flow_phase = ph[0] ? ph[0] : 's';
      ev->flow_bind_enclosing = strcmp(col_text(st, C_BP), "e") == 0;
    } else if (strcmp(k, "counter") == 0) {
      ev->kind = HUB_COUNTER;
      ev->value = sqlite3_column_double(st, C_VALUE);
    } else {
      ev->kind = HUB_INSTANT;
    }
  }
  }
  if ((ev->kind == HUB_KERNEL || ev->kind == HUB_COPY) && ev->correlation_id != HUB_NULL &&
      r->pending_launch.count)
    ev->link_ts = take_launch(r, ev);
  else if (ev->kind == HUB_REGION && ev->link_ts != HUB_NULL) {
    /* One arrow per (process, correlation): a second launch with the same
     * id (duplicate ids, merged profiles) or GPU work already read would
     * leave an arrow without its other end. */
    if (ev->link_ts < ev->start || tt_i64map_get(&r->pending_launch, launch_key(ev)))
      ev->link_ts = HUB_NULL;
    else
      remember_launch(r, ev);
  }
  if (ev->link_ts != HUB_NULL && ev->correlation_id != HUB_NULL)
    ev->link_id = mix_link_id(ev->db, ev->kind == HUB_FLOW ? ev->category : "", ev->correlation_id);
}

int hub_reader_next(hub_reader *r, hub_record *ev) {
  if (r->failed) return -1;
  if (r->to_advance) {
    cursor *c = r->to_advance;
    r->to_advance = NULL;
    int rc = cursor_step(r, c);
    if (rc < 0) {
      r->failed = 1;
      return -1;
    }
    if (rc == 0) {
      r->heap[0] = r->heap[--r->heap_len];
    }
    if (r->heap_len) heap_sift_down(r, 0);
  }
  if (r->heap_len == 0) return 0;
  cursor *top = r->heap[0];
  fill_event(r, top, ev);
  r->to_advance = top; /* keep its row (and strings) until the next call */
  return 1;
}

int hub_reader_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  int any = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < r->ndbs; i++) {
    hub_db *d = &r->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      char *where;
      if (r->filter.pid == HUB_NULL)
        where = sqlite3_mprintf("");
      else if (t == T_SAMPLE)
        where = sqlite3_mprintf(" WHERE track_id IN (SELECT id FROM \"rocpd_track%s\" WHERE "
                                "pid = %lld)",
                                d->suffix, (long long)r->filter.pid);
      else
        where = sqlite3_mprintf(" WHERE pid = %lld", (long long)r->filter.pid);
      char *sql;
      if (t == T_SAMPLE)
        sql = sqlite3_mprintf("SELECT min(timestamp), max(timestamp) FROM \"rocpd_sample%s\"%s",
                              d->suffix, where);
      else
        sql = sqlite3_mprintf("SELECT min(start), max(max(start), \"end\") FROM \"%s%s\"%s",
                              table_names[t], d->suffix, where);
      sqlite3_free(where);
      sqlite3_stmt *st = prep(d, sql);
      sqlite3_free(sql);
      if (!st) return 0;
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        /* A bad time is left out here; reading its row reports it. */
        int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1);
        if (!bad_time(st, 0) && a < lo) lo = a;
        if (!bad_time(st, 1) && b > hi) hi = b;
        any |= !bad_time(st, 0) && !bad_time(st, 1);
      }
      sqlite3_finalize(st);
    }
  }
  if (any) {
    *min_start = lo;
    *max_end = hi;
  }
  return any;
}

int hub_reader_pid_has_events(hub_reader *r, int64_t pid) {
  for (size_t i = 0; i < r->ndbs; i++) {
    hub_db *d = &r->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      char *sql = t == T_SAMPLE
                      ? sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM \"rocpd_sample%s\" s JOIN "
                                        "\"rocpd_track%s\" k ON k.id = s.track_id WHERE k.pid = "
                                        "%lld)",
                                        d->suffix, d->suffix, (long long)pid)
                      : sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM \"%s%s\" WHERE pid = %lld)",
                                        table_names[t], d->suffix, (long long)pid);
      sqlite3_stmt *st = prep(d, sql);
      sqlite3_free(sql);
      int found = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
      sqlite3_finalize(st);
      if (found) return 1;
    }
  }
  return 0;
}

void hub_args_begin(hub_reader *r, int db, int64_t event_id) {
  hub_db *d = &r->dbs[db];
  if (!d->args_st) {
    char *sql = sqlite3_mprintf(
        "SELECT name, type, value FROM %s WHERE event_id = ?1 ORDER BY position", d->args_src);
    d->args_st = prep(d, sql);
    sqlite3_free(sql);
  }
  r->args_iter = d->args_st;
  if (!r->args_iter) return;
  sqlite3_reset(r->args_iter);
  sqlite3_bind_int64(r->args_iter, 1, event_id);
  if (event_id == HUB_NULL) r->args_iter = NULL;
}

int hub_args_next(hub_reader *r, hub_arg_view *a) {
  if (!r->args_iter) return 0;
  if (sqlite3_step(r->args_iter) != SQLITE_ROW) {
    sqlite3_reset(r->args_iter);
    r->args_iter = NULL;
    return 0;
  }
  a->name = col_text(r->args_iter, 0);
  a->type = col_text(r->args_iter, 1);
  a->value = col_text(r->args_iter, 2);
  return 1;
}

const char *hub_reader_track_name(hub_reader *r, int db, int64_t track_id) {
  hub_db *d = &r->dbs[db];
  if (!d->track_st) {
    char *sql = sqlite3_mprintf("SELECT s.string FROM \"rocpd_track%s\" t JOIN \"rocpd_string%s\" "
                                "s ON s.id = t.name_id WHERE t.id = ?1",
                                d->suffix, d->suffix);
    d->track_st = prep(d, sql);
    sqlite3_free(sql);
    if (!d->track_st) return "";
  }
  sqlite3_reset(d->track_st);
  sqlite3_bind_int64(d->track_st, 1, track_id);
  if (sqlite3_step(d->track_st) != SQLITE_ROW) return "";
  return col_text(d->track_st, 0);
}

/* --- info tables ------------------------------------------------------ */

static sqlite3_stmt *info_query(hub_db *d, const char *table, const char *cols) {
  char *t = tname(d, table);
  int exists = table_exists(d->conn, t);
  sqlite3_free(t);
  if (!exists) return NULL;
  char *sql = sqlite3_mprintf("SELECT %s FROM \"%s%s\"", cols, table, d->suffix);
  sqlite3_stmt *st = prep(d, sql);
  sqlite3_free(sql);
  return st;
}

static void load_info(hub_reader *r) {
  for (size_t i = 0; i < r->ndbs; i++) {
    hub_db *d = &r->dbs[i];
    sqlite3_stmt *st = info_query(
        d, "rocpd_info_process",
        "pid, COALESCE(command,''), " JX("extdata", "$.sort_index") ", " JX("extdata", "$.labels"));
    /* The host a process ran on: its node row, when the hub has one. */
    char *nodes = tname(d, "rocpd_info_node");
    sqlite3_stmt *host_st = NULL;
    if (table_exists(d->conn, nodes)) {
      char *sql = sqlite3_mprintf("SELECT COALESCE(n.hostname,'') FROM \"rocpd_info_process%s\" "
                                  "p JOIN \"rocpd_info_node%s\" n ON n.id = p.nid WHERE p.pid = ?1",
                                  d->suffix, d->suffix);
      host_st = prep(d, sql);
      sqlite3_free(sql);
    }
    sqlite3_free(nodes);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      r->processes = tt_realloc(r->processes, (r->nprocesses + 1) * sizeof *r->processes);
      hub_process_info *p = &r->processes[r->nprocesses++];
      p->db = (int)i;
      p->pid = sqlite3_column_int64(st, 0);
      p->name = tt_strdup(col_text(st, 1));
      p->sort_index = sqlite3_column_type(st, 2) == SQLITE_NULL ? p->pid
                                                                : sqlite3_column_int64(st, 2);
      p->labels = tt_strdup(col_text(st, 3));
      p->hostname = NULL;
      if (host_st) {
        sqlite3_reset(host_st);
        sqlite3_bind_int64(host_st, 1, p->pid);
        if (sqlite3_step(host_st) == SQLITE_ROW) p->hostname = tt_strdup(col_text(host_st, 0));
      }
      if (!p->hostname) p->hostname = tt_strdup("");
      if (!tt_i64map_get(&r->process_ix, p->pid))
        tt_i64map_put(&r->process_ix, p->pid, (int64_t)r->nprocesses - 1);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(host_st);
    st = info_query(d, "rocpd_info_thread",
                    "pid, tid, COALESCE(name,''), " JX("extdata", "$.sort_index") ", CASE WHEN "
                    JX("extdata", "$.kind") " = 'gpu_lane' THEN " JX("extdata", "$.agent_id")
                    " END, CASE WHEN " JX("extdata", "$.kind") " = 'gpu_lane' THEN "
                    JX("extdata", "$.stream_id") " END, " JX("extdata", "$.kind")
                    " IN ('gpu_lane', 'process_tracks')");
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      r->threads = tt_realloc(r->threads, (r->nthreads + 1) * sizeof *r->threads);
      hub_thread_info *t = &r->threads[r->nthreads];
      t->db = (int)i;
      t->pid = sqlite3_column_int64(st, 0);
      t->tid = sqlite3_column_int64(st, 1);
      t->name = tt_strdup(col_text(st, 2));
      t->sort_index =
          sqlite3_column_type(st, 3) == SQLITE_NULL ? t->tid : sqlite3_column_int64(st, 3);
      t->agent_id = col_i64_or_null(st, 4);
      t->lane_id = col_i64_or_null(st, 5);
      t->synthetic = sqlite3_column_int(st, 6);
      if (t->agent_id != HUB_NULL) r->has_lane_threads = 1;
      tt_i64map_put(&r->thread_ix, key_db_id((int)i, t->tid, 0), (int64_t)r->nthreads++);
    }
    sqlite3_finalize(st);
    st = info_query(d, "rocpd_info_agent",
                    "id, pid, COALESCE(type_index, logical_index, absolute_index, id), "
                    "COALESCE(type,''), COALESCE(name,''), COALESCE(product_name,'')");
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      r->agents = tt_realloc(r->agents, (r->nagents + 1) * sizeof *r->agents);
      hub_agent_view *a = &r->agents[r->nagents];
      a->db = (int)i;
      a->id = sqlite3_column_int64(st, 0);
      a->pid = sqlite3_column_int64(st, 1);
      a->type_index = sqlite3_column_int64(st, 2);
      a->type = tt_strdup(col_text(st, 3));
      a->name = tt_strdup(col_text(st, 4));
      a->product_name = tt_strdup(col_text(st, 5));
      tt_i64map_put(&r->agent_ix, key_db_id((int)i, a->id, 0), (int64_t)r->nagents++);
    }
    sqlite3_finalize(st);
    for (int q = 0; q < 2; q++) {
      st = info_query(d, q ? "rocpd_info_queue" : "rocpd_info_stream",
                      "id, pid, COALESCE(name,'')");
      while (st && sqlite3_step(st) == SQLITE_ROW) {
        r->lanes = tt_realloc(r->lanes, (r->nlanes + 1) * sizeof *r->lanes);
        hub_lane_info *l = &r->lanes[r->nlanes];
        l->db = (int)i;
        l->id = sqlite3_column_int64(st, 0);
        l->pid = sqlite3_column_int64(st, 1);
        l->is_queue = q;
        l->name = tt_strdup(col_text(st, 2));
        tt_i64map_put(&r->lane_ix, key_db_id((int)i, l->id, q + 1), (int64_t)r->nlanes++);
      }
      sqlite3_finalize(st);
    }
  }
}

size_t hub_reader_nprocesses(const hub_reader *r) { return r->nprocesses; }
const hub_process_info *hub_reader_process(const hub_reader *r, size_t i) {
  return &r->processes[i];
}
size_t hub_reader_nthreads(const hub_reader *r) { return r->nthreads; }
const hub_thread_info *hub_reader_thread(const hub_reader *r, size_t i) { return &r->threads[i]; }
size_t hub_reader_nagents(const hub_reader *r) { return r->nagents; }
const hub_agent_view *hub_reader_agent(const hub_reader *r, size_t i) { return &r->agents[i]; }
size_t hub_reader_nlanes(const hub_reader *r) { return r->nlanes; }
const hub_lane_info *hub_reader_lane(const hub_reader *r, size_t i) { return &r->lanes[i]; }

const hub_process_info *hub_reader_find_process(const hub_reader *r, int64_t pid) {
  int64_t *ix = tt_i64map_get(&r->process_ix, pid);
  return ix ? &r->processes[*ix] : NULL;
}

const hub_thread_info *hub_reader_find_thread(const hub_reader *r, int db, int64_t tid) {
  int64_t *ix = tt_i64map_get(&r->thread_ix, key_db_id(db, tid, 0));
  return ix ? &r->threads[*ix] : NULL;
}

const hub_agent_view *hub_reader_find_agent(const hub_reader *r, int db, int64_t agent_id) {
  int64_t *ix = tt_i64map_get(&r->agent_ix, key_db_id(db, agent_id, 0));
  return ix ? &r->agents[*ix] : NULL;
}

const hub_lane_info *hub_reader_find_lane(const hub_reader *r, int db, int64_t lane_id,
                                          int is_queue) {
  int64_t *ix = tt_i64map_get(&r->lane_ix, key_db_id(db, lane_id, is_queue ? 2 : 1));
  return ix ? &r->lanes[*ix] : NULL;
}

size_t hub_reader_ndbs(const hub_reader *r) { return r->ndbs; }
const char *hub_reader_db_path(const hub_reader *r, int db) { return r->dbs[db].path; }

void hub_reader_close(hub_reader *r) {
  if (!r) return;
  for (size_t i = 0; i < r->ncursors; i++) sqlite3_finalize(r->cursors[i].st);
  for (size_t i = 0; i < r->ndbs; i++) {
    sqlite3_finalize(r->dbs[i].args_st);
    sqlite3_finalize(r->dbs[i].track_st);
  }
  for (size_t i = 0; i < r->ndbs; i++) {
    if (r->dbs[i].owns_conn) sqlite3_close(r->dbs[i].conn);
    free(r->dbs[i].path);
    free(r->dbs[i].suffix);
    sqlite3_free(r->dbs[i].ev_link);
    sqlite3_free(r->dbs[i].k_link);
    sqlite3_free(r->dbs[i].m_link);
    sqlite3_free(r->dbs[i].args_src);
  }
  for (size_t i = 0; i < r->nprocesses; i++) {
    free((char *)r->processes[i].name);
    free((char *)r->processes[i].labels);
    free((char *)r->processes[i].hostname);
  }
  for (size_t i = 0; i < r->nthreads; i++) free((char *)r->threads[i].name);
  for (size_t i = 0; i < r->nagents; i++) {
    free((char *)r->agents[i].type);
    free((char *)r->agents[i].name);
    free((char *)r->agents[i].product_name);
  }
  for (size_t i = 0; i < r->nlanes; i++) free((char *)r->lanes[i].name);
  free(r->processes);
  free(r->threads);
  free(r->agents);
  free(r->lanes);
  tt_i64map_free(&r->pending_launch);
  tt_i64map_free(&r->pending_gpu);
  tt_i64map_free(&r->process_ix);
  tt_i64map_free(&r->thread_ix);
  tt_i64map_free(&r->agent_ix);
  tt_i64map_free(&r->lane_ix);
  free(r->dbs);
  free(r->cursors);
  free(r->heap);
  free(r);
}

/* --- what a user asks about the inputs ---------------------------------- */

static void add_category(hub_category_count **cats, size_t *n, const char *cat, const char *kind,
                         int64_t count) {
  size_t i = 0;
  while (i < *n && strcmp((*cats)[i].category, cat) != 0) i++;
  if (i == *n) {
    *cats = tt_realloc(*cats, (*n + 1) * sizeof **cats);
    (*cats)[i] = (hub_category_count){tt_strdup(cat), 0, tt_strdup("")};
    (*n)++;
  }
  hub_category_count *c = &(*cats)[i];
  c->count += count;
  if (!strstr(c->kinds, kind)) {
    tt_buf b = {0};
    tt_buf_printf(&b, "%s%s%s", c->kinds, c->kinds[0] ? ", " : "", kind);
    free(c->kinds);
    c->kinds = b.data;
  }
}

static int cmp_category(const void *a, const void *b) {
  return strcmp(((const hub_category_count *)a)->category,
                ((const hub_category_count *)b)->category);
}

int hub_reader_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  static const char *const kinds[T_COUNT] = {"region", "kernel", "copy", "alloc", "sample"};
  *out = NULL;
  *n = 0;
  for (size_t i = 0; i < r->ndbs; i++) {
    hub_db *d = &r->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      const char *S = d->suffix;
      char *sql =
          t == T_SAMPLE
              ? sqlite3_mprintf("SELECT COALESCE(c.string,''), count(*) FROM \"rocpd_sample%s\" x "
                                "JOIN \"rocpd_track%s\" k ON k.id = x.track_id LEFT JOIN "
                                "\"rocpd_event%s\" e ON e.id = x.event_id LEFT JOIN "
                                "\"rocpd_string%s\" c ON c.id = e.category_id WHERE "
                                "COALESCE(" JX("k.extdata", "$.kind") ",'') != 'flow' GROUP BY 1",
                                S, S, S, S)
              : sqlite3_mprintf("SELECT COALESCE(c.string,''), count(*) FROM \"%s%s\" x LEFT JOIN "
                                "\"rocpd_event%s\" e ON e.id = x.event_id LEFT JOIN "
                                "\"rocpd_string%s\" c ON c.id = e.category_id GROUP BY 1",
                                table_names[t], S, S, S);
      sqlite3_stmt *st = prep(d, sql);
      sqlite3_free(sql);
      if (!st) return -1;
      while (sqlite3_step(st) == SQLITE_ROW)
        add_category(out, n, col_text(st, 0), kinds[t], sqlite3_column_int64(st, 1));
      sqlite3_finalize(st);
    }
  }
  if (*n) qsort(*out, *n, sizeof **out, cmp_category);
  return 0;
}

void hub_category_counts_free(hub_category_count *c, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(c[i].category);
    free(c[i].kinds);
  }
  free(c);
}

int64_t hub_reader_row_count(hub_reader *r) {
  int64_t total = 0;
  for (size_t i = 0; i < r->ndbs; i++) {
    hub_db *d = &r->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%s%s\"", table_names[t], d->suffix);
      sqlite3_stmt *st = prep(d, sql);
      sqlite3_free(sql);
      if (st && sqlite3_step(st) == SQLITE_ROW) total += sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
  }
  return total;
}
