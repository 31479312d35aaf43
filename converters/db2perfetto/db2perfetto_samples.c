/* CPU samples as Perfetto's PerfSample packets, their stacks interned on
 * the part's sequence: InternedData function_names, mapping_paths and
 * mappings (one per module), frames and callstacks (bottom frame first),
 * each sent once, with the first sample that needs it, and again after the
 * event interning's reset clears the sequence's state. A call's own
 * backtrace (nsys's OS runtime calls) is its slice's callstack_iid, into
 * the same callstacks (sent in a packet of its own when the slice is held). trace_processor
 * reads them into perf_sample and stack_profile_callsite/frame/mapping;
 * the UI draws them on each thread's and process's "callstack samples"
 * track with a flame graph of any selection. (StreamingProfilePacket is
 * the older form: times in µs deltas, one thread per sequence; StackSample
 * is newer than the UIs in use.) */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2perfetto.h"

typedef Perfetto__Protos__InternedString pf_istr;

/* What the packet being built interns: reused from sample to sample. */
struct pf_stacks {
  uint64_t gen; /* c->in.resets + 1 when the flags below were set */
  unsigned char *frame_sent, *site_sent;
  size_t cap_frames, cap_sites;
  tt_strmap modules; /* module -> mapping iid (and its path's) */
  unsigned char *module_sent;
  size_t nmodules, cap_modules;
  pf_istr *strs, **fn_ptrs, **path_ptrs;
  size_t nstrs, cap_strs, nfn, npath, cap_fn, cap_path;
  Perfetto__Protos__Mapping *maps, **map_ptrs;
  size_t nmaps, cap_maps, cap_map_ptrs;
  uint64_t *map_path_ids;
  size_t cap_map_path_ids;
  Perfetto__Protos__Frame *frames, **frame_ptrs;
  size_t nframes, cap_fr, cap_frame_ptrs;
  uint64_t *stack_ids; /* the callstack's frame ids */
  size_t cap_stack_ids;
  Perfetto__Protos__Callstack stack, *stack_ptr;
};

static void forget_if_cleared(pf_ctx *c, struct pf_stacks *k) {
  if (k->gen == c->in.resets + 1) return;
  k->gen = c->in.resets + 1;
  if (k->cap_frames) memset(k->frame_sent, 0, k->cap_frames);
  if (k->cap_sites) memset(k->site_sent, 0, k->cap_sites);
  if (k->cap_modules) memset(k->module_sent, 0, k->cap_modules);
}

static pf_istr *new_str(struct pf_stacks *k, uint64_t iid, const char *s) {
  tt_grow(k->strs, k->nstrs + 1, k->cap_strs);
  pf_istr *v = &k->strs[k->nstrs++];
  *v = (pf_istr)PERFETTO__PROTOS__INTERNED_STRING__INIT;
  v->has_iid = v->has_str = 1;
  v->iid = iid;
  v->str.data = (uint8_t *)s;
  v->str.len = strlen(s);
  return v;
}

/* The mapping iid of module, queued when not sent since the last clear. */
static uint64_t mapping_of(struct pf_stacks *k, const char *module) {
  int added;
  int64_t *id = tt_strmap_add(&k->modules, module, (int64_t)k->nmodules + 1, &added);
  if (added) k->nmodules++;
  uint64_t iid = (uint64_t)*id;
  tt_grow(k->module_sent, iid + 1, k->cap_modules);
  if (!k->module_sent[iid]) {
    k->module_sent[iid] = 1;
    tt_grow(k->maps, k->nmaps + 1, k->cap_maps);
    tt_grow(k->map_path_ids, k->nmaps + 1, k->cap_map_path_ids);
    Perfetto__Protos__Mapping *m = &k->maps[k->nmaps];
    *m = (Perfetto__Protos__Mapping)PERFETTO__PROTOS__MAPPING__INIT;
    m->has_iid = 1;
    m->iid = iid;
    k->map_path_ids[k->nmaps] = iid;
    k->nmaps++;
    new_str(k, iid, module); /* its path, interned under the same iid */
  }
  return iid;
}

static struct pf_stacks *stacks_of(pf_ctx *c) {
  if (!c->stacks) c->stacks = tt_calloc(1, sizeof *c->stacks);
  forget_if_cleared(c, c->stacks);
  return c->stacks;
}

int pf_stack_known(const pf_ctx *c, int64_t site) {
  const struct pf_stacks *k = c->stacks;
  return k && k->gen == c->in.resets + 1 && (size_t)site < k->cap_sites && k->site_sent[site];
}

/* The InternedData that makes callsite `site` known (its functions,
 * mappings, frames and callstack not sent since the last clear) into
 * *data, pointing into c->stacks until the next call; 0 when it is known
 * already (*data then empty). */
static int stack_data(pf_ctx *c, int64_t site, Perfetto__Protos__InternedData *data) {
  hub_sample_reader *sr = tt_part_samples_stacks(&c->samples);
  struct pf_stacks *k = stacks_of(c);
  *data = (Perfetto__Protos__InternedData)PERFETTO__PROTOS__INTERNED_DATA__INIT;
  k->nstrs = k->nfn = k->npath = k->nmaps = k->nframes = 0;
  const hub_callsite *leaf = hub_samples_callsite(sr, site);
  if (!leaf) return 0;
  size_t depth = (size_t)leaf->depth + 1;
  tt_grow(k->stack_ids, depth, k->cap_stack_ids);
  tt_grow(k->frame_sent, hub_samples_nframes(sr), k->cap_frames);
  tt_grow(k->site_sent, hub_samples_ncallsites(sr), k->cap_sites);
  if (k->site_sent[site]) return 0;
  k->site_sent[site] = 1;
  /* Which strings are function names and which paths, in queue order. */
  unsigned char *is_fn = NULL;
  size_t cap_is_fn = 0;
  size_t i = depth;
  for (const hub_callsite *cs = leaf; cs; cs = hub_samples_callsite(sr, cs->parent)) {
    k->stack_ids[--i] = (uint64_t)cs->frame + 1; /* bottom (outermost) frame first */
    if (k->frame_sent[cs->frame]) continue;
    k->frame_sent[cs->frame] = 1;
    const hub_frame *f = hub_samples_frame(sr, cs->frame);
    size_t before = k->nstrs;
    uint64_t map = mapping_of(k, f->module);
    tt_grow(is_fn, k->nstrs + 1, cap_is_fn);
    for (size_t j = before; j < k->nstrs; j++) is_fn[j] = 0;
    new_str(k, (uint64_t)cs->frame + 1, f->name);
    is_fn[k->nstrs - 1] = 1;
    tt_grow(k->frames, k->nframes + 1, k->cap_fr);
    Perfetto__Protos__Frame *fr = &k->frames[k->nframes++];
    *fr = (Perfetto__Protos__Frame)PERFETTO__PROTOS__FRAME__INIT;
    fr->has_iid = fr->has_function_name_id = fr->has_mapping_id = 1;
    fr->iid = (uint64_t)cs->frame + 1;
    fr->function_name_id = (uint64_t)cs->frame + 1;
    fr->mapping_id = map;
    if (f->pc != HUB_NULL) {
      fr->has_rel_pc = 1;
      fr->rel_pc = (uint64_t)f->pc; /* the mapping's start is not recorded: absolute */
    }
  }
  /* Pointers, now that the arrays have stopped moving. */
  tt_grow(k->fn_ptrs, k->nstrs ? k->nstrs : 1, k->cap_fn);
  tt_grow(k->path_ptrs, k->nstrs ? k->nstrs : 1, k->cap_path);
  for (size_t j = 0; j < k->nstrs; j++) {
    if (is_fn[j]) k->fn_ptrs[k->nfn++] = &k->strs[j];
    else k->path_ptrs[k->npath++] = &k->strs[j];
  }
  free(is_fn);
  tt_grow(k->map_ptrs, k->nmaps ? k->nmaps : 1, k->cap_map_ptrs);
  for (size_t j = 0; j < k->nmaps; j++) {
    k->maps[j].n_path_string_ids = 1;
    k->maps[j].path_string_ids = &k->map_path_ids[j];
    k->map_ptrs[j] = &k->maps[j];
  }
  tt_grow(k->frame_ptrs, k->nframes ? k->nframes : 1, k->cap_frame_ptrs);
  for (size_t j = 0; j < k->nframes; j++) k->frame_ptrs[j] = &k->frames[j];
  data->n_function_names = k->nfn;
  data->function_names = k->fn_ptrs;
  data->n_mapping_paths = k->npath;
  data->mapping_paths = k->path_ptrs;
  data->n_mappings = k->nmaps;
  data->mappings = k->map_ptrs;
  data->n_frames = k->nframes;
  data->frames = k->frame_ptrs;
  k->stack = (Perfetto__Protos__Callstack)PERFETTO__PROTOS__CALLSTACK__INIT;
  k->stack.has_iid = 1;
  k->stack.iid = (uint64_t)site + 1;
  k->stack.n_frame_ids = depth;
  k->stack.frame_ids = k->stack_ids;
  k->stack_ptr = &k->stack;
  data->n_callstacks = 1;
  data->callstacks = &k->stack_ptr;
  return 1;
}

int pf_stack_send(pf_ctx *c, int64_t site) {
  Perfetto__Protos__InternedData data;
  if (!stack_data(c, site, &data)) return 0;
  pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.interned_data = &data;
  return pf_writer_put(&c->w, &p, 1, 0);
}

int pf_sample_write(pf_ctx *c, const hub_cpu_sample *s) {
  Perfetto__Protos__InternedData data;
  int new_stack = stack_data(c, s->callsite, &data);
  Perfetto__Protos__PerfSample ps = PERFETTO__PROTOS__PERF_SAMPLE__INIT;
  const hub_thread_info *ti = hub_reader_find_thread(c->r, s->db, s->tid);
  const hub_process_info *pi = hub_reader_find_process(c->r, s->db, s->pid);
  ps.has_pid = ps.has_tid = 1;
  ps.pid = (uint32_t)(pi ? pi->view_pid : s->pid);
  ps.tid = (uint32_t)(ti ? ti->tid : s->tid);
  if (s->cpu != HUB_NULL) {
    ps.has_cpu = 1;
    ps.cpu = (uint32_t)s->cpu;
  }
  if (s->callsite >= 0) {
    ps.has_callstack_iid = 1;
    ps.callstack_iid = (uint64_t)s->callsite + 1;
  }
  pf_packet p = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  p.has_timestamp = 1;
  p.timestamp = (uint64_t)s->ts;
  p.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_PERF_SAMPLE;
  p.perf_sample = &ps;
  if (new_stack) p.interned_data = &data;
  return pf_writer_put(&c->w, &p, 1, 0);
}

int pf_samples_before(pf_ctx *c, int64_t t) {
  hub_cpu_sample s;
  int rc;
  while ((rc = tt_part_samples_before(&c->samples, t, &s)) == 1)
    if (pf_advance(c, s.ts) != 0 || pf_sample_write(c, &s) != 0) return -1;
  return rc;
}

void pf_stacks_free(struct pf_stacks *k) {
  if (!k) return;
  free(k->frame_sent);
  free(k->site_sent);
  free(k->module_sent);
  tt_strmap_free(&k->modules);
  free(k->strs);
  free(k->fn_ptrs);
  free(k->path_ptrs);
  free(k->maps);
  free(k->map_ptrs);
  free(k->map_path_ids);
  free(k->frames);
  free(k->frame_ptrs);
  free(k->stack_ids);
  free(k);
}
