/* Which device of the run each agent is (hub_agent_view.gpu_view and
 * owner_label): a multi-node job has one hub per rank, the same GPU
 * indices on every host, so an index alone would put two hosts' GPU 0 on
 * one track. The agents are few (a handful per input): sorted once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/util.h"
#include "hub/hub_reader_inputs.h"

typedef struct device_key {
  size_t agent;
  int64_t index;   /* type_index */
  int host;        /* the owner's host ordinal, -1 when no owner */
  int64_t process; /* the owner's view pid (one per (host, pid)), else -1 - db */
} device_key;

static int cmp_i64(int64_t a, int64_t b) { return (a > b) - (a < b); }

/* By index, then owner: the runs of one index, their first owner first. */
static int cmp_by_index(const void *pa, const void *pb) {
  const device_key *a = pa, *b = pb;
  int c = cmp_i64(a->index, b->index);
  if (!c) c = cmp_i64(a->host, b->host);
  if (!c) c = cmp_i64(a->process, b->process);
  return c;
}

/* By owner, then index: how the other devices are numbered. */
static int cmp_by_owner(const void *pa, const void *pb) {
  const device_key *a = pa, *b = pb;
  int c = cmp_i64(a->host, b->host);
  if (!c) c = cmp_i64(a->process, b->process);
  if (!c) c = cmp_i64(a->index, b->index);
  return c;
}

static int same_device(const device_key *a, const device_key *b) {
  return a->index == b->index && a->host == b->host && a->process == b->process;
}

/* "nodeB [rank 4]", "nodeB (pid 1234)", "[rank 4]", "input 2". */
static char *owner_label(const hub_process_info *p, int db) {
  tt_buf b = {0};
  if (!p) {
    tt_buf_printf(&b, "input %d", db);
    return b.data;
  }
  if (p->hostname[0]) tt_buf_printf(&b, "%s ", p->hostname);
  if (p->rank != HUB_NULL)
    tt_buf_printf(&b, "[rank %lld]", (long long)p->rank);
  else
    tt_buf_printf(&b, "(pid %lld)", (long long)p->pid);
  return b.data;
}

/* The process an agent belongs to: its pid's in its input, else (a GPU
 * under a device pid, Kineto's; nsys's none) its input's first process. */
static const hub_process_info *owner_of(const hr_inputs *in, const hub_agent_view *a,
                                        const int64_t *first_process) {
  int64_t *ix = tt_i64map_get(&in->process_ix, hr_key_db_id(a->db, a->pid, 0));
  if (ix) return &in->processes[*ix];
  int64_t f = first_process[a->db];
  return f >= 0 ? &in->processes[f] : NULL;
}

void hr_name_devices(hr_inputs *in, const char *part_host) {
  for (size_t i = 0; i < in->nagents; i++) {
    free((char *)in->agents[i].owner_label);
    in->agents[i].owner_label = tt_strdup("");
    in->agents[i].gpu_view = 0;
  }
  if (part_host || in->nagents < 2) return; /* a (host, pid) part: one process */
  int64_t *first_process = tt_calloc(in->ndbs ? in->ndbs : 1, sizeof *first_process);
  for (size_t d = 0; d < in->ndbs; d++) first_process[d] = -1;
  for (size_t i = in->nprocesses; i-- > 0;)
    if (in->processes[i].db >= 0 && (size_t)in->processes[i].db < in->ndbs)
      first_process[in->processes[i].db] = (int64_t)i;
  device_key *k = tt_calloc(in->nagents, sizeof *k);
  const hub_process_info **owners = tt_calloc(in->nagents, sizeof *owners);
  size_t n = 0;
  for (size_t i = 0; i < in->nagents; i++) {
    const hub_agent_view *a = &in->agents[i];
    if (strcasecmp(a->type, "CPU") == 0) continue;
    const hub_process_info *p = owner_of(in, a, first_process);
    owners[i] = p;
    k[n++] = (device_key){.agent = i, .index = a->type_index, .host = p ? p->host : -1,
                          .process = p ? p->view_pid : -1 - a->db};
  }
  qsort(k, n, sizeof *k, cmp_by_index);
  /* Runs of one index: with more than one owner, every owner is named and
   * all but the first are numbered below. */
  device_key *others = tt_calloc(n ? n : 1, sizeof *others);
  size_t nothers = 0;
  for (size_t lo = 0, hi; lo < n; lo = hi) {
    for (hi = lo + 1; hi < n && k[hi].index == k[lo].index; hi++) {}
    if (same_device(&k[lo], &k[hi - 1])) continue; /* one owner */
    for (size_t j = lo; j < hi; j++) {
      hub_agent_view *a = &in->agents[k[j].agent];
      free((char *)a->owner_label);
      a->owner_label = owner_label(owners[k[j].agent], a->db);
      if (!same_device(&k[j], &k[lo])) others[nothers++] = k[j];
    }
  }
  qsort(others, nothers, sizeof *others, cmp_by_owner);
  int64_t view = 0;
  for (size_t j = 0; j < nothers; j++) {
    if (j == 0 || !same_device(&others[j], &others[j - 1])) view++;
    in->agents[others[j].agent].gpu_view = view;
  }
  free(others);
  free(owners);
  free(k);
  free(first_process);
}
