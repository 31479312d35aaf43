/* Private to the hub reader's files (common/hub/hub_reader*.c): the reader's
 * state and the functions its parts share. Not a public contract: tools
 * include hub_reader.h only. */
#ifndef TT_HUB_READER_INTERNAL_H
#define TT_HUB_READER_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "base/hashmap.h"
#include "hub/hub_reader.h"
#include "hub/hub_time_map.h"
#include "base/util.h"

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

/* hub_reader_links.c: a launch's GPU work, found by merging the launches
 * (read in start order) with the GPU work grouped by (correlation,
 * process) in that order (hr_links_sql): correlation ids grow with time,
 * so the two orders nearly agree; what the grouped stream passes before
 * its launch is read waits in a bounded window, and past that bound a
 * lookup goes to an indexed TEMP copy on a second connection. No join
 * SQLite would materialize and index per hub, no index in the input. */
typedef struct hr_link_info {
  int64_t start, n, last; /* first and last GPU start, how many */
  const char *starts;     /* every start when n > 1, else ""; valid until
                           * the next hr_links_find on this hub */
} hr_link_info;
char *hr_links_sql(const hub_db *d, const hub_filter *f);
/* Sets d->links when launches can be linked under f (no recorded flows,
 * not --gpu). window: entries the window may hold. 0 ok, -1 error (said). */
int hr_links_open(hub_db *d, const hub_filter *f, size_t window);
/* The GPU work of the launch (corr, pid): 1 found (*out set), 0 none,
 * -1 error (said). A group found in the stream or the window is handed
 * out once: a second launch with the same key finds none (the reader
 * links one launch per correlation anyway). */
int hr_links_find(hub_db *d, int64_t corr, int64_t pid, hr_link_info *out);
void hr_links_free(struct hr_links *l);

/* A cursor's reading of an ordered rocpd_arg: per run, a few fingers,
 * each a scan in rowid order with the groups (an event's rows) it passed
 * last, for events read a little out of id order. A thread or queue whose
 * rows rocprofv3 wrote in a batch of their own gets a finger of its own
 * (the least recently used one moves there), so its events are stepped
 * to rather than searched for. Memory: HR_ARG_FINGERS x HR_ARG_RING
 * groups per run and cursor, whatever the events. */
#ifndef HR_ARG_RING /* -DHR_ARG_RING=2 in a test build: every path taken */
#define HR_ARG_RING 256
#endif
#define HR_ARG_FINGERS 8
#define HR_ARG_AHEAD 1024 /* rows a finger steps ahead for one event at most */
typedef struct hr_arg_group {
  int64_t ev, first; /* event id, rowid of its first arg */
} hr_arg_group;
typedef struct hr_arg_finger {
  sqlite3_stmt *st; /* rowid, event_id, position, name, type, value */
  int state;        /* 0 unused, 1 on a row, 2 past its run */
  int64_t row, ev;
  hr_arg_group grp; /* the group of the current row */
  int grp_open;
  hr_arg_group ring[HR_ARG_RING];
  size_t head, len;
  int64_t lost;  /* groups of events in [lost, ev) are all in the ring */
  uint64_t used; /* when last used (least recently used moves) */
} hr_arg_finger;
typedef struct hr_arg_scan {
  hr_arg_finger *f; /* nruns * HR_ARG_FINGERS */
  int nruns;
  uint64_t clock;
} hr_arg_scan;
void hr_arg_scan_free(hr_arg_scan *s);
/* Checks once whether d's rocpd_arg is ordered (sets args.ordered). */
void hr_args_prepare(hub_db *d);
/* What that check found on one connection (checked, ordered, the runs),
 * for a reader of the same input on another: it need not scan again. */
void hr_args_order_copy(hr_db_args *to, const hr_db_args *from);

/* The tables a cursor can read. */
typedef enum { T_REGION, T_KERNEL, T_COPY, T_ALLOC, T_SAMPLE, T_COUNT } table_id;
extern const char *const hr_table_names[T_COUNT];

/* A row's place in the merge: the key of a cursor's current row, and of
 * a record merged in passes (hub_reader_passes.c), so both merges order
 * by the one comparator below. end is the row's own (a record's end is
 * raised to its start when the row ends before it starts). */
typedef struct hr_merge_key {
  int64_t start, end, row_id;
  int32_t table, db; /* table_id; index of the input (hub_db) */
} hr_merge_key;

/* Time order; at one start time a launch (region) before GPU work, since
 * the GPU work finds its launch among the launches already read; within a
 * table the enclosing interval first; samples (flow ends) last; then the
 * inputs' order and the row id: no two rows tie. */
static inline int hr_merge_less(const hr_merge_key *a, const hr_merge_key *b) {
  if (a->start != b->start) return a->start < b->start;
  if (a->table != b->table) return a->table < b->table;
  if (a->end != b->end) return a->end > b->end;
  if (a->db != b->db) return a->db < b->db;
  return a->row_id < b->row_id;
}

typedef struct cursor {
  union { /* the heap key of the current row, by field or as one key */
    hr_merge_key key;
    struct {
      int64_t start, end, row_id;
      int32_t table, db; /* fixed for the cursor */
    };
  };
  sqlite3_stmt *st;
  int64_t raw_start, raw_end; /* the row's times as recorded (key: mapped) */
  /* Its table's args in the cursor's order (hr_args_sql), stepped along
   * as events are read: no lookup per event. */
  sqlite3_stmt *args_st;
  int args_state;           /* 0 not prepared, 1 on a row, 2 done, 3 failed */
  int args_taken;           /* the current row's args were read */
  hr_merge_key a_key; /* key of the args row it is on (same table and db) */
  hr_arg_scan *scan; /* ordered rocpd_arg: its scan, made at its first args */
} cursor;

/* The reader's two ways of reading behind one table: a direct merge of
 * the inputs' cursors (hr_direct_ops), or the merge in passes
 * (hr_passes_ops, hub_reader_passes.c). Each public function of
 * hub_reader.h that reads calls through r->ops. */
typedef struct hr_ops {
  int (*next)(hub_reader *r, hub_record *ev);
  void (*args_begin)(hub_reader *r, int db, int64_t event_id);
  int (*args_next)(hub_reader *r, hub_arg_view *a);
  const char *(*track_name)(hub_reader *r, int db, int64_t track_id);
  int (*time_span)(hub_reader *r, int64_t *min_start, int64_t *max_end);
  /* pid of host (NULL: any; in passes always any) has a row */
  int (*process_has_events)(hub_reader *r, const char *host, int64_t pid);
  int64_t (*row_count)(hub_reader *r);
  int (*category_counts)(hub_reader *r, hub_category_count **out, size_t *n);
} hr_ops;
extern const hr_ops hr_direct_ops, hr_passes_ops, hr_tap_ops, hr_replay_ops;

/* hub_reader_records.c: a record on disk, as the merge in passes and a
 * spool keep them: this fixed part, then `payload` bytes of
 * NUL-terminated strings (name, kernel_name, category, track name, link
 * starts, then name, type and value of each of its nargs args). */
typedef struct hr_disk_rec {
  hr_merge_key key; /* in passes: key.db the index in all inputs */
  hub_record ev;    /* every field as read; the strings NULL (the payload) */
  uint32_t nargs, payload;
} hr_disk_rec;
/* An unlinked temporary file in hr_temp_dir() (TMPDIR, else /tmp); NULL
 * when none can be made (errno says why). */
FILE *hr_temp_file(void);
int hr_temp_fd(void); /* the same as a descriptor, -1 */
const char *hr_temp_dir(void);
/* d and pay from ev, the record g read last: its track name and args read
 * through `ops` (g's own, or the ones a tap wraps). d->key is zero. */
void hr_rec_pack(hub_reader *g, const hr_ops *ops, const hub_record *ev, hr_disk_rec *d,
                 tt_buf *pay);
int hr_rec_write(FILE *f, const hr_disk_rec *d, const tt_buf *pay); /* 1 ok, 0 error */
int hr_rec_read(FILE *f, hr_disk_rec *d, tt_buf *pay); /* 1, 0 at the end, -1 error */
/* ev from d, its strings pointing into payload. */
void hr_rec_view(const hr_disk_rec *d, const char *payload, hub_record *ev);
/* String k of a payload (0 name ... 3 track name, 4 link starts, 5 on: args). */
const char *hr_rec_str(const char *payload, unsigned k);
/* The args of a record on disk, one after the other. */
typedef struct hr_rec_args {
  const char *at;
  uint32_t left;
} hr_rec_args;
void hr_rec_args_begin(hr_rec_args *it, const hr_disk_rec *d, const char *payload);
int hr_rec_args_next(hr_rec_args *it, hub_arg_view *a);

/* hub_reader_spool.c: a tap writes every record its reader reads into a
 * spool (hub_reader_spool_into); a replay reader reads a spool's records
 * instead of its inputs' rows (hub_filter.replay), its info read as usual. */
struct hr_tap;
struct hr_replay;
int hr_replay_start(hub_reader *r); /* 0, or -1 (said) */
void hr_tap_free(hub_reader *r);
void hr_replay_free(hub_reader *r);

struct hub_reader {
  const hr_ops *ops;
  char *metadata_value; /* hub_reader_metadata's last answer */
  hub_db *dbs;
  size_t ndbs, cap_dbs;
  cursor *cursors;
  cursor **heap;
  size_t ncursors, heap_len;
  cursor *to_advance; /* yielded last time; stepped on the next call */
  int primed;         /* every cursor stepped to its first row */
  hub_filter filter;
  hub_process_info *processes; size_t nprocesses, cap_processes;
  hub_thread_info *threads; size_t nthreads, cap_threads;
  hub_agent_view *agents; size_t nagents, cap_agents;
  hub_lane_info *lanes; size_t nlanes, cap_lanes;
  tt_i64map process_ix, thread_ix, agent_ix, lane_ix; /* (db, id) hashed -> index */
  tt_i64map process_any_ix; /* pid -> index of its first process */
  /* The args being iterated (hub_reader_args.c): how, and from where. */
  enum { HR_ARGS_NONE, HR_ARGS_COPIED, HR_ARGS_MERGED, HR_ARGS_LOOKUP } args_mode;
  sqlite3_stmt *args_iter; /* LOOKUP: the statement stepped */
  cursor *args_cur;         /* MERGED: the cursor whose args query is stepped */
  struct hr_arg_row *args_rows; /* COPIED: the event's rows, in position order */
  size_t args_nrows, args_caprows, args_next;
  tt_buf args_text;         /* COPIED: their strings */
  int args_step;            /* step before the next row (MERGED) */
  int failed;
  /* Launches read whose GPU work is still ahead: (db, pid, correlation)
   * -> launch start, and -> start of its last GPU work (to forget it once
   * the stream has passed it). Bounded by the launches in flight. */
  tt_i64map pending_launch, pending_gpu;
  /* ... and the number of its arrows, and how many were taken. */
  tt_i64map pending_n, pending_taken;
  uint64_t since_sweep;
  int has_lane_threads; /* some thread stands for a GPU lane */
  struct hr_passes *passes; /* set when reading in passes (hub_reader_passes.c) */
  struct hr_tap *tap;       /* writing a spool (hub_reader_spool.c) */
  struct hr_replay *replay; /* reading one */
  /* A slice reader: of its one file, only the uuids first..first+count-1
   * (in name order). 0: every uuid. */
  size_t slice_first, slice_count;
  int crowded; /* a file holds more than HR_MAX_HUBS_PER_CONN uuids */
};

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
int hr_open_file(hub_reader *r, const char *path);
int hr_refuse_duplicates(const hub_reader *r, const char *const *paths, size_t npaths);
/* The inputs' order, whatever the order of the arguments: by uuid suffix
 * (a merged file lists its uuids in that order too), then path. It decides
 * the merge's ties, the info tables' order and the arrows' ids. */
int hr_db_order(const char *suffix_a, const char *path_a, const char *suffix_b,
                const char *path_b);
void hr_order_dbs(hub_reader *r);
/* The smallest uuid suffix of a file's hubs ("" when it has none or
 * cannot be read: the reader of its group says why). */
char *hr_file_order_key(const char *path);

/* hub_filter.time_plan (hub_reader_time_plan.c). take: a plan already
 * made becomes f->time_maps. pending: a plan this open must make. direct:
 * every path's info (r holds them all, loaded) to the plan, its maps on
 * r's inputs (0 when none is pending). survey: each path opened alone for
 * the plan (a reader in passes), in order, keys[i] its order key (as
 * hr_file_order_key; NULL past a failure). 0, or -1 when one cannot be
 * read or the plan refuses it (said). ready: the plan's maps, after the survey. */
void hr_time_plan_take(hub_filter *f);
/* d's map onto the run's timeline from maps (by its path; none when it
 * moves nothing). */
void hr_db_map_times(hub_db *d, const hub_time_maps *maps);
int hr_time_plan_pending(const hub_filter *f);
int hr_time_plan_direct(hub_reader *r, const char *const *paths, size_t npaths);
int hr_time_plan_survey(hub_reader *r, const char *const *paths, size_t n, char **keys);
int hr_time_plan_ready(hub_reader *r);

/* Columns every cursor query returns, in this order (hub_reader_sql.c
 * names each by these, hub_reader.c reads them). */
enum {
  C_ID, C_START, C_END, C_PID, C_TID, C_NAME, C_CAT, C_CORR, C_EVENT, C_AGENT, C_LANE,
  C_LANE_IS_QUEUE, C_SIZE, C_TRACK, C_VALUE, C_TRACK_KIND, C_PH, C_BP, C_LINK,
  C_MANGLED, /* only in the kernel query */
  /* only in the copy query: its source and destination agents */
  C_SRC_AGENT = C_MANGLED, C_DST_AGENT,
  C_NCOLS /* the most any query returns */
};

/* The direct reader's parts of hr_direct_ops (hub_reader.c,
 * hub_reader_args.c, hub_reader_info.c). */
int hr_direct_next(hub_reader *r, hub_record *ev);
void hr_direct_args_begin(hub_reader *r, int db, int64_t event_id);
int hr_direct_args_next(hub_reader *r, hub_arg_view *a);
int64_t hr_direct_row_count(hub_reader *r);
int hr_direct_category_counts(hub_reader *r, hub_category_count **out, size_t *n);

/* hub_reader.c: the id of the arrow of correlation `id` in input `db`
 * (category `cat` for recorded flows, "" for launch links). */
int64_t hr_link_id(int db, const char *cat, int64_t id);

const char *hr_args_lookup_source(hub_db *d); /* table args are looked up by event in */

/* hub_reader_sql.c: the SQL of one cursor (a table of one hub, filtered),
 * and of its args: (start, end, id, name, type, value) in the cursor's
 * order (start, end descending, id), each event's args by position. */
char *hr_cursor_sql(const hub_db *d, table_id t, const hub_filter *f);
char *hr_args_sql(const hub_db *d, table_id t, const hub_filter *f);

/* hub_reader_info.c: processes, threads, agents and lanes of every input. */
void hr_load_info(hub_reader *r);
/* Appends a thread, an agent or a lane to the reader's tables (its strings
 * copied) and indexes it by input and id (a lane also by stream/queue):
 * once for what hr_load_info reads and what a grouped reader takes in. */
void hr_add_thread(hub_reader *r, const hub_thread_info *t);
void hr_add_agent(hub_reader *r, const hub_agent_view *a);
void hr_add_lane(hub_reader *r, const hub_lane_info *l);
/* Keeps input gdb of g's rocpd_metadata in `to` (an input of a reader in
 * passes, which has no connection to ask: hub_reader_metadata reads it). */
void hr_keep_metadata(hub_db *to, hub_reader *g, int gdb);
/* Sets every process's host ordinal and label (after all are loaded). */
void hr_name_processes(hub_reader *r);
/* hub_reader_devices.c: each agent's gpu_view and owner_label, once the
 * processes are named (their hosts and view pids known). */
void hr_name_devices(hub_reader *r);
/* Marks the inputs the filter's host leaves out (hub_db.excluded). */
void hr_exclude_hosts(hub_reader *r);
/* Whether process pid of host (NULL: any) has a row in the inputs. */
static inline int hr_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  return r->ops->process_has_events(r, host, pid);
}

/* hub_reader_passes.c: more inputs than may be open at once (descriptors
 * under RLIMIT_NOFILE less a reserve, or HR_MAX_OPEN_INPUTS for memory)
 * are merged group by group into temporary record streams, then those
 * merged: the same records, in the same order, as a direct merge. */
#define HR_MAX_OPEN_INPUTS 256
/* Inputs merged at once in a pass: streams that interleave in time (ranks
 * of one job, aligned by --align) make every row a different connection's,
 * and a merge of 256 of them runs about 1.3x slower than of 64 (1000
 * rocprofv3-shaped hubs: the same instructions, more cache misses; a 64-way
 * pass holds a quarter of the connections, peak RSS 84 -> 27 MB). 32 is no
 * faster. A direct read of up to 256 stays direct: its passes would cost more. */
#define HR_PASS_GROUP_MAX 64
#define HR_MAX_HUBS_PER_CONN 100 /* uuids of one file read at once */
size_t hr_passes_group(size_t npaths); /* inputs per group, 0: read directly */
/* hubs[i]: uuids in paths[i] (NULL: one each); a file of more than
 * HR_MAX_HUBS_PER_CONN is read in slices, each its own group. */
hub_reader *hr_passes_open(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t group, const size_t *hubs);
/* hub_reader.c: a direct reader; with slice_count, of paths[0]'s uuids
 * slice_first.. only. */
hub_reader *hr_open_direct(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t slice_first, size_t slice_count);
/* The direct reader's cursors and links, on r's inputs (opened, their
 * info loaded, r->filter final): 0, or -1 (said). */
int hr_direct_prepare(hub_reader *r);
/* A direct reader found a file of more than HR_MAX_HUBS_PER_CONN uuids:
 * closes it and reads the same paths in passes. */
hub_reader *hr_passes_crowded(hub_reader *r, const char *const *paths, size_t npaths);
void hr_passes_free(hub_reader *r); /* its part of hub_reader_close */

#endif
