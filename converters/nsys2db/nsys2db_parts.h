/* nsys2db's parts: the importer state shared by the CUDA reader
 * (nsys2db_cuda.c) and the CPU-side reader (nsys2db_cpu.c: NVTX, OS
 * runtime, profiler overhead). */
#ifndef NSYS2DB_PARTS_H
#define NSYS2DB_PARTS_H
#include <sqlite3.h>
#include <stdint.h>

#include "sources/cupti_names.h"
#include "sources/cupti_rows.h"
#include "sources/source_db.h"
#include "base/hashmap.h"
#include "hub/hub_writer.h"
#include "base/util.h"

#define NS_TABLE(kind) "CUPTI_ACTIVITY_KIND_" kind

typedef struct ns {
  cupti_rows b;       /* offset: the session start (UTC ns), nsys times count from it */
  tt_i64map pids;     /* processes that have events, named at the end */
  tt_buf sql;
} ns;

/* globalTid / globalPid: pid in bits 24..47, tid in bits 0..23, a
 * hardware/VM id above (the Nsight Systems export documentation's
 * "serialized GlobalId"). */
static inline int64_t ns_pid(int64_t global) { return (global >> 24) & 0xFFFFFF; }
static inline int64_t ns_tid(int64_t global) { return global & 0xFFFFFF; }

/* Marks a process as having events and returns it. */
int64_t ns_seen(ns *c, int64_t pid);
/* The CUPTI row builder's hooks: agents by CUDA ordinal, streams named
 * "stream N", nsys' memory kinds. */
extern const cupti_hooks ns_hooks;
/* StringIds value selected as (id, value) at col, col+1; a NULL id is no
 * string; an id missing from StringIds is an error naming table and row. */
int ns_string(ns *c, sqlite3_stmt *st, int col, const char *table, int64_t row,
              const char **out);

int ns_cuda_api(ns *c, const char *table);
int ns_kernels(ns *c);
int ns_memcpy(ns *c);
int ns_memset(ns *c);
int ns_sync(ns *c);
int ns_cuda_events(ns *c);
int ns_nvtx(ns *c);
/* OS runtime calls and profiler overhead; `chains` names the table of
 * the calls' backtraces (OSRT_CALLCHAINS, by the callchainId column),
 * NULL for none. */
int ns_cpu_ranges(ns *c, const char *table, const char *category, const char *chains);

/* nsys2db_samples.c: CPU samples with their call stacks. */
int ns_cpu_samples(ns *c);
/* Backtraces looked up by callchain id in table (OSRT_CALLCHAINS): NULL
 * when the table is absent or unusable (said). ns_stack_json sets *json
 * to the hub's call_stack of chain (hub_call_stack_json), NULL when it
 * has no frames; valid until the next call. -1 on a bad string id. */
typedef struct ns_stacks ns_stacks;
ns_stacks *ns_stacks_open(ns *c, const char *table);
int ns_stack_json(ns *c, ns_stacks *k, const char *table, int64_t chain, const char **json);
void ns_stacks_close(ns_stacks *k);

#endif
