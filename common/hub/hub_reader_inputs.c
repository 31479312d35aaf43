/* Opening one input of the hub reader: the SQLite checks (a file that is
 * not SQLite, a truncated one), the hubs a file holds and their schema
 * version (the hub catalog's rule, hub_catalog.h), and whether its launches can be
 * linked and its args looked up by id (the input's index, or an indexed
 * TEMP copy made when first needed). */
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hub/hub_catalog.h"
#include "hub/hub_reader_inputs.h"
#include "base/input_check.h"
#include "base/sqlite_setup.h"
#include "base/util.h"
#include "base/vec.h"

sqlite3_stmt *hr_prep(hub_db *d, const char *sql) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) != SQLITE_OK) {
    tt_error("%s: %s", d->path, sqlite3_errmsg(d->conn));
    return NULL;
  }
  return st;
}

int hr_table_exists(const hub_db *d, const char *name) {
  return hr_schema_has_table(d->schema, name);
}

static int index_on(const hub_db *d, const char *table, const char *column) {
  return hr_schema_has_index_on(d->schema, table, column);
}

void hr_db_map_times(hub_db *d, const hub_time_maps *maps) {
  d->tmap = hub_time_maps_find(maps, d->path);
  if (d->tmap && hub_time_map_is_identity(d->tmap)) d->tmap = NULL;
}

/* Physical table name of `base` in d, e.g. rocpd_region_<uuid>. */
char *hr_tname(const hub_db *d, const char *base) {
  return sqlite3_mprintf("%s%s", base, d->suffix);
}

/* A hub's queries name a dozen tables: a short list looked up by base. */
#define HR_QNAMES 24
struct hr_qnames {
  const char *base[HR_QNAMES];
  char *quoted[HR_QNAMES];
  int n;
};

const char *hr_qt(const hub_db *d, const char *base) {
  struct hr_qnames *q = d->qnames;
  if (!q) q = ((hub_db *)d)->qnames = tt_calloc(1, sizeof *q); /* a cache, not d's state */
  for (int i = 0; i < q->n; i++)
    if (strcmp(q->base[i], base) == 0) return q->quoted[i];
  if (q->n == HR_QNAMES) tt_die(1, "internal: more than %d tables named in one hub's SQL", HR_QNAMES);
  char *name = sqlite3_mprintf("\"%w%w\"", base, d->suffix);
  if (!name) tt_die(1, "out of memory");
  q->base[q->n] = base; /* the callers' string constants */
  q->quoted[q->n] = name;
  return q->quoted[q->n++];
}

void hr_qnames_free(hub_db *d) {
  if (!d->qnames) return;
  for (int i = 0; i < d->qnames->n; i++) sqlite3_free(d->qnames->quoted[i]);
  free(d->qnames);
  d->qnames = NULL;
}

/* Copies `cols` of table `src` into an indexed TEMP table, and points
 * *name at it. One pass over the table, on disk (temp_store=FILE); TEMP is
 * all it writes (tt_sqlite_exec_temp). Returns 1 on success. */
static int link_table(hub_db *d, char **name, const char *tag, const char *src,
                      const char *cols, const char *where, const char *key) {
  char *tmp = sqlite3_mprintf("tt_link_%s%s", tag, d->suffix);
  char *sql = sqlite3_mprintf("DROP TABLE IF EXISTS temp.\"%w\";"
                              "CREATE TEMP TABLE \"%w\" AS SELECT %s FROM \"%w\" WHERE %s;"
                              "CREATE INDEX temp.\"%w_ix\" ON \"%w\"(%s);",
                              tmp, tmp, cols, src, where, tmp, tmp, key);
  int ok = tt_sqlite_exec_temp(d->conn, sql, NULL) == SQLITE_OK;
  sqlite3_free(sql);
  if (ok) {
    sqlite3_free(*name);
    *name = sqlite3_mprintf("temp.\"%w\"", tmp);
  }
  sqlite3_free(tmp);
  return ok;
}

/* Args are read in one ordered pass per event table, beside that table's
 * cursor (hub_reader.c); a lookup by event id is left for the odd event
 * read out of stream order (one carried into the next window). It uses
 * the input's index on rocpd_arg's event_id when it has one, else an
 * indexed TEMP copy made in one pass the first time it is needed (SQLite
 * refuses a TEMP index on an input's table; the input is never written).
 * Either way a lookup is a key search, never a scan. */
static void args_source(hub_db *d) {
  char *args = hr_tname(d, "rocpd_arg");
  d->args.present = hr_table_exists(d, args);
  d->args.indexed = d->args.present && index_on(d, args, "event_id");
  d->args.src = sqlite3_mprintf("\"%w\"", args);
  sqlite3_free(args);
}

const char *hr_args_lookup_source(hub_db *d) {
  if (d->args.present && !d->args.indexed && !d->args.copied) {
    d->args.copied = 1;
    char *args = hr_tname(d, "rocpd_arg");
    link_table(d, &d->args.src, "arg", args, "event_id, position, name, type, value", "1",
               "event_id, position");
    sqlite3_free(args);
  }
  return d->args.src;
}

/* A rocpd_track row that holds recorded flow ends (the writer's kind). */
#define FLOW_TRACK "json_valid(extdata) AND json_extract(extdata,'$.kind')='" HUB_WORD_FLOW "'"

/* Recorded flows in a hub without the indexes their partner lookups use
 * (one whose indexes were dropped to save space): the flow tracks'
 * samples and their events copied into indexed TEMP tables, in one pass
 * each, so every lookup stays a key search and no arrow is lost. Returns
 * 1 when both copies are made. */
static int flow_copies(hub_db *d, const char *ev, const char *sm) {
  char *on_flow_tracks = sqlite3_mprintf(
      "track_id IN (SELECT id FROM \"rocpd_track%w\" WHERE " FLOW_TRACK ")", d->suffix);
  int ok = link_table(d, &d->flow_sm_src, "flow_sample", sm, "id, event_id, timestamp, track_id",
                      on_flow_tracks, "event_id");
  sqlite3_free(on_flow_tracks);
  if (!ok) return 0;
  char *of_flow_samples = sqlite3_mprintf("id IN (SELECT event_id FROM %s)", d->flow_sm_src);
  ok = link_table(d, &d->flow_ev_src, "flow_event", ev, "id, correlation_id, category_id, extdata",
                  of_flow_samples, "correlation_id");
  sqlite3_free(of_flow_samples);
  return ok;
}

/* Whether the writer folded the hub's recorded launch flows into its
 * correlation links (HUB_LAUNCH_ARROWS_TAG). */
static int launch_arrows_tagged(hub_db *d) {
  char *md = hr_tname(d, "rocpd_metadata");
  char *sql = sqlite3_mprintf("SELECT 1 FROM \"%w\" WHERE tag = '" HUB_LAUNCH_ARROWS_TAG
                              "' AND value = '" HUB_LAUNCH_ARROWS_CORRELATION "' LIMIT 1",
                              md);
  sqlite3_stmt *st;
  int tagged = 0;
  if (hr_table_exists(d, md) && sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK) {
    tagged = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
  }
  sqlite3_free(sql);
  sqlite3_free(md);
  return tagged;
}

static void setup_db(hub_db *d) {
  static const char *const kinds[T_COUNT] = {"rocpd_region", "rocpd_kernel_dispatch",
                                             "rocpd_memory_copy", "rocpd_memory_allocate",
                                             "rocpd_sample"};
  for (int t = 0; t < T_COUNT; t++) {
    char *n = hr_tname(d, kinds[t]);
    d->has_table[t] = hr_table_exists(d, n);
    sqlite3_free(n);
  }
  if (d->has_table[T_SAMPLE]) {
    char *sql = sqlite3_mprintf(
        "SELECT 1 FROM \"rocpd_track%w\" WHERE " FLOW_TRACK " LIMIT 1",
        d->suffix);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK) {
      d->has_flows = sqlite3_step(st) == SQLITE_ROW;
      sqlite3_finalize(st);
    }
    sqlite3_free(sql);
  }
  d->flows_are_launch_arrows = d->has_flows && !launch_arrows_tagged(d);
  /* Without recorded flows, launches find their GPU work by a merge
   * (hub_reader_links.c), whatever indexes the input has. */
  char *ev = hr_tname(d, "rocpd_event");
  char *sm = hr_tname(d, "rocpd_sample");
  d->flow_ev_src = sqlite3_mprintf("\"%w\"", ev);
  d->flow_sm_src = sqlite3_mprintf("\"%w\"", sm);
  d->can_link = !d->has_flows ||
                (index_on(d, ev, "correlation_id") && index_on(d, sm, "event_id")) ||
                flow_copies(d, ev, sm);
  sqlite3_free(ev);
  sqlite3_free(sm);
  args_source(d);
}

/* Opens one file: every hub of it (hub_catalog.h), each checked. */
int hr_open_file(hr_inputs *in, const char *path) {
  tt_sqlite_setup();
  if (tt_sqlite_check_header(path, NULL) != 0) return -1;
  sqlite3 *conn = NULL;
  if (tt_sqlite_open_input(path, &conn) != SQLITE_OK) {
    tt_error("%s: cannot open: %s", path, conn ? sqlite3_errmsg(conn) : "out of memory");
    sqlite3_close(conn);
    return -1;
  }
  /* Never run SQL an input brings along (views, triggers, functions). */
  sqlite3_exec(conn, "PRAGMA trusted_schema=OFF;", NULL, NULL, NULL);
  tt_hub_catalog cat;
  if (tt_hub_catalog_list(conn, "main", &cat) != 0) {
    tt_error("%s: not a readable SQLite database: %s", path, sqlite3_errmsg(conn));
    sqlite3_close(conn);
    return -1;
  }
  for (size_t i = 0; i < cat.n; i++) {
    if (tt_hub_catalog_check(conn, "main", path, cat.suffixes[i], NULL) != 0) {
      tt_hub_catalog_free(&cat);
      sqlite3_close(conn);
      return -1;
    }
  }
  hr_schema *schema = hr_schema_load(conn);
  size_t found = cat.n, first = in->ndbs;
  for (size_t i = 0; i < cat.n; i++) {
    /* A slice reader (hub_reader_passes.c) keeps its uuids only. */
    if (in->slice_count && (i < in->slice_first || i >= in->slice_first + in->slice_count)) continue;
    tt_grow(in->dbs, in->ndbs + 1, in->cap_dbs);
    hub_db *d = &in->dbs[in->ndbs++];
    memset(d, 0, sizeof *d);
    d->conn = conn;
    d->owns_conn = in->ndbs - 1 == first;
    d->schema = schema;
    d->path = tt_strdup(path);
    d->suffix = cat.suffixes[i];
    cat.suffixes[i] = NULL;
  }
  tt_hub_catalog_free(&cat);
  /* Hundreds of hubs on one connection: SQLite walks every open cursor of
   * a connection each time it opens one, so reading them all at once is
   * quadratic; the caller reads such a file in slices instead. */
  if (!in->slice_count && found > HR_MAX_HUBS_PER_CONN)
    in->crowded = 1;
  else
    for (size_t i = first; i < in->ndbs; i++) setup_db(&in->dbs[i]);
  /* From here on nothing may change, not even TEMP (link tables are made). */
  sqlite3_exec(conn, "PRAGMA query_only=1;", NULL, NULL, NULL);
  if (found == 0) {
    tt_hub_catalog_refuse_empty(path);
    hr_schema_free(schema);
    sqlite3_close(conn);
    return -1;
  }
  return 0;
}

/* The same hub twice would double every event: refuse the same file
 * (any name of it) and a copy of a hub (the same uuid in two files).
 * Sorted and hashed, so a thousand inputs cost no million comparisons. */
typedef struct file_id {
  dev_t dev;
  ino_t ino;
  size_t ix;
} file_id;

static int cmp_file_id(const void *pa, const void *pb) {
  const file_id *a = pa, *b = pb;
  if (a->dev != b->dev) return a->dev < b->dev ? -1 : 1;
  if (a->ino != b->ino) return a->ino < b->ino ? -1 : 1;
  return (a->ix > b->ix) - (a->ix < b->ix);
}

int hr_db_order(const char *suffix_a, const char *path_a, const char *suffix_b,
                const char *path_b) {
  int c = strcmp(suffix_a, suffix_b);
  return c ? c : strcmp(path_a, path_b);
}

static int cmp_db(const void *pa, const void *pb) {
  const hub_db *a = pa, *b = pb;
  return hr_db_order(a->suffix, a->path, b->suffix, b->path);
}

void hr_order_dbs(hr_inputs *in) {
  if (in->ndbs > 1) qsort(in->dbs, in->ndbs, sizeof *in->dbs, cmp_db);
}

char *hr_file_order_key(const char *path) {
  char *key = NULL;
  sqlite3 *conn = NULL;
  if (tt_sqlite_check_header(path, NULL) == 0 && tt_sqlite_open_input(path, &conn) == SQLITE_OK) {
    tt_hub_catalog cat;
    if (tt_hub_catalog_list(conn, "main", &cat) == 0) {
      if (cat.n) {
        key = cat.suffixes[0];
        cat.suffixes[0] = NULL;
      }
      tt_hub_catalog_free(&cat);
    }
  }
  sqlite3_close(conn);
  return key ? key : tt_strdup("");
}

/* Argument index of each path (its first occurrence). */
static size_t arg_index(const tt_strmap *ix, const char *path) {
  const int64_t *i = tt_strmap_get(ix, path);
  return i ? (size_t)*i : SIZE_MAX;
}

int hr_refuse_duplicates(const hr_inputs *in, const char *const *paths, size_t npaths) {
  file_id *ids = tt_malloc((npaths ? npaths : 1) * sizeof *ids);
  size_t n = 0;
  for (size_t i = 0; i < npaths; i++) {
    struct stat a;
    if (stat(paths[i], &a) == 0) ids[n++] = (file_id){a.st_dev, a.st_ino, i};
  }
  qsort(ids, n, sizeof *ids, cmp_file_id);
  /* The first input that repeats an earlier one, named with the earliest. */
  size_t dup = SIZE_MAX, first = 0;
  for (size_t k = 1, run = 0; k < n; k++) {
    if (ids[k].dev != ids[run].dev || ids[k].ino != ids[run].ino) {
      run = k;
      continue;
    }
    if (ids[k].ix < dup) {
      dup = ids[k].ix;
      first = ids[run].ix;
    }
  }
  free(ids);
  if (dup != SIZE_MAX) {
    tt_error("%s: given twice (the same file as %s): give each hub once", paths[dup], paths[first]);
    return -1;
  }
  tt_strmap seen = {0}, args = {0};
  for (size_t i = npaths; i-- > 0;) tt_strmap_put(&args, paths[i], (int64_t)i);
  int rc = 0;
  for (size_t i = 0; i < in->ndbs && rc == 0; i++) {
    if (!in->dbs[i].suffix[0]) continue; /* no uuid in the table names */
    int64_t *j = tt_strmap_get(&seen, in->dbs[i].suffix);
    if (j) {
      /* The copy is the later argument, whatever order the dbs are in. */
      const char *a = in->dbs[*j].path, *b = in->dbs[i].path;
      if (arg_index(&args, b) < arg_index(&args, a)) {
        const char *t = a;
        a = b;
        b = t;
      }
      tt_error("%s: the same hub as %s (uuid%s): give each hub once", b, a, in->dbs[i].suffix);
      rc = -1;
    } else {
      tt_strmap_put(&seen, in->dbs[i].suffix, (int64_t)i);
    }
  }
  tt_strmap_free(&seen);
  tt_strmap_free(&args);
  return rc;
}

void hr_inputs_free(hr_inputs *in) {
  for (size_t i = 0; i < in->ndbs; i++) {
    hub_db *d = &in->dbs[i];
    if (d->owns_conn) {
      hr_schema_free(d->schema);
      sqlite3_close(d->conn);
    }
    free(d->path);
    tt_buf_free(&d->metadata);
    free(d->suffix);
    hr_qnames_free(d);
    sqlite3_free(d->flow_ev_src);
    sqlite3_free(d->flow_sm_src);
  }
  for (size_t i = 0; i < in->nprocesses; i++) {
    free((char *)in->processes[i].name);
    free((char *)in->processes[i].labels);
    free((char *)in->processes[i].hostname);
    free((char *)in->processes[i].label);
  }
  for (size_t i = 0; i < in->nthreads; i++) free((char *)in->threads[i].name);
  for (size_t i = 0; i < in->nagents; i++) {
    free((char *)in->agents[i].type);
    free((char *)in->agents[i].name);
    free((char *)in->agents[i].product_name);
    free((char *)in->agents[i].extdata);
    free((char *)in->agents[i].owner_label);
  }
  for (size_t i = 0; i < in->nlanes; i++) free((char *)in->lanes[i].name);
  free(in->processes);
  free(in->threads);
  free(in->agents);
  free(in->lanes);
  tt_i64map_free(&in->process_ix);
  tt_i64map_free(&in->process_any_ix);
  tt_i64map_free(&in->thread_ix);
  tt_i64map_free(&in->agent_ix);
  tt_i64map_free(&in->lane_ix);
  free(in->dbs);
  memset(in, 0, sizeof *in);
}
