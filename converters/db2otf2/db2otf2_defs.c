/* Definitions, collected while events stream and written once at the end,
 * laid out as Score-P's CUDA and HIP adapters write them:
 *   machine -> node per host (named after it; "node" when the hub names
 *   none) -> PROCESS location group per process (CPU_THREAD
 *   locations, one "per process metrics" METRIC location)
 *   node -> ACCELERATOR_DEVICE node per GPU ("CUDA Device"/"ROCm Device")
 *        -> ACCELERATOR location group per (process, device), created by
 *           the process ("CUDA Context 0"), with ACCELERATOR_STREAM
 *           locations "CUDA[0:7]" / "HIP[0:1]"
 *   memory copies: a COMM_LOCATIONS group, a COMM_GROUP, a communicator
 *   and an RMA window ("CUDA_WINDOW") as Score-P's unification makes. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db2otf2.h"
#include "base/util.h"
#include "base/vec.h"

#define O2_NONE UINT32_MAX
#define NODE_MACHINE 0

/* A definition is asked for by its key: the index it already has, or -1
 * after giving it `next` (the caller then appends it there). */
static int64_t known_def(tt_strmap *index, const char *key, size_t next) {
  int added;
  int64_t v = *tt_strmap_add(index, key, (int64_t)next, &added);
  return added ? -1 : v;
}

uint32_t o2_string(o2_archive *a, const char *s) {
  /* Hub text may hold any bytes; OTF2 readers decode strings as UTF-8. */
  s = tt_utf8_clean(s, &a->clean);
  int64_t known = known_def(&a->strings, s, a->nstrings);
  if (known >= 0) return (uint32_t)known;
  a->string_bytes += strlen(s) + 1;
  return a->nstrings++;
}

static const char *fmt(o2_archive *a, const char *f, ...) TT_PRINTF(2, 3);
static const char *fmt(o2_archive *a, const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char tmp[512];
  vsnprintf(tmp, sizeof tmp, f, ap);
  va_end(ap);
  tt_buf_clear(&a->text);
  tt_buf_puts(&a->text, tmp);
  return a->text.data;
}

uint32_t o2_region(o2_archive *a, const char *name, const char *canonical, OTF2_RegionRole role,
                   OTF2_Paradigm paradigm) {
  if (!canonical || !canonical[0]) canonical = name;
  /* The key "role:paradigm:name", built without printf: asked per event. */
  tt_buf_clear(&a->text);
  tt_buf_put_i64(&a->text, (int)role);
  tt_buf_putc(&a->text, ':');
  tt_buf_put_i64(&a->text, (int)paradigm);
  tt_buf_putc(&a->text, ':');
  tt_buf_puts(&a->text, name);
  if (canonical != name) {
    tt_buf_putc(&a->text, '\x01');
    tt_buf_puts(&a->text, canonical);
  }
  int64_t known = known_def(&a->region_index, a->text.data, a->nregions);
  if (known >= 0) return (uint32_t)known;
  tt_grow(a->regions, a->nregions + 1, a->cap_regions);
  uint32_t n = o2_string(a, name);
  /* Kernels: the display name as the name, the mangled one as the
   * canonical name (Score-P's CUDA adapter). */
  a->regions[a->nregions] = (o2_region_def){.name = n, .canonical = o2_string(a, canonical),
                                            .file = O2_NO_STRING, .role = role,
                                            .paradigm = paradigm};
  if (paradigm == OTF2_PARADIGM_CUDA) a->used_cuda = 1;
  if (paradigm == OTF2_PARADIGM_HIP) a->used_hip = 1;
  return (uint32_t)a->nregions++;
}

uint32_t o2_attribute(o2_archive *a, const char *name, OTF2_Type type) {
  tt_buf_clear(&a->text);
  tt_buf_put_i64(&a->text, (int)type);
  tt_buf_putc(&a->text, ':');
  tt_buf_puts(&a->text, name);
  int64_t known = known_def(&a->attr_index, a->text.data, a->nattrs);
  if (known >= 0) return (uint32_t)known;
  tt_grow(a->attrv, a->nattrs + 1, a->cap_attrs);
  a->attrv[a->nattrs] = (o2_attr){.name = o2_string(a, name), .type = type};
  return (uint32_t)a->nattrs++;
}

static int has_any(const char *s, const char *const *words) {
  for (; *words; words++)
    if (strcasestr(s, *words)) return 1;
  return 0;
}

static o2_vendor vendor_of_agent(const hub_agent_view *ag) {
  static const char *const nvidia[] = {"nvidia", "tesla", "geforce", "quadro", "jetson", NULL};
  static const char *const amd[] = {"amd", "radeon", "instinct", "gfx", NULL};
  if (!ag) return O2_GENERIC;
  const char *names[2] = {ag->name, ag->product_name};
  for (int i = 0; i < 2; i++) {
    if (has_any(names[i], nvidia)) return O2_CUDA;
    if (has_any(names[i], amd)) return O2_HIP;
  }
  return O2_GENERIC;
}

/* The vendor every GPU of the inputs shares, else generic. */
static o2_vendor common_vendor(hub_reader *r) {
  int seen = 0;
  o2_vendor v = O2_GENERIC;
  for (size_t i = 0; i < hub_reader_nagents(r); i++) {
    const hub_agent_view *ag = hub_reader_agent(r, i);
    if (strcmp(ag->type, "GPU") != 0) continue;
    o2_vendor x = vendor_of_agent(ag);
    if (seen && x != v) return O2_GENERIC;
    v = x;
    seen = 1;
  }
  return v;
}

o2_vendor o2_gpu_vendor(o2_archive *a, hub_reader *r, const hub_record *ev) {
  int64_t key = ev->agent_id == HUB_NULL ? -1 : ((int64_t)ev->db << 40) ^ ev->agent_id;
  int64_t *v = tt_i64map_get(&a->vendor_of_gpu, key);
  if (v) return (o2_vendor)*v;
  /* Work without a GPU agent (a device -> host copy names the host as
   * its agent): the vendor of the inputs' GPUs. */
  const hub_agent_view *ag =
      ev->agent_id == HUB_NULL ? NULL : hub_reader_find_agent(r, ev->db, ev->agent_id);
  o2_vendor vd = ag && strcmp(ag->type, "GPU") == 0 ? vendor_of_agent(ag) : common_vendor(r);
  tt_i64map_put(&a->vendor_of_gpu, key, vd);
  return vd;
}

static const char *vendor_prefix(o2_vendor v) {
  return v == O2_CUDA ? "CUDA" : v == O2_HIP ? "HIP" : "GPU";
}

static uint32_t add_node(o2_archive *a, const char *name, const char *cls, uint32_t parent,
                         OTF2_SystemTreeDomain domain) {
  tt_grow(a->nodes, a->nnodes + 1, a->cap_nodes);
  uint32_t n = o2_string(a, name);
  a->nodes[a->nnodes] = (o2_node){.name = n, .class_name = o2_string(a, cls), .parent = parent,
                                  .domain = domain, .prop_name = O2_NONE,
                                  .prop_value = O2_NONE};
  return (uint32_t)a->nnodes++;
}

/* The node of the host pid's rows in input db ran on (the machine node
 * first): one per host, named after it, "node" when none is recorded. */
static uint32_t host_node(o2_archive *a, hub_reader *r, int db, int64_t pid) {
  if (a->last_host.set && a->last_host.db == db && a->last_host.pid == pid)
    return a->last_host.node; /* asked for every interval: most repeat the last */
  if (!a->nnodes) add_node(a, "machine", "machine", O2_NONE, OTF2_SYSTEM_TREE_DOMAIN_MACHINE);
  const char *host = hub_reader_host(r, db, pid);
  tt_buf_clear(&a->text);
  tt_buf_printf(&a->text, "host:%s", host);
  int64_t *v = tt_strmap_get(&a->host_index, a->text.data);
  uint32_t n = v ? (uint32_t)*v
                 : add_node(a, host[0] ? host : "node", "node", NODE_MACHINE,
                            OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY);
  if (!v) tt_strmap_put(&a->host_index, a->text.data, n);
  a->last_host.set = 1;
  a->last_host.db = db;
  a->last_host.pid = pid;
  a->last_host.node = n;
  return n;
}

static uint32_t device_node(o2_archive *a, hub_reader *r, const hub_record *ev, int64_t pid,
                            int64_t gpu, o2_vendor vd) {
  uint32_t host = host_node(a, r, ev->db, pid);
  /* an NVIDIA and an AMD GPU 0 are two devices; so are two hosts' GPU 0 */
  int64_t key = (int64_t)tt_hash_mix(host, (uint64_t)(gpu * 4 + (int64_t)vd));
  int64_t *v = tt_i64map_get(&a->node_index, key);
  if (v) return (uint32_t)*v;
  char idx[32];
  snprintf(idx, sizeof idx, "%lld", (long long)gpu);
  uint32_t n = add_node(a, idx,
                        vd == O2_CUDA  ? "CUDA Device"
                        : vd == O2_HIP ? "ROCm Device"
                                       : "Accelerator Device",
                        host, OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE);
  const hub_agent_view *ag =
      ev->agent_id != HUB_NULL ? hub_reader_find_agent(r, ev->db, ev->agent_id) : NULL;
  const char *dn = ag ? (ag->product_name[0] ? ag->product_name : ag->name) : "";
  if (dn[0]) {
    a->nodes[n].prop_name = o2_string(a, "Device name");
    a->nodes[n].prop_value = o2_string(a, dn);
  }
  a->nodes[n].generic = vd == O2_GENERIC;
  tt_i64map_put(&a->node_index, key, n);
  return n;
}

/* Processes are (host, pid): the host is its node's index. */
static uint64_t group_key(int is_gpu, uint32_t host, int64_t pid, int64_t gpu) {
  return tt_hash_mix(
      tt_hash_mix(tt_hash_mix(tt_hash_mix(0x51ed27, (uint64_t)is_gpu), host), (uint64_t)pid),
      (uint64_t)gpu);
}

/* The process label every exporter uses ("python3 [rank 3] nid008553
 * (pid 1234)", the command alone when neither rank nor host is known);
 * "Process 1234" when the hub names no command (a group needs a name). */
static uint32_t process_group(o2_archive *a, hub_reader *r, int db, int64_t pid) {
  uint32_t host = host_node(a, r, db, pid);
  uint64_t key = group_key(0, host, pid, 0);
  int64_t *v = tt_i64map_get(&a->group_index, (int64_t)key);
  if (v) return (uint32_t)*v;
  const hub_process_info *p = hub_reader_find_process(r, db, pid);
  const char *name =
      p && p->label[0] ? fmt(a, "%s", p->label) : fmt(a, "Process %lld", (long long)pid);
  tt_grow(a->groups, a->ngroups + 1, a->cap_groups);
  a->groups[a->ngroups] = (o2_group){.type = OTF2_LOCATION_GROUP_TYPE_PROCESS, .pid = pid,
                                     .name = o2_string(a, name), .parent_node = host,
                                     .creator = O2_NONE, .metric_loc = -1};
  tt_i64map_put(&a->group_index, (int64_t)key, (int64_t)a->ngroups);
  return (uint32_t)a->ngroups++;
}

static uint32_t accelerator_group(o2_archive *a, hub_reader *r, const hub_record *ev, int64_t pid,
                                  int64_t gpu, o2_vendor vd) {
  uint64_t key = group_key(1, host_node(a, r, ev->db, pid), pid, gpu);
  int64_t *v = tt_i64map_get(&a->group_index, (int64_t)key);
  if (v) return (uint32_t)*v;
  uint32_t creator = process_group(a, r, ev->db, pid);
  uint32_t node = device_node(a, r, ev, pid, gpu, vd);
  const char *name = fmt(a, "%s Context %lld", vendor_prefix(vd), (long long)gpu);
  tt_grow(a->groups, a->ngroups + 1, a->cap_groups);
  a->groups[a->ngroups] = (o2_group){.type = OTF2_LOCATION_GROUP_TYPE_ACCELERATOR, .pid = pid,
                                     .gpu = gpu, .name = o2_string(a, name),
                                     .parent_node = node, .creator = creator, .metric_loc = -1,
                                     .generic = vd == O2_GENERIC};
  tt_i64map_put(&a->group_index, (int64_t)key, (int64_t)a->ngroups);
  return (uint32_t)a->ngroups++;
}

static o2_loc *new_location(o2_archive *a, o2_loc_kind kind, uint32_t group, const char *name) {
  tt_grow(a->locs, a->nlocs + 1, a->cap_locs);
  o2_loc *l = &a->locs[a->nlocs];
  memset(l, 0, sizeof *l);
  l->kind = kind;
  l->group = group;
  l->name = o2_string(a, name);
  l->rank = -1;
  l->last_ts = INT64_MIN;
  l->w = OTF2_Archive_GetEvtWriter(a->ar, (OTF2_LocationRef)a->nlocs);
  if (!l->w) tt_die(1, "%s: otf2: cannot open an event writer", a->part->path);
  a->nlocs++;
  return l;
}

static uint64_t loc_key(const tt_track_ref *t, int64_t pid, int sub) {
  uint64_t h = tt_hash_mix(0x2545f4914f6cdd1dULL, (uint64_t)t->is_gpu);
  h = tt_hash_mix(h, (uint64_t)(t->is_gpu ? pid : 0));
  h = tt_hash_mix(h, (uint64_t)t->group);
  h = tt_hash_mix(h, (uint64_t)t->lane);
  return tt_hash_mix(h, (uint64_t)sub);
}

o2_loc *o2_location(o2_archive *a, hub_reader *r, const hub_record *ev, const tt_track_ref *t,
                    int sub) {
  int64_t pid = ev->pid == HUB_NULL ? 0 : ev->pid;
  /* (host, pid): two hosts' pid 1234 tid 1234 are two locations */
  uint64_t key = tt_hash_mix(loc_key(t, pid, sub), host_node(a, r, ev->db, pid));
  int64_t *v = tt_i64map_get(&a->loc_index, (int64_t)key);
  if (v) return &a->locs[*v];
  uint32_t group;
  tt_buf name = {0};
  o2_vendor vd = O2_GENERIC;
  if (t->is_gpu) {
    vd = o2_gpu_vendor(a, r, ev);
    group = accelerator_group(a, r, ev, pid, t->gpu_index, vd);
    if (vd == O2_GENERIC)
      tt_buf_printf(&name, "%s %s", t->group_name, t->lane_name);
    else
      tt_buf_printf(&name, "%s[%lld:%lld]", vendor_prefix(vd), (long long)t->gpu_index,
                    (long long)t->lane);
  } else {
    group = process_group(a, r, ev->db, pid);
    a->groups[group].has_thread = 1;
    if (t->lane_name[0])
      tt_buf_puts(&name, t->lane_name);
    else
      tt_buf_printf(&name, t->lane == pid ? "Master thread %lld" : "Thread %lld",
                    (long long)t->lane);
  }
  if (sub) tt_buf_printf(&name, " overlap %d", sub);
  o2_loc *l = new_location(a, t->is_gpu ? O2_LOC_GPU : O2_LOC_CPU, group, name.data);
  tt_buf_free(&name);
  l->pid = pid;
  l->lane = t->lane;
  l->gpu = t->is_gpu ? t->gpu_index : -1;
  l->sub = sub;
  l->generic = t->is_gpu && vd == O2_GENERIC;
  tt_i64map_put(&a->loc_index, (int64_t)key, (int64_t)(l - a->locs));
  return l;
}

o2_loc *o2_thread_location(o2_archive *a, hub_reader *r, int db, int64_t pid, int64_t tid) {
  hub_record probe = {.kind = HUB_REGION, .db = db, .pid = pid, .tid = tid, .agent_id = HUB_NULL,
                      .lane_id = HUB_NULL, .name = "", .category = ""};
  tt_track_ref t;
  tt_track_of(r, &probe, &t);
  return o2_location(a, r, &probe, &t, 0);
}

o2_loc *o2_metric_location(o2_archive *a, hub_reader *r, int db, int64_t pid) {
  uint32_t g = process_group(a, r, db, pid);
  if (a->groups[g].metric_loc >= 0) return &a->locs[a->groups[g].metric_loc];
  o2_loc *l = new_location(a, O2_LOC_METRIC, g, "per process metrics");
  l->pid = pid;
  a->groups[g].metric_loc = (int64_t)(l - a->locs);
  return l;
}

o2_metric *o2_metric_of(o2_archive *a, hub_reader *r, int db, int64_t pid, const char *name,
                        int is_alloc, size_t *index) {
  tt_buf_clear(&a->text);
  tt_buf_printf(&a->text, "%s:%lld:%d:", hub_reader_host(r, db, pid), (long long)pid, is_alloc);
  tt_buf_puts(&a->text, name);
  int64_t known = known_def(&a->metric_index, a->text.data, a->nmetrics);
  if (known >= 0) {
    *index = (size_t)known;
    return &a->metrics[known];
  }
  o2_loc *l = o2_metric_location(a, r, db, pid);
  tt_grow(a->metrics, a->nmetrics + 1, a->cap_metrics);
  o2_metric *m = &a->metrics[a->nmetrics];
  *m = (o2_metric){.name = o2_string(a, name), .unit = o2_string(a, is_alloc ? "bytes" : ""),
                   .is_alloc = is_alloc, .group = l->group, .loc = (int64_t)(l - a->locs)};
  *index = a->nmetrics++;
  return m;
}

/* --- writing ------------------------------------------------------------ */

static OTF2_FlushType pre_flush(void *user, OTF2_FileType type, OTF2_LocationRef loc,
                                void *caller, bool final) {
  (void)user, (void)type, (void)loc, (void)caller, (void)final;
  return OTF2_FLUSH;
}

const OTF2_FlushCallbacks o2_flush_callbacks = {.otf2_pre_flush = pre_flush,
                                                .otf2_post_flush = NULL};

/* Without memory callbacks each writer may keep 128 MiB of chunks before
 * its first flush. These give every buffer one chunk: when it is full the
 * allocation fails, OTF2 flushes it to its file (pre_flush says so),
 * releases it and asks again, and gets the same memory back (allocated
 * once: freeing and allocating a chunk at every flush fragments the heap).
 * Memory: one chunk per location. */
typedef struct o2_chunk {
  void *mem;
  int in_use;
} o2_chunk;

static void *chunk_allocate(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                            uint64_t size) {
  (void)user, (void)type, (void)loc;
  o2_chunk *c = *per_buffer;
  if (!c) *per_buffer = c = tt_calloc(1, sizeof *c);
  if (c->in_use) return NULL; /* full: flush first */
  if (!c->mem) c->mem = malloc(size);
  c->in_use = c->mem != NULL;
  return c->mem;
}

static void chunk_free_all(void *user, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                           bool final) {
  (void)user, (void)type, (void)loc;
  o2_chunk *c = *per_buffer;
  if (!c) return;
  c->in_use = 0;
  if (final) {
    free(c->mem);
    free(c);
    *per_buffer = NULL;
  }
}

const OTF2_MemoryCallbacks o2_memory_callbacks = {.otf2_allocate = chunk_allocate,
                                                  .otf2_free_all = chunk_free_all};

static int ok(o2_archive *a, OTF2_ErrorCode e, const char *what) {
  if (e == OTF2_SUCCESS) return 0;
  tt_error("%s: otf2: %s: %s", a->part->path, what, OTF2_Error_GetName(e));
  return -1;
}

static void write_strings(o2_archive *a, OTF2_GlobalDefWriter *w, OTF2_ErrorCode *st) {
  /* In ref order: readers may expect increasing references. */
  const char **byref = tt_calloc(a->nstrings ? a->nstrings : 1, sizeof *byref);
  for (size_t i = 0; i < a->strings.cap; i++)
    if (a->strings.slots[i].key) byref[a->strings.slots[i].val] = a->strings.slots[i].key;
  for (uint32_t i = 0; i < a->nstrings && *st == OTF2_SUCCESS; i++)
    o2_note(st, OTF2_GlobalDefWriter_WriteString(w, i, byref[i]));
  free(byref);
}

/* The copies' communicator: every location in it, by rank. */
static void write_rma(o2_archive *a, OTF2_GlobalDefWriter *w, OTF2_ErrorCode *st) {
  if (!a->nranks) return;
  OTF2_Paradigm p = (OTF2_Paradigm)a->rma_paradigm;
  const char *pn = p == OTF2_PARADIGM_HIP ? "HIP" : p == OTF2_PARADIGM_CUDA ? "CUDA" : "GPU";
  uint64_t *members = tt_calloc((size_t)a->nranks, sizeof *members);
  for (size_t i = 0; i < a->nlocs; i++)
    if (a->locs[i].rank >= 0) members[a->locs[i].rank] = i;
  o2_note(st, OTF2_GlobalDefWriter_WriteGroup(w, 0, o2_string(a, pn), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                           p, OTF2_GROUP_FLAG_NONE, (uint32_t)a->nranks, members));
  for (int64_t i = 0; i < a->nranks; i++) members[i] = (uint64_t)i;
  o2_note(st, OTF2_GlobalDefWriter_WriteGroup(w, 1, o2_string(a, fmt(a, "%s_GROUP", pn)),
                                           OTF2_GROUP_TYPE_COMM_GROUP, p, OTF2_GROUP_FLAG_NONE,
                                           (uint32_t)a->nranks, members));
  free(members);
  o2_note(st, OTF2_GlobalDefWriter_WriteComm(w, 0, o2_string(a, ""), 1, OTF2_UNDEFINED_COMM,
                                          OTF2_COMM_FLAG_NONE));
  o2_note(st, OTF2_GlobalDefWriter_WriteRmaWin(w, 0, o2_string(a, fmt(a, "%s_WINDOW", pn)), 0,
                                            OTF2_RMA_WIN_FLAG_NONE));
}

static void write_metrics(o2_archive *a, OTF2_GlobalDefWriter *w, OTF2_ErrorCode *st) {
  /* Member i, class 2i, instance 2i + 1 (classes and instances share the
   * metric references; events name the instance). */
  for (size_t i = 0; i < a->nmetrics; i++) {
    const o2_metric *m = &a->metrics[i];
    o2_note(st, OTF2_GlobalDefWriter_WriteMetricMember(
                 w, (OTF2_MetricMemberRef)i, m->name, m->name, OTF2_METRIC_TYPE_OTHER,
                 m->is_alloc ? OTF2_METRIC_ABSOLUTE_NEXT : OTF2_METRIC_ABSOLUTE_POINT,
                 m->is_alloc ? OTF2_TYPE_UINT64 : OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, m->unit));
  }
  for (size_t i = 0; i < a->nmetrics; i++) {
    const o2_metric *m = &a->metrics[i];
    OTF2_MetricMemberRef member = (OTF2_MetricMemberRef)i;
    o2_note(st, OTF2_GlobalDefWriter_WriteMetricClass(w, (OTF2_MetricRef)(2 * i), 1, &member,
                                                   OTF2_METRIC_ASYNCHRONOUS,
                                                   OTF2_RECORDER_KIND_ABSTRACT));
    o2_note(st, OTF2_GlobalDefWriter_WriteMetricInstance(
                 w, (OTF2_MetricRef)(2 * i + 1), (OTF2_MetricRef)(2 * i), (OTF2_LocationRef)m->loc,
                 OTF2_SCOPE_LOCATION_GROUP, m->group));
  }
}

/* GPUs whose vendor the hub does not name: when the API calls of the
 * trace are all CUDA (or all HIP), their streams, contexts, devices,
 * kernels and copies are CUDA (or HIP) ones, named as Score-P names them. */
static void o2_resolve(o2_archive *a) {
  o2_vendor v = a->api_cuda && !a->api_hip   ? O2_CUDA
                : a->api_hip && !a->api_cuda ? O2_HIP
                                             : O2_GENERIC;
  if (a->rma_paradigm == OTF2_PARADIGM_USER && v != O2_GENERIC)
    a->rma_paradigm = v == O2_CUDA ? OTF2_PARADIGM_CUDA : OTF2_PARADIGM_HIP;
  if (v == O2_GENERIC) return;
  for (size_t i = 0; i < a->nlocs; i++) {
    o2_loc *l = &a->locs[i];
    if (!l->generic) continue;
    tt_buf_clear(&a->text);
    tt_buf_printf(&a->text, "%s[%lld:%lld]", vendor_prefix(v), (long long)l->gpu,
                  (long long)l->lane);
    if (l->sub) tt_buf_printf(&a->text, " overlap %d", l->sub);
    l->name = o2_string(a, a->text.data);
  }
  for (size_t i = 0; i < a->ngroups; i++)
    if (a->groups[i].generic)
      a->groups[i].name =
          o2_string(a, fmt(a, "%s Context %lld", vendor_prefix(v), (long long)a->groups[i].gpu));
  for (size_t i = 0; i < a->nnodes; i++)
    if (a->nodes[i].generic)
      a->nodes[i].class_name = o2_string(a, v == O2_CUDA ? "CUDA Device" : "ROCm Device");
  for (size_t i = 0; i < a->nregions; i++)
    if (a->regions[i].generic_gpu) {
      a->regions[i].paradigm = v == O2_CUDA ? OTF2_PARADIGM_CUDA : OTF2_PARADIGM_HIP;
      if (v == O2_CUDA) a->used_cuda = 1;
      else a->used_hip = 1;
    }
}

int o2_write_definitions(o2_archive *a) {
  int rc = 0;
  /* No event at all (an empty hub): readers need one location, so the
   * archive is a machine with one process and its thread, no events. */
  if (!a->ngroups) {
    add_node(a, "machine", "machine", O2_NONE, OTF2_SYSTEM_TREE_DOMAIN_MACHINE);
    tt_grow(a->groups, a->ngroups + 1, a->cap_groups);
    a->groups[a->ngroups++] = (o2_group){.type = OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                         .name = o2_string(a, "no events"),
                                         .parent_node = NODE_MACHINE,
                                         .creator = O2_NONE,
                                         .metric_loc = -1};
  }
  /* GPU-only processes still get one CPU thread: OTF2 requires it. */
  for (size_t g = 0; g < a->ngroups; g++) {
    if (a->groups[g].type != OTF2_LOCATION_GROUP_TYPE_PROCESS || a->groups[g].has_thread) continue;
    new_location(a, O2_LOC_CPU, (uint32_t)g, "Master thread");
    a->groups[g].has_thread = 1;
  }
  uint64_t *counts = tt_calloc(a->nlocs ? a->nlocs : 1, sizeof *counts);
  for (size_t i = 0; i < a->nlocs; i++) {
    if (rc == 0)
      rc = ok(a, OTF2_EvtWriter_GetNumberOfEvents(a->locs[i].w, &counts[i]), "counting events");
    if (rc == 0) rc = ok(a, OTF2_Archive_CloseEvtWriter(a->ar, a->locs[i].w), "closing events");
    a->locs[i].w = NULL;
  }
  if (rc == 0) rc = ok(a, OTF2_Archive_CloseEvtFiles(a->ar), "closing event files");
  if (rc == 0) rc = ok(a, OTF2_Archive_OpenDefFiles(a->ar), "opening definition files");
  for (size_t i = 0; i < a->nlocs && rc == 0; i++) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a->ar, (OTF2_LocationRef)i);
    rc = dw ? ok(a, OTF2_Archive_CloseDefWriter(a->ar, dw), "closing local definitions") : -1;
  }
  if (rc == 0) rc = ok(a, OTF2_Archive_CloseDefFiles(a->ar), "closing definition files");
  OTF2_GlobalDefWriter *w = rc == 0 ? OTF2_Archive_GetGlobalDefWriter(a->ar) : NULL;
  if (!w) {
    if (rc == 0) tt_error("%s: otf2: cannot open the global definitions", a->part->path);
    free(counts);
    return -1;
  }
  o2_resolve(a);
  uint32_t s_cuda = o2_string(a, "CUDA"), s_hip = o2_string(a, "HIP");
  /* Every string the definitions below use, interned before writing. */
  if (a->nranks) {
    const char *pn = a->rma_paradigm == OTF2_PARADIGM_HIP    ? "HIP"
                     : a->rma_paradigm == OTF2_PARADIGM_CUDA ? "CUDA"
                                                             : "GPU";
    o2_string(a, pn);
    o2_string(a, fmt(a, "%s_GROUP", pn));
    o2_string(a, fmt(a, "%s_WINDOW", pn));
  }

  OTF2_ErrorCode st = OTF2_SUCCESS;
  uint64_t offset = a->ts_min == INT64_MAX ? 0 : (uint64_t)a->ts_min;
  uint64_t length = a->ts_min == INT64_MAX ? 0 : (uint64_t)(a->ts_max - a->ts_min);
  /* Wall-clock source: ns since 1970 between 2000 and 2100. */
  uint64_t realtime = offset >= 946684800000000000ULL && offset < 4102444800000000000ULL
                          ? offset
                          : OTF2_UNDEFINED_TIMESTAMP;
  o2_note(&st, OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000, offset, length, realtime));
  write_strings(a, w, &st);
  if (a->used_cuda || (a->nranks && a->rma_paradigm == OTF2_PARADIGM_CUDA))
    o2_note(&st, OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_CUDA, s_cuda,
                                                 OTF2_PARADIGM_CLASS_ACCELERATOR));
  if (a->used_hip || (a->nranks && a->rma_paradigm == OTF2_PARADIGM_HIP))
    o2_note(&st, OTF2_GlobalDefWriter_WriteParadigm(w, OTF2_PARADIGM_HIP, s_hip,
                                                 OTF2_PARADIGM_CLASS_ACCELERATOR));
  for (size_t i = 0; i < a->nattrs; i++)
    o2_note(&st, OTF2_GlobalDefWriter_WriteAttribute(w, (OTF2_AttributeRef)i, a->attrv[i].name,
                                                  a->attrv[i].name, a->attrv[i].type));
  for (size_t i = 0; i < a->nnodes; i++) {
    const o2_node *n = &a->nodes[i];
    o2_note(&st, OTF2_GlobalDefWriter_WriteSystemTreeNode(
                  w, (OTF2_SystemTreeNodeRef)i, n->name, n->class_name,
                  n->parent == O2_NONE ? OTF2_UNDEFINED_SYSTEM_TREE_NODE : n->parent));
    o2_note(&st,
         OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w, (OTF2_SystemTreeNodeRef)i, n->domain));
    if (n->prop_name != O2_NONE) {
      OTF2_AttributeValue v;
      v.stringRef = n->prop_value;
      o2_note(&st, OTF2_GlobalDefWriter_WriteSystemTreeNodeProperty(
                    w, (OTF2_SystemTreeNodeRef)i, n->prop_name, OTF2_TYPE_STRING, v));
    }
  }
  for (size_t i = 0; i < a->ngroups; i++) {
    const o2_group *g = &a->groups[i];
    o2_note(&st, OTF2_GlobalDefWriter_WriteLocationGroup(
                  w, (OTF2_LocationGroupRef)i, g->name, g->type, g->parent_node,
                  g->creator == O2_NONE ? OTF2_UNDEFINED_LOCATION_GROUP : g->creator));
  }
  for (size_t i = 0; i < a->nlocs; i++) {
    const o2_loc *l = &a->locs[i];
    o2_note(&st, OTF2_GlobalDefWriter_WriteLocation(
                  w, (OTF2_LocationRef)i, l->name,
                  l->kind == O2_LOC_CPU   ? OTF2_LOCATION_TYPE_CPU_THREAD
                  : l->kind == O2_LOC_GPU ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                                          : OTF2_LOCATION_TYPE_METRIC,
                  counts[i], l->group));
  }
  for (size_t i = 0; i < a->nregions; i++) {
    const o2_region_def *g = &a->regions[i];
    o2_note(&st, OTF2_GlobalDefWriter_WriteRegion(w, (OTF2_RegionRef)i, g->name, g->canonical, 0,
                                               g->role, g->paradigm, OTF2_REGION_FLAG_NONE,
                                               g->file == O2_NO_STRING ? OTF2_UNDEFINED_STRING
                                                                       : g->file,
                                               0, 0));
  }
  o2_write_contexts(a, w, &st);
  write_rma(a, w, &st);
  write_metrics(a, w, &st);
  free(counts);
  return ok(a, st, "writing the global definitions");
}

void o2_defs_free(o2_archive *a) {
  tt_strmap_free(&a->strings);
  tt_strmap_free(&a->region_index);
  tt_strmap_free(&a->attr_index);
  tt_strmap_free(&a->metric_index);
  tt_i64map_free(&a->loc_index);
  tt_i64map_free(&a->group_index);
  tt_i64map_free(&a->node_index);
  tt_strmap_free(&a->host_index);
  tt_i64map_free(&a->vendor_of_gpu);
  for (size_t i = 0; i < a->nlocs; i++) free(a->locs[i].open);
  free(a->locs);
  free(a->groups);
  free(a->nodes);
  free(a->regions);
  free(a->attrv);
  free(a->metrics);
  tt_buf_free(&a->text);
  tt_buf_free(&a->clean);
  o2_contexts_free(a);
}
