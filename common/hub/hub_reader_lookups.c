/* What a reader's callers look up beside its stream (hub_reader.h): its
 * inputs' info tables by index and by id, their hosts and process keys,
 * their metadata, and the counts of what they hold. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "hub/hub_reader_internal.h"

const char *hub_reader_host(const hub_reader *r, int db, int64_t pid) {
  return hr_inputs_host(&r->in, db, pid);
}

static int cmp_key(const void *pa, const void *pb) {
  const hub_process_key *a = pa, *b = pb;
  int c = strcmp(a->host, b->host);
  if (c) return c;
  return a->pid < b->pid ? -1 : a->pid > b->pid;
}

size_t hub_reader_process_keys(hub_reader *r, hub_process_key **out) {
  hub_process_key *k = tt_calloc(r->in.nprocesses ? r->in.nprocesses : 1, sizeof *k);
  size_t n = 0;
  for (size_t i = 0; i < r->in.nprocesses; i++)
    k[n++] = (hub_process_key){r->in.processes[i].hostname, r->in.processes[i].pid, 0};
  qsort(k, n, sizeof *k, cmp_key);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (m && strcmp(k[m - 1].host, k[i].host) == 0 && k[m - 1].pid == k[i].pid) continue;
    if (!hr_process_has_events(r, k[i].host, k[i].pid)) continue;
    k[m++] = k[i];
  }
  for (size_t i = 0; i < m; i++)
    for (size_t j = 0; j < m; j++)
      if (i != j && k[i].pid == k[j].pid) k[i].ambiguous = 1;
  *out = k;
  return m;
}

size_t hub_reader_nprocesses(const hub_reader *r) { return r->in.nprocesses; }

const hub_process_info *hub_reader_process(const hub_reader *r, size_t i) {
  return &r->in.processes[i];
}

size_t hub_reader_nthreads(const hub_reader *r) { return r->in.nthreads; }

const hub_thread_info *hub_reader_thread(const hub_reader *r, size_t i) { return &r->in.threads[i]; }

size_t hub_reader_nagents(const hub_reader *r) { return r->in.nagents; }

const hub_agent_view *hub_reader_agent(const hub_reader *r, size_t i) { return &r->in.agents[i]; }

size_t hub_reader_nlanes(const hub_reader *r) { return r->in.nlanes; }

const hub_lane_info *hub_reader_lane(const hub_reader *r, size_t i) { return &r->in.lanes[i]; }

const hub_process_info *hub_reader_find_process(const hub_reader *r, int db, int64_t pid) {
  int64_t *ix = tt_i64map_get(&r->in.process_ix, hr_key_db_id(db, pid, 0));
  if (!ix) ix = tt_i64map_get(&r->in.process_any_ix, pid);
  return ix ? &r->in.processes[*ix] : NULL;
}

const hub_thread_info *hub_reader_find_thread(const hub_reader *r, int db, int64_t thread_id) {
  return hr_inputs_find_thread(&r->in, db, thread_id);
}

const hub_agent_view *hub_reader_find_agent(const hub_reader *r, int db, int64_t agent_id) {
  return hr_inputs_find_agent(&r->in, db, agent_id);
}

const hub_lane_info *hub_reader_find_lane(const hub_reader *r, int db, int64_t lane_id,
                                          int is_queue) {
  int64_t *ix = tt_i64map_get(&r->in.lane_ix, hr_key_db_id(db, lane_id, is_queue ? 2 : 1));
  return ix ? &r->in.lanes[*ix] : NULL;
}

size_t hub_reader_ndbs(const hub_reader *r) { return r->in.ndbs; }

const char *hub_reader_db_path(const hub_reader *r, int db) { return r->in.dbs[db].path; }

const char *hub_reader_db_suffix(const hub_reader *r, int db) { return r->in.dbs[db].suffix; }

int hub_reader_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  return r->query->category_counts(r, out, n);
}

int64_t hub_reader_row_count(hub_reader *r) { return r->query->row_count(r); }

/* The first row of tag in metadata kept by hr_keep_metadata. */
static const char *kept_metadata(const tt_buf *m, const char *tag) {
  for (const char *at = m->data, *end = m->data + m->len; at && at < end;) {
    const char *v = at + strlen(at) + 1;
    if (strcmp(at, tag) == 0) return *v ? v + 1 : NULL;
    at = v + strlen(v) + 1;
  }
  return NULL;
}

const char *hub_reader_metadata(hub_reader *r, int db, const char *tag) {
  if (db < 0 || (size_t)db >= r->in.ndbs) return NULL;
  hub_db *d = &r->in.dbs[db];
  if (!d->conn) return kept_metadata(&d->metadata, tag);
  char *t = hr_tname(d, "rocpd_metadata");
  int exists = hr_table_exists(d, t);
  sqlite3_free(t);
  if (!exists) return NULL;
  char *sql = sqlite3_mprintf("SELECT value FROM %s WHERE tag = ?1 LIMIT 1",
                              hr_qt(d, "rocpd_metadata"));
  sqlite3_stmt *st = hr_prep(d, sql);
  sqlite3_free(sql);
  if (!st) return NULL;
  sqlite3_bind_text(st, 1, tag, -1, SQLITE_STATIC);
  free(r->metadata_value);
  r->metadata_value = NULL;
  if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    r->metadata_value = tt_strdup(hr_col_text(st, 0));
  sqlite3_finalize(st);
  return r->metadata_value;
}
