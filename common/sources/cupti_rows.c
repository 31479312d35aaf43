#include "sources/cupti_rows.h"

#include "sources/cupti_names.h"
#include "base/progress.h"

int64_t cupti_time(cupti_rows *b, sqlite3_stmt *st, int col) {
  return nv_time(&b->src, st, col, b->offset);
}

void cupti_cover(cupti_rows *b, int64_t ts) {
  if (ts > b->max_ts) b->max_ts = ts;
}

void cupti_progress(cupti_rows *b) {
  if ((++b->rows & 0xFFF) == 0) tt_progress("rows", b->rows, 0);
}

/* The row's extdata: the columns from `from` on, under their names. */
static const char *rest_extdata(cupti_rows *b, sqlite3_stmt *st, int from) {
  nv_json_begin(&b->ext);
  nv_rest_json(st, from, &b->ext);
  return nv_json_end(&b->ext);
}

/* A row written that ends at `end`. */
static void written(cupti_rows *b, int64_t end) {
  cupti_cover(b, end);
  cupti_progress(b);
}

/* A kernel row's sizes in the hub's terms: grid[i] = grid in blocks
 * (columns grid_col..+2) x block size (block_col..+2, also copied to
 * block[i]), shared memory = static + dynamic (shared_col, shared_col+1).
 * A product or sum past int64 is refused, never wrapped: "FILE: table T
 * row ID_NAME ID: grid or shared memory size out of range (...)", -1. */
static int kernel_sizes(nv_src *s, sqlite3_stmt *st, const char *table, const char *id_name,
                        int64_t row, int grid_col, int block_col, int shared_col,
                        int64_t grid[3], int64_t block[3], int64_t *shared) {
  static const char axis[3] = {'X', 'Y', 'Z'};
  for (int i = 0; i < 3; i++) {
    int64_t blocks = sqlite3_column_int64(st, grid_col + i);
    block[i] = sqlite3_column_int64(st, block_col + i);
    if (__builtin_mul_overflow(blocks, block[i], &grid[i])) {
      tt_error("%s: table %s row %s %lld: grid or shared memory size out of range "
               "(grid%c %lld x block%c %lld)",
               s->path, table, id_name, (long long)row, axis[i], (long long)blocks, axis[i],
               (long long)block[i]);
      return -1;
    }
  }
  int64_t st_mem = sqlite3_column_int64(st, shared_col);
  int64_t dyn_mem = sqlite3_column_int64(st, shared_col + 1);
  if (__builtin_add_overflow(st_mem, dyn_mem, shared)) {
    tt_error("%s: table %s row %s %lld: grid or shared memory size out of range "
             "(staticSharedMemory %lld + dynamicSharedMemory %lld)",
             s->path, table, id_name, (long long)row, (long long)st_mem, (long long)dyn_mem);
    return -1;
  }
  return 0;
}

int cupti_kernel(cupti_rows *b, sqlite3_stmt *st, const char *table, const cupti_kernel_cols *c,
                 int64_t pid, int64_t tid, int64_t kernel_id, const char *short_name) {
  hub_kernel_row k;
  hub_kernel_row_init(&k);
  k.pid = pid;
  k.tid = tid;
  int64_t corr = sqlite3_column_int64(st, c->corr);
  k.start = cupti_time(b, st, c->start);
  k.end = cupti_time(b, st, c->end);
  k.agent_id = b->hooks->agent(b, sqlite3_column_int64(st, c->device));
  k.stream_id = b->hooks->stream(b, pid, sqlite3_column_int64(st, c->stream));
  k.kernel_id = kernel_id;
  k.dispatch_id = corr;
  /* CUDA's grid counts blocks, rocpd's work-items: grid x block size; the
   * shared memory split stays in extdata, the hub holds the total.
   * Hostile values are refused, never wrapped. */
  if (kernel_sizes(&b->src, st, table, c->id_name, sqlite3_column_int64(st, c->row), c->grid,
                   c->block, c->shared, k.grid, k.workgroup, &k.group_segment_size))
    return -1;
  k.private_segment_size = sqlite3_column_int64(st, c->local);
  nv_json_begin(&b->ext);
  if (short_name) nv_json_str(&b->ext, "shortName", short_name);
  nv_rest_json(st, c->rest, &b->ext);
  k.extdata = nv_json_end(&b->ext);
  k.event_id = hub_event(b->w, "KERNEL_DISPATCH", corr, NULL);
  hub_kernel_dispatch(b->w, &k);
  written(b, k.end);
  return 0;
}

/* The agent of one end of a copy: its device's GPU, or the host. */
static int64_t copy_end_agent(cupti_rows *b, const char *kind, int64_t device) {
  return tt_memory_kind_on_device(kind) ? b->hooks->agent(b, device) : b->hooks->cpu_agent(b);
}

void cupti_memcpy(cupti_rows *b, sqlite3_stmt *st, const cupti_copy_cols *c, int64_t pid,
                  int64_t tid) {
  char name[96];
  hub_copy_row r;
  hub_copy_row_init(&r);
  r.pid = pid;
  r.tid = tid;
  r.start = cupti_time(b, st, c->start);
  r.end = cupti_time(b, st, c->end);
  r.stream_id = b->hooks->stream(b, pid, sqlite3_column_int64(st, c->stream));
  const char *src = b->hooks->memory_kind(sqlite3_column_int64(st, c->src_kind));
  const char *dst = b->hooks->memory_kind(sqlite3_column_int64(st, c->dst_kind));
  tt_cuda_memcpy_name(name, sizeof name, sqlite3_column_int64(st, c->kind), src, dst);
  r.name = name;
  r.size = sqlite3_column_int64(st, c->bytes);
  r.src_agent_id = copy_end_agent(b, src, sqlite3_column_int64(st, c->src_device));
  r.dst_agent_id = copy_end_agent(b, dst, sqlite3_column_int64(st, c->dst_device));
  r.extdata = rest_extdata(b, st, c->rest);
  r.event_id = hub_event(b->w, "MEMORY_COPY", sqlite3_column_int64(st, c->corr), NULL);
  hub_memory_copy(b->w, &r);
  written(b, r.end);
}

void cupti_memset(cupti_rows *b, sqlite3_stmt *st, const cupti_memset_cols *c, int64_t pid,
                  int64_t tid) {
  char name[64];
  hub_kernel_row k;
  hub_kernel_row_init(&k);
  k.pid = pid;
  k.tid = tid;
  k.start = cupti_time(b, st, c->start);
  k.end = cupti_time(b, st, c->end);
  k.agent_id = b->hooks->agent(b, sqlite3_column_int64(st, c->device));
  k.stream_id = b->hooks->stream(b, pid, sqlite3_column_int64(st, c->stream));
  int64_t corr = sqlite3_column_int64(st, c->corr);
  tt_cuda_memset_name(name, sizeof name,
                      sqlite3_column_type(st, c->kind) == SQLITE_NULL
                          ? NULL
                          : b->hooks->memory_kind(sqlite3_column_int64(st, c->kind)));
  k.kernel_id = hub_kernel_symbol(b->w, pid, name, name);
  k.dispatch_id = corr;
  k.extdata = rest_extdata(b, st, c->rest);
  k.event_id = hub_event(b->w, "CUDA_MEMSET", corr, NULL);
  hub_kernel_dispatch(b->w, &k);
  written(b, k.end);
}

void cupti_sync(cupti_rows *b, sqlite3_stmt *st, const cupti_sync_cols *c, int64_t pid,
                int64_t tid) {
  int64_t end = cupti_time(b, st, c->end);
  const char *ext = rest_extdata(b, st, c->rest);
  int64_t ev = hub_event(b->w, "CUDA_SYNC", sqlite3_column_int64(st, c->corr), NULL);
  hub_region(b->w, pid, tid, cupti_time(b, st, c->start), end,
             tt_cupti_sync_type(sqlite3_column_int64(st, c->type)), ev, ext);
  written(b, end);
}

int64_t cupti_nvtx_event(cupti_rows *b, const char *ext) {
  return hub_event(b->w, "NVTX", HUB_NULL, ext);
}

int cupti_cuda_event(cupti_rows *b, sqlite3_stmt *st, const cupti_event_cols *c, int64_t pid,
                     int64_t tid) {
  if (sqlite3_column_type(st, c->call_start) == SQLITE_NULL) return 1;
  int64_t ts = cupti_time(b, st, c->call_start);
  hub_touch_thread(b->w, pid, tid, ts, ts);
  int64_t track = hub_track(b->w, pid, tid, "CUDA events", HUB_TRACK_CUDA_EVENT);
  nv_json_begin(&b->ext);
  nv_json_str(&b->ext, "name", "CUDA event record");
  nv_rest_json(st, c->rest, &b->ext);
  int64_t ev =
      hub_event(b->w, "CUDA_EVENT", sqlite3_column_int64(st, c->corr), nv_json_end(&b->ext));
  hub_sample(b->w, track, ts, ev, NULL);
  cupti_progress(b);
  return 0;
}

void cupti_cuda_event_warn_orphans(cupti_rows *b, const char *table, int64_t n) {
  if (n)
    tt_warn("%s: %lld %s rows have no recording API call (no time): not imported", b->src.path,
            (long long)n, table);
}

void cupti_nvtx_instant(cupti_rows *b, int64_t pid, int64_t tid, int64_t ts, int64_t event) {
  hub_touch_thread(b->w, pid, tid, ts, ts);
  int64_t track = hub_track(b->w, pid, tid, "NVTX", HUB_TRACK_NVTX);
  hub_sample(b->w, track, ts, event, NULL);
}

void cupti_nvtx_warn_unclosed(cupti_rows *b, int64_t n) {
  if (n)
    tt_warn("%s: %lld NVTX ranges have no end: kept, ending at the last timestamp", b->src.path,
            (long long)n);
}
