/* What the hub reader tells about its inputs besides the event stream:
 * processes, threads, agents and lanes (read once at open), category and
 * row counts. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_reader_inputs.h"
#include "base/util.h"
#include "base/vec.h"

/* --- info tables ------------------------------------------------------ */

static sqlite3_stmt *info_query(hub_db *d, const char *table, const char *cols) {
  char *t = hr_tname(d, table);
  int exists = hr_table_exists(d, t);
  sqlite3_free(t);
  if (!exists) return NULL;
  char *sql = sqlite3_mprintf("SELECT %s FROM \"%w%w\"", cols, table, d->suffix);
  sqlite3_stmt *st = hr_prep(d, sql);
  sqlite3_free(sql);
  return st;
}

/* Whether table (unsuffixed name) of d has column col. */
static int has_column(hub_db *d, const char *table, const char *col) {
  char *sql = sqlite3_mprintf("SELECT \"%w\" FROM \"%w%w\" LIMIT 0", col, table, d->suffix);
  sqlite3_stmt *st = NULL;
  int ok = sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK;
  sqlite3_finalize(st);
  sqlite3_free(sql);
  return ok;
}

/* The rank as the hub_process_info contract says: extdata's, else the
 * first of the usual MPI/launcher variables in the environment. */
#define RANK_SQL(env)                                                                    \
  "COALESCE(" JX("extdata", "$.rank") env ")"
#define ENV_RANKS                                                                        \
  ", " JX("environment", "$.OMPI_COMM_WORLD_RANK") ", " JX("environment", "$.PMI_RANK")  \
  ", " JX("environment", "$.SLURM_PROCID") ", " JX("environment", "$.RANK")

static int64_t col_rank(sqlite3_stmt *st, int i) {
  if (sqlite3_column_type(st, i) == SQLITE_INTEGER) return sqlite3_column_int64(st, i);
  /* Environment values are text: a rank is digits only. */
  const char *s = hr_col_text(st, i);
  if (!s[0] || strlen(s) > 18 || strspn(s, "0123456789") != strlen(s)) return HUB_NULL;
  return strtoll(s, NULL, 10);
}

/* "python3 [rank 3] nid008553 (pid 1234)", or the command alone when
 * neither a rank nor a host is known (see hub_process_info.label). */
static char *process_label(const hub_process_info *p) {
  if (p->rank == HUB_NULL && !p->hostname[0]) return tt_strdup(p->name);
  tt_buf b = {0};
  tt_buf_puts(&b, p->name);
  if (p->rank != HUB_NULL) tt_buf_printf(&b, "%s[rank %lld]", b.len ? " " : "", (long long)p->rank);
  if (p->hostname[0]) tt_buf_printf(&b, "%s%s", b.len ? " " : "", p->hostname);
  tt_buf_printf(&b, "%s(pid %lld)", b.len ? " " : "", (long long)p->pid);
  return b.data;
}

/* The clock and anchor a process states (hub_writer_clock). */
#define CLOCK_SQL JX("extdata", "$.clock") ", " JX("extdata", "$.to_wall_ns")

/* The clock of a hub whose processes state none: rocprofv3, which writes
 * no tracetools_source (our importers do), stamps CLOCK_BOOTTIME; hubs
 * rpd2db wrote keep roctracer's CLOCK_MONOTONIC; any other (one an older
 * tracetools wrote) does not say (docs/hub.md, "Clocks"). */
static hub_clock unstated_clock(hub_db *d) {
  sqlite3_stmt *st = info_query(d, "rocpd_metadata",
                                "COUNT(CASE WHEN tag = 'tracetools_source' THEN 1 END), "
                                "COUNT(CASE WHEN tag = 'rpd2db.schema_version' THEN 1 END)");
  hub_clock c = HUB_CLOCK_UNKNOWN;
  if (st && sqlite3_step(st) == SQLITE_ROW)
    c = sqlite3_column_int64(st, 1) ? HUB_CLOCK_MONOTONIC
        : sqlite3_column_int64(st, 0) ? HUB_CLOCK_UNKNOWN
                                      : HUB_CLOCK_BOOT;
  sqlite3_finalize(st);
  return c;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each process's host ordinal (hostnames in name order) and label. */
void hr_name_processes(hr_inputs *in, const char *part_host) {
  const char **names = tt_calloc(in->nprocesses ? in->nprocesses : 1, sizeof *names);
  for (size_t i = 0; i < in->nprocesses; i++) names[i] = in->processes[i].hostname;
  qsort(names, in->nprocesses, sizeof *names, cmp_str);
  for (size_t i = 0; i < in->nprocesses; i++) {
    hub_process_info *p = &in->processes[i];
    int ord = 0;
    for (size_t j = 0; j < in->nprocesses && strcmp(names[j], p->hostname) < 0; j++)
      if (j == 0 || strcmp(names[j], names[j - 1]) != 0) ord++;
    p->host = ord;
    free((char *)p->label);
    p->label = process_label(p);
  }
  free(names);
  /* A pid on several hosts: the first host's keeps it, the others get
   * view pids of their own (in process order: every run gives the same). */
  int64_t next_view = HUB_VIEW_PID_BASE;
  for (size_t i = 0; i < in->nprocesses; i++) {
    hub_process_info *p = &in->processes[i];
    p->view_pid = p->pid;
    if (part_host) continue; /* a (host, pid) part: one process */
    int shadowed = 0;
    for (size_t j = 0; j < in->nprocesses && !shadowed; j++)
      shadowed = in->processes[j].pid == p->pid && in->processes[j].host < p->host;
    if (!shadowed) continue;
    p->view_pid = HUB_NULL;
    for (size_t j = 0; j < i && p->view_pid == HUB_NULL; j++) /* its host's other inputs */
      if (in->processes[j].pid == p->pid && in->processes[j].host == p->host)
        p->view_pid = in->processes[j].view_pid;
    if (p->view_pid == HUB_NULL) p->view_pid = next_view++;
  }
  hr_name_devices(in, part_host); /* devices are named by their process */
}

void hr_load_info(hr_inputs *in, int info_only, const char *part_host) {
  for (size_t i = 0; i < in->ndbs; i++) {
    hub_db *d = &in->dbs[i];
    int env = has_column(d, "rocpd_info_process", "environment");
    sqlite3_stmt *st = info_query(
        d, "rocpd_info_process",
        env ? "pid, COALESCE(command,''), " JX("extdata", "$.sort_index") ", " JX(
                  "extdata", "$.labels") ", " RANK_SQL(ENV_RANKS) ", " CLOCK_SQL
            : "pid, COALESCE(command,''), " JX("extdata", "$.sort_index") ", " JX(
                  "extdata", "$.labels") ", " RANK_SQL("") ", " CLOCK_SQL);
    hub_clock unstated = unstated_clock(d);
    /* The host a process ran on: its node row, when the hub has one. */
    char *nodes = hr_tname(d, "rocpd_info_node");
    sqlite3_stmt *host_st = NULL;
    if (hr_table_exists(d, nodes)) {
      char *sql = sqlite3_mprintf("SELECT COALESCE(n.hostname,'') FROM \"rocpd_info_process%w\" "
                                  "p JOIN \"rocpd_info_node%w\" n ON n.id = p.nid WHERE p.pid = ?1",
                                  d->suffix, d->suffix);
      host_st = hr_prep(d, sql);
      sqlite3_free(sql);
    }
    sqlite3_free(nodes);
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      tt_grow(in->processes, in->nprocesses + 1, in->cap_processes);
      hub_process_info *p = &in->processes[in->nprocesses++];
      p->db = (int)i;
      p->pid = sqlite3_column_int64(st, 0);
      p->name = tt_strdup(hr_col_text(st, 1));
      p->sort_index = sqlite3_column_type(st, 2) == SQLITE_NULL ? p->pid
                                                                : sqlite3_column_int64(st, 2);
      p->labels = tt_strdup(hr_col_text(st, 3));
      p->hostname = NULL;
      if (host_st) {
        sqlite3_reset(host_st);
        sqlite3_bind_int64(host_st, 1, p->pid);
        if (sqlite3_step(host_st) == SQLITE_ROW) p->hostname = tt_strdup(hr_col_text(host_st, 0));
      }
      /* "unknown": the hub writer's node when the source named none. */
      if (!p->hostname || strcmp(p->hostname, "unknown") == 0) {
        free((char *)p->hostname);
        p->hostname = tt_strdup("");
      }
      p->rank = col_rank(st, 4);
      p->clock = sqlite3_column_type(st, 5) == SQLITE_NULL ? unstated : hub_clock_of(hr_col_text(st, 5));
      p->to_wall_ns = sqlite3_column_type(st, 6) == SQLITE_INTEGER ? sqlite3_column_int64(st, 6)
                      : p->clock == HUB_CLOCK_WALL                 ? 0
                                                                   : HUB_NULL;
      p->label = NULL;
      if (!tt_i64map_get(&in->process_any_ix, p->pid))
        tt_i64map_put(&in->process_any_ix, p->pid, (int64_t)in->nprocesses - 1);
      if (!tt_i64map_get(&in->process_ix, hr_key_db_id((int)i, p->pid, 0)))
        tt_i64map_put(&in->process_ix, hr_key_db_id((int)i, p->pid, 0), (int64_t)in->nprocesses - 1);
    }
    sqlite3_finalize(st);
    sqlite3_finalize(host_st);
    if (info_only == HUB_INFO_PROCESSES) continue; /* --align's look */
    st = info_query(d, "rocpd_info_thread",
                    "pid, tid, COALESCE(name,''), " JX("extdata", "$.sort_index") ", CASE WHEN "
                    JX("extdata", "$.kind") " = '" HUB_WORD_GPU_LANE "' THEN " JX("extdata", "$.agent_id")
                    " END, CASE WHEN " JX("extdata", "$.kind") " = '" HUB_WORD_GPU_LANE "' THEN "
                    JX("extdata", "$.stream_id") " END, " JX("extdata", "$.kind")
                    " IN ('" HUB_WORD_GPU_LANE "', '" HUB_WORD_PROCESS_TRACKS "'), id");
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      hub_thread_info t;
      t.db = (int)i;
      t.pid = sqlite3_column_int64(st, 0);
      t.tid = sqlite3_column_int64(st, 1);
      t.name = hr_col_text(st, 2);
      t.sort_index =
          sqlite3_column_type(st, 3) == SQLITE_NULL ? t.tid : sqlite3_column_int64(st, 3);
      t.agent_id = hr_col_i64_or_null(st, 4);
      t.lane_id = hr_col_i64_or_null(st, 5);
      t.synthetic = sqlite3_column_int(st, 6);
      t.id = sqlite3_column_int64(st, 7);
      if (t.agent_id != HUB_NULL) in->has_lane_threads = 1;
      hr_add_thread(in, &t);
    }
    sqlite3_finalize(st);
    st = info_query(d, "rocpd_info_agent",
                    "id, pid, COALESCE(type_index, logical_index, absolute_index, id), "
                    "COALESCE(type,''), COALESCE(name,''), COALESCE(product_name,''), "
                    "COALESCE(extdata,'')");
    while (st && sqlite3_step(st) == SQLITE_ROW) {
      hub_agent_view a = {.db = (int)i,
                          .id = sqlite3_column_int64(st, 0),
                          .pid = sqlite3_column_int64(st, 1),
                          .type_index = sqlite3_column_int64(st, 2),
                          .type = hr_col_text(st, 3),
                          .name = hr_col_text(st, 4),
                          .product_name = hr_col_text(st, 5),
                          .extdata = hr_col_text(st, 6)};
      hr_add_agent(in, &a);
    }
    sqlite3_finalize(st);
    for (int q = 0; q < 2; q++) {
      st = info_query(d, q ? "rocpd_info_queue" : "rocpd_info_stream",
                      "id, pid, COALESCE(name,'')");
      while (st && sqlite3_step(st) == SQLITE_ROW) {
        hub_lane_info l = {.db = (int)i,
                           .id = sqlite3_column_int64(st, 0),
                           .pid = sqlite3_column_int64(st, 1),
                           .is_queue = q,
                           .name = hr_col_text(st, 2)};
        hr_add_lane(in, &l);
      }
      sqlite3_finalize(st);
    }
  }
  hr_name_processes(in, part_host);
}

void hr_add_thread(hr_inputs *in, const hub_thread_info *t) {
  tt_grow(in->threads, in->nthreads + 1, in->cap_threads);
  in->threads[in->nthreads] = *t;
  in->threads[in->nthreads].name = tt_strdup(t->name);
  tt_i64map_put(&in->thread_ix, hr_key_db_id(t->db, t->id, 0), (int64_t)in->nthreads++);
}

void hr_add_agent(hr_inputs *in, const hub_agent_view *a) {
  tt_grow(in->agents, in->nagents + 1, in->cap_agents);
  in->agents[in->nagents] = *a;
  hub_agent_view *own = &in->agents[in->nagents];
  own->type = tt_strdup(a->type);
  own->name = tt_strdup(a->name);
  own->product_name = tt_strdup(a->product_name);
  own->extdata = tt_strdup(a->extdata ? a->extdata : "");
  own->owner_label = tt_strdup(""); /* hr_name_devices, once all are in */
  tt_i64map_put(&in->agent_ix, hr_key_db_id(a->db, a->id, 0), (int64_t)in->nagents++);
}

void hr_add_lane(hr_inputs *in, const hub_lane_info *l) {
  tt_grow(in->lanes, in->nlanes + 1, in->cap_lanes);
  in->lanes[in->nlanes] = *l;
  in->lanes[in->nlanes].name = tt_strdup(l->name);
  tt_i64map_put(&in->lane_ix, hr_key_db_id(l->db, l->id, l->is_queue + 1), (int64_t)in->nlanes++);
}

const char *hr_inputs_host(const hr_inputs *in, int db, int64_t pid) {
  int64_t *ix = tt_i64map_get(&in->process_ix, hr_key_db_id(db, pid, 0));
  if (ix) return in->processes[*ix].hostname;
  for (size_t k = 0; k < in->nprocesses; k++)
    if (in->processes[k].db == db) return in->processes[k].hostname;
  return "";
}

const hub_thread_info *hr_inputs_find_thread(const hr_inputs *in, int db, int64_t thread_id) {
  int64_t *ix = tt_i64map_get(&in->thread_ix, hr_key_db_id(db, thread_id, 0));
  return ix ? &in->threads[*ix] : NULL;
}

const hub_agent_view *hr_inputs_find_agent(const hr_inputs *in, int db, int64_t agent_id) {
  int64_t *ix = tt_i64map_get(&in->agent_ix, hr_key_db_id(db, agent_id, 0));
  return ix ? &in->agents[*ix] : NULL;
}

void hr_exclude_hosts(hr_inputs *in, const hub_filter *f) {
  if (!f->host || (f->pid == HUB_NULL && !f->npids)) return;
  /* A pack (pids): a database is read when one of them is on the host. */
  for (size_t i = 0; i < in->ndbs; i++) {
    int on_host = 0;
    if (!f->npids) on_host = strcmp(hr_inputs_host(in, (int)i, f->pid), f->host) == 0;
    for (size_t k = 0; k < f->npids && !on_host; k++)
      on_host = strcmp(hr_inputs_host(in, (int)i, f->pids[k]), f->host) == 0;
    in->dbs[i].excluded = !on_host;
  }
}

/* --- what a user asks about the inputs ---------------------------------- */

static void add_category(hub_category_count **cats, size_t *n, size_t *cap, const char *cat,
                         const char *kind, int64_t count) {
  size_t i = 0;
  while (i < *n && strcmp((*cats)[i].category, cat) != 0) i++;
  if (i == *n) {
    tt_grow(*cats, *n + 1, *cap);
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

/* The rows sql counts by category, added as `kind`. A CPU sample's frame
 * rows (HUB_SQL_IS_FRAME) count once per sample, as "cpu sample", and its
 * frame regions not at all: the exporters write them as samples. */
static int count_categories(hub_db *d, const char *sql, const char *kind,
                            hub_category_count **out, size_t *n, size_t *cap) {
  sqlite3_stmt *st = hr_prep(d, sql);
  if (!st) return -1;
  while (sqlite3_step(st) == SQLITE_ROW)
    add_category(out, n, cap, hr_col_text(st, 0), kind, sqlite3_column_int64(st, 1));
  sqlite3_finalize(st);
  return 0;
}

int hr_direct_category_counts(hr_inputs *in, hub_category_count **out, size_t *n) {
  static const char *const kinds[T_COUNT] = {"region", "kernel", "copy", "alloc", "sample"};
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  for (size_t i = 0; i < in->ndbs; i++) {
    hub_db *d = &in->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      const char *S = d->suffix;
      const char *not_frame = "NOT COALESCE(" HUB_SQL_IS_FRAME("e") ", 0)";
      char *sql =
          t == T_SAMPLE
              ? sqlite3_mprintf("SELECT COALESCE(c.string,''), count(*) FROM \"rocpd_sample%w\" x "
                                "JOIN \"rocpd_track%w\" k ON k.id = x.track_id LEFT JOIN "
                                "\"rocpd_event%w\" e ON e.id = x.event_id LEFT JOIN "
                                "\"rocpd_string%w\" c ON c.id = e.category_id WHERE "
                                "COALESCE(" JX("k.extdata", "$.kind") ",'') != '" HUB_WORD_FLOW "' "
                                "AND %s GROUP BY 1",
                                S, S, S, S, not_frame)
              : sqlite3_mprintf("SELECT COALESCE(c.string,''), count(*) FROM \"%w%w\" x LEFT JOIN "
                                "\"rocpd_event%w\" e ON e.id = x.event_id LEFT JOIN "
                                "\"rocpd_string%w\" c ON c.id = e.category_id%s GROUP BY 1",
                                hr_table_names[t], S, S, S,
                                t == T_REGION ? " WHERE NOT COALESCE(" HUB_SQL_IS_FRAME("e") ", 0)" : "");
      int rc = count_categories(d, sql, kinds[t], out, n, &cap);
      sqlite3_free(sql);
      if (rc == 0 && t == T_SAMPLE) {
        sql = sqlite3_mprintf("SELECT cat, count(*) FROM (SELECT DISTINCT COALESCE(c.string,'') "
                              "AS cat, x.track_id, x.timestamp FROM \"rocpd_sample%w\" x JOIN "
                              "\"rocpd_event%w\" e ON e.id = x.event_id LEFT JOIN "
                              "\"rocpd_string%w\" c ON c.id = e.category_id WHERE "
                              HUB_SQL_IS_FRAME("e") ") GROUP BY 1",
                              S, S, S);
        rc = count_categories(d, sql, "cpu sample", out, n, &cap);
        sqlite3_free(sql);
      }
      if (rc) return -1;
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

int64_t hr_direct_row_count(hr_inputs *in) {
  int64_t total = 0;
  for (size_t i = 0; i < in->ndbs; i++) {
    hub_db *d = &in->dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      char *sql = sqlite3_mprintf("SELECT count(*) FROM \"%w%w\"", hr_table_names[t], d->suffix);
      sqlite3_stmt *st = hr_prep(d, sql);
      sqlite3_free(sql);
      if (st && sqlite3_step(st) == SQLITE_ROW) total += sqlite3_column_int64(st, 0);
      sqlite3_finalize(st);
    }
  }
  return total;
}

void hr_keep_metadata(hub_db *to, const hr_inputs *in, int gdb) {
  hub_db *d = &in->dbs[gdb];
  if (!d->conn) { /* g read in passes itself (a file of many uuids) */
    if (d->metadata.len) tt_buf_append(&to->metadata, d->metadata.data, d->metadata.len);
    return;
  }
  char *t = hr_tname(d, "rocpd_metadata");
  int exists = hr_table_exists(d, t);
  sqlite3_free(t);
  if (!exists) return;
  char *sql = sqlite3_mprintf("SELECT tag, value FROM %s ORDER BY rowid", hr_qt(d, "rocpd_metadata"));
  sqlite3_stmt *st = hr_prep(d, sql);
  sqlite3_free(sql);
  while (st && sqlite3_step(st) == SQLITE_ROW) {
    const char *tag = hr_col_text(st, 0);
    tt_buf_append(&to->metadata, tag, strlen(tag) + 1);
    if (sqlite3_column_type(st, 1) == SQLITE_NULL) {
      tt_buf_append(&to->metadata, "", 1);
    } else {
      const char *v = hr_col_text(st, 1);
      tt_buf_append(&to->metadata, "\1", 1);
      tt_buf_append(&to->metadata, v, strlen(v) + 1);
    }
  }
  sqlite3_finalize(st);
}

