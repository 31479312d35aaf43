/* Writes a database shaped as rocprofv3 writes it, the input of the
 * rocprofv3-shape benches and of tests/tools/test_reader_args.sh:
 *   gen_rocprof OUT.db N [SEED] [--position-major]
 * N events (about 61% HIP API regions, 35% kernel dispatches, 4% memory
 * copies), with rocprofv3's column set and no index at all.
 *
 * The shape that matters to a reader is the order of the ids. rocprofv3
 * (rocprofiler-sdk's generateRocpd.cpp) writes one category after the
 * other (every API region, then every dispatch, then every copy), each in
 * the order its buffers were filled: when a call or a kernel ENDED, on
 * several threads and queues. So event ids follow end order per category,
 * and read in start order they step back wherever an event began after
 * another on some other thread or queue and ended first. Each region's
 * event row comes first, then its args (position 0, 1), then the region,
 * whose id is the call's internal correlation id (start order).
 * --position-major writes rocpd_arg every first arg, then every second
 * (the other order rocpd_arg is met in).
 *
 * Four threads call the HIP API (the main one back to back, three now and
 * then): hipLaunchKernel (2 args, a kernel on one of four queues),
 * hipMemcpyAsync (2 args, a copy on one of two copy engines), and calls
 * without args. The same SEED writes the same file. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_schema.h"
#include "base/util.h"
#include "base/vec.h"

#define NTHREADS 4
#define NQUEUES 4
#define NCOPYQ 2
#define PID 31337
#define STREAK 24 /* main-thread calls in a row launching on one queue */

static const char *const api_names[] = {"hipLaunchKernel", "hipMemcpyAsync", "hipStreamSynchronize",
                                        "hipGetLastError", "hipEventRecord"};
enum { S_LAUNCH = 1, S_MEMCPY, S_SYNC, S_LASTERR, S_EVREC, S_CAT_API, S_CAT_KERNEL, S_CAT_COPY,
       S_COPY_H2D, S_COUNT };
static const char *const kernels[] = {"_Z6matmulPfS_i", "Cijk_Alik_Bljk_SB_MT64x64",
                                      "_Z4gemmIfEvPT_", "_Z9layernormPKfPfi", "_Z7softmaxPfi",
                                      "elementwise_add"};
#define NKERNELS (int)(sizeof kernels / sizeof *kernels)

/* --- the simulation: calls in start order, the GPU work they start ------ */

typedef struct sim {
  uint64_t rng;
  int64_t next[NTHREADS]; /* next call's start on each thread */
  int64_t qfree[NQUEUES], cfree[NCOPYQ];
  int64_t corr;
} sim;

typedef struct op {
  int64_t start, end, corr, seq; /* seq: order made (ties) */
  int tid, kind, lane, kernel;    /* kind: a string id (S_*) */
} op;

static uint64_t rnd(sim *s) { /* xorshift64* */
  s->rng ^= s->rng >> 12;
  s->rng ^= s->rng << 25;
  s->rng ^= s->rng >> 27;
  return s->rng * 2685821657736338717ULL;
}
static int64_t between(sim *s, int64_t lo, int64_t hi) {
  return lo + (int64_t)(rnd(s) % (uint64_t)(hi - lo + 1));
}

static void sim_init(sim *s, uint64_t seed) {
  memset(s, 0, sizeof *s);
  s->rng = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (int t = 0; t < NTHREADS; t++) s->next[t] = 1000000000LL + t * 777;
  for (int q = 0; q < NQUEUES; q++) s->qfree[q] = 0;
}

/* The next call (in start order) and its GPU work (gpu->kind 0: none). */
static void sim_next(sim *s, op *call, op *gpu) {
  int t = 0;
  for (int i = 1; i < NTHREADS; i++)
    if (s->next[i] < s->next[t]) t = i;
  int64_t start = s->next[t];
  uint64_t r = rnd(s) % 1000;
  int kind = r < 576 ? S_LAUNCH : r < 637 ? S_MEMCPY : r < 800 ? S_LASTERR : r < 900 ? S_EVREC : S_SYNC;
  int64_t dur = kind == S_SYNC ? between(s, 2000, 30000) : between(s, 1500, 6000);
  /* A worker's synchronize now and then waits long (0.2-5 ms): its id
   * comes hundreds of calls after the main thread's calls it spans. */
  if (kind == S_SYNC && t != 0 && rnd(s) % 4 == 0) dur = between(s, 200000, 5000000);
  *call = (op){start, start + dur, ++s->corr, s->corr, t, kind, 0, 0};
  /* The main thread calls back to back; the others now and then. */
  s->next[t] = call->end + (t == 0 ? between(s, 300, 2500) : between(s, 65000, 580000));
  memset(gpu, 0, sizeof *gpu);
  if (kind == S_LAUNCH) {
    /* streams: the main thread's launches go to one queue for a while */
    int q = t ? t % NQUEUES : (int)((s->corr / STREAK) % NQUEUES);
    int64_t at = start + between(s, 3000, 12000);
    if (at < s->qfree[q]) at = s->qfree[q];
    int64_t kd = between(s, 4000, 18000);
    *gpu = (op){at, at + kd, call->corr, call->corr, t, S_CAT_KERNEL, q, (int)between(s, 0, NKERNELS - 1)};
    s->qfree[q] = at + kd + between(s, 500, 3000);
  } else if (kind == S_MEMCPY) {
    int q = (int)between(s, 0, NCOPYQ - 1);
    int64_t at = start + between(s, 2000, 8000);
    if (at < s->cfree[q]) at = s->cfree[q];
    int64_t cd = between(s, 1000, 40000);
    *gpu = (op){at, at + cd, call->corr, call->corr, t, S_CAT_COPY, q, 0};
    s->cfree[q] = at + cd + between(s, 200, 2000);
  }
}

/* --- ops released in end order (a min-heap) -------------------------- */

typedef struct heap {
  op *a;
  size_t n, cap;
} heap;
static int op_before(const op *x, const op *y) {
  if (x->end != y->end) return x->end < y->end;
  return x->seq < y->seq;
}
static void heap_push(heap *h, op o) {
  tt_grow(h->a, h->n + 1, h->cap);
  size_t i = h->n++;
  h->a[i] = o;
  while (i && op_before(&h->a[i], &h->a[(i - 1) / 2])) {
    op t = h->a[i];
    h->a[i] = h->a[(i - 1) / 2];
    h->a[(i - 1) / 2] = t;
    i = (i - 1) / 2;
  }
}
static op heap_pop(heap *h) {
  op top = h->a[0];
  h->a[0] = h->a[--h->n];
  for (size_t i = 0;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && op_before(&h->a[l], &h->a[m])) m = l;
    if (r < h->n && op_before(&h->a[r], &h->a[m])) m = r;
    if (m == i) break;
    op t = h->a[i];
    h->a[i] = h->a[m];
    h->a[m] = t;
    i = m;
  }
  return top;
}

/* --- writing ------------------------------------------------------------ */

static sqlite3 *db;
static void exec(const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) tt_die(1, "gen_rocprof: %s", err);
}
static sqlite3_stmt *prep(const char *sql, const char *sfx) {
  char *full = sqlite3_mprintf(sql, sfx);
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, full, -1, &st, NULL) != SQLITE_OK)
    tt_die(1, "gen_rocprof: %s: %s", full, sqlite3_errmsg(db));
  sqlite3_free(full);
  return st;
}
static void run(sqlite3_stmt *st) {
  if (sqlite3_step(st) != SQLITE_DONE) tt_die(1, "gen_rocprof: insert: %s", sqlite3_errmsg(db));
  sqlite3_reset(st);
}

typedef struct writer {
  sqlite3_stmt *ev, *arg, *reg, *ker, *cpy;
  int64_t next_event;
  int position_major;
  FILE *second; /* position-major: every second arg, written after the first */
} writer;

static void write_event(writer *w, int cat, int64_t corr) {
  sqlite3_bind_int64(w->ev, 1, ++w->next_event);
  sqlite3_bind_int(w->ev, 2, cat);
  sqlite3_bind_int64(w->ev, 3, corr);
  sqlite3_bind_int64(w->ev, 4, corr);
  run(w->ev);
}
static void write_arg(writer *w, int64_t ev, int pos, const char *type, const char *name,
                      const char *value) {
  sqlite3_bind_int64(w->arg, 1, ev);
  sqlite3_bind_int(w->arg, 2, pos);
  sqlite3_bind_text(w->arg, 3, type, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(w->arg, 4, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(w->arg, 5, value, -1, SQLITE_TRANSIENT);
  run(w->arg);
}

static void write_op(writer *w, const op *o) {
  char v[64];
  write_event(w, o->kind == S_CAT_KERNEL ? S_CAT_KERNEL : o->kind == S_CAT_COPY ? S_CAT_COPY : S_CAT_API,
              o->corr);
  int64_t ev = w->next_event;
  if (o->kind == S_LAUNCH || o->kind == S_MEMCPY) {
    const char *n0 = o->kind == S_LAUNCH ? "function_address" : "dst";
    snprintf(v, sizeof v, "0x7f%010llx", (unsigned long long)(o->corr * 4096));
    write_arg(w, ev, 0, "const void*", n0, v);
    snprintf(v, sizeof v, "0x%llx", (unsigned long long)(0x5500 + o->tid));
    if (w->position_major)
      fprintf(w->second, "%lld %s\n", (long long)ev, v);
    else
      write_arg(w, ev, 1, "hipStream_t", "stream", v);
  }
  switch (o->kind) {
  case S_CAT_KERNEL:
    sqlite3_bind_int64(w->ker, 1, o->seq);
    sqlite3_bind_int64(w->ker, 2, PID + o->tid);
    sqlite3_bind_int(w->ker, 3, o->kernel + 1);
    sqlite3_bind_int64(w->ker, 4, o->corr);
    sqlite3_bind_int(w->ker, 5, o->lane + 1);
    sqlite3_bind_int64(w->ker, 6, o->start);
    sqlite3_bind_int64(w->ker, 7, o->end);
    sqlite3_bind_int64(w->ker, 8, ev);
    run(w->ker);
    break;
  case S_CAT_COPY:
    sqlite3_bind_int64(w->cpy, 1, o->seq);
    sqlite3_bind_int64(w->cpy, 2, PID + o->tid);
    sqlite3_bind_int64(w->cpy, 3, o->start);
    sqlite3_bind_int64(w->cpy, 4, o->end);
    sqlite3_bind_int64(w->cpy, 5, (o->corr * 7919) % (1 << 20) + 1);
    sqlite3_bind_int(w->cpy, 6, NQUEUES + o->lane + 1);
    sqlite3_bind_int64(w->cpy, 7, ev);
    run(w->cpy);
    break;
  default:
    sqlite3_bind_int64(w->reg, 1, o->corr);
    sqlite3_bind_int64(w->reg, 2, PID + o->tid);
    sqlite3_bind_int64(w->reg, 3, o->start);
    sqlite3_bind_int64(w->reg, 4, o->end);
    sqlite3_bind_int(w->reg, 5, o->kind);
    sqlite3_bind_int64(w->reg, 6, ev);
    run(w->reg);
  }
}

/* Each thread and queue fills a buffer of its own as its calls or
 * kernels end; a full buffer is written out (ids given) at once: so ids
 * follow end order within a thread or queue, and a thread that calls
 * seldom has its calls written long after the main thread's calls around
 * them in time. */
#define FLUSH_AT 512
#define NSOURCES (NTHREADS > NQUEUES ? NTHREADS : NQUEUES)
typedef struct buffers {
  op a[NSOURCES][FLUSH_AT];
  int n[NSOURCES];
} buffers;

static void flush(writer *w, buffers *b, int src) {
  for (int i = 0; i < b->n[src]; i++) write_op(w, &b->a[src][i]);
  b->n[src] = 0;
}
static void buffer_op(writer *w, buffers *b, const op *o) {
  int src = o->kind == S_CAT_KERNEL || o->kind == S_CAT_COPY ? o->lane : o->tid;
  b->a[src][b->n[src]++] = *o;
  if (b->n[src] == FLUSH_AT) flush(w, b, src);
}

/* One category (0 regions, 1 dispatches, 2 copies) of the first n calls'
 * worth of events: an op ends up in its buffer once every call still to
 * come starts after its end (GPU work starts after its call). */
static void write_category(writer *w, uint64_t seed, int cat, int64_t calls) {
  sim s;
  sim_init(&s, seed);
  heap h = {0};
  buffers *b = tt_calloc(1, sizeof *b);
  op call, gpu;
  for (int64_t i = 0; i < calls; i++) {
    sim_next(&s, &call, &gpu);
    while (h.n && h.a[0].end <= call.start) {
      op o = heap_pop(&h);
      buffer_op(w, b, &o);
    }
    if (cat == 0) heap_push(&h, call);
    if (cat == 1 && gpu.kind == S_CAT_KERNEL) heap_push(&h, gpu);
    if (cat == 2 && gpu.kind == S_CAT_COPY) heap_push(&h, gpu);
  }
  while (h.n) {
    op o = heap_pop(&h);
    buffer_op(w, b, &o);
  }
  for (int src = 0; src < NSOURCES; src++) flush(w, b, src);
  free(b);
  free(h.a);
}

int main(int argc, char **argv) {
  tt_set_progname(argv[0]);
  int position_major = argc > 1 && strcmp(argv[argc - 1], "--position-major") == 0;
  if (position_major) argc--;
  if (argc < 3) {
    fprintf(stderr, "usage: gen_rocprof OUT.db N [SEED] [--position-major]\n");
    return 2;
  }
  long long n = atoll(argv[2]);
  uint64_t seed = argc > 3 ? (uint64_t)atoll(argv[3]) : 1;
  /* calls per event: 1 call gives 1 region, 0.576 kernels, 0.061 copies */
  int64_t calls = (int64_t)(n / 1.637) + 1;
  const char *guid = "0c0ffee0-1234-4abc-8def-0123456789ab";
  const char *sfx = "_0c0ffee0_1234_4abc_8def_0123456789ab";
  remove(argv[1]);
  if (sqlite3_open(argv[1], &db) != SQLITE_OK) tt_die(1, "%s: cannot create", argv[1]);
  exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16384; BEGIN");
  char *schema = hub_schema_expand(hub_schema_sql, guid);
  exec(schema);
  free(schema);
  char *meta = sqlite3_mprintf(
      "INSERT INTO rocpd_metadata%s(tag, value) VALUES ('schema_version', '3'), ('uuid', '%s'), "
      "('guid', '%s');"
      "INSERT INTO rocpd_info_node%s(id, hash, machine_id, hostname) VALUES (1, 42, 'm0', 'node0');"
      "INSERT INTO rocpd_info_process%s(id, nid, pid, command) VALUES (%d, 1, %d, 'train');"
      "INSERT INTO rocpd_info_agent%s(id, nid, pid, type, absolute_index, logical_index, "
      "type_index, name, product_name) VALUES (1, 1, %d, 'CPU', 0, 0, 0, 'cpu', 'AMD EPYC'), "
      "(2, 1, %d, 'GPU', 1, 1, 0, 'gfx90a', 'AMD Instinct MI210');",
      sfx, sfx, guid, sfx, sfx, PID, PID, sfx, PID, PID);
  exec(meta);
  sqlite3_free(meta);
  sqlite3_stmt *st = prep("INSERT INTO rocpd_string%s(id, string) VALUES (?1, ?2)", sfx);
  const char *strings[S_COUNT] = {NULL, api_names[0], api_names[1], api_names[2], api_names[3],
                                  api_names[4], "HIP_RUNTIME_API_EXT", "KERNEL_DISPATCH",
                                  "MEMORY_COPY", "MEMORY_COPY_HOST_TO_DEVICE"};
  for (int i = 1; i < S_COUNT; i++) {
    sqlite3_bind_int(st, 1, i);
    sqlite3_bind_text(st, 2, strings[i], -1, SQLITE_STATIC);
    run(st);
  }
  sqlite3_finalize(st);
  st = prep("INSERT INTO rocpd_info_thread%s(id, nid, pid, tid, name) VALUES (?1, 1, 31337, ?1, ?2)",
            sfx);
  for (int t = 0; t < NTHREADS; t++) {
    char name[16];
    snprintf(name, sizeof name, t ? "worker%d" : "main", t);
    sqlite3_bind_int(st, 1, PID + t);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    run(st);
  }
  sqlite3_finalize(st);
  st = prep("INSERT INTO rocpd_info_queue%s(id, nid, pid, name) VALUES (?1, 1, 31337, ?2)", sfx);
  for (int q = 0; q < NQUEUES + NCOPYQ; q++) {
    char name[32];
    snprintf(name, sizeof name, q < NQUEUES ? "queue %d" : "copy engine %d", q < NQUEUES ? q : q - NQUEUES);
    sqlite3_bind_int(st, 1, q + 1);
    sqlite3_bind_text(st, 2, name, -1, SQLITE_TRANSIENT);
    run(st);
  }
  sqlite3_finalize(st);
  st = prep("INSERT INTO rocpd_info_kernel_symbol%s(id, nid, pid, kernel_name, display_name) "
            "VALUES (?1, 1, 31337, ?2, ?2)",
            sfx);
  for (int k = 0; k < NKERNELS; k++) {
    sqlite3_bind_int(st, 1, k + 1);
    sqlite3_bind_text(st, 2, kernels[k], -1, SQLITE_STATIC);
    run(st);
  }
  sqlite3_finalize(st);

  writer w = {0};
  w.position_major = position_major;
  w.ev = prep("INSERT INTO rocpd_event%s(id, category_id, stack_id, parent_stack_id, "
              "correlation_id) VALUES (?1, ?2, ?3, ?3, ?4)",
              sfx);
  w.arg = prep("INSERT INTO rocpd_arg%s(event_id, position, type, name, value) VALUES (?1, ?2, ?3, "
               "?4, ?5)",
               sfx);
  w.reg = prep("INSERT INTO rocpd_region%s(id, nid, pid, tid, start, end, name_id, event_id) VALUES "
               "(?1, 1, 31337, ?2, ?3, ?4, ?5, ?6)",
               sfx);
  w.ker = prep("INSERT INTO rocpd_kernel_dispatch%s(nid, pid, tid, agent_id, kernel_id, dispatch_id, "
               "queue_id, start, end, region_name_id, event_id, workgroup_size_x, "
               "workgroup_size_y, workgroup_size_z, grid_size_x, grid_size_y, grid_size_z) VALUES "
               "(1, 31337, ?2, 2, ?3, ?1, ?5, ?6, ?7, 1, ?8, 256, 1, 1, 65536, 1, 1)",
               sfx);
  w.cpy = prep("INSERT INTO rocpd_memory_copy%s(nid, pid, tid, start, end, name_id, dst_agent_id, "
               "src_agent_id, size, queue_id, region_name_id, event_id) VALUES (1, 31337, ?2, ?3, ?4, "
               "9, 2, 1, ?5, ?6, 2, ?7)",
               sfx);
  if (position_major && !(w.second = tmpfile())) tt_die(1, "gen_rocprof: no temporary file");
  for (int cat = 0; cat < 3; cat++) write_category(&w, seed, cat, calls);
  if (position_major) {
    rewind(w.second);
    long long ev;
    char v[64];
    while (fscanf(w.second, "%lld %63s", &ev, v) == 2) write_arg(&w, ev, 1, "hipStream_t", "stream", v);
    fclose(w.second);
  }
  sqlite3_finalize(w.ev);
  sqlite3_finalize(w.arg);
  sqlite3_finalize(w.reg);
  sqlite3_finalize(w.ker);
  sqlite3_finalize(w.cpy);
  exec("COMMIT");
  if (sqlite3_close(db) != SQLITE_OK) tt_die(1, "%s: %s", argv[1], sqlite3_errmsg(db));
  return 0;
}
