#include "sources/source_db.h"
#include "base/input_check.h"
#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "base/vec.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* ---- reading an export ------------------------------------------------ */

/* The column-name cache of nv_rest_json (below). */
static void rest_cache_free(void);

int nv_src_open(nv_src *s, const char *path) { return nv_src_open_named(s, path, path); }

int nv_src_open_named(nv_src *s, const char *file, const char *path) {
  tt_sqlite_setup();
  s->path = path;
  s->db = NULL;
  s->bad_time = NULL;
  s->layout[0] = '\0';
  if (tt_sqlite_check_header(file, path) != 0) return -1;
  if (tt_sqlite_open_input(file, &s->db) != SQLITE_OK) {
    tt_error("%s: cannot open: %s", path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
    nv_src_close(s);
    return -1;
  }
  /* An input is never written, and nothing in it (views, triggers,
   * functions in its schema) runs with our privileges. The first statement
   * reads the header, so a non-SQLite file is rejected here. */
  char *err = NULL;
  if (sqlite3_exec(s->db,
                   "PRAGMA query_only=1; PRAGMA trusted_schema=OFF;"
                   "SELECT count(*) FROM sqlite_master;",
                   NULL, NULL, &err) != SQLITE_OK) {
    int code = sqlite3_errcode(s->db);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
      tt_error("%s: not a SQLite database (%s)", path, err ? err : "?");
    else
      tt_error("%s: cannot read: %s", path, err ? err : "?");
    sqlite3_free(err);
    nv_src_close(s);
    return -1;
  }
  return 0;
}

int64_t nv_time(nv_src *s, sqlite3_stmt *st, int col, int64_t offset) {
  const int64_t limit = (int64_t)1 << 62;
  int64_t v = sqlite3_column_int64(st, col), t;
  if (sqlite3_column_type(st, col) == SQLITE_INTEGER && v >= -limit && v <= limit &&
      !__builtin_add_overflow(v, offset, &t) && t >= -limit && t <= limit)
    return t;
  if (!s->bad_time) {
    const char *table = sqlite3_column_table_name(st, col);
    const char *column = sqlite3_column_origin_name(st, col);
    /* the row, when the query's first column is its table's id */
    const char *idcol = sqlite3_column_origin_name(st, 0);
    char row[64] = "";
    if (col != 0 && idcol && (strcmp(idcol, "id") == 0 || strcmp(idcol, "_id_") == 0) &&
        sqlite3_column_type(st, 0) == SQLITE_INTEGER)
      snprintf(row, sizeof row, ", row %s %lld", idcol, (long long)sqlite3_column_int64(st, 0));
    s->bad_time = sqlite3_mprintf("%s.%s: '%.40s' is not a time in ns this import can place "
                                  "(an integer within +-2^62%s)%s",
                                  table ? table : "?", column ? column : sqlite3_column_name(st, col),
                                  (const char *)sqlite3_column_text(st, col),
                                  offset ? " once the session start is added" : "", row);
  }
  return offset;
}

int nv_time_error(nv_src *s) {
  if (!s->bad_time) return 0;
  tt_error("%s: %s", s->path, s->bad_time);
  return -1;
}

void nv_src_close(nv_src *s) {
  sqlite3_free(s->bad_time);
  s->bad_time = NULL;
  rest_cache_free();
  if (s->db) sqlite3_close(s->db);
  s->db = NULL;
}

sqlite3_stmt *nv_prepare(nv_src *s, const char *sql) {
  rest_cache_free();
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK) {
    tt_error("%s: cannot query the export: %s (in: %.200s)", s->path, sqlite3_errmsg(s->db),
             sql);
    sqlite3_finalize(st);
    return NULL;
  }
  return st;
}

int64_t nv_first_int(nv_src *s, const char *sql, int64_t dflt) {
  sqlite3_stmt *st = nv_prepare(s, sql);
  if (!st) return dflt;
  int64_t v = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL
                  ? sqlite3_column_int64(st, 0)
                  : dflt;
  sqlite3_finalize(st);
  return v;
}

int nv_step_error(nv_src *s, const char *table) {
  tt_error("%s: reading table %s: %s", s->path, table, sqlite3_errmsg(s->db));
  return -1;
}

int nv_has_table(nv_src *s, const char *table) {
  sqlite3_stmt *st =
      nv_prepare(s, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1");
  if (!st) return 0;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  int found = sqlite3_step(st) == SQLITE_ROW;
  sqlite3_finalize(st);
  return found;
}

/* Calls fn for every column name of table (PRAGMA table_info). */
static void each_column(nv_src *s, const char *table, void (*fn)(const char *, void *),
                        void *ctx) {
  sqlite3_stmt *st = nv_prepare(s, "SELECT name FROM pragma_table_info(?1)");
  if (!st) return;
  sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
  while (sqlite3_step(st) == SQLITE_ROW) fn((const char *)sqlite3_column_text(st, 0), ctx);
  sqlite3_finalize(st);
}

typedef struct {
  const char *want;
  int found;
} find_ctx;

static void find_col(const char *name, void *p) {
  find_ctx *f = p;
  if (name && strcmp(name, f->want) == 0) f->found = 1;
}

int nv_has_column(nv_src *s, const char *table, const char *column) {
  find_ctx f = {column, 0};
  each_column(s, table, find_col, &f);
  return f.found;
}

/* Whether `name` is one of the comma-separated list; an entry ending in
 * '*' matches every name with that prefix. */
static int in_list(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == n && strncmp(p, name, n) == 0) return 1;
    if (len > 0 && p[len - 1] == '*' && n >= len - 1 && strncmp(p, name, len - 1) == 0) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

/* The first column of the comma-separated list that table lacks, copied
 * into col; 0 when it has them all. */
static int missing_column(nv_src *s, const char *table, const char *columns, char *col,
                          size_t n) {
  for (const char *p = columns; p && *p;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(col, n, "%.*s", (int)len, p);
    if (!nv_has_column(s, table, col)) return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

static const char *layout_of(nv_src *s) {
  return s->layout[0] ? s->layout : "version not recorded";
}

int nv_require_columns(nv_src *s, const char *table, const char *columns) {
  char col[128];
  if (!missing_column(s, table, columns, col, sizeof col)) return 0;
  tt_error("%s: table %s has no column %s (%s): not an export this version can read", s->path,
           table, col, layout_of(s));
  return -1;
}

int nv_table_usable(nv_src *s, const char *table, const char *columns, int optional) {
  if (!nv_has_table(s, table)) return 0;
  char col[128];
  if (!missing_column(s, table, columns, col, sizeof col)) return 1;
  tt_buf sql = {0};
  tt_buf_puts(&sql, "SELECT 1 FROM \"");
  for (const char *c = table; *c; c++) { /* identifier quoting: double the quotes */
    if (*c == '"') tt_buf_putc(&sql, '"');
    tt_buf_putc(&sql, *c);
  }
  tt_buf_puts(&sql, "\" LIMIT 1");
  int rows = nv_first_int(s, sql.data, 0) != 0;
  tt_buf_free(&sql);
  if (!rows) return 0;
  if (optional) {
    tt_warn("%s: table %s has no column %s (%s): its rows are not imported", s->path, table,
            col, layout_of(s));
    return 0;
  }
  return nv_require_columns(s, table, columns);
}

typedef struct {
  const char *alias, *consumed;
  tt_buf *select;
} rest_ctx;

static void add_rest(const char *name, void *p) {
  rest_ctx *r = p;
  if (!name || in_list(r->consumed, name)) return;
  tt_buf_printf(r->select, ", %s.\"", r->alias);
  for (const char *c = name; *c; c++) { /* identifier quoting: double the quotes */
    if (*c == '"') tt_buf_putc(r->select, '"');
    tt_buf_putc(r->select, *c);
  }
  tt_buf_putc(r->select, '"');
}

void nv_rest_columns(nv_src *s, const char *table, const char *alias, const char *consumed,
                     tt_buf *select) {
  rest_ctx r = {alias, consumed, select};
  each_column(s, table, add_rest, &r);
}

static void member_key(tt_buf *b, const char *key) {
  if (b->len > 1) tt_buf_putc(b, ',');
  tt_json_string(b, key, strlen(key));
  tt_buf_putc(b, ':');
}

static const char hex_digits[] = "0123456789abcdef";

/* The escaped `"name":` of every column of the statement last seen: the
 * names are the same on every row, so they are escaped once. nv_prepare
 * clears it, as a new statement may take a finalized one's address. */
static struct {
  sqlite3_stmt *st;
  int n;
  tt_buf keys;     /* the escaped keys, back to back */
  size_t *offsets; /* n + 1 offsets into keys */
  size_t cap;      /* of offsets */
} key_cache;

static void cache_keys(sqlite3_stmt *st) {
  if (key_cache.st == st) return;
  int n = sqlite3_column_count(st);
  tt_buf_clear(&key_cache.keys);
  tt_grow(key_cache.offsets, (size_t)n + 1, key_cache.cap);
  for (int i = 0; i < n; i++) {
    key_cache.offsets[i] = key_cache.keys.len;
    const char *name = sqlite3_column_name(st, i);
    tt_json_string(&key_cache.keys, name, strlen(name));
    tt_buf_putc(&key_cache.keys, ':');
  }
  key_cache.offsets[n] = key_cache.keys.len;
  key_cache.st = st;
  key_cache.n = n;
}

static void rest_cache_free(void) {
  tt_buf_free(&key_cache.keys);
  free(key_cache.offsets);
  key_cache.offsets = NULL;
  key_cache.cap = 0;
  key_cache.st = NULL;
}

void nv_rest_json(sqlite3_stmt *st, int from, tt_buf *b) {
  cache_keys(st);
  int n = key_cache.n;
  for (int i = from; i < n; i++) {
    sqlite3_value *v = sqlite3_column_value(st, i);
    int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL) continue;
    size_t klen = key_cache.offsets[i + 1] - key_cache.offsets[i];
    /* Comma, key and an integer written in place: one reservation (a
     * million-row table notices printf and per-piece appends). */
    tt_buf_reserve(b, 1 + klen + TT_I64_CHARS);
    char *p = b->data + b->len;
    if (b->len > 1) *p++ = ',';
    memcpy(p, key_cache.keys.data + key_cache.offsets[i], klen);
    p += klen;
    if (type == SQLITE_INTEGER) p = tt_format_i64(p, sqlite3_value_int64(v));
    b->len = (size_t)(p - b->data);
    b->data[b->len] = '\0';
    if (type == SQLITE_FLOAT) {
      tt_buf_printf(b, "%.17g", sqlite3_value_double(v));
    } else if (type == SQLITE_TEXT) {
      const char *t = (const char *)sqlite3_value_text(v);
      tt_json_string(b, t, (size_t)sqlite3_value_bytes(v));
    } else if (type == SQLITE_BLOB) { /* hex, the bytes as stored */
      const unsigned char *bytes = sqlite3_value_blob(v);
      size_t len = (size_t)sqlite3_value_bytes(v);
      tt_buf_reserve(b, 2 * len + 2);
      p = b->data + b->len;
      *p++ = '"';
      for (size_t k = 0; k < len; k++) {
        *p++ = hex_digits[bytes[k] >> 4];
        *p++ = hex_digits[bytes[k] & 15];
      }
      *p++ = '"';
      b->len = (size_t)(p - b->data);
      b->data[b->len] = '\0';
    }
  }
}

void nv_json_begin(tt_buf *b) {
  tt_buf_clear(b);
  tt_buf_putc(b, '{');
}

void nv_json_int(tt_buf *b, const char *key, int64_t v) {
  member_key(b, key);
  tt_buf_put_i64(b, v);
}

void nv_json_str(tt_buf *b, const char *key, const char *v) {
  member_key(b, key);
  tt_json_string(b, v ? v : "", v ? strlen(v) : 0);
}

void nv_json_raw(tt_buf *b, const char *key, const char *json) {
  member_key(b, key);
  tt_buf_puts(b, json);
}

const char *nv_json_end(tt_buf *b) {
  tt_buf_putc(b, '}');
  return b->data;
}

/* A table left out: its name, rows and what it holds (an index into the
 * distinct `holds` of the notes, -1 when the notes do not know it). */
typedef struct unhandled {
  char *name;
  int64_t rows;
  int group;
} unhandled;

/* The index of the first note whose `holds` is the same text as note
 * k's: the notes' groups, in the order they first appear. */
static int note_group(const nv_table_note *notes, const char *table) {
  for (int k = 0; notes && notes[k].table; k++) {
    if (strcmp(notes[k].table, table) != 0) continue;
    for (int j = 0; j <= k; j++)
      if (strcmp(notes[j].holds, notes[k].holds) == 0) return j;
  }
  return -1;
}

/* Appends "HOLDS (T1, T2)" for the tables of the group, "; " before it
 * when *k groups are listed already. */
static void list_group(tt_buf *line, const unhandled *left, size_t n, int group, int *k,
                       const char *holds) {
  int m = 0;
  for (size_t i = 0; i < n; i++) {
    if (left[i].group != group) continue;
    if (m++) tt_buf_printf(line, ", %s", left[i].name);
    else tt_buf_printf(line, "%s%s (%s", *k ? "; " : "", holds, left[i].name);
  }
  if (m) tt_buf_putc(line, ')'), (*k)++;
}

void nv_warn_unhandled(nv_src *s, const char *handled, const nv_table_note *notes) {
  sqlite3_stmt *st = nv_prepare(
      s, "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
         "ORDER BY name");
  if (!st) return;
  tt_buf sql = {0};
  TT_VEC(unhandled) left = {0};
  while (sqlite3_step(st) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    if (!name || in_list(handled, name)) continue;
    tt_buf_clear(&sql);
    tt_buf_puts(&sql, "SELECT count(*) FROM \"");
    for (const char *c = name; *c; c++) {
      if (*c == '"') tt_buf_putc(&sql, '"');
      tt_buf_putc(&sql, *c);
    }
    tt_buf_putc(&sql, '"');
    sqlite3_stmt *cnt = nv_prepare(s, sql.data);
    int64_t rows = cnt && sqlite3_step(cnt) == SQLITE_ROW ? sqlite3_column_int64(cnt, 0) : 0;
    sqlite3_finalize(cnt);
    if (rows <= 0) continue;
    int group = note_group(notes, name);
    /* the layout named: a table a later version renamed shows which */
    if (tt_verbose())
      tt_warn("%s: table %s (%lld row%s%s%s) has no hub mapping%s%s%s: not imported", s->path,
              name, (long long)rows, rows == 1 ? "" : "s", group >= 0 ? ", " : "",
              group >= 0 ? notes[group].holds : "", s->layout[0] ? " (" : "", s->layout,
              s->layout[0] ? ")" : "");
    unhandled *u = tt_vec_add(&left);
    u->name = tt_strdup(name);
    u->rows = rows;
    u->group = group;
  }
  sqlite3_finalize(st);
  if (left.n && !tt_verbose()) {
    tt_buf line = {0};
    int k = 0;
    for (int g = 0; notes && notes[g].table; g++)
      if (note_group(notes, notes[g].table) == g)
        list_group(&line, left.v, left.n, g, &k, notes[g].holds);
    tt_buf what = {0};
    tt_buf_puts(&what, "other tables");
    if (s->layout[0]) tt_buf_printf(&what, ", in %s", s->layout);
    list_group(&line, left.v, left.n, -1, &k, what.data);
    tt_warn("%s: %zu table%s not imported (no place in the hub): %s; --verbose for each table's "
            "rows",
            s->path, left.n, left.n == 1 ? "" : "s", line.data);
    tt_buf_free(&what);
    tt_buf_free(&line);
  }
  for (size_t i = 0; i < left.n; i++) free(left.v[i].name);
  tt_vec_free(&left);
  tt_buf_free(&sql);
}
