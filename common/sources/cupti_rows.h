/* The CUPTI row builder nvvp2db and nsys2db share: one mapping of the GPU
 * activity rows both profilers store (kernels, copies, memsets,
 * synchronization) and of NVTX markers into hub rows, with one set of
 * checks. A tool's query selects the columns a builder reads (their
 * positions in a *_cols struct), resolves what its format stores its own
 * way (process and thread of the launching call, names), and hands the row
 * to the builder; hooks give the tool's agents, streams and memory kinds.
 * Every builder reads the current row of `st`; the columns from `rest` on
 * go to the row's extdata under their own names. */
#ifndef TT_CUPTI_ROWS_H
#define TT_CUPTI_ROWS_H
#include <sqlite3.h>
#include <stdint.h>

#include "hub/hub_writer.h"
#include "sources/source_db.h"
#include "base/util.h"

typedef struct cupti_rows cupti_rows;

/* What differs between the formats' ids. */
typedef struct cupti_hooks {
  int64_t (*agent)(cupti_rows *b, int64_t device);               /* a deviceId's GPU */
  int64_t (*cpu_agent)(cupti_rows *b);                           /* host side of a copy */
  int64_t (*stream)(cupti_rows *b, int64_t pid, int64_t stream); /* a streamId's stream */
  const char *(*memory_kind)(int64_t kind); /* the format's memory-kind enum, by name */
} cupti_hooks;

/* The state every reader of one import shares; the first member of the
 * tool's own state, so a hook finds its tool's state at the same address. */
struct cupti_rows {
  hub_writer *w;
  nv_src src;
  const cupti_hooks *hooks;
  int64_t offset; /* added to every time: the session start (nsys), 0 (nvprof) */
  int64_t max_ts; /* latest time written: where unclosed ranges end */
  uint64_t rows;  /* rows read, for progress */
  tt_buf ext;     /* the extdata being built */
};

/* Column col as a time in ns with the offset added (nv_time). */
int64_t cupti_time(cupti_rows *b, sqlite3_stmt *st, int col);
/* Records ts as written (max_ts). */
void cupti_cover(cupti_rows *b, int64_t ts);
/* Counts one row read; progress every 4096. */
void cupti_progress(cupti_rows *b);

/* Kernel: times, deviceId, streamId, correlationId, gridX..Z, blockX..Z,
 * static and dynamic shared memory (three and two adjacent columns),
 * localMemoryPerThread; `row` the row's id (named id_name in the error of
 * a grid or shared memory size past int64). */
typedef struct cupti_kernel_cols {
  int row, start, end, device, stream, corr, grid, block, shared, local, rest;
  const char *id_name;
} cupti_kernel_cols;

/* A dispatch of kernel_id (the tool's symbol) by the call on (pid, tid),
 * category KERNEL_DISPATCH; short_name, when not NULL, goes first in
 * extdata as "shortName". Returns 0, or -1 after the size error. */
int cupti_kernel(cupti_rows *b, sqlite3_stmt *st, const char *table, const cupti_kernel_cols *c,
                 int64_t pid, int64_t tid, int64_t kernel_id, const char *short_name);

/* Copy: times, deviceId, streamId, correlationId, copyKind, srcKind,
 * dstKind, bytes, and the devices of either end (the copy's own device
 * where the format has no peer columns). */
typedef struct cupti_copy_cols {
  int start, end, stream, corr, kind, src_kind, dst_kind, bytes, src_device, dst_device, rest;
} cupti_copy_cols;

/* A copy named as Kineto names it ("Memcpy HtoD (Pageable -> Device)"),
 * from and to the GPU agents of device memory or the CPU agent, category
 * MEMORY_COPY. */
void cupti_memcpy(cupti_rows *b, sqlite3_stmt *st, const cupti_copy_cols *c, int64_t pid,
                  int64_t tid);

/* Memset: times, deviceId, streamId, correlationId, and the memory kind
 * (a NULL column: none). */
typedef struct cupti_memset_cols {
  int start, end, device, stream, corr, kind, rest;
} cupti_memset_cols;

/* Memsets run on the GPU like kernels: a dispatch of the symbol
 * "Memset (<memory kind>)", category CUDA_MEMSET (as kineto2db does). */
void cupti_memset(cupti_rows *b, sqlite3_stmt *st, const cupti_memset_cols *c, int64_t pid,
                  int64_t tid);

/* Synchronization: times, correlationId, CUpti_ActivitySynchronizationType. */
typedef struct cupti_sync_cols {
  int start, end, corr, type, rest;
} cupti_sync_cols;

/* A region on the thread that waited, category CUDA_SYNC. */
void cupti_sync(cupti_rows *b, sqlite3_stmt *st, const cupti_sync_cols *c, int64_t pid,
                int64_t tid);

/* CUDA event record (cudaEventRecord): correlationId, and the start of
 * the recording call (NULL where no call matches), as the record has no
 * time of its own. */
typedef struct cupti_event_cols {
  int corr, call_start, rest;
} cupti_event_cols;

/* A sample at the recording call's start on the thread's "CUDA events"
 * track, category CUDA_EVENT. Returns 0, or 1 for a record with no call
 * (no time: not imported, for cupti_cuda_event_warn_orphans). */
int cupti_cuda_event(cupti_rows *b, sqlite3_stmt *st, const cupti_event_cols *c, int64_t pid,
                     int64_t tid);
void cupti_cuda_event_warn_orphans(cupti_rows *b, const char *table, int64_t n);

/* ---- NVTX markers -------------------------------------------------------- */

/* The event of a marker (category NVTX); ext is its extdata. */
int64_t cupti_nvtx_event(cupti_rows *b, const char *ext);
/* A marker with no duration: a sample on the thread's "NVTX" track. */
void cupti_nvtx_instant(cupti_rows *b, int64_t pid, int64_t tid, int64_t ts, int64_t event);
/* The warning for ranges that never ended (kept, ending at max_ts). */
void cupti_nvtx_warn_unclosed(cupti_rows *b, int64_t n);

#endif
