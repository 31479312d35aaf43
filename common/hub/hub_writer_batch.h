/* Private to the hub writer (hub_writer*.c): the rows it stages per table and the INSERTs
 * that write them, optionally on a second thread.
 *
 * Rows are staged and inserted HW_ROWS_PER_INSERT at a time by one
 * INSERT ... SELECT from a virtual table that reads the staged cells
 * (temp.tt_rows_<table>): SQLite's per-statement cost (AUTOINCREMENT
 * bookkeeping, VDBE setup) is paid once per batch, and each value goes
 * straight into SQLite's register (sqlite3_result_*) where a multi-row
 * INSERT ... VALUES cost a bind call and a copy per value (nvvp2db: 9% of
 * all instructions in binds). The writer numbers every row itself (the
 * tables are new), so callers get ids at once; the INSERTs leave the id
 * to SQLite, whose next rowid is that same number (checked on every
 * batch), because an explicit id costs SQLite a b-tree search per row to
 * prove it unique.
 *
 * Each table has a ring of HW_STAGES stages: one being filled, the others
 * queued or in flight. With a worker (hw_start_worker) a full stage is
 * queued and the worker owns the connection until the queue is empty; the
 * INSERTs run in the order they were queued, which is the order one
 * thread runs them in, so the hub is the same. More than two stages let
 * the parsing thread run ahead of a burst of one table's rows (an event
 * with many args) instead of waiting for the worker at each hand-off. Whoever uses the connection otherwise calls
 * hw_sync first. A failed INSERT on the worker is reported by the next
 * hand-off or hw_sync, with the message one thread would have given. */
#ifndef TT_HUB_WRITER_BATCH_H
#define TT_HUB_WRITER_BATCH_H
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

#include "base/util.h"

/* One staged table per value, indexed by this enum. */
enum {
  ST_STRING, ST_NODE, ST_PROCESS, ST_THREAD, ST_AGENT, ST_STREAM, ST_QUEUE,
  ST_KSYM, ST_TRACK, ST_EVENT, ST_ARG, ST_REGION, ST_KERNEL, ST_COPY, ST_ALLOC,
  ST_SAMPLE, ST_METADATA, ST_COUNT
};

#define HW_ROWS_PER_INSERT 256
#define HW_STAGES 4 /* per table; one without a worker */

/* 16 bytes: a row of 21 columns is cleared and read in a few cache lines. */
typedef struct hw_cell {
  union {
    int64_t i;
    double d;
    size_t off; /* text: a slice of the stage's arena... */
  } v;
  uint32_t len;       /* ...of this many bytes */
  unsigned char type; /* SQLITE_NULL (0 after the row's memset), INTEGER, FLOAT, TEXT */
} hw_cell;

typedef struct hw_stage {
  hw_cell *cells; /* HW_ROWS_PER_INSERT * ncols */
  tt_buf arena;
  int nrows;
} hw_stage;

typedef struct hw_table {
  sqlite3_stmt *ins; /* INSERT ... SELECT * FROM temp.tt_rows_<which> */
  int ncols;         /* including id */
  int explicit_id;   /* the caller sets column 0 (pid, tid) */
  int64_t next_id;
  hw_stage stage[HW_STAGES];
  int cur;                 /* the stage being filled (the caller's thread) */
  const hw_stage *reading; /* the stage the INSERT reads (whoever runs it) */
  int oldest, nqueued;     /* stages oldest.. await their INSERT (under mu) */
} hw_table;

typedef struct hw_batches {
  sqlite3 *db;
  hw_table t[ST_COUNT];
  int64_t rows;
  /* The worker, when started. */
  int threaded;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  int queue[ST_COUNT * HW_STAGES]; /* the tables of the queued stages, in order */
  int head, count;     /* count includes the INSERT running */
  int stop;
  /* The worker's failure, reported by the caller's thread; its message
   * needs no allocation, which could fail and lose it. */
  int failed;
  char error[512];
} hw_batches;

/* A row being filled: column 0 is the id, then the listed columns. */
typedef struct hw_row {
  hw_table *b;
  hw_stage *s;
  hw_cell *c;
} hw_row;

/* The message every failed hub statement dies with: the output the user
 * asked for (not its temporary), SQLite's reason, the statement's start. */
void hw_fail(sqlite3 *db, const char *what);

/* Registers the tt_rows module on db (before any hw_setup_table). */
void hw_init(hw_batches *bs, sqlite3 *db);
/* `cols` lists the columns after id, or starts with "id," when the caller
 * gives the id (processes and threads are keyed by pid and tid).
 * `table` is the full table name (with the hub's suffix). */
void hw_setup_table(hw_batches *bs, int which, const char *table, const char *cols, int ncols);
/* Starts the worker that runs the INSERTs; before the first row. */
void hw_start_worker(hw_batches *bs);

/* Queues (or, without a worker, runs) the INSERT of one table's staged rows. */
void hw_flush_table(hw_batches *bs, int which);
void hw_flush_all(hw_batches *bs);
/* Waits until no INSERT is queued or running; dies with the worker's
 * error if one failed. Then the caller's thread may use the connection. */
void hw_sync(hw_batches *bs);
/* Stops the worker (after hw_sync) and frees the stages and statements;
 * leaves the connection open. */
void hw_free(hw_batches *bs);

static inline hw_row hw_row_begin(hw_batches *bs, int which) {
  hw_table *b = &bs->t[which];
  hw_stage *s = &b->stage[b->cur];
  hw_row r = {b, s, &s->cells[(size_t)s->nrows * (size_t)b->ncols]};
  memset(r.c, 0, (size_t)b->ncols * sizeof *r.c);
  return r;
}

/* Stages the row; returns its id. */
static inline int64_t hw_row_commit(hw_batches *bs, hw_row r) {
  hw_table *b = r.b;
  int64_t id;
  if (b->explicit_id) {
    id = r.c[0].v.i;
  } else {
    id = b->next_id++;
    r.c[0].type = SQLITE_INTEGER;
    r.c[0].v.i = id;
  }
  bs->rows++;
  if (++r.s->nrows == HW_ROWS_PER_INSERT) hw_flush_table(bs, (int)(b - bs->t));
  return id;
}

/* Column i of the caller's list (1-based after the id). */
static inline void hw_bind_i64(hw_row r, int i, int64_t v, int64_t null_value) {
  if (r.b->explicit_id) i--; /* the caller's column list starts with id */
  if (v != null_value) {
    r.c[i].type = SQLITE_INTEGER;
    r.c[i].v.i = v;
  }
}

static inline void hw_bind_text(hw_row r, int i, const char *s) {
  if (!s) return;
  if (r.b->explicit_id) i--;
  size_t n = strlen(s);
  if (n > INT32_MAX) tt_die(1, "internal: a hub text value of %zu bytes", n);
  r.c[i].type = SQLITE_TEXT;
  r.c[i].v.off = r.s->arena.len;
  r.c[i].len = (uint32_t)n;
  tt_buf_append(&r.s->arena, s, n);
}

#endif
