/* ExecuTorch framework tax per iteration, from hubs etprof2db writes: its
 * events are regions of category "executorch" / "executorch_delegate" on
 * one thread per block, each with an "iteration" argument (and
 * "unfinished" when the profiler never saw its end: left out, as
 * ExecuTorch's tools leave it out). */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2summary.h"

static sm_et_block *block_of(sm_summary *s, const hub_record *ev) {
  tt_buf_clear(&s->key);
  tt_buf_printf(&s->key, "%d\x1f%lld\x1f%lld", ev->db, (long long)ev->pid, (long long)ev->tid);
  int64_t *ix = tt_strmap_get(&s->et_ix, s->key.data);
  if (ix) return &s->et[*ix];
  tt_grow(s->et, s->net + 1, s->cap_et);
  tt_strmap_put(&s->et_ix, s->key.data, (int64_t)s->net);
  sm_et_block *b = &s->et[s->net++];
  *b = (sm_et_block){.db = ev->db, .pid = ev->pid, .tid = ev->tid, .iteration = HUB_NULL};
  return b;
}

/* The iteration just read is complete: its tax joins the block's. */
static void end_iteration(sm_et_block *b) {
  double tax;
  if (tt_et_iteration_tax(&b->it, &tax)) {
    tax *= 100.0;
    if (b->iterations == 0 || tax < b->tax_min) b->tax_min = tax;
    if (b->iterations == 0 || tax > b->tax_max) b->tax_max = tax;
    b->iterations++;
    b->tax_sum += tax;
    b->exec_total += b->it.exec_max;
    b->kernel_total += b->it.kernel_sum;
  }
  b->it = (tt_et_iteration){0};
}

void sm_et_event(sm_summary *s, hub_reader *r, const hub_record *ev) {
  s->executorch = 1;
  if (ev->event_id == HUB_NULL || (ev->clipped & HUB_CLIP_START)) return;
  int64_t iteration = HUB_NULL;
  int unfinished = 0;
  hub_arg_view a;
  hub_args_begin(r, ev->db, ev->event_id);
  while (hub_args_next(r, &a)) {
    if (strcmp(a.name, "iteration") == 0) iteration = strtoll(a.value, NULL, 10);
    else if (strcmp(a.name, "unfinished") == 0) unfinished = strcmp(a.value, "0") != 0;
  }
  if (iteration == HUB_NULL || unfinished) return;
  sm_et_block *b = block_of(s, ev);
  if (b->iteration != iteration) {
    end_iteration(b);
    b->iteration = iteration;
  }
  tt_et_iteration_add(&b->it, ev->name, ev->end - ev->start);
}

void sm_et_finish(sm_summary *s) {
  for (size_t i = 0; i < s->net; i++) end_iteration(&s->et[i]);
}

void sm_et_free(sm_summary *s) {
  free(s->et);
  tt_strmap_free(&s->et_ix);
}
