/* The rows rocpd's views join on, completed once at hub_writer_finish.
 *
 * rocpd's tools read a hub through rocprofiler-sdk's views (data_views.sql;
 * how, in docs/hub.md), which INNER JOIN process, thread, agent, queue,
 * kernel symbol, string and event rows: a row lacking any of them silently
 * drops out of `kernels`, `memory_copies`, `samples`... Importers write
 * what their source says; what it leaves unsaid is completed here: GPU
 * work gets the thread of the call that launched it, else the thread of
 * its GPU lane; a sample track gets its lane's thread; a copy's host side
 * gets the node's CPU agent. (Each kernel's queue row is written with the
 * kernel, hub_writer.c's kernel_queue.) tests/tools/test_rocpd_views.sh
 * checks every view's count against the physical rows. */
#include <sqlite3.h>
#include <stdlib.h>

#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_writer_internal.h"

static int64_t col_or_null(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? HUB_NULL : sqlite3_column_int64(st, i);
}

/* The integer rows of a SELECT (NULL as HUB_NULL), ncols per row, *n rows;
 * collected before the caller writes rows (new lane threads). Used on
 * groups (streams, tracks), never on events. Caller frees. */
static int64_t *select_rows(hub_writer *w, const char *tmpl, int ncols, size_t *n) {
  int64_t *g = NULL;
  size_t cap = 0;
  *n = 0;
  sqlite3_stmt *st = hw_sql_run(w, 1, tmpl, 0, NULL);
  while (sqlite3_step(st) == SQLITE_ROW) {
    tt_grow(g, (*n + 1) * (size_t)ncols, cap); /* cap counts values, not rows */
    for (int c = 0; c < ncols; c++) g[*n * (size_t)ncols + (size_t)c] = col_or_null(st, c);
    (*n)++;
  }
  sqlite3_finalize(st);
  return g;
}

/* The GPU agent of a copy: the side that is a GPU (the other may be the
 * host's CPU agent). */
#define COPY_GPU_AGENT                                                                    \
  "COALESCE((SELECT a.id FROM \"rocpd_info_agent{{uuid}}\" a WHERE a.id = m.dst_agent_id " \
  "AND a.type = 'GPU'), (SELECT a.id FROM \"rocpd_info_agent{{uuid}}\" a WHERE a.id = "    \
  "m.src_agent_id AND a.type = 'GPU'), m.dst_agent_id, m.src_agent_id)"

/* GPU work rows with no thread: first the thread of the call that launched
 * them (the region of the same process with the same correlation id, as
 * rocprofv3 records the dispatching thread), else their lane's thread. */
static void gpu_work_threads(hub_writer *w) {
  static const char *const tables[3] = {"rocpd_kernel_dispatch", "rocpd_memory_copy",
                                        "rocpd_memory_allocate"};
  static const char *const agent[3] = {"m.agent_id", COPY_GPU_AGENT, "m.agent_id"};
  /* One pass over the regions into an indexed TEMP table: each lookup
   * below is then a key search, never a scan. The first region by (start,
   * id) of each (pid, correlation) is kept as it arrives, NULL starts
   * first as ORDER BY puts them: sorting every region by start first cost
   * more than the rest of this pass (kineto2db: 9% of its instructions
   * were this function, run after the parsing thread is done). */
  hw_sql_exec(w, "CREATE TEMP TABLE tt_launch (pid INTEGER, corr INTEGER, start INTEGER, "
                 "id INTEGER, tid INTEGER, PRIMARY KEY (pid, corr)) WITHOUT ROWID;"
                 "INSERT INTO tt_launch SELECT r.pid, e.correlation_id, r.start, r.id, r.tid FROM "
                 "\"rocpd_region{{uuid}}\" r NOT INDEXED JOIN \"rocpd_event{{uuid}}\" e ON e.id = "
                 "r.event_id WHERE e.correlation_id IS NOT NULL ON CONFLICT DO UPDATE SET start = "
                 "excluded.start, id = excluded.id, tid = excluded.tid WHERE (excluded.start IS "
                 "NULL AND start IS NOT NULL) OR excluded.start < start OR (excluded.start IS "
                 "start AND excluded.id < id);"
                 "CREATE TEMP TABLE tt_lane (pid INTEGER, agent INTEGER, stream INTEGER, "
                 "tid INTEGER, PRIMARY KEY (pid, agent, stream)) WITHOUT ROWID;");
  tt_buf sql = {0};
  for (int t = 0; t < 3; t++) {
    tt_buf_clear(&sql);
    tt_buf_printf(&sql,
                  "UPDATE \"%s{{uuid}}\" AS m SET tid = (SELECT l.tid FROM tt_launch l WHERE "
                  "l.pid = m.pid AND l.corr = (SELECT e.correlation_id FROM "
                  "\"rocpd_event{{uuid}}\" e WHERE e.id = m.event_id)) WHERE tid IS NULL",
                  tables[t]);
    hw_sql_run(w, 0, sql.data, 0, NULL);
    tt_buf_clear(&sql);
    tt_buf_printf(&sql,
                  "SELECT DISTINCT m.pid, %s, m.stream_id FROM \"%s{{uuid}}\" m WHERE m.tid IS "
                  "NULL",
                  agent[t], tables[t]);
    size_t n;
    int64_t *g = select_rows(w, sql.data, 3, &n);
    for (size_t i = 0; i < n; i++) {
      int64_t p[4] = {g[3 * i], g[3 * i + 1] == HUB_NULL ? -1 : g[3 * i + 1],
                      g[3 * i + 2] == HUB_NULL ? -1 : g[3 * i + 2],
                      hub_gpu_lane_thread(w, g[3 * i], g[3 * i + 1], g[3 * i + 2])};
      hw_sql_run(w, 0, "INSERT OR IGNORE INTO tt_lane VALUES (?1, ?2, ?3, ?4)", 4, p);
    }
    free(g);
    tt_buf_clear(&sql);
    tt_buf_printf(&sql,
                  "UPDATE \"%s{{uuid}}\" AS m SET tid = (SELECT l.tid FROM tt_lane l WHERE "
                  "l.pid = m.pid AND l.agent = COALESCE(%s, -1) AND l.stream = "
                  "COALESCE(m.stream_id, -1)) WHERE tid IS NULL",
                  tables[t], agent[t]);
    hw_sql_run(w, 0, sql.data, 0, NULL);
  }
  tt_buf_free(&sql);
  hw_sql_exec(w, "DROP TABLE temp.tt_launch; DROP TABLE temp.tt_lane;");
}

/* Sample tracks with no thread (counters of a process or device, flow
 * ends on a GPU stream): the thread of their lane, one per device. */
static void track_threads(hub_writer *w) {
  size_t n;
  int64_t *g = select_rows(
      w,
      "SELECT id, pid, CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.agent_id') "
      "END, CASE WHEN json_valid(extdata) THEN json_extract(extdata, '$.stream_id') END FROM "
      "\"rocpd_track{{uuid}}\" WHERE tid IS NULL AND pid IS NOT NULL",
      4, &n);
  for (size_t i = 0; i < n; i++) {
    int64_t p[2] = {g[4 * i], hub_gpu_lane_thread(w, g[4 * i + 1], g[4 * i + 2], g[4 * i + 3])};
    hw_sql_run(w, 0, "UPDATE \"rocpd_track{{uuid}}\" SET tid = ?2 WHERE id = ?1", 2, p);
  }
  free(g);
}

/* The memory_copies view joins both agents: the host side of a copy is
 * the node's CPU agent. */
static void copy_host_agents(hub_writer *w, hw_batches *bs) {
  sqlite3_stmt *st = hw_sql_run(w, 1,
                                "SELECT pid FROM \"rocpd_memory_copy{{uuid}}\" WHERE src_agent_id "
                                "IS NULL OR dst_agent_id IS NULL LIMIT 1",
                                0, NULL);
  int64_t pid = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : HUB_NULL;
  sqlite3_finalize(st);
  if (pid == HUB_NULL) return;
  hub_agent_info a = {.pid = pid, .type = "CPU", .type_index = 0, .name = "CPU"};
  int64_t p[1] = {hub_agent(w, &a)};
  hw_flush_table(bs, ST_AGENT);
  hw_sql_run(w, 0,
             "UPDATE \"rocpd_memory_copy{{uuid}}\" SET src_agent_id = COALESCE(src_agent_id, ?1), "
             "dst_agent_id = COALESCE(dst_agent_id, ?1) WHERE src_agent_id IS NULL OR "
             "dst_agent_id IS NULL",
             1, p);
}

void hw_complete_joins(hub_writer *w, hw_batches *bs, int gpu_rows_without_tid,
                       int copies_without_agent) {
  hw_flush_all(bs);
  if (gpu_rows_without_tid) gpu_work_threads(w);
  track_threads(w);
  if (copies_without_agent) copy_host_agents(w, bs);
  hw_flush_all(bs);
}
