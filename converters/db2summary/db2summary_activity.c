/* Busy time over time: unions of intervals that arrive in start order
 * (the GPU busy figure's logic), each closed piece also spread over fixed
 * bins; and per process, the unions of its kernels and of its kernels and
 * copies within its own span. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2summary.h"

void sm_bins_set(sm_summary *s, int64_t lo, int64_t hi) {
  if (hi < lo) hi = lo;
  /* [lo, hi] inclusive of the last ns; a width of at least 1 ns */
  uint64_t len = (uint64_t)(hi - lo) + 1;
  uint64_t w = (len + SM_BINS - 1) / SM_BINS;
  s->bins = (sm_bins){.start = lo, .width = (int64_t)(w ? w : 1), .n = SM_BINS};
}

/* A closed piece [a, b) of a union: its ns go to busy and to the bins. */
static void union_piece(const sm_summary *s, sm_union *u, int64_t a, int64_t b) {
  u->busy += b - a;
  if (!u->bins) return;
  const sm_bins *bn = &s->bins;
  int64_t lo = bn->start, hi = bn->start + bn->width * bn->n;
  if (a < lo) a = lo; /* outside the bins: an event the time span left out */
  if (b > hi) b = hi;
  if (a >= b) return;
  int64_t i = (a - lo) / bn->width;
  while (a < b && i < bn->n) {
    int64_t edge = lo + (i + 1) * bn->width;
    int64_t e = b < edge ? b : edge;
    u->bins[i] += e - a;
    a = e;
    i++;
  }
}

void sm_union_add(const sm_summary *s, sm_union *u, int64_t start, int64_t end) {
  if (!u->open) {
    if (u->binned && s->bins.n && !u->bins) u->bins = tt_calloc((size_t)s->bins.n, sizeof *u->bins);
    u->open = 1;
    u->cur_start = start;
    u->cur_end = end;
  } else if (start > u->cur_end) { /* a gap: the union so far is final */
    union_piece(s, u, u->cur_start, u->cur_end);
    u->cur_start = start;
    u->cur_end = end;
  } else if (end > u->cur_end) {
    u->cur_end = end;
  }
}

void sm_union_finish(const sm_summary *s, sm_union *u) {
  if (!u->open) return;
  union_piece(s, u, u->cur_start, u->cur_end);
  u->open = 0;
}

void sm_union_free(sm_union *u) {
  free(u->bins);
  u->bins = NULL;
}

/* --- processes ------------------------------------------------------- */

void sm_proc_add(sm_summary *s, const hub_record *ev) {
  int64_t key = ((int64_t)ev->db << 40) | (ev->pid & (((int64_t)1 << 40) - 1));
  int64_t *ix = tt_i64map_get(&s->proc_ix, key);
  sm_proc *p;
  if (ix) {
    p = &s->procs[*ix];
  } else {
    tt_grow(s->procs, s->nprocs + 1, s->cap_procs);
    tt_i64map_put(&s->proc_ix, key, (int64_t)s->nprocs);
    p = &s->procs[s->nprocs++];
    *p = (sm_proc){.db = ev->db, .pid = ev->pid, .first = ev->start, .last = ev->end};
    p->gpu.binned = 1;
  }
  p->events++;
  if (ev->start < p->first) p->first = ev->start;
  if (ev->end > p->last) p->last = ev->end;
  if (ev->kind == HUB_KERNEL) sm_union_add(s, &p->kernels, ev->start, ev->end);
  if (ev->kind == HUB_KERNEL || ev->kind == HUB_COPY) sm_union_add(s, &p->gpu, ev->start, ev->end);
}

void sm_procs_finish(sm_summary *s) {
  for (size_t i = 0; i < s->nprocs; i++) {
    sm_union_finish(s, &s->procs[i].kernels);
    sm_union_finish(s, &s->procs[i].gpu);
  }
}

void sm_procs_free(sm_summary *s) {
  for (size_t i = 0; i < s->nprocs; i++) {
    sm_union_free(&s->procs[i].kernels);
    sm_union_free(&s->procs[i].gpu);
  }
  free(s->procs);
  tt_i64map_free(&s->proc_ix);
}
