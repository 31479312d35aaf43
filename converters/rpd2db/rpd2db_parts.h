/* rpd2db's parts: one importer state shared by the readers of an RPD file
 * (rocmProfileData's SQLite trace, schema_version 2 or 3): rpd2db_api.c
 * (rocpd_api and its side tables), rpd2db_op.c (rocpd_op: GPU work),
 * rpd2db_monitor.c (rocpd_monitor), rpd2db_gz.c (.rpd.gz). Every table is
 * read in one pass in id order; side tables keyed by an id are read in a
 * second ordered pass beside it (rpd_side), so no lookup depends on the
 * indexes a file happens to have. */
#ifndef RPD2DB_PARTS_H
#define RPD2DB_PARTS_H
#include <sqlite3.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "hub/hub_writer.h"
#include "sources/source_db.h"
#include "base/util.h"

/* The process that owns GPU work no call launched, when the GPU's own
 * process is not known: pid 0 is never a user process on Linux. */
#define RPD_PLACEHOLDER_PID 0
#define RPD_PLACEHOLDER_NAME "rpd2db: GPU work without a launching call"

#define RPD_LANES 8

typedef struct rpd {
  hub_writer *w;
  nv_src src;
  int version;                  /* 2 or 3 */
  int64_t pid_stride, gpu_stride; /* 0: not encoded */
  int decode_pid, decode_gpu;   /* strides applied (no collisions across nodes) */
  int have_kernelapi, have_copyapi, have_monitor, have_counter, have_stackframe;
  int have_barrierop, have_signals, have_codeobject;
  const char *args_table;       /* rocpd_ustring (v3) or rocpd_string (v2) */
  tt_i64map gpu_pid;            /* raw gpuId -> hub pid of the GPU's only process */
  int64_t single_pid;           /* the file's only process, HUB_NULL if several */
  int placeholder_used;
  int64_t cpu_agent;            /* 0 = not created yet */
  /* The lanes of recent ops (a process's ops interleave a few queues):
   * their agent and queue rows without naming the queue again. */
  struct rpd_lane {
    int64_t pid, gpu, queue, agent, queue_id;
  } lanes[RPD_LANES];
  int nlanes, lane_next;
  /* description_id -> kernel symbol id * 2 + demangled, for the process ksym_pid */
  tt_i64map ksyms;
  int64_t ksym_pid;
  uint64_t rows;
  int64_t arg_event;            /* the event arg_seen describes */
  tt_buf arg_seen;              /* its args so far: \x1e name \x1f value ... */
  tt_buf ext, sql, name, key;
} rpd;

/* A side table read in key order beside a main table read in id order. */
typedef struct rpd_side {
  rpd *c;
  sqlite3_stmt *st;
  const char *table;
  int has;  /* a current row */
  int err;
  int64_t key;
} rpd_side;

/* sql returns the key in column 0 and is ordered by it. NULL sql: empty. */
int rpd_side_open(rpd *c, rpd_side *s, const char *table, const char *sql);
/* Skips rows with a key below k; returns whether the current row has key k. */
int rpd_side_at(rpd_side *s, int64_t k);
void rpd_side_next(rpd_side *s);
void rpd_side_close(rpd_side *s);

/* Hub ids from RPD ids, strides decoded (pid % pid_stride; node in extdata). */
int64_t rpd_pid(const rpd *c, int64_t raw);
int64_t rpd_tid(const rpd *c, int64_t raw);
int64_t rpd_gpu(const rpd *c, int64_t raw);
/* The process of a GPU: the one whose calls launched work on it, else the
 * file's only process, else HUB_NULL. */
int64_t rpd_gpu_known_owner(rpd *c, int64_t raw_gpu);
/* The process of a GPU's work when no call links it: the known owner, else
 * the placeholder process (named once, and warned about). */
int64_t rpd_gpu_owner(rpd *c, int64_t raw_gpu);
int64_t rpd_gpu_agent(rpd *c, int64_t pid, int64_t raw_gpu);
int64_t rpd_cpu_agent(rpd *c, int64_t pid);
void rpd_progress(rpd *c);

/* One arg (names already given to this event with the same value are
 * skipped, with another value renamed name#2). */
void rpd_arg(rpd *c, int64_t ev, int *pos, hub_arg_type type, const char *name, const char *value);
void rpd_arg_int(rpd *c, int64_t ev, int *pos, const char *name, int64_t v);
/* Appends a column's value as an arg (int, double or string; NULL: none). */
void rpd_arg_value(rpd *c, int64_t ev, int *pos, const char *name, sqlite3_value *v);
/* Every column of the row from `from` to `to` (exclusive) as args. */
void rpd_args_from(rpd *c, int64_t ev, int *pos, sqlite3_stmt *st, int from, int to);
/* Number of columns nv_rest_columns would append for table. */
int rpd_rest_count(rpd *c, const char *table, const char *consumed);

/* Appends the joins of a call's side rows (kernelapi k with its name kn
 * and code object co, copyapi cp) on the call id expression api_id. */
void rpd_launch_joins(rpd *c, tt_buf *q, const char *api_id);

int rpd_apis(rpd *c);
int rpd_ops(rpd *c);
int rpd_monitor(rpd *c);

/* Decompresses a gzip file to `out`; 0, or -1 after a message naming
 * `path` and the byte offset. */
int rpd_gunzip(const char *path, const char *out);

#endif
