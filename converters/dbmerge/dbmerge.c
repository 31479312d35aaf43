/* dbmerge: many per-process hub databases -> one file, as rocpd's own
 * merge (rocprofiler-sdk rocpd/merge.py) lays it out: every input's
 * physical tables rocpd_<name>_<uuid> created from the input's own table
 * definition and filled with its rows unchanged (guid columns included),
 * its indexes recreated, and the plain-named rocpd_<name> views rebuilt by
 * dbmerge as the UNION ALL of every input's table, so rocpd's tools (which
 * find the uuids through the rocpd_metadata view) see every row of every
 * input. Unlike rocpd's merge, an input's views and triggers are never
 * copied: they are SQL the input brings along.
 *
 * Inputs are attached one at a time (SQLite's attach limit and memory do
 * not grow with the number of inputs), read-only as every input is opened
 * (common/base/sqlite_setup.h: immutable when a WAL file holds all its pages,
 * so no -wal/-shm appears beside it). The output is built under
 * a temporary name with its journal in memory (the rename is what makes
 * it atomic; a failed or interrupted run leaves nothing) and ends in
 * rollback-journal mode: no WAL side files for readers to need. */
#include <stdarg.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/atomic_output.h"
#include "cli/align_cli.h"
#include "cli/cli.h"
#include "dbmerge_align.h"
#include "base/hashmap.h"
#include "hub/hub_catalog.h"
#include "base/input_check.h"
#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "base/util.h"
#include "base/vec.h"

/* SQLite refuses compound SELECTs of more than 500 terms: views over more
 * inputs nest groups of this many. */
#define VIEW_GROUP 100

typedef struct base_tables {
  char *base;   /* rocpd_region */
  char **tables; size_t ntables, cap_tables;
} base_tables;

typedef struct merge {
  sqlite3 *out;
  tt_strmap uuid_owner;    /* "_<uuid>" -> index of the input holding it */
  const char **inputs;
  char *schema_version;    /* of the first input */
  size_t version_from;
  base_tables *bases; size_t nbases, cap_bases;
  tt_strmap base_ix;
  uint64_t rows;
  const tt_align_opts *align; /* --align: each input's map, by its path */
} merge;

static void usage(FILE *f, const void *ctx) {
  (void)ctx;
  fprintf(f,
          "Usage: %s [options] DB... -o OUTPUT.db\n"
          "Merges rocpd (schema v3) hub databases, one per process, into one file:\n"
          "each input's tables and rows copied unchanged (with their guid), the\n"
          "rocpd_<name> views rebuilt over all of them. Views and triggers of the\n"
          "inputs are not copied.\n\n"
          "  DB...              hub databases (opened read-only); a uuid may appear once\n"
          "  -o, --output FILE  the merged database (required; replaced if it exists,\n"
          "                     never one of the inputs)\n",
          tt_progname());
}

/* --- checks on an input ----------------------------------------------- */

/* Runs one statement with printf-style SQL on the output; 0 ok. */
static int exec_out(merge *m, const char *what, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *sql = sqlite3_vmprintf(fmt, ap);
  va_end(ap);
  char *err = NULL;
  int rc = sqlite3_exec(m->out, sql, NULL, NULL, &err);
  if (rc != SQLITE_OK) tt_error("%s: %s", what, err ? err : sqlite3_errstr(rc));
  sqlite3_free(err);
  sqlite3_free(sql);
  return rc == SQLITE_OK ? 0 : -1;
}

/* A definition read from an input's sqlite_master is run only when it is
 * one CREATE TABLE / CREATE [UNIQUE] INDEX statement and nothing else. */
static int run_definition(merge *m, const char *path, const char *name, const char *sql,
                          int is_index) {
  const char *want = is_index ? "CREATE INDEX" : "CREATE TABLE";
  int ok = strncasecmp(sql, want, strlen(want)) == 0 ||
           (is_index && strncasecmp(sql, "CREATE UNIQUE INDEX", 19) == 0);
  sqlite3_stmt *st = NULL;
  const char *tail = NULL;
  if (ok && sqlite3_prepare_v2(m->out, sql, -1, &st, &tail) != SQLITE_OK) {
    tt_error("%s: definition of %s does not run here: %s", path, name, sqlite3_errmsg(m->out));
    return -1;
  }
  while (ok && tail && (*tail == ' ' || *tail == '\n' || *tail == '\t' || *tail == '\r' ||
                        *tail == ';'))
    tail++;
  if (!ok || (tail && *tail)) {
    sqlite3_finalize(st);
    tt_error("%s: the definition of %s is not a single %s statement: refused", path, name, want);
    return -1;
  }
  int rc = sqlite3_step(st);
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) {
    tt_error("%s: cannot create %s: %s", path, name, sqlite3_errmsg(m->out));
    return -1;
  }
  return 0;
}

static void add_to_view(merge *m, const char *base, const char *table) {
  int64_t *ix = tt_strmap_get(&m->base_ix, base);
  base_tables *b;
  if (ix) {
    b = &m->bases[*ix];
  } else {
    tt_grow(m->bases, m->nbases + 1, m->cap_bases);
    tt_strmap_put(&m->base_ix, base, (int64_t)m->nbases);
    b = &m->bases[m->nbases++];
    *b = (base_tables){.base = tt_strdup(base)};
  }
  tt_grow(b->tables, b->ntables + 1, b->cap_tables);
  b->tables[b->ntables++] = tt_strdup(table);
}

/* The hubs of the attached input "src" (hub_catalog.h): each with its
 * uuid in its table names (the output holds them side by side). */
static int input_suffixes(merge *m, const char *path, tt_hub_catalog *cat) {
  if (tt_hub_catalog_list(m->out, "src", cat) != 0) {
    tt_error("%s: not a readable SQLite database: %s", path, sqlite3_errmsg(m->out));
    return -1;
  }
  if (cat->n == 0) {
    tt_hub_catalog_refuse_empty(path);
    return -1;
  }
  if (!cat->suffixes[0][0]) {
    tt_error("%s: its rocpd tables have no uuid suffix (rocpd_event): cannot be merged", path);
    return -1;
  }
  return 0;
}

/* Refuses a uuid seen before, a hub the catalog's rule refuses, and a
 * schema version unlike the first's. */
static int check_uuid(merge *m, size_t in, const char *sfx) {
  const char *path = m->inputs[in];
  int64_t *owner = tt_strmap_get(&m->uuid_owner, sfx);
  if (owner) {
    tt_error("%s: uuid %s is already merged from %s: an input given twice?", path, sfx + 1,
             m->inputs[*owner]);
    return -1;
  }
  tt_strmap_put(&m->uuid_owner, sfx, (int64_t)in);
  char *v = NULL;
  if (tt_hub_catalog_check(m->out, "src", path, sfx, &v) != 0) return -1;
  if (!m->schema_version) {
    m->schema_version = v;
    m->version_from = in;
    return 0;
  }
  int same = strcmp(v, m->schema_version) == 0;
  if (!same)
    tt_error("%s: rocpd schema version %s, but %s has version %s: mixed schema versions are "
             "not merged", path, v, m->inputs[m->version_from], m->schema_version);
  free(v);
  return same ? 0 : -1;
}

/* Copies the attached input's tables, rows and indexes. */
static int copy_input(merge *m, size_t in) {
  const char *path = m->inputs[in];
  tt_hub_catalog cat = {0};
  int rc = input_suffixes(m, path, &cat);
  char **sfx = cat.suffixes;
  size_t nsfx = cat.n;
  for (size_t i = 0; rc == 0 && i < nsfx; i++) rc = check_uuid(m, in, sfx[i]);
  sqlite3_stmt *st = NULL;
  if (rc == 0 && sqlite3_prepare_v2(m->out,
                                    "SELECT type, name, tbl_name, sql FROM src.sqlite_master "
                                    "WHERE type IN ('table', 'index') AND name NOT LIKE "
                                    "'sqlite\\_%' ESCAPE '\\' ORDER BY type = 'index', name",
                                    -1, &st, NULL) != SQLITE_OK) {
    tt_error("%s: %s", path, sqlite3_errmsg(m->out));
    rc = -1;
  }
  if (rc == 0) rc = exec_out(m, path, "BEGIN");
  tt_strmap copied = {0};
  int step = SQLITE_DONE;
  while (rc == 0 && (step = sqlite3_step(st)) == SQLITE_ROW) {
    int is_index = strcmp((const char *)sqlite3_column_text(st, 0), "index") == 0;
    const char *name = (const char *)sqlite3_column_text(st, 1);
    const char *tbl = (const char *)sqlite3_column_text(st, 2);
    const char *sql = (const char *)sqlite3_column_text(st, 3);
    if (is_index) {
      /* Indexes of copied tables (the reader's time-order indexes). */
      if (!sql || !tt_strmap_get(&copied, tbl)) continue;
      rc = run_definition(m, path, name, sql, 1);
      continue;
    }
    size_t len = strlen(name), k;
    for (k = 0; k < nsfx; k++) {
      size_t n = strlen(sfx[k]);
      if (len > n && strncmp(name, "rocpd_", 6) == 0 && strcmp(name + len - n, sfx[k]) == 0)
        break;
    }
    if (k == nsfx || !sql) {
      tt_warn("%s: table %s belongs to no uuid of the file: not copied", path, name);
      continue;
    }
    rc = run_definition(m, path, name, sql, 0);
    if (rc == 0)
      rc = exec_out(m, path, "INSERT INTO main.\"%w\" SELECT * FROM src.\"%w\"", name, name);
    if (rc == 0) {
      m->rows += (uint64_t)sqlite3_changes(m->out);
      tt_strmap_put(&copied, name, 1);
      char *base = tt_strndup(name, len - strlen(sfx[k]));
      const hub_time_map *map = hub_time_maps_find(tt_align_maps(m->align), path);
      if (map && !hub_time_map_is_identity(map)) rc = dbm_align_table(m->out, path, name, base, map);
      add_to_view(m, base, name);
      free(base);
    }
  }
  if (rc == 0 && step != SQLITE_DONE) {
    tt_error("%s: %s", path, sqlite3_errmsg(m->out));
    rc = -1;
  }
  /* Every hub aligned, moved or the reference: read as is. An input
   * without a map (its host's fit refused) keeps its times, untagged. */
  int aligned = hub_time_maps_find(tt_align_maps(m->align), path) != NULL;
  for (size_t i = 0; rc == 0 && aligned && i < nsfx; i++)
    rc = dbm_align_mark(m->out, path, sfx[i], hub_align_mode_name(m->align->result.method));
  sqlite3_finalize(st);
  tt_strmap_free(&copied);
  if (rc == 0) rc = exec_out(m, path, "COMMIT");
  else sqlite3_exec(m->out, "ROLLBACK", NULL, NULL, NULL);
  tt_hub_catalog_free(&cat);
  return rc;
}

/* CREATE VIEW base AS the UNION ALL of its tables, nested in groups. */
static int create_view(merge *m, const base_tables *b) {
  tt_buf sql = {0};
  char *q = sqlite3_mprintf("CREATE VIEW \"%w\" AS ", b->base);
  tt_buf_puts(&sql, q);
  sqlite3_free(q);
  int nested = b->ntables > VIEW_GROUP;
  for (size_t i = 0; i < b->ntables; i++) {
    if (nested && i % VIEW_GROUP == 0)
      tt_buf_puts(&sql, i ? ") UNION ALL SELECT * FROM (" : "SELECT * FROM (");
    else if (i)
      tt_buf_puts(&sql, " UNION ALL ");
    q = sqlite3_mprintf("SELECT * FROM \"%w\"", b->tables[i]);
    tt_buf_puts(&sql, q);
    sqlite3_free(q);
  }
  if (nested) tt_buf_putc(&sql, ')');
  int rc = exec_out(m, b->base, "%s", sql.data);
  tt_buf_free(&sql);
  return rc;
}

static int run_merge(merge *m, const char *tmp_path, const char *final_path, size_t n) {
  if (sqlite3_open_v2(tmp_path, &m->out,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                      NULL) != SQLITE_OK) {
    tt_error("%s: cannot create: %s", final_path, m->out ? sqlite3_errmsg(m->out) : "no memory");
    return -1;
  }
  /* Inputs are attached to this connection: no trigger of theirs fires,
   * their schema cannot be made writable, corrupt cells are refused. */
  sqlite3_db_config(m->out, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
  sqlite3_db_config(m->out, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
  sqlite3_db_config(m->out, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
  /* Nothing an input brings may run here; the rename makes the output
   * atomic, so the build needs no journal file: the journal is kept in
   * memory (journal_mode OFF is refused on a defensive connection, and
   * a -journal file beside the temporary outlived an interrupted run).
   * Each CREATE TABLE scans the whole schema table (SQLite re-reads the
   * new entry by name, without an index): a page cache of 64 KiB per input (at least 8 MiB, at most 64)
   * keeps that scan in memory for thousands of inputs (20 tables each)
   * instead of re-reading it from the file. It is no larger than that:
   * the rows only stream through it, and SQLite's index sorts take as much
   * memory again, so a flat 64 MiB took a merge of one 1M-event hub to
   * 117 MB of RSS. */
  long long cache_kib = 8192 + 64 * (long long)n;
  if (cache_kib > 65536) cache_kib = 65536;
  if (tt_align_maps(m->align) && dbm_align_register(m->out) != 0) return -1;
  if (exec_out(m, final_path, "PRAGMA trusted_schema = OFF; PRAGMA journal_mode = MEMORY; "
                            "PRAGMA synchronous = OFF; PRAGMA foreign_keys = OFF; "
                            "PRAGMA cache_size = -%lld; PRAGMA cell_size_check = ON", cache_kib))
    return -1;
  for (size_t i = 0; i < n; i++) {
    tt_progress("hubs", i, n);
    if (tt_sqlite_check_header(m->inputs[i], NULL)) return -1;
    /* read-only as every input is opened: immutable when a WAL file's
     * pages are all in it, so no -wal/-shm appears beside it */
    int refused;
    char *uri = tt_sqlite_input_uri(m->inputs[i], &refused);
    int rc = refused ? -1 : exec_out(m, m->inputs[i], "ATTACH %Q AS src", uri);
    free(uri);
    if (rc) return -1;
    rc = copy_input(m, i);
    sqlite3_exec(m->out, "DETACH src", NULL, NULL, NULL);
    if (rc) return -1;
  }
  if (exec_out(m, final_path, "BEGIN")) return -1;
  for (size_t i = 0; i < m->nbases; i++)
    if (create_view(m, &m->bases[i])) return -1;
  if (exec_out(m, final_path, "COMMIT; PRAGMA journal_mode = DELETE")) return -1;
  tt_progress_done();
  return 0;
}

static void merge_free(merge *m) {
  if (m->out) sqlite3_close(m->out);
  for (size_t i = 0; i < m->nbases; i++) {
    for (size_t k = 0; k < m->bases[i].ntables; k++) free(m->bases[i].tables[k]);
    free(m->bases[i].tables);
    free(m->bases[i].base);
  }
  free(m->bases);
  tt_strmap_free(&m->base_ix);
  tt_strmap_free(&m->uuid_owner);
  free(m->schema_version);
}

int main(int argc, char **argv) {
  tt_align_opts align;
  tt_cli cli = {.usage = usage, .help_width = 21, .ext = {tt_align_cli_ext(&align)}};
  tt_cli_parse(argc, argv, &cli);
  const char *output = cli.output;
  tt_cli_check_db_output(output, cli.inputs, cli.ninputs);
  tt_sqlite_setup();
  /* An input the plan cannot read is left to the merge's own checks to
   * name (under auto; an explicit --align stops here). */
  if (tt_align_resolve(&align, cli.inputs, cli.ninputs) != 0 && align.mode != HUB_ALIGN_AUTO)
    return 1;
  merge m = {.inputs = cli.inputs, .align = &align};
  size_t n = cli.ninputs;
  tt_output *out = tt_output_begin(output);
  int rc = run_merge(&m, tt_output_tmp_path(out), output, n);
  tt_progress_done();
  if (m.out && sqlite3_close(m.out) != SQLITE_OK && rc == 0) {
    tt_error("%s: %s", output, sqlite3_errmsg(m.out));
    rc = -1;
  }
  m.out = NULL;
  if (rc == 0 && tt_output_commit(out) != 0) rc = -1;
  else if (rc != 0) tt_output_abort(out);
  if (rc == 0) tt_info("wrote %s (%zu hubs, %llu rows)", output, n, (unsigned long long)m.rows);
  merge_free(&m);
  tt_align_free(&align);
  return rc == 0 ? 0 : 1;
}
