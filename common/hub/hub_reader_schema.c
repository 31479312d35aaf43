/* The names in one input file's schema, read once per connection: its
 * tables, and the first column of each index. A file merged from 1000
 * hubs holds 20000 tables; asking sqlite_schema per uuid and table would
 * scan all of them each time (quadratic), a hash lookup does not. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_reader_inputs.h"
#include "base/util.h"

struct hr_schema {
  tt_strmap tables;
  tt_strmap index_first; /* "table\ncolumn" of each index's first column */
};

static char *pair(const char *table, const char *column) {
  size_t a = strlen(table), b = strlen(column);
  char *k = tt_malloc(a + b + 2);
  memcpy(k, table, a);
  k[a] = '\n';
  memcpy(k + a + 1, column, b + 1);
  return k;
}

hr_schema *hr_schema_load(sqlite3 *conn) {
  hr_schema *s = tt_calloc(1, sizeof *s);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(conn, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &st,
                         NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char *name = (const char *)sqlite3_column_text(st, 0);
      if (name) tt_strmap_put(&s->tables, name, 1);
    }
    sqlite3_finalize(st);
  }
  /* One pass over the indexes (pragma_index_info of each, once). */
  if (sqlite3_prepare_v2(conn,
                         "SELECT m.tbl_name, i.name FROM sqlite_master m, pragma_index_info(m.name) "
                         "i WHERE m.type = 'index' AND i.seqno = 0",
                         -1, &st, NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW) {
      const char *t = (const char *)sqlite3_column_text(st, 0);
      const char *c = (const char *)sqlite3_column_text(st, 1);
      if (!t || !c) continue;
      char *k = pair(t, c);
      tt_strmap_put(&s->index_first, k, 1);
      free(k);
    }
    sqlite3_finalize(st);
  }
  return s;
}

void hr_schema_free(hr_schema *s) {
  if (!s) return;
  tt_strmap_free(&s->tables);
  tt_strmap_free(&s->index_first);
  free(s);
}

int hr_schema_has_table(const hr_schema *s, const char *name) {
  return s && tt_strmap_get(&s->tables, name) != NULL;
}

int hr_schema_has_index_on(const hr_schema *s, const char *table, const char *column) {
  if (!s) return 0;
  char *k = pair(table, column);
  int found = tt_strmap_get(&s->index_first, k) != NULL;
  free(k);
  return found;
}
