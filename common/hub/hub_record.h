/* What the streaming reader (hub_reader.h) yields and answers, as data:
 * the records of its stream, the filter it reads under, the args of an
 * event, and the rows of the inputs' small info tables; with what a
 * record says beyond its fields (hub_record.c). Below the reader and its
 * parts, which all speak these types. */
#ifndef TT_HUB_RECORD_H
#define TT_HUB_RECORD_H
#include <stddef.h>
#include <stdint.h>

#include "base/util.h" /* tt_buf */
#include "hub/hub.h" /* HUB_NULL, hub_class, the hub's words */

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
  hub_class cls;    /* what it is, whatever its category's name (hub.h) */
  hub_copy_dir copy_dir; /* copies: host to device, ..., from its agents' types */
  int db;           /* index of the input database */
  int64_t row_id;   /* id in its table */
  int64_t event_id; /* rocpd_event id (args), or HUB_NULL */
  int64_t start, end;
  unsigned clipped;
  int64_t pid;
  int64_t tid;            /* the thread's row id (rocpd_info_thread.id, what
                           * rows' tid columns hold; its OS tid is that row's
                           * tid, see tt_track_of), HUB_NULL when none */
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
  /* One call may launch many GPU works (a graph launch): one arrow each.
   * A launching call: link_count arrows, to GPU work starting at
   * link_ts (the first) .. link_last; link_starts lists every start
   * ("t1,t2,...", unordered) when link_count > 1, else "". GPU work: its
   * arrow is number link_index of its launch's, and wherever launch_ts is
   * set, link_index is its number among its launch's GPU work in start
   * order (0: the first, what launch latency measures). */
  int64_t link_count, link_index, link_last;
  const char *link_starts;
  /* GPU work: the start of the call that launched it (same process and
   * correlation id), HUB_NULL when none was read. Without recorded flows
   * it is link_ts; with them, only under hub_filter.launch_times. */
  int64_t launch_ts;
} hub_record;

/* The GPU side of a trace (--gpu): hub_class_is_gpu, and waits drawn on
 * a GPU stream (Kineto's cuda_sync; nvvp2db's are on the host thread). */
static inline int hub_record_is_gpu(const hub_record *ev) {
  return hub_class_is_gpu(ev->cls) || (ev->cls == HUB_CLS_SYNC && ev->lane_id != HUB_NULL);
}

/* A record kept past the next hub_reader_next (a window split's carried
 * events, the size planner's): its strings (name, category, kernel_name,
 * link_starts) copied into one buffer it owns. Moved by value freely. */
typedef struct hub_held_record {
  hub_record ev; /* its strings point into `strings` */
  char *strings;
} hub_held_record;
void hub_record_hold(hub_held_record *h, const hub_record *ev);
void hub_record_release(hub_held_record *h);

/* The arrows of a launching call whose GPU end starts before t (so an
 * exporter writes only arrows whose both ends are in its part). */
int64_t hub_record_links_before(const hub_record *ev, int64_t t);

/* The flow id of arrow k of a launching call, or of GPU work's arrow
 * (k = its link_index): link_id for the first, distinct ids after. */
int64_t hub_arrow_id(int64_t link_id, int64_t k);

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
  int gpu_only; /* the GPU side only: records hub_record_is_gpu (--gpu) */
  /* Intervals (regions, kernels, copies, allocations) of end - start under
   * this many ns are left out, and so is GPU work's launch arrow; samples
   * (instants, counters, flow ends) stay. 0: no such filter. */
  int64_t min_duration;
  /* With pid (or pids): only the process(es) of that pid on this host
   * (its hub_process_info.hostname; "" for none), so two hosts' pid 1234
   * are two processes. NULL: any host. Kept by the caller while open. */
  const char *host;
  /* Several processes (npids > 0, pid then unused): kept by the caller
   * while the reader is open. */
  const int64_t *pids; size_t npids;
  /* GPU work gets its launch's start (hub_record.launch_ts) by correlation
   * even in an input that records its own flows (Kineto's ac2g arrows),
   * where no arrow is made from it: db2summary's launch latency. */
  int launch_times;
  /* --align: each input's times moved onto one timeline as they are read
   * (hub_time_map.h, by input path), start and end in that timeline; the
   * inputs are not changed. NULL: times as recorded. Kept by the caller
   * while the reader is open. */
  const struct hub_time_maps *time_maps;
  /* No rows: no cursor is prepared and hub_reader_next ends at once.
   * HUB_INFO_PROCESSES: the processes and metadata only (no threads,
   * agents or lanes): --align's look at each input's hosts and clocks.
   * HUB_INFO_ALL: every info table (a replay in passes' groups). */
  int info_only;
  /* A spool of this very stream (the same inputs and filter) that
   * hub_spool_usable: its records are read instead of the inputs' rows,
   * which are opened for their info only. Kept by the caller while the
   * reader is open. NULL: read the inputs. */
  struct hub_spool *replay;
} hub_filter;

enum { HUB_INFO_PROCESSES = 1, HUB_INFO_ALL = 2 }; /* hub_filter.info_only */


/* Args of an event, in position order: begin, then next until 0. One
 * iteration at a time. Strings valid until the next call. */
typedef struct hub_arg_view {
  const char *name, *type, *value;
} hub_arg_view;

/* The small info tables, loaded at open. */
/* A process is identified by (hostname, pid): the same pid on two hosts
 * is two processes (rocprofv3 writes one database per process and host). */
typedef struct hub_process_info {
  int db;
  int64_t pid;
  const char *name; /* command; "" if unknown */
  int64_t sort_index; /* from extdata sort_index, else pid */
  const char *labels; /* from extdata labels, else "" */
  const char *hostname; /* its rocpd_info_node's hostname; "" when none is
                         * recorded (the writer's placeholder "unknown") */
  int host;             /* ordinal of hostname among the inputs' hosts in
                         * name order: (host, pid) sorts as (hostname, pid) */
  /* Its rank: extdata "rank" (importers put the source's there), else the
   * environment's (rocprofv3 records it) OMPI_COMM_WORLD_RANK, PMI_RANK,
   * SLURM_PROCID or RANK, in that order; HUB_NULL when none. */
  int64_t rank;
  /* How every exporter names it: the command, then "[rank R]", the host
   * and "(pid P)" when a rank or a host is known, e.g. "python3 [rank 3]
   * nid008553 (pid 1234)"; else the command alone. */
  const char *label;
  /* The pid exporters draw it under: its pid, unless a host earlier in
   * name order has that pid too; then HUB_VIEW_PID_BASE + n, so two
   * hosts' pid 1234 are two process tracks in one file. */
  int64_t view_pid;
  /* The clock its times are in (hub.h): extdata "clock", else BOOT for a
   * hub rocprofv3 wrote (no tracetools_source metadata), MONOTONIC for
   * one rpd2db wrote, UNKNOWN for any other (docs/hub.md, "Clocks"). */
  hub_clock clock;
  /* Add to its times to get Unix-epoch ns, when the source recorded an
   * anchor (extdata "to_wall_ns"; 0 for a WALL process); HUB_NULL when
   * none is known. */
  int64_t to_wall_ns;
} hub_process_info;
#define HUB_VIEW_PID_BASE 0x7d000000LL
typedef struct hub_thread_info {
  int db;
  int64_t id;       /* row id: what hub_record.tid holds */
  int64_t pid, tid; /* tid: the OS thread id */
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
  const char *extdata; /* its extdata as stored ("" when none): Kineto's
                        * deviceProperties entry for a kineto2db hub */
  /* Which device of the run it is. An agent is its process's view of a
   * device (host, process, type_index): two hosts' GPU 0, or two ranks'
   * views of one, are two devices, so their streams never mix. Of the
   * non-CPU agents with one type_index, the first (host, process) in
   * name order has gpu_view 0; every other (host, process) has n > 0,
   * numbered 1.. over the inputs in (host, process, index) order. Only
   * when another (host, process) has its index too, owner_label names
   * it: "nodeB [rank 4]" (its host, then its rank, else "(pid P)"), else
   * "". CPU agents, and a (host, pid) part (hub_filter.host): 0 and "". */
  int64_t gpu_view;
  const char *owner_label;
} hub_agent_view;
typedef struct hub_lane_info {
  int db;
  int64_t id, pid;
  int is_queue;
  const char *name;
} hub_lane_info;

/* A category of the inputs and its count (hub_reader_category_counts). */
typedef struct hub_category_count {
  char *category; /* "" when the events have none */
  int64_t count;
  char *kinds;
} hub_category_count;

#endif
