/* The hub's model, shared by its writer and its readers: the values that
 * mean "none" and the time limits, the words the hub stores for a track's
 * and a synthetic thread's kind and for an arg's type (each enum names its
 * strings in one table, hub.c, so writer and reader use the same bytes),
 * and what a record is as one classifier decides it once (hub_reader.c,
 * from the hub table a row comes from and its category), whatever name
 * the importer gave the category. Filters (--gpu) and tools' groupings
 * use this class instead of matching category names of their own. */
#ifndef TT_HUB_H
#define TT_HUB_H
#include <stdint.h>

/* Value that means "no value" for optional integer columns (stored NULL). */
#define HUB_NULL INT64_MIN

/* Times are ns within +-HUB_TIME_LIMIT (146 years), so end - start and
 * the exporters' unit conversions cannot overflow: the hub reader refuses
 * any other, so importers refuse them first, naming the source's place. */
#define HUB_TIME_LIMIT ((int64_t)1 << 62)

/* The words the hub stores, for hub.c's tables and for SQL the reader
 * builds at compile time (json_extract(extdata,'$.kind') = 'flow'). */
#define HUB_WORD_COUNTER "counter"
#define HUB_WORD_INSTANT "instant"
#define HUB_WORD_MARKER "marker"
#define HUB_WORD_NVTX "nvtx"
#define HUB_WORD_CUDA_EVENT "cuda_event"
#define HUB_WORD_FLOW "flow"
#define HUB_WORD_CPU_SAMPLE "cpu_sample"
#define HUB_WORD_GPU_LANE "gpu_lane"
#define HUB_WORD_PROCESS_TRACKS "process_tracks"

/* SQL: whether event alias E is one frame of a call-stack sample, as
 * rocprof-sys writes them (hub_writer.h, hub_stack_sample): its call_stack
 * is a frame object with a "name". Its region and sample rows are read as
 * a sample (hub_samples.h), never as a slice or an instant; a call's own
 * backtrace (an array) and '{}' are not frames. */
#define HUB_SQL_IS_FRAME(E)                                                            \
  "(" E ".call_stack GLOB '{*' AND length(" E ".call_stack) > 2 AND json_valid(" E \
  ".call_stack) AND json_type(" E ".call_stack, '$.name') = 'text')"

/* One frame of a call stack, as the source resolved it (the writer's
 * and the sample reader's, hub_samples.h). */
typedef struct hub_frame {
  const char *name;   /* the function, or the address text the source shows */
  const char *module; /* the binary or library; "" when none */
  int64_t pc;         /* the instruction address; HUB_NULL when none */
  int kernel;         /* a kernel-mode frame */
  int unresolved;     /* the source could not name its function */
} hub_frame;

/* rocpd_metadata tag of a hub whose recorded flows never repeat a launch
 * link (the writer folded them, hub_writer_launch_flows.c): its launch
 * arrows come from the correlation, as in a hub without recorded flows.
 * A hub without the tag (written before) draws its recorded flows alone. */
#define HUB_LAUNCH_ARROWS_TAG "tracetools.launch_arrows"
#define HUB_LAUNCH_ARROWS_CORRELATION "correlation"

/* rocpd_track.extdata's "kind": what a sample track holds. */
typedef enum hub_track_kind {
  HUB_TRACK_COUNTER,    /* "counter": samples with {"value":V} */
  HUB_TRACK_INSTANT,    /* "instant": zero-length events (Kineto's i, ETDump's debug) */
  HUB_TRACK_MARKER,     /* "marker": a user's instant marker (rpd's UserMarker) */
  HUB_TRACK_NVTX,       /* "nvtx": NVTX instant markers */
  HUB_TRACK_CUDA_EVENT, /* "cuda_event": CUDA event records */
  HUB_TRACK_FLOW,       /* "flow": recorded flow ends (Kineto's s/t/f) */
  HUB_TRACK_CPU_SAMPLE, /* "cpu_sample": a thread's call-stack samples (hub_writer.h) */
  HUB_TRACK_KIND_COUNT
} hub_track_kind;
const char *hub_track_kind_name(hub_track_kind k);

/* rocpd_info_thread.extdata's "kind" of the threads the writer makes up
 * for rocpd's thread-keyed views (hub_gpu_lane_thread): no OS thread. */
typedef enum hub_thread_kind {
  HUB_THREAD_GPU_LANE,       /* "gpu_lane": stands for a GPU stream (or agent) */
  HUB_THREAD_PROCESS_TRACKS, /* "process_tracks": a process's own sample tracks */
  HUB_THREAD_KIND_COUNT
} hub_thread_kind;
const char *hub_thread_kind_name(hub_thread_kind k);

/* The clock a process's times are in: two processes' times compare only
 * when their clocks agree (docs/hub.md, "Clocks"). BOOT is rocprofv3's
 * CLOCK_BOOTTIME and MONOTONIC roctracer's CLOCK_MONOTONIC, each counted
 * from its host's boot; WALL is Unix-epoch ns (Kineto, nvprof, nsys made
 * absolute). UNKNOWN: the hub does not say. Stored as the process's
 * extdata "clock": "unknown", "boot", "monotonic", "wall". */
typedef enum hub_clock { HUB_CLOCK_UNKNOWN = 0, HUB_CLOCK_BOOT, HUB_CLOCK_MONOTONIC, HUB_CLOCK_WALL } hub_clock;
#define HUB_CLOCK_COUNT 4
/* 2000-01-01T00:00:00Z in Unix-epoch ns: a source that does not name its
 * clock but whose times are past this is on the wall clock (no clock
 * counted from a boot or a process start runs 30 years). */
#define HUB_WALL_FROM_NS 946684800000000000LL
const char *hub_clock_name(hub_clock c);
/* The clock a stored word names (HUB_CLOCK_UNKNOWN for any other word). */
hub_clock hub_clock_of(const char *word);

/* rocpd_arg.type: how an arg's value (always stored as text) reads. */
typedef enum hub_arg_type {
  HUB_ARG_INT,    /* "int": a decimal integer */
  HUB_ARG_DOUBLE, /* "double": a number */
  HUB_ARG_STRING, /* "string" */
  HUB_ARG_JSON,   /* "json": JSON text (object, array, or a scalar kept as written) */
  HUB_ARG_BOOL,   /* "bool": "true" or "false" */
  HUB_ARG_NULL,   /* "null": a JSON null (Kineto's args) */
  HUB_ARG_TYPE_COUNT,
  HUB_ARG_OTHER = HUB_ARG_TYPE_COUNT /* read from a hub: a type of another tool's */
} hub_arg_type;
const char *hub_arg_type_name(hub_arg_type t);
/* The type a stored word names (HUB_ARG_OTHER for any other word). */
hub_arg_type hub_arg_type_of(const char *word);

typedef enum hub_class {
  HUB_CLS_OTHER,          /* none of the below */
  HUB_CLS_API,            /* a runtime or driver API call on a CPU thread (its category
                           * names an API, runtime or driver: CUDA, HIP, HSA, rpd's api) */
  HUB_CLS_MARKER,         /* a user's marker or range on a CPU thread (NVTX, roctx, a
                           * framework's user annotation), or an instant */
  HUB_CLS_REGION,         /* any other range on a CPU thread: a framework's operator, a
                           * profiler step, the profiler's own overhead */
  HUB_CLS_SYNC,           /* a host thread waiting for the GPU (CUDA_SYNC rows) */
  HUB_CLS_KERNEL,         /* GPU: a kernel dispatch, whatever the source calls its GPU work */
  HUB_CLS_MEMCPY,         /* GPU: a memory copy */
  HUB_CLS_MEMSET,         /* GPU: a memset or fill (a dispatch, or an allocate row of that kind) */
  HUB_CLS_GPU_ANNOTATION, /* GPU: a range drawn on a GPU stream or queue */
  HUB_CLS_ALLOC,          /* a memory allocation or free */
  HUB_CLS_COUNTER,        /* a counter sample */
  HUB_CLS_FLOW,           /* a recorded end of a flow arrow */
  HUB_CLS_COUNT
} hub_class;

const char *hub_class_name(hub_class c);

/* The GPU side of a trace: kernels, copies, memsets, GPU annotations. */
static inline int hub_class_is_gpu(hub_class c) {
  return c == HUB_CLS_KERNEL || c == HUB_CLS_MEMCPY || c == HUB_CLS_MEMSET ||
         c == HUB_CLS_GPU_ANNOTATION;
}

/* A copy's direction, from the types of its source and destination
 * agents (rocpd_info_agent.type, CPU or GPU). */
typedef enum hub_copy_dir {
  HUB_COPY_UNKNOWN, /* not a copy, or an agent's type is not recorded */
  HUB_COPY_HTOD,
  HUB_COPY_DTOH,
  HUB_COPY_DTOD,
  HUB_COPY_HTOH
} hub_copy_dir;

#endif
