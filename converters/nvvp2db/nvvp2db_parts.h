/* nvvp2db's parts: one importer state shared by the per-table readers
 * (nvvp2db_api.c, nvvp2db_gpu.c, nvvp2db_marker.c). Each reader streams one
 * nvprof table through a prepared statement into the hub writer. */
#ifndef NVVP2DB_PARTS_H
#define NVVP2DB_PARTS_H
#include <sqlite3.h>
#include <stdint.h>

#include "sources/cupti_names.h"
#include "sources/cupti_rows.h"
#include "sources/source_db.h"
#include "base/hashmap.h"
#include "hub/hub_writer.h"
#include "base/util.h"

#define NVP_TABLE(kind) "CUPTI_ACTIVITY_KIND_" kind

typedef struct nvp {
  cupti_rows b;          /* first: the builder's hooks get it as the nvp */
  int64_t main_pid;      /* the profiled process: rows without a pid go here */
  int have_runtime, have_driver;
  tt_i64map streams;     /* streamId -> rocpd_info_stream id (main process) */
  tt_i64map agents;      /* deviceId -> rocpd_info_agent id */
  tt_i64map ksyms;       /* StringTable id -> rocpd_info_kernel_symbol id */
  int64_t cpu_agent;     /* created on first host-side copy end; 0 = none yet */
  tt_buf sql;
} nvp;

/* Process and thread of the runtime/driver call with a correlation id, as
 * one select expression (pid << 32 | tid, NULL if no such call) over the
 * correlation column `corr`. Appended to sql with a leading comma. */
void nvp_launch_expr(nvp *c, const char *corr, tt_buf *sql);
/* Splits that value; with no call, pid = main pid and tid = fallback. */
void nvp_launch_decode(nvp *c, sqlite3_stmt *st, int col, int64_t *pid, int64_t *tid,
                       int64_t fallback_tid);
/* Decodes a CUpti_ActivityObjectKindId blob: process (kind 1) or thread
 * (kind 2) ids are two little-endian uint32 at bytes 0..3 and 4..7. A
 * process-scoped object gets tid = pid. Returns 0 if the blob is short. */
int nvp_object_ids(nvp *c, sqlite3_stmt *st, int kind_col, int blob_col, int64_t *pid,
                   int64_t *tid);
/* Resolves a StringTable id selected as (id, value) at columns col, col+1.
 * 0 means "no string" (NULL); any other id missing from StringTable is an
 * error naming table and row (returns -1). */
int nvp_string(nvp *c, sqlite3_stmt *st, int col, const char *table, int64_t row,
               const char **out);

/* The CUPTI row builder's hooks: agents and streams of the main process
 * cached by id, nvprof's memory kinds. */
extern const cupti_hooks nvp_hooks;

/* Table readers; each returns 0 or -1 after printing an error. */
int nvp_api(nvp *c, const char *table, const char *category, int driver);
int nvp_overhead(nvp *c);
int nvp_kernels(nvp *c, const char *table);
int nvp_memcpy(nvp *c, const char *table, int peer);
int nvp_memset(nvp *c);
int nvp_sync(nvp *c);
int nvp_cuda_events(nvp *c);
int nvp_markers(nvp *c);

#endif
