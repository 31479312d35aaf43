/* Private to the hub reader's files: its inputs, the layer below every
 * reading (hub_reader_inputs.c opens and checks each file and its hubs,
 * hub_reader_schema.c reads a file's tables and indexes once,
 * hub_reader_info.c and hub_reader_devices.c load and name the info
 * tables). Nothing here reads a stream or knows a reader. */
#ifndef TT_HUB_READER_INPUTS_H
#define TT_HUB_READER_INPUTS_H

#include <sqlite3.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "hub/hub_record.h"
#include "hub/hub_time_map.h"

#define HR_ARG_MAX_RUNS 8 /* runs of an ordered rocpd_arg read by fingers */

/* hub_reader_schema.c: the table names of one file and the first column
 * of each index, read once per connection (hashed: lookups per uuid stay
 * linear in a merged file of thousands of tables). */
typedef struct hr_schema hr_schema;
hr_schema *hr_schema_load(sqlite3 *conn);
void hr_schema_free(hr_schema *s);
int hr_schema_has_table(const hr_schema *s, const char *name);
int hr_schema_has_index_on(const hr_schema *s, const char *table, const char *column);

/* A hub's rocpd_arg and how its rows are found (hub_reader_args.c). */
typedef struct hr_db_args {
  int present; /* the hub has a rocpd_arg */
  /* Where args are looked up by event id (hr_args_lookup_source): the
   * hub's rocpd_arg when indexed on event_id, else an indexed TEMP copy
   * made at the first lookup (rocprofv3 writes no such index: a lookup per
   * event would scan the table each time). */
  char *src;
  int indexed, copied;
  sqlite3_stmt *st; /* the lookup by event id */
  /* rocpd_arg as a few runs of rows in (event_id, position) order, one
   * after the other in rowid order: one run as importers and rocprofv3
   * write it, one per position when written position-major. Then args
   * are stepped in rowid order and found by rowid, never by an index or
   * a copy. */
  int checked, ordered;
  int nruns;
  int64_t run_lo[HR_ARG_MAX_RUNS], run_hi[HR_ARG_MAX_RUNS]; /* rowids */
  int64_t min_ev, max_ev; /* event ids with args lie within */
  sqlite3_stmt *from_st, *probe_st;
  struct hr_arg_scan *orphans; /* fingers for events read out of stream order */
} hr_db_args;

/* One logical hub: a connection and the uuid suffix of its physical tables
 * (a file merged by rocpd's tools can hold several). */
typedef struct hub_db {
  sqlite3 *conn;
  int owns_conn; /* and its schema */
  hr_schema *schema; /* shared by the hubs of one file */
  char *path;
  char *suffix; /* "_<uuid>" or "" */
  struct hr_qnames *qnames; /* hr_qt's quoted table names, made once each */
  int has_table[HUB_KIND_COUNT];
  int has_flows;       /* the source recorded flow ends itself */
  /* Its recorded flows stand for its launch arrows (has_flows and not
   * tagged HUB_LAUNCH_ARROWS_TAG: a hub written before the writer folded
   * launch flows into links): launches then draw no arrow of their own. */
  int flows_are_launch_arrows;
  /* --align: the map of its times onto the run's timeline (NULL: none);
   * link_starts holds a launch's mapped GPU starts. */
  const hub_time_map *tmap;
  tt_buf link_starts;
  int can_link;        /* launches can be linked to their GPU work (recorded
                        * flows: their partners can be looked up by key) */
  /* Where a recorded flow end's partner is looked up: the hub's
   * rocpd_event and rocpd_sample when indexed on correlation_id and
   * event_id (as every hub written here is), else indexed TEMP copies of
   * the flow rows, made when the input is opened (flow_copies). */
  char *flow_ev_src, *flow_sm_src;
  hr_db_args args; /* its rocpd_arg and how it is read */
  sqlite3_stmt *track_st;
  int excluded; /* the filter's (host, pid) is not this input's: no rows */
  struct hr_links *links; /* launches' GPU work (hub_reader_links.c); NULL: no arrows */
  /* Read in passes (no connection): its rocpd_metadata, kept when its
   * group was read (hr_keep_metadata), as "tag\0" then "\1value\0" (or
   * "\0" for a NULL value) per row, in rowid order. */
  tt_buf metadata;
} hub_db;

/* The tables a cursor can read. */
typedef enum { T_REGION, T_KERNEL, T_COPY, T_ALLOC, T_SAMPLE, T_COUNT } table_id;
extern const char *const hr_table_names[T_COUNT];

/* A reader's inputs (hub_reader_inputs.c opens them, hub_reader_info.c
 * and hub_reader_devices.c load their info): each hub of each file, and
 * the info tables of them all with their indexes. Loaded before any
 * stream, and only read while one is read. */
typedef struct hr_inputs {
  hub_db *dbs;
  size_t ndbs, cap_dbs;
  hub_process_info *processes; size_t nprocesses, cap_processes;
  hub_thread_info *threads; size_t nthreads, cap_threads;
  hub_agent_view *agents; size_t nagents, cap_agents;
  hub_lane_info *lanes; size_t nlanes, cap_lanes;
  tt_i64map process_ix, thread_ix, agent_ix, lane_ix; /* (db, id) hashed -> index */
  tt_i64map process_any_ix; /* pid -> index of its first process */
  int has_lane_threads; /* some thread stands for a GPU lane */
  /* A slice reader: of its one file, only the uuids first..first+count-1
   * (in name order). 0: every uuid. */
  size_t slice_first, slice_count;
  int crowded; /* a file holds more than HR_MAX_HUBS_PER_CONN uuids */
} hr_inputs;

/* JSON member of a column, NULL when the column is not valid JSON. */
#define JX(col, path) "(CASE WHEN json_valid(" col ") THEN json_extract(" col ",'" path "') END)"

static inline const char *hr_col_text(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  return s ? s : "";
}

static inline int64_t hr_col_i64_or_null(sqlite3_stmt *st, int i) {
  return sqlite3_column_type(st, i) == SQLITE_NULL ? HUB_NULL : sqlite3_column_int64(st, i);
}

/* (db, id) as one hashed key; salt tells id spaces apart (lane kinds). */
static inline int64_t hr_key_db_id(int db, int64_t id, int salt) {
  return (int64_t)(((uint64_t)db << 48) ^ ((uint64_t)salt << 46) ^ (uint64_t)id);
}

/* A time of input d on the run's timeline (hub_filter.time_maps). */
static inline int64_t hr_map_time(const hub_db *d, int64_t t) {
  return d->tmap && t != HUB_NULL ? hub_time_map_apply(d->tmap, t) : t;
}
/* The filter f as input d's SQL sees it: its time range in d's clock. */
static inline hub_filter hr_db_filter(const hub_db *d, const hub_filter *f) {
  hub_filter g = *f;
  if (d->tmap) {
    if (g.start != HUB_NULL) g.start = hub_time_map_invert(d->tmap, g.start);
    if (g.end != HUB_NULL) g.end = hub_time_map_invert(d->tmap, g.end);
  }
  return g;
}

/* hub_reader_inputs.c: opening and checking each input file. */
sqlite3_stmt *hr_prep(hub_db *d, const char *sql); /* NULL (error said) on failure */
int hr_table_exists(const hub_db *d, const char *name);
char *hr_tname(const hub_db *d, const char *base); /* sqlite3_free() it */
/* The one way a physical table's name enters SQL: "<base><suffix>" as a
 * quoted identifier, every '"' doubled (none can be: hub_catalog.h's
 * suffix grammar), kept by d until it closes (hr_qnames_free). */
const char *hr_qt(const hub_db *d, const char *base);
void hr_qnames_free(hub_db *d);
int hr_open_file(hr_inputs *in, const char *path);
int hr_refuse_duplicates(const hr_inputs *in, const char *const *paths, size_t npaths);
/* The inputs' order, whatever the order of the arguments: by uuid suffix
 * (a merged file lists its uuids in that order too), then path. It decides
 * the merge's ties, the info tables' order and the arrows' ids. */
int hr_db_order(const char *suffix_a, const char *path_a, const char *suffix_b,
                const char *path_b);
void hr_order_dbs(hr_inputs *in);
/* The smallest uuid suffix of a file's hubs ("" when it has none or
 * cannot be read: the reader of its group says why). */
char *hr_file_order_key(const char *path);

/* d's map onto the run's timeline from maps (by its path; none when it
 * moves nothing). */
void hr_db_map_times(hub_db *d, const hub_time_maps *maps);

#define HR_MAX_HUBS_PER_CONN 100 /* uuids of one file read at once */

/* hub_reader_info.c: processes, threads, agents and lanes of every input
 * (info_only HUB_INFO_PROCESSES: the processes only), named for a part
 * of one (host, pid) when part_host is set (NULL: the whole run). */
void hr_load_info(hr_inputs *in, int info_only, const char *part_host);
/* Appends a thread, an agent or a lane to the inputs' tables (its strings
 * copied) and indexes it by input and id (a lane also by stream/queue):
 * once for what hr_load_info reads and what a grouped reader takes in. */
void hr_add_thread(hr_inputs *in, const hub_thread_info *t);
void hr_add_agent(hr_inputs *in, const hub_agent_view *a);
void hr_add_lane(hr_inputs *in, const hub_lane_info *l);
/* Keeps input gdb of g's rocpd_metadata in `to` (an input of a reader in
 * passes, which has no connection to ask: hub_reader_metadata reads it). */
void hr_keep_metadata(hub_db *to, const hr_inputs *g, int gdb);
/* Sets every process's host ordinal, label and view pid (after all are
 * loaded), then names the devices. */
void hr_name_processes(hr_inputs *in, const char *part_host);
/* hub_reader_devices.c: each agent's gpu_view and owner_label, once the
 * processes are named (their hosts and view pids known). */
void hr_name_devices(hr_inputs *in, const char *part_host);
/* Marks the inputs the filter's host leaves out (hub_db.excluded). */
void hr_exclude_hosts(hr_inputs *in, const hub_filter *f);
/* Input db's thread and agent of that id (hub_reader_find_thread,
 * hub_reader_find_agent), NULL when it has none. */
const hub_thread_info *hr_inputs_find_thread(const hr_inputs *in, int db, int64_t thread_id);
const hub_agent_view *hr_inputs_find_agent(const hr_inputs *in, int db, int64_t agent_id);
/* The host of pid's rows in input db (hub_reader_host). */
const char *hr_inputs_host(const hr_inputs *in, int db, int64_t pid);/* Rows in every event table of the inputs, and their categories
 * (hub_reader_row_count, hub_reader_category_counts of a direct reader). */
int64_t hr_direct_row_count(hr_inputs *in);
int hr_direct_category_counts(hr_inputs *in, hub_category_count **out, size_t *n);
/* Closes the inputs' connections and frees their info (after every
 * statement on them is finalized: hr_merge_free). */
void hr_inputs_free(hr_inputs *in);

#endif
