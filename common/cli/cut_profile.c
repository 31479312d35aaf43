#include "cli/cut_profile.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* The chunks, taken in turn by the threads; each result kept by chunk so
 * that the sum is the same whichever thread planned which. */
typedef struct profile_job {
  const char *const *inputs;
  size_t ninputs;
  const hub_filter *f;
  const tt_plan_spec *s;
  int64_t bounds[TT_PROFILE_CHUNKS + 1];
  int nchunks;
  /* Opening a reader touches the process's SQLite setup (its inputs, the
   * -shm files it made): one thread at a time. */
  pthread_mutex_t open_mu;
  atomic_int next;   /* the next chunk to plan */
  atomic_int failed; /* a chunk failed (said): the others stop taking */
  tt_cut_profile part[TT_PROFILE_CHUNKS];
  /* Each chunk's reader, closed once both threads are done: SQLite defers
   * closing a file another connection holds a lock on, and the thread
   * reading would then close it (ThreadSanitizer: test_split_size). */
  hub_reader *readers[TT_PROFILE_CHUNKS];
} profile_job;

/* What a part holds with no event (its header), as the planner measures. */
static uint64_t empty_part_bytes(hub_reader *r, const tt_plan_spec *s) {
  tt_part part = *s->proto;
  part.start = s->t0, part.end = INT64_MAX, part.dry = 1, part.index = 0, part.count = 1;
  tt_output *out = tt_output_begin("/dev/null");
  void *st = s->ex->begin_part(r, s->o, &part, out);
  uint64_t b = st ? s->ex->part_bytes(st) : 0;
  if (st) s->ex->end_part(st, r);
  tt_output_abort(out);
  return b;
}

static void unlock(void *mu) { pthread_mutex_unlock(mu); }

/* Unlocked too if a tt_die ends the helper in there (out of memory). */
static hub_reader *open_locked(profile_job *j, const hub_filter *f) {
  hub_reader *r;
  pthread_cleanup_push(unlock, &j->open_mu);
  pthread_mutex_lock(&j->open_mu);
  r = hub_reader_open(j->inputs, j->ninputs, f);
  pthread_cleanup_pop(1);
  return r;
}

static int plan_chunk(profile_job *j, int c) {
  hub_filter f = *j->f;
  f.start = j->bounds[c];
  f.end = j->bounds[c + 1];
  tt_plan_spec s = *j->s;
  s.t0 = f.start;
  s.t1 = f.end;
  hub_reader *r = open_locked(j, &f);
  if (!r) return -1;
  uint64_t header = c == 0 ? empty_part_bytes(r, &s) : 0;
  tt_cut_plan plan;
  int rc = tt_plan_fewest(r, &s, &plan);
  j->readers[c] = r;
  if (rc != 0) return -1;
  j->part[c] = (tt_cut_profile){.total = tt_cut_plan_total(&plan), .step = plan.step,
                                .nparts = plan.nparts, .noversize = plan.noversize,
                                .overhead = header};
  tt_cut_plan_free(&plan);
  return 0;
}

static void take_chunks(profile_job *j) {
  int c;
  while (!atomic_load(&j->failed) && (c = atomic_fetch_add(&j->next, 1)) < j->nchunks)
    if (plan_chunk(j, c) != 0) atomic_store(&j->failed, 1);
}

/* A tt_die on the helper (out of memory) ends only it: counted as failed. */
static void helper_gone(void *arg) { atomic_store(&((profile_job *)arg)->failed, 1); }

static void *helper(void *arg) {
  tt_die_ends_thread();
  pthread_cleanup_push(helper_gone, arg);
  take_chunks(arg);
  pthread_cleanup_pop(0);
  return NULL;
}

int tt_profile_cuts(const char *const *inputs, size_t ninputs, const hub_filter *f,
                    const tt_plan_spec *s, int threads, tt_cut_profile *out) {
  profile_job *j = tt_calloc(1, sizeof *j);
  j->inputs = inputs, j->ninputs = ninputs, j->f = f, j->s = s;
  int64_t span = s->t1 - s->t0;
  j->nchunks = span < TT_PROFILE_CHUNKS ? (int)span : TT_PROFILE_CHUNKS;
  if (j->nchunks < 1) j->nchunks = 1;
  for (int c = 0; c < j->nchunks; c++) j->bounds[c] = s->t0 + span / j->nchunks * c;
  j->bounds[j->nchunks] = s->t1;
  pthread_mutex_init(&j->open_mu, NULL);
  atomic_init(&j->next, 0);
  atomic_init(&j->failed, 0);
  pthread_t t;
  int helped = 0;
  if (threads >= 2 && j->nchunks > 1) {
    /* Signals go to the caller's thread. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    helped = pthread_create(&t, NULL, helper, j) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
  }
  take_chunks(j);
  if (helped) pthread_join(t, NULL);
  for (int c = 0; c < j->nchunks; c++) hub_reader_close(j->readers[c]);
  int rc = atomic_load(&j->failed) ? -1 : 0;
  *out = (tt_cut_profile){0};
  for (int c = 0; c < j->nchunks && rc == 0; c++) {
    out->total += j->part[c].total;
    out->nparts += j->part[c].nparts;
    out->noversize += j->part[c].noversize;
    if (j->part[c].step > out->step) out->step = j->part[c].step;
  }
  out->overhead = j->part[0].overhead + s->ex->clip_bytes_once;
  pthread_mutex_destroy(&j->open_mu);
  free(j);
  return rc;
}

size_t tt_profile_parts(const tt_cut_profile *p, uint64_t max, uint64_t *total) {
  uint64_t shared = p->overhead;
  if (p->noversize || !max) return 0;
  uint64_t n = (p->total + max - 1) / max;
  if (n < 1) n = 1;
  /* The chunks' parts each had a header: n parts have n of them. */
  uint64_t t = p->total, extra = p->nparts > n ? (p->nparts - n) * shared : 0;
  t = t > extra ? t - extra : 0;
  if (p->nparts < n) t += (n - p->nparts) * shared;
  uint64_t aim = (t + n - 1) / n;
  if (p->step > max / (n + 1)) return 0;
  if (aim + (n + 1) * p->step > max) return 0;
  *total = t;
  return (size_t)n;
}
