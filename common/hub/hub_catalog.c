/* The hub catalog (hub_catalog.h): the hubs of a file and the rule that
 * accepts them. One pass over the schema's table names finds the hubs (a
 * merged file of 1000 hubs has 20000 tables: a hash, never a query per
 * uuid), one query per hub reads what its rocpd_metadata declares. */
#include "hub/hub_catalog.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/input_check.h"
#include "base/util.h"
#include "base/vec.h"

#define EVENT "rocpd_event"
#define STRING "rocpd_string"

/* The suffix of a hub table's name (`base` itself or base + "_<uuid>"),
 * NULL when the name is not one. */
static const char *suffix_of(const char *name, const char *base) {
  size_t n = strlen(base);
  if (strncmp(name, base, n) != 0) return NULL;
  if (name[n] == '\0' || (name[n] == '_' && name[n + 1] != '\0')) return name + n;
  return NULL;
}

int tt_hub_catalog_list(sqlite3 *conn, const char *db, tt_hub_catalog *out) {
  memset(out, 0, sizeof *out);
  char *sql = sqlite3_mprintf("SELECT name FROM \"%w\".sqlite_master WHERE type = 'table' AND "
                              "(name GLOB '" EVENT "*' OR name GLOB '" STRING "*') ORDER BY name",
                              db);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(conn, sql, -1, &st, NULL);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return -1;
  tt_strmap strings = {0};
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(st, 0);
    const char *s;
    if (!name) continue;
    if ((s = suffix_of(name, STRING))) {
      tt_strmap_put(&strings, s, 1);
    } else if ((s = suffix_of(name, EVENT))) {
      tt_grow(out->suffixes, out->n + 1, out->cap);
      out->suffixes[out->n++] = tt_strdup(s);
    }
  }
  sqlite3_finalize(st);
  /* Keep the suffixes that have their string table too, in order. */
  size_t kept = 0;
  for (size_t i = 0; i < out->n; i++) {
    if (tt_strmap_get(&strings, out->suffixes[i]))
      out->suffixes[kept++] = out->suffixes[i];
    else
      free(out->suffixes[i]);
  }
  out->n = kept;
  tt_strmap_free(&strings);
  if (rc != SQLITE_DONE) {
    tt_hub_catalog_free(out);
    return -1;
  }
  return 0;
}

void tt_hub_catalog_free(tt_hub_catalog *c) {
  for (size_t i = 0; i < c->n; i++) free(c->suffixes[i]);
  free(c->suffixes);
  c->suffixes = NULL;
  c->n = 0;
}

/* "3" or "3.<anything>". */
static int is_version_3(const char *v) {
  char *end;
  long major = strtol(v, &end, 10);
  return end != v && major == 3 && (*end == '\0' || *end == '.');
}

static int declares_compression(const char *value) {
  return value[0] && strcmp(value, "none") != 0 && strcmp(value, "0") != 0 &&
         strcmp(value, "false") != 0;
}

int tt_hub_catalog_suffix_ok(const char *suffix) {
  if (!suffix[0]) return 1;
  if (suffix[0] != '_' || !suffix[1]) return 0;
  for (const char *p = suffix + 1; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
          *p == '_'))
      return 0;
  return 1;
}

int tt_hub_catalog_check(sqlite3 *conn, const char *db, const char *path, const char *suffix,
                         char **version) {
  if (!tt_hub_catalog_suffix_ok(suffix)) {
    /* the name is the file's text: tt_error shows its control characters escaped */
    tt_error("%s: table rocpd_event%s: its suffix after rocpd_event is not '_' and letters, "
             "digits or '_' (a uuid): not a rocpd hub, refused",
             path, suffix);
    return -1;
  }
  char *table = sqlite3_mprintf("rocpd_metadata%s", suffix);
  char *sql = sqlite3_mprintf("SELECT tag, value FROM \"%w\".\"%w\" WHERE tag = 'schema_version' "
                              "OR lower(tag) GLOB '*compress*' ORDER BY rowid",
                              db, table);
  sqlite3_stmt *st;
  int rc = 0;
  char *found = NULL; /* the last schema_version */
  if (sqlite3_prepare_v2(conn, sql, -1, &st, NULL) != SQLITE_OK) {
    const char *why = sqlite3_errmsg(conn);
    if (strncmp(why, "no such table", 13) == 0)
      tt_error("%s: no %s table: schema version unknown, not a rocpd 3.x database", path, table);
    else
      tt_error("%s: %s: %s", path, table, why);
    rc = -1;
    st = NULL;
  }
  while (rc == 0 && st && sqlite3_step(st) == SQLITE_ROW) {
    const char *tag = (const char *)sqlite3_column_text(st, 0);
    const char *value = (const char *)sqlite3_column_text(st, 1);
    if (!tag) continue;
    if (!value) value = "";
    if (strcmp(tag, "schema_version") == 0) {
      free(found);
      found = tt_strdup(value);
      if (!is_version_3(value)) {
        tt_error("%s: rocpd schema_version '%s' in %s: these tools read version 3.x only", path,
                 value, table);
        rc = -1;
      }
    } else if (declares_compression(value)) {
      tt_error("%s: %s = '%s' in %s: compressed rocpd data is not supported (only "
               "uncompressed rocpd 3.x)",
               path, tag, value, table);
      rc = -1;
    }
  }
  sqlite3_finalize(st);
  if (rc == 0 && !found) {
    tt_error("%s: %s has no schema_version: not a rocpd 3.x database", path, table);
    rc = -1;
  }
  sqlite3_free(sql);
  sqlite3_free(table);
  if (rc == 0 && version)
    *version = found;
  else
    free(found);
  return rc;
}

void tt_hub_catalog_refuse_empty(const char *path) {
  tt_input_kind k = tt_input_kind_of(path);
  if (k == TT_INPUT_RPD || k == TT_INPUT_NVPROF || k == TT_INPUT_NSYS)
    tt_error("%s: this is %s, not a rocpd hub database; import it with %s first", path,
             tt_input_kind_name(k), tt_input_kind_tools(k));
  else
    tt_error("%s: not a rocpd hub database (no rocpd_event/rocpd_string tables)", path);
}
