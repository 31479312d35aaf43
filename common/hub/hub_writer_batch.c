#include "hub/hub_writer_batch.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/atomic_output.h"

/* The failure message, formatted into the batches' own buffer: the worker
 * cannot die (exit() would run under the caller's thread, which may be
 * inside SQLite too), and a message that needed memory could be lost when
 * there is none, the failure then read as success. */
static void fail_message(hw_batches *bs, const char *what) {
  snprintf(bs->error, sizeof bs->error, "%s: writing hub database: %s (in: %.60s)",
           tt_output_name_of(sqlite3_db_filename(bs->db, "main")), sqlite3_errmsg(bs->db), what);
}

void hw_fail(sqlite3 *db, const char *what) {
  tt_die(1, "%s: writing hub database: %s (in: %.60s)",
         tt_output_name_of(sqlite3_db_filename(db, "main")), sqlite3_errmsg(db), what);
}

/* --- the staged rows as a virtual table ------------------------------
 * temp.tt_rows_<which> USING tt_rows(<which>): one row per staged row of
 * the stage being inserted, its columns c0.. the cells after the id (from
 * the id on where the caller chose it). Read only, scanned whole. */
typedef struct rows_vtab {
  sqlite3_vtab base;
  const hw_table *b;
} rows_vtab;

/* What a scan reads, copied from the stage when it starts: the caller's
 * thread keeps writing the table's other fields (its next id, the stage
 * being filled) on the same cache lines, and with a worker those lines
 * would move between the cores for every cell read. */
typedef struct rows_cursor {
  sqlite3_vtab_cursor base;
  int row, nrows;
  int ncols, skip; /* cells per row; 1 when the id is SQLite's */
  const hw_cell *cells;
  const char *text;
} rows_cursor;

static int rows_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
                        sqlite3_vtab **out, char **err) {
  (void)err;
  hw_batches *bs = aux;
  int which = argc > 3 ? atoi(argv[3]) : -1;
  if (which < 0 || which >= ST_COUNT) return SQLITE_ERROR;
  const hw_table *b = &bs->t[which];
  tt_buf sql = {0};
  tt_buf_puts(&sql, "CREATE TABLE x(");
  for (int i = 0; i < b->ncols - !b->explicit_id; i++) tt_buf_printf(&sql, "%sc%d", i ? "," : "", i);
  tt_buf_putc(&sql, ')');
  int rc = sqlite3_declare_vtab(db, sql.data);
  tt_buf_free(&sql);
  if (rc != SQLITE_OK) return rc;
  rows_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->b = b;
  *out = &v->base;
  return SQLITE_OK;
}

static int rows_disconnect(sqlite3_vtab *v) {
  sqlite3_free(v);
  return SQLITE_OK;
}

static int rows_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  (void)v;
  info->estimatedCost = HW_ROWS_PER_INSERT;
  info->estimatedRows = HW_ROWS_PER_INSERT;
  return SQLITE_OK;
}

static int rows_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out) {
  (void)v;
  rows_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *out = &c->base;
  return SQLITE_OK;
}

static int rows_close(sqlite3_vtab_cursor *c) {
  sqlite3_free(c);
  return SQLITE_OK;
}

static int rows_filter(sqlite3_vtab_cursor *c, int idx, const char *idx_str, int argc,
                       sqlite3_value **argv) {
  (void)idx, (void)idx_str, (void)argc, (void)argv;
  rows_cursor *rc = (rows_cursor *)c;
  const hw_table *b = ((rows_vtab *)c->pVtab)->b;
  const hw_stage *s = b->reading;
  rc->row = 0;
  rc->nrows = s->nrows;
  rc->ncols = b->ncols;
  rc->skip = !b->explicit_id;
  rc->cells = s->cells;
  rc->text = s->arena.data;
  return SQLITE_OK;
}

static int rows_next(sqlite3_vtab_cursor *c) {
  ((rows_cursor *)c)->row++;
  return SQLITE_OK;
}

static int rows_eof(sqlite3_vtab_cursor *c) {
  return ((rows_cursor *)c)->row >= ((rows_cursor *)c)->nrows;
}

static int rows_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col) {
  const rows_cursor *rc = (const rows_cursor *)c;
  const hw_cell *x = &rc->cells[(size_t)rc->row * (size_t)rc->ncols + (size_t)(col + rc->skip)];
  switch (x->type) {
  case SQLITE_INTEGER: sqlite3_result_int64(ctx, x->v.i); break;
  case SQLITE_FLOAT: sqlite3_result_double(ctx, x->v.d); break;
  case SQLITE_TEXT:
    sqlite3_result_text(ctx, rc->text + x->v.off, (int)x->len, SQLITE_STATIC);
    break;
  default: break; /* NULL */
  }
  return SQLITE_OK;
}

static int rows_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *rowid) {
  *rowid = ((rows_cursor *)c)->row;
  return SQLITE_OK;
}

static const sqlite3_module rows_module = {
    .xCreate = rows_connect,
    .xConnect = rows_connect,
    .xBestIndex = rows_best_index,
    .xDisconnect = rows_disconnect,
    .xDestroy = rows_disconnect,
    .xOpen = rows_open,
    .xClose = rows_close,
    .xFilter = rows_filter,
    .xNext = rows_next,
    .xEof = rows_eof,
    .xColumn = rows_column,
    .xRowid = rows_rowid,
};

void hw_init(hw_batches *bs, sqlite3 *db) {
  memset(bs, 0, sizeof *bs);
  bs->db = db;
  if (sqlite3_create_module(db, "tt_rows", &rows_module, bs) != SQLITE_OK)
    hw_fail(db, "tt_rows module");
}

/* One stage without a worker, every stage with one. */
static void alloc_stages(const hw_batches *bs, hw_table *b) {
  for (int i = 0; i < (bs->threaded ? HW_STAGES : 1); i++)
    if (!b->stage[i].cells)
      b->stage[i].cells =
          tt_calloc((size_t)HW_ROWS_PER_INSERT * (size_t)b->ncols, sizeof *b->stage[i].cells);
}

void hw_setup_table(hw_batches *bs, int which, const char *table, const char *cols, int ncols) {
  hw_table *b = &bs->t[which];
  b->explicit_id = strncmp(cols, "id,", 3) == 0;
  b->ncols = ncols + (b->explicit_id ? 0 : 1);
  alloc_stages(bs, b);
  b->next_id = 1;
  tt_buf sql = {0};
  tt_buf_printf(&sql, "CREATE VIRTUAL TABLE temp.tt_rows_%d USING tt_rows(%d)", which, which);
  if (sqlite3_exec(bs->db, sql.data, NULL, NULL, NULL) != SQLITE_OK) hw_fail(bs->db, sql.data);
  tt_buf_clear(&sql);
  tt_buf_printf(&sql, "INSERT INTO \"%s\" (%s) SELECT * FROM temp.tt_rows_%d", table, cols, which);
  if (sqlite3_prepare_v2(bs->db, sql.data, -1, &b->ins, NULL) != SQLITE_OK) hw_fail(bs->db, sql.data);
  tt_buf_free(&sql);
}

/* Inserts one stage's rows and empties it. Returns 0, or -1 with the
 * message to die with in bs->error. */
static int insert_stage(hw_batches *bs, hw_table *b, hw_stage *s) {
  b->reading = s;
  int rc = sqlite3_step(b->ins);
  if (rc != SQLITE_DONE) fail_message(bs, sqlite3_sql(b->ins));
  sqlite3_reset(b->ins);
  if (rc != SQLITE_DONE) return -1;
  int64_t last = s->cells[(size_t)(s->nrows - 1) * (size_t)b->ncols].v.i;
  if (!b->explicit_id && sqlite3_last_insert_rowid(bs->db) != last) {
    snprintf(bs->error, sizeof bs->error,
             "internal: hub row ids out of step (SQLite gave %lld, expected %lld)",
             (long long)sqlite3_last_insert_rowid(bs->db), (long long)last);
    return -1;
  }
  s->nrows = 0;
  tt_buf_clear(&s->arena);
  return 0;
}

#define HW_QUEUE (ST_COUNT * HW_STAGES)

static void *worker(void *arg) {
  hw_batches *bs = arg;
  pthread_mutex_lock(&bs->mu);
  for (;;) {
    while (bs->count == 0 && !bs->stop) pthread_cond_wait(&bs->work, &bs->mu);
    if (bs->count == 0) break;
    hw_table *b = &bs->t[bs->queue[bs->head]];
    hw_stage *s = &b->stage[b->oldest];
    pthread_mutex_unlock(&bs->mu);
    int failed = insert_stage(bs, b, s) != 0;
    pthread_mutex_lock(&bs->mu);
    b->oldest = (b->oldest + 1) % HW_STAGES;
    b->nqueued--;
    bs->head = (bs->head + 1) % HW_QUEUE;
    bs->count--;
    if (failed) {
      /* Nothing after a failed INSERT runs: one thread would have died. */
      bs->failed = 1;
      for (; bs->count; bs->count--, bs->head = (bs->head + 1) % HW_QUEUE)
        bs->t[bs->queue[bs->head]].nqueued = 0;
    }
    pthread_cond_broadcast(&bs->done);
  }
  pthread_mutex_unlock(&bs->mu);
  return NULL;
}

void hw_start_worker(hw_batches *bs) {
  if (bs->threaded) return;
  pthread_mutex_init(&bs->mu, NULL);
  pthread_cond_init(&bs->work, NULL);
  pthread_cond_init(&bs->done, NULL);
  if (pthread_create(&bs->thread, NULL, worker, bs) != 0) {
    /* No second thread: the same work on this one. */
    pthread_mutex_destroy(&bs->mu);
    pthread_cond_destroy(&bs->work);
    pthread_cond_destroy(&bs->done);
    return;
  }
  bs->threaded = 1;
  for (int i = 0; i < ST_COUNT; i++)
    if (bs->t[i].ncols) alloc_stages(bs, &bs->t[i]);
}

void hw_flush_table(hw_batches *bs, int which) {
  hw_table *b = &bs->t[which];
  hw_stage *s = &b->stage[b->cur];
  if (s->nrows == 0) return;
  if (!bs->threaded) {
    if (insert_stage(bs, b, s) != 0) tt_die(1, "%s", bs->error);
    return;
  }
  pthread_mutex_lock(&bs->mu);
  /* The next stage is free once its INSERT is done. */
  while (b->nqueued == HW_STAGES - 1 && !bs->failed) pthread_cond_wait(&bs->done, &bs->mu);
  if (bs->failed) {
    pthread_mutex_unlock(&bs->mu);
    tt_die(1, "%s", bs->error);
  }
  if (b->nqueued++ == 0) b->oldest = b->cur;
  b->cur = (b->cur + 1) % HW_STAGES;
  bs->queue[(bs->head + bs->count) % HW_QUEUE] = which;
  bs->count++;
  pthread_cond_signal(&bs->work);
  pthread_mutex_unlock(&bs->mu);
}

void hw_flush_all(hw_batches *bs) {
  for (int i = 0; i < ST_COUNT; i++) hw_flush_table(bs, i);
}

void hw_sync(hw_batches *bs) {
  if (!bs->threaded) return;
  pthread_mutex_lock(&bs->mu);
  while (bs->count && !bs->failed) pthread_cond_wait(&bs->done, &bs->mu);
  int failed = bs->failed;
  pthread_mutex_unlock(&bs->mu);
  if (failed) tt_die(1, "%s", bs->error);
}

void hw_free(hw_batches *bs) {
  if (bs->threaded) {
    pthread_mutex_lock(&bs->mu);
    bs->stop = 1;
    pthread_cond_signal(&bs->work);
    pthread_mutex_unlock(&bs->mu);
    pthread_join(bs->thread, NULL);
    pthread_mutex_destroy(&bs->mu);
    pthread_cond_destroy(&bs->work);
    pthread_cond_destroy(&bs->done);
    bs->threaded = 0;
  }
  bs->failed = 0;
  for (int i = 0; i < ST_COUNT; i++) {
    sqlite3_finalize(bs->t[i].ins);
    bs->t[i].ins = NULL;
    for (int j = 0; j < HW_STAGES; j++) {
      free(bs->t[i].stage[j].cells);
      tt_buf_free(&bs->t[i].stage[j].arena);
    }
  }
}
