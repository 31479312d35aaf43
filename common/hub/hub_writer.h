/* Writing a hub database (rocpd schema v3). Every importer goes through
 * this module: it owns the schema, the prepared statements, the string
 * interning and the one large transaction. Process and thread rows are
 * kept in memory (one per distinct pid/tid) and written by
 * hub_writer_finish, so importers may name them whenever the source does
 * (Kineto's metadata events can come after the events they describe).
 *
 * Errors: every call either succeeds or dies (tt_die, after removing the
 * temporary output: see "Errors in library code" in util.h). A failed
 * write is the output's fault (disk full, I/O error), never the input's;
 * the importer checks its input before it writes, so no call returns an
 * error to check. */
#ifndef TT_HUB_WRITER_H
#define TT_HUB_WRITER_H
#include <stddef.h>
#include <stdint.h>

#include "base/util.h" /* tt_buf */
#include "hub/hub.h" /* HUB_NULL, HUB_TIME_LIMIT, the kinds and types rows take */

typedef struct hub_writer hub_writer;

/* Creates the schema in a new database at `path` (normally the temporary
 * path of a tt_output). Dies with a message on failure. */
hub_writer *hub_writer_create(const char *path);
/* With n = 2, the staged rows' INSERTs run on a second thread while the
 * caller stages the next ones (the hub is the same as with n = 1). Call
 * right after hub_writer_create; needs tt_sqlite_threads(2) before it,
 * else (or n = 1) everything stays on the caller's thread. */
void hub_writer_threads(hub_writer *w, int n);
/* The dashed UUID of this database. */
const char *hub_writer_guid(const hub_writer *w);
/* Adds a rocpd_metadata row (beyond schema_version, uuid, guid). */
void hub_writer_metadata(hub_writer *w, const char *tag, const char *value);

/* Interned rocpd_string id of s. */
int64_t hub_string(hub_writer *w, const char *s);

/* The node (machine) all rows belong to; created on first use with the
 * given hostname (NULL: hub_writer_hostname's, else "unknown"). Returns
 * its id (nid). */
int64_t hub_node(hub_writer *w, const char *hostname);
/* The host the source names (nsys's Hostname, Kineto's host_name), at any
 * time before hub_writer_finish: the node row gets it as hostname and
 * machine_id (the sources record no machine id), hash = its hash. */
void hub_writer_hostname(hub_writer *w, const char *hostname);

/* Processes and threads, keyed by pid / (pid, tid). Created on first
 * mention; start/end grow to cover every event written for them. A
 * thread's row id (what rows' tid columns hold) is its tid unless another
 * process's thread took that id first: then an id of our own, from
 * HUB_LANE_TID_BASE on. Callers always pass the OS tid. A process's
 * rank, where the source records it, goes in its extdata as "rank". */
void hub_process_name(hub_writer *w, int64_t pid, const char *command);
/* Merges a JSON object's members (text "{...}") into the process extdata. */
void hub_process_extdata(hub_writer *w, int64_t pid, const char *key, const char *json_value);
/* The clock the source's times are in (hub.h) and, when the source
 * records an anchor, what to add to the hub's times for Unix-epoch ns
 * (0 for WALL; HUB_NULL: none). One source, one clock: every process row
 * states it in its extdata as "clock" and "to_wall_ns" (docs/hub.md,
 * "Clocks"). Any time before hub_writer_finish; never called: "unknown". */
void hub_writer_clock(hub_writer *w, hub_clock clock, int64_t to_wall_ns);
void hub_thread_name(hub_writer *w, int64_t pid, int64_t tid, const char *name);
void hub_thread_extdata(hub_writer *w, int64_t pid, int64_t tid, const char *key, const char *json_value);
/* Makes sure the process/thread rows exist and cover [start, end]. */
void hub_touch_thread(hub_writer *w, int64_t pid, int64_t tid, int64_t start, int64_t end);
void hub_touch_process(hub_writer *w, int64_t pid, int64_t start, int64_t end);

/* Agents: deduplicated on (type, type_index). Returns the agent id. */
typedef struct hub_agent_info {
  int64_t pid;
  const char *type; /* "CPU" or "GPU" */
  int64_t type_index;
  const char *name, *model_name, *vendor_name, *product_name;
  const char *extdata; /* JSON object text or NULL */
} hub_agent_info;
int64_t hub_agent(hub_writer *w, const hub_agent_info *a);
/* The same agent, described: a row its first use made already (a bare
 * "GPU 0" from hub_gpu_agent, when the source describes its devices after
 * their work, as Kineto's deviceProperties after traceEvents) takes the
 * names and extdata `a` gives; the pid and ids stay. */
int64_t hub_agent_describe(hub_writer *w, const hub_agent_info *a);
/* Agent id of the GPU with this type_index, creating a bare one if none. */
int64_t hub_gpu_agent(hub_writer *w, int64_t pid, int64_t gpu_index);

/* Streams and queues, deduplicated on (pid, name). Returns the row id. */
int64_t hub_stream(hub_writer *w, int64_t pid, const char *name, const char *extdata);
int64_t hub_queue(hub_writer *w, int64_t pid, const char *name, const char *extdata);

/* Kernel symbols, deduplicated on (pid, kernel_name). */
int64_t hub_kernel_symbol(hub_writer *w, int64_t pid, const char *kernel_name, const char *display_name);

/* The thread that stands for a GPU lane in rocpd's thread-keyed views:
 * one per (agent, stream), or per agent when stream_id is HUB_NULL, or per
 * process when both are. Its tid is synthetic (from HUB_LANE_TID_BASE on,
 * skipping tids in use), its extdata {"kind":"gpu_lane","agent_id":A,
 * "stream_id":S} (per process: {"kind":"process_tracks"}, for the
 * process's own sample tracks): readers draw regions written on it
 * (Kineto's GPU annotations) on that GPU lane, and name no OS thread after it. hub_writer_finish gives it to GPU work
 * whose launching thread is unknown and to sample tracks without a thread. */
#define HUB_LANE_TID_BASE 0x7e000000LL
int64_t hub_gpu_lane_thread(hub_writer *w, int64_t pid, int64_t agent_id, int64_t stream_id);

/* Tracks for samples, deduplicated on (pid, tid, name); extdata
 * {"kind":K}, K the kind's word (hub.h). */
int64_t hub_track(hub_writer *w, int64_t pid, int64_t tid, const char *name, hub_track_kind kind);

/* rocpd_event: category (string), correlation (HUB_NULL for none),
 * extdata JSON text or NULL. Returns the event id for args and rows. */
int64_t hub_event(hub_writer *w, const char *category, int64_t correlation_id, const char *extdata);
int64_t hub_event_stack(hub_writer *w, const char *category, int64_t correlation_id,
                        int64_t stack_id, int64_t parent_stack_id, const char *extdata);

/* An event whose rocpd_event.call_stack is `call_stack` (JSON text; NULL
 * or "" for '{}'): a frame object of a call-stack sample, or the array of
 * frames of a call's backtrace (hub_stack_sample, hub_call_stack_json). */
int64_t hub_event_call_stack(hub_writer *w, const char *category, int64_t correlation_id,
                             const char *call_stack, const char *extdata);

/* Appends frame f as rocprof-sys's sampler writes a call_stack object
 * (sampling.cpp's generate_call_stack_json: "name", "pc" as "0x..",
 * "file" the module), with "kernel":true and "unresolved":true when set. */
void hub_frame_json(tt_buf *b, const hub_frame *f);
/* The call_stack of a call's backtrace: a JSON array of frame objects,
 * outermost caller first (the order of a sample's frame rows). */
void hub_call_stack_json(tt_buf *b, const hub_frame *frames, size_t n);

/* A call-stack sample of thread (pid, tid) at ts, frames[0] the outermost
 * caller .. frames[n-1] the leaf (the sampled instruction), written as
 * rocprof-sys writes its timer samples (sampling.cpp,
 * rocpd_post_process_timer_data): per frame one rocpd_event of category
 * `category` ("timer_sampling") whose call_stack is the frame object, one
 * zero-length rocpd_region named after the frame, and one rocpd_sample at
 * ts on the thread's track "Thread TID (S)" (extdata {"kind":"cpu_sample"}),
 * in frame order; sample_extdata (JSON object text: cpu, thread state,
 * weight; NULL for none) on every frame's rocpd_sample. n > 0. */
void hub_stack_sample(hub_writer *w, int64_t pid, int64_t tid, int64_t ts, const char *category,
                    const hub_frame *frames, size_t n, const char *sample_extdata);

/* rocpd_arg: the value as text, read as its type says (hub.h). */
void hub_arg(hub_writer *w, int64_t event_id, int position, hub_arg_type type,
             const char *name, const char *value);
void hub_arg_int(hub_writer *w, int64_t event_id, int position, const char *name, int64_t v);

void hub_region(hub_writer *w, int64_t pid, int64_t tid, int64_t start, int64_t end,
                const char *name, int64_t event_id, const char *extdata);

typedef struct hub_kernel_row {
  int64_t pid, tid, agent_id, kernel_id, dispatch_id, queue_id, stream_id;
  int64_t start, end;
  int64_t private_segment_size, group_segment_size;
  int64_t workgroup[3], grid[3];
  const char *region_name; /* NULL for none */
  int64_t event_id;
  const char *extdata;
} hub_kernel_row;
/* Sets every optional field of k to HUB_NULL / NULL. */
void hub_kernel_row_init(hub_kernel_row *k);
void hub_kernel_dispatch(hub_writer *w, const hub_kernel_row *k);

typedef struct hub_copy_row {
  int64_t pid, tid, start, end;
  const char *name;
  int64_t dst_agent_id, dst_address, src_agent_id, src_address, size;
  int64_t queue_id, stream_id;
  const char *region_name;
  int64_t event_id;
  const char *extdata;
} hub_copy_row;
void hub_copy_row_init(hub_copy_row *c);
void hub_memory_copy(hub_writer *w, const hub_copy_row *c);

typedef struct hub_alloc_row {
  int64_t pid, tid, agent_id;
  const char *type;  /* ALLOC FREE REALLOC RECLAIM */
  const char *level; /* REAL VIRTUAL SCRATCH */
  int64_t start, end, address, size, queue_id, stream_id, event_id;
  const char *extdata;
} hub_alloc_row;
void hub_alloc_row_init(hub_alloc_row *a);
void hub_memory_allocate(hub_writer *w, const hub_alloc_row *a);

void hub_sample(hub_writer *w, int64_t track_id, int64_t timestamp, int64_t event_id,
                const char *extdata);

/* Flow ends as the source recorded them (Kineto's s/t/f events): a sample
 * on the thread's track named "flow" (extdata {"kind":"flow"}), whose event
 * has the flow's category, correlation_id = flow id, and extdata
 * {"ph":"s","name":..,"bp":"e"}. Exporters pair ends by (category, id). */
void hub_flow_end(hub_writer *w, int64_t pid, int64_t tid, int64_t ts, char phase,
                  const char *category, const char *name, int64_t id, int bind_enclosing);

/* A flow end on a GPU stream rather than a thread: its track carries
 * the lane (extdata {"kind":"flow","agent_id":A,"stream_id":S}). */
void hub_flow_end_gpu(hub_writer *w, int64_t pid, int64_t agent_id, int64_t stream_id, int64_t ts,
                      char phase, const char *category, const char *name, int64_t id,
                      int bind_enclosing);

/* Counter samples: a track (extdata {"kind":"counter"}) per (pid, name),
 * each sample's extdata {"value":V}. */
int64_t hub_counter_track(hub_writer *w, int64_t pid, const char *name);
/* A device's own counter (a GPU's clock, power, temperature): a counter
 * track of the agent (extdata {"kind":"counter","agent_id":A}), which the
 * exporters draw with that GPU's work; pid is the GPU's process, HUB_NULL
 * when no process is known. */
int64_t hub_gpu_counter_track(hub_writer *w, int64_t pid, int64_t agent_id, const char *name);
void hub_counter_sample(hub_writer *w, int64_t track_id, int64_t ts, double value,
                        const char *category);

/* Adds delta ns to every timestamp written so far (Kineto's base time is
 * often known only at the end of the file). One UPDATE per table. */
void hub_writer_shift_times(hub_writer *w, int64_t delta);

/* Moves GPU-side rows (kernels, copies, allocations, streams, queues,
 * agents) written with any of the n pids `from` to process `to`: Kineto
 * names the owning process of GPU work only through metadata that may
 * come last. */
void hub_writer_reassign_gpu_pids(hub_writer *w, const int64_t *from, size_t n, int64_t to);
/* The process that launched the GPU work (kernels, copies) written with
 * pid gpu_pid: the pid of the regions sharing their correlation ids (the
 * launching calls), the one with most when several; HUB_NULL when no
 * launch is known. What an importer asks when no metadata names the
 * owner of a device's work. */
int64_t hub_writer_launcher_pid(hub_writer *w, int64_t gpu_pid);
/* Folds process `from` into `to`: its rows and threads become `to`'s,
 * each thread named "LABEL · its name" with from's extdata as its
 * "folded_process"; `from` leaves no process row (its name and extdata go
 * to metadata merged_process.PID). For a source's bookkeeping pseudo-
 * processes (Kineto's "Spans", "Traces"), which are no process of their own. */
void hub_writer_fold_process(hub_writer *w, int64_t from, int64_t to, const char *label);

/* Completes what rocpd's views INNER JOIN on (see data_views.sql) and
 * the source left unsaid: GPU work without a thread gets its launching
 * call's thread (same process and correlation id), else its lane's thread;
 * sample tracks without a thread get their lane's or process's; a copy's
 * missing side is the CPU agent. (As rows are written: a row without an
 * event gets an empty one, a kernel without a region name the empty
 * string, a kernel without a queue the queue of its (process, agent,
 * stream).) Then writes the process/thread rows, commits and closes.
 * Returns nothing: a failure dies, as every call of this module does. */
void hub_writer_finish(hub_writer *w);
/* Rolls back and closes (the caller removes the file). */
void hub_writer_abort(hub_writer *w);

/* Counts of rows written, for progress and summaries. */
int64_t hub_writer_row_count(const hub_writer *w);

#endif
