/* The streaming reader: the one place that knows the hub's SQL.
 *
 * Opens any number of hub databases read-only, finds their physical
 * rocpd_* tables itself (views and triggers in an input are never trusted),
 * and yields the rows of every table of every database as ONE stream in
 * global start-time order: a k-way merge (binary heap) over one cursor per
 * (database, table). Memory holds one row per cursor plus the small info
 * tables (processes, threads, agents, streams), never the events. */
#ifndef TT_HUB_READER_H
#define TT_HUB_READER_H
#include <stddef.h>
#include <stdint.h>

#include "hub_writer.h" /* HUB_NULL */

typedef enum hub_kind {
  HUB_REGION,  /* CPU interval on a thread (API call, op, NVTX range) */
  HUB_KERNEL,  /* GPU interval on a stream/queue (kernel, memset, ...) */
  HUB_COPY,    /* memory copy (GPU lane when it has a stream/queue) */
  HUB_ALLOC,   /* memory allocate/free */
  HUB_INSTANT, /* zero-length sample on a thread track */
  HUB_COUNTER, /* counter sample: value on a counter track */
  HUB_FLOW,    /* one recorded end of a flow arrow (Kineto s/t/f) */
  HUB_KIND_COUNT
} hub_kind;

const char *hub_kind_name(hub_kind k);

#define HUB_CLIP_START 1u /* the event began before this part */
#define HUB_CLIP_END 2u   /* the event goes on after this part */

typedef struct hub_record {
  hub_kind kind;
  int db;           /* index of the input database */
  int64_t row_id;   /* id in its table */
  int64_t event_id; /* rocpd_event id (args), or HUB_NULL */
  int64_t start, end;
  unsigned clipped;
  int64_t pid, tid;       /* tid HUB_NULL when the row has none */
  int64_t agent_id;       /* GPU work: rocpd_info_agent id, else HUB_NULL */
  int64_t lane_id;        /* GPU work: stream id (or queue id), else HUB_NULL */
  int lane_is_queue;      /* lane_id names a queue, not a stream */
  int64_t track_id;       /* samples: rocpd_track id */
  const char *name;       /* never NULL; valid until the next hub_reader_next */
  const char *kernel_name; /* kernels: the symbol's kernel_name as the source
                            * gave it (mangled for C++), "" otherwise; `name`
                            * is the display name */
  const char *category;   /* "" when none */
  int64_t correlation_id; /* HUB_NULL when none */
  int64_t size;           /* bytes (copies, allocations), else HUB_NULL */
  double value;           /* counter value */
  char flow_phase;        /* 's', 't' or 'f' (HUB_FLOW) */
  int flow_bind_enclosing;
  /* The other end of this event's arrow, when there is one: for a flow end
   * the partner end's time; for a launching call the start of the first GPU
   * work with the same correlation; for GPU work its launch's start. Only
   * set when the database records no flows of its own (then arrows come
   * from correlation). HUB_NULL when none. */
  int64_t link_ts;
  int64_t link_id; /* flow id to draw (unique across databases) */
} hub_record;

/* The record's category, or the one its kind implies when the source had
 * none ("kernel", "gpu_memcpy", "memory"). */
const char *hub_record_category(const hub_record *ev);

/* Filters pushed into SQL. Times are absolute ns, range [start, end). */
typedef struct hub_filter {
  int64_t start, end; /* HUB_NULL: unbounded */
  const char **categories; size_t ncategories;       /* globs; any matches */
  const char **exclude_categories; size_t nexclude;  /* globs; none matches */
  const char **names; size_t nnames;                 /* globs; any matches */
  int64_t pid; /* HUB_NULL: all processes */
  /* Several processes (npids > 0, pid then unused): kept by the caller
   * while the reader is open. */
  const int64_t *pids; size_t npids;
} hub_filter;

typedef struct hub_reader hub_reader;

/* Opens every path read-only. On failure prints "PATH: reason" and
 * returns NULL (a non-SQLite file, a SQLite file that is not a rocpd hub). */
hub_reader *hub_reader_open(const char *const *paths, size_t npaths, const hub_filter *f);
void hub_reader_close(hub_reader *r);

/* Next event in global time order: 1 with *ev filled, 0 at the end, -1 on
 * a read error (message printed, naming the file and table). */
int hub_reader_next(hub_reader *r, hub_record *ev);

/* Time span [min start, max end] of everything that passes the filter's
 * pid (not its time range): max end is the latest start or end of any
 * row, whichever row it is. Returns 0 if there are no events. */
int hub_reader_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end);

/* Whether any row of process `pid` exists in any input. */
int hub_reader_pid_has_events(hub_reader *r, int64_t pid);

/* Args of an event, in position order: begin, then next until 0. One
 * iteration at a time. Strings valid until the next call. */
typedef struct hub_arg_view {
  const char *name, *type, *value;
} hub_arg_view;
void hub_args_begin(hub_reader *r, int db, int64_t event_id);
int hub_args_next(hub_reader *r, hub_arg_view *a);

/* The small info tables, loaded at open. */
typedef struct hub_process_info {
  int db;
  int64_t pid;
  const char *name; /* command; "" if unknown */
  int64_t sort_index; /* from extdata sort_index, else pid */
  const char *labels; /* from extdata labels, else "" */
  const char *hostname; /* its rocpd_info_node's hostname, else "" */
} hub_process_info;
typedef struct hub_thread_info {
  int db;
  int64_t pid, tid;
  const char *name;
  int64_t sort_index;
  /* A thread that stands for a GPU lane (hub_gpu_lane_thread): its agent
   * and stream ids, else HUB_NULL. Regions on it are read as GPU work on
   * that lane (lane_id/agent_id set), not on a CPU thread. */
  int64_t agent_id, lane_id;
  int synthetic; /* made by the hub writer for rocpd's joins: no OS thread */
} hub_thread_info;
typedef struct hub_agent_view {
  int db;
  int64_t id, pid, type_index;
  const char *type, *name, *product_name;
} hub_agent_view;
typedef struct hub_lane_info {
  int db;
  int64_t id, pid;
  int is_queue;
  const char *name;
} hub_lane_info;

size_t hub_reader_nprocesses(const hub_reader *r);
const hub_process_info *hub_reader_process(const hub_reader *r, size_t i);
size_t hub_reader_nthreads(const hub_reader *r);
const hub_thread_info *hub_reader_thread(const hub_reader *r, size_t i);
size_t hub_reader_nagents(const hub_reader *r);
const hub_agent_view *hub_reader_agent(const hub_reader *r, size_t i);
size_t hub_reader_nlanes(const hub_reader *r);
const hub_lane_info *hub_reader_lane(const hub_reader *r, size_t i);

/* Lookups by id (NULL when absent). */
const hub_process_info *hub_reader_find_process(const hub_reader *r, int64_t pid);
const hub_thread_info *hub_reader_find_thread(const hub_reader *r, int db, int64_t tid);
const hub_agent_view *hub_reader_find_agent(const hub_reader *r, int db, int64_t agent_id);
const hub_lane_info *hub_reader_find_lane(const hub_reader *r, int db, int64_t lane_id,
                                          int is_queue);
const char *hub_reader_track_name(hub_reader *r, int db, int64_t track_id);

/* Each category in the inputs with its number of events (intervals and
 * samples; flow ends left out) and the kinds that carry it ("region,
 * kernel"), sorted by category; filters are not applied. 0 on success. */
typedef struct hub_category_count {
  char *category; /* "" when the events have none */
  int64_t count;
  char *kinds;
} hub_category_count;
int hub_reader_category_counts(hub_reader *r, hub_category_count **out, size_t *n);
void hub_category_counts_free(hub_category_count *c, size_t n);

/* Rows in every event table of every input, before filters: the total a
 * progress line measures against. */
int64_t hub_reader_row_count(hub_reader *r);

size_t hub_reader_ndbs(const hub_reader *r);
const char *hub_reader_db_path(const hub_reader *r, int db);

#endif
