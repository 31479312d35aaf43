/* Aggregation: rows per (section, process, name), GPU busy union per
 * agent, launch latency histograms. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2summary.h"
#include "sources/kernel_name.h"

/* --- latency histogram ----------------------------------------------- */

/* Bucket of v >= 0: (power slot, sub-bucket). Slot 0 holds 0..255 exactly;
 * slot e-7 holds [2^e, 2^(e+1)) in 256 buckets of 2^(e-8) ns. */
static void hist_slot(uint64_t v, int *slot, int *sub) {
  if (v < SM_HIST_SUB) {
    *slot = 0;
    *sub = (int)v;
    return;
  }
  int e = 63 - __builtin_clzll(v);
  *slot = e - 7;
  *sub = (int)((v >> (e - 8)) - SM_HIST_SUB);
}

void sm_hist_add(sm_hist *h, int64_t v) {
  if (h->n == 0 || v < h->min) h->min = v;
  if (h->n == 0 || v > h->max) h->max = v;
  h->n++;
  h->sum += v;
  int slot, sub;
  hist_slot(v < 0 ? 0 : (uint64_t)v, &slot, &sub); /* negative (clock skew): bucket 0 */
  if (!h->bucket[slot]) h->bucket[slot] = tt_calloc(SM_HIST_SUB, sizeof(uint64_t));
  h->bucket[slot][sub]++;
}

int64_t sm_hist_percentile(const sm_hist *h, double p) {
  if (h->n == 0) return 0;
  /* nearest rank: the smallest value with at least ceil(p% of n) at or below */
  uint64_t rank = (uint64_t)((double)h->n * p / 100.0);
  if ((double)rank < (double)h->n * p / 100.0) rank++;
  if (rank < 1) rank = 1;
  if (rank > h->n) rank = h->n;
  uint64_t seen = 0;
  for (int slot = 0; slot < SM_HIST_EXPS; slot++) {
    if (!h->bucket[slot]) continue;
    for (int sub = 0; sub < SM_HIST_SUB; sub++) {
      seen += h->bucket[slot][sub];
      if (seen < rank) continue;
      int64_t v;
      if (slot == 0) {
        v = sub;
      } else {
        int shift = slot - 1; /* e - 8 */
        int64_t lo = (int64_t)(SM_HIST_SUB + sub) << shift;
        v = lo + ((int64_t)1 << shift) / 2;
      }
      if (v < h->min) v = h->min;
      if (v > h->max) v = h->max;
      return v;
    }
  }
  return h->max;
}

void sm_hist_free(sm_hist *h) {
  for (int i = 0; i < SM_HIST_EXPS; i++) free(h->bucket[i]);
  memset(h, 0, sizeof *h);
}

/* --- sections -------------------------------------------------------- */

/* API calls' families by category (matched lowercased), in table order;
 * the markers (the reader's class) after them. */
static const struct {
  const char *glob, *key, *title;
} families[] = {
    {"cuda_runtime*", "cuda_runtime_api", "CUDA runtime API"},
    {"cuda_driver*", "cuda_driver_api", "CUDA driver API"},
    {"hip_*", "hip_api", "HIP API"},
    {"hsa_*", "hsa_api", "HSA API"},
    {"*ccl*", "ccl_api", "RCCL/NCCL API"},
};
#define FAMILY_ORDER 3
#define NFAMILIES (int)(sizeof families / sizeof *families)

/* A key as an html id (sm_section): a category comes from the trace, so
 * only [A-Za-z0-9_:-] is kept; a key that had anything else gets its
 * section's index after a '.', which no kept key has, so ids stay unique. */
static char *slug_of(const char *key, size_t index) {
  tt_buf b = {0};
  int changed = 0;
  for (const char *p = key; *p; p++) {
    int keep = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
               *p == '_' || *p == ':' || *p == '-';
    tt_buf_putc(&b, keep ? *p : '.');
    changed |= !keep;
  }
  if (changed || !key[0]) tt_buf_printf(&b, ".%zu", index);
  return b.data;
}

static int section_of(sm_summary *s, const char *key, const char *title, sm_sec_kind kind,
                      int order) {
  int64_t *ix = tt_strmap_get(&s->section_ix, key);
  if (ix) return (int)*ix;
  tt_grow(s->sections, s->nsections + 1, s->cap_sections);
  s->sections[s->nsections] =
      (sm_section){.key = tt_strdup(key), .slug = slug_of(key, s->nsections),
                   .title = tt_strdup(title), .kind = kind, .order = order};
  tt_strmap_put(&s->section_ix, key, (int64_t)s->nsections);
  return (int)s->nsections++;
}

static int region_section(sm_summary *s, const hub_record *ev) {
  const char *category = ev->category;
  if (ev->cls == HUB_CLS_MARKER) {
    /* PyTorch's record_function ranges are no ROCTX/NVTX markers */
    if (strcmp(category, "user_annotation") == 0)
      return section_of(s, "user_annotations", "User annotations (PyTorch record_function)",
                        SEC_API, FAMILY_ORDER + NFAMILIES);
    return section_of(s, "markers", "Markers (ROCTX/NVTX)", SEC_API, FAMILY_ORDER + NFAMILIES);
  }
  tt_buf *low = &s->tmp;
  tt_buf_clear(low);
  for (const char *p = category; *p; p++) tt_buf_putc(low, (char)tolower((unsigned char)*p));
  const char *lc = low->data ? low->data : "";
  for (int i = 0; ev->cls == HUB_CLS_API && i < NFAMILIES; i++)
    if (tt_glob_match(families[i].glob, lc)) {
      /* Kineto on ROCm files hip* calls under cuda_runtime/cuda_driver */
      if (i < 2 && strncmp(ev->name, "hip", 3) == 0)
        return section_of(s, i == 0 ? "hip_runtime_api" : "hip_driver_api",
                          i == 0 ? "HIP runtime API" : "HIP driver API", SEC_API,
                          FAMILY_ORDER + i);
      return section_of(s, families[i].key, families[i].title, SEC_API, FAMILY_ORDER + i);
    }
  /* Any other category: a table of its own, after the families. */
  tt_buf_clear(&s->key);
  tt_buf_puts(&s->key, "region:");
  tt_buf_puts(&s->key, category);
  int64_t *ix = tt_strmap_get(&s->section_ix, s->key.data);
  if (ix) return (int)*ix;
  char *key = tt_strdup(s->key.data);
  tt_buf_clear(&s->key);
  tt_buf_puts(&s->key, "Regions: ");
  tt_buf_puts(&s->key, category[0] ? category : "(no category)");
  int sec = section_of(s, key, s->key.data, SEC_API, 100);
  free(key);
  return sec;
}

/* --- rows ------------------------------------------------------------ */

void sm_init(sm_summary *s, const sm_options *opt) {
  memset(s, 0, sizeof *s);
  s->opt = opt;
  s->span_start = INT64_MAX;
  s->span_end = INT64_MIN;
  s->charts = opt->format == SM_JSON || opt->format == SM_HTML;
  section_of(s, "kernels", "Kernels", SEC_KERNEL, 0);
  section_of(s, "copies", "Memory copies", SEC_COPY, 1);
  section_of(s, "allocations", "Memory allocations", SEC_ALLOC, 2);
  /* memsets are not kernels: a table of their own, after the copies */
  section_of(s, "memsets", "Memsets", SEC_MEMSET, 1);
}
#define SEC_IX_MEMSETS 3

static sm_row *row_of(sm_summary *s, int section, const hub_record *ev, const char *name) {
  int64_t pid = s->opt->by_process ? ev->pid : HUB_NULL;
  int db = s->opt->by_process ? ev->db : -1;
  tt_buf *k = &s->key;
  tt_buf_clear(k);
  tt_buf_printf(k, "%d\x1f%lld\x1f%d\x1f", section, (long long)pid, db);
  tt_buf_puts(k, name);
  int64_t *ix = tt_strmap_get(&s->row_ix, k->data);
  if (ix) return &s->rows[*ix];
  tt_grow(s->rows, s->nrows + 1, s->cap_rows);
  tt_strmap_put(&s->row_ix, k->data, (int64_t)s->nrows);
  sm_row *r = &s->rows[s->nrows++];
  *r = (sm_row){.section = section, .pid = pid, .db = db, .name = tt_strdup(name)};
  return r;
}

static void row_add(sm_row *r, int64_t dur, int64_t bytes) {
  if (r->calls == 0 || dur < r->min) r->min = dur;
  if (r->calls == 0 || dur > r->max) r->max = dur;
  r->calls++;
  r->total += dur;
  if (bytes != HUB_NULL) r->bytes += bytes;
  double d = (double)dur - r->mean;
  r->mean += d / (double)r->calls;
  r->m2 += d * ((double)dur - r->mean);
}

/* --- GPU busy -------------------------------------------------------- */

static void agent_add(sm_summary *s, const hub_record *ev) {
  if (ev->agent_id == HUB_NULL) return;
  int64_t key = ((int64_t)ev->db << 40) | (ev->agent_id & (((int64_t)1 << 40) - 1));
  int64_t *ix = tt_i64map_get(&s->agent_ix, key);
  sm_agent *a;
  if (ix) {
    a = &s->agents[*ix];
  } else {
    tt_grow(s->agents, s->nagents + 1, s->cap_agents);
    tt_i64map_put(&s->agent_ix, key, (int64_t)s->nagents);
    a = &s->agents[s->nagents++];
    *a = (sm_agent){.db = ev->db, .agent_id = ev->agent_id};
    a->u.binned = 1;
  }
  a->summed += ev->end - ev->start;
  a->intervals++;
  sm_union_add(s, &a->u, ev->start, ev->end);
}

void sm_finish(sm_summary *s) {
  for (size_t i = 0; i < s->nagents; i++) sm_union_finish(s, &s->agents[i].u);
  sm_procs_finish(s);
  sm_et_finish(s);
}

/* --- launch latency -------------------------------------------------- */

static void latency_add(sm_summary *s, const hub_record *ev) {
  int64_t pid = s->opt->by_process ? ev->pid : HUB_NULL;
  int db = s->opt->by_process ? ev->db : -1;
  tt_buf_clear(&s->key);
  tt_buf_printf(&s->key, "%lld\x1f%d", (long long)pid, db);
  int64_t *ix = tt_strmap_get(&s->lat_ix, s->key.data);
  if (!ix) {
    tt_grow(s->lat, s->nlat + 1, s->cap_lat);
    s->lat[s->nlat] = (sm_latency){.pid = pid, .db = db};
    tt_strmap_put(&s->lat_ix, s->key.data, (int64_t)s->nlat);
    ix = tt_strmap_get(&s->lat_ix, s->key.data);
    s->nlat++;
  }
  sm_hist_add(&s->lat[*ix].hist, ev->start - ev->launch_ts);
}

/* --- inputs that are not one run ------------------------------------- */

static void db_span_add(sm_summary *s, const hub_record *ev) {
  if (ev->db < 0) return;
  size_t db = (size_t)ev->db;
  if (db >= s->ndb_spans) {
    tt_grow(s->db_spans, db + 1, s->cap_db_spans);
    for (size_t i = s->ndb_spans; i <= db; i++)
      s->db_spans[i] = (struct sm_db_span){.first = INT64_MAX, .last = INT64_MIN};
    s->ndb_spans = db + 1;
  }
  struct sm_db_span *d = &s->db_spans[db];
  if (ev->start < d->first) d->first = ev->start;
  if (ev->end > d->last) d->last = ev->end;
}

#define DAY_NS ((int64_t)86400 * 1000000000)

void sm_warn_runs(const sm_summary *s, hub_reader *r) {
  /* The first pair of inputs whose spans do not overlap and are a day or
   * more apart: one warning says it, and what to do. */
  for (size_t a = 0; a < s->ndb_spans; a++)
    for (size_t b = a + 1; b < s->ndb_spans; b++) {
      const struct sm_db_span *x = &s->db_spans[a], *y = &s->db_spans[b];
      if (x->first > x->last || y->first > y->last) continue; /* no event */
      int64_t gap = y->first > x->last ? y->first - x->last
                    : x->first > y->last ? x->first - y->last
                                         : 0;
      if (gap < DAY_NS) continue;
      tt_warn("%s and %s do not look like one run: their spans are %.1f days apart and do not "
              "overlap, so the span, busy percentages and totals mix the two runs; summarize "
              "them one at a time to compare them",
              hub_reader_db_path(r, (int)a), hub_reader_db_path(r, (int)b),
              (double)gap / (double)DAY_NS);
      return;
    }
}

/* --- one event ------------------------------------------------------- */

void sm_add(sm_summary *s, hub_reader *r, const hub_record *ev) {
  if (ev->kind == HUB_FLOW) return;
  s->events++;
  if (ev->cls == HUB_CLS_MEMSET) s->memset_events++;
  else s->kind_events[ev->kind]++;
  db_span_add(s, ev);
  if (s->charts) sm_proc_add(s, ev);
  if (ev->start < s->span_start) s->span_start = ev->start;
  if (ev->end > s->span_end) s->span_end = ev->end;
  int64_t dur = ev->end - ev->start;
  switch (ev->kind) {
  case HUB_KERNEL: {
    const char *name = s->opt->mangled && ev->kernel_name[0] ? ev->kernel_name : ev->name;
    if (ev->cls == HUB_CLS_MEMSET) { /* not a kernel: a table of its own */
      row_add(row_of(s, SEC_IX_MEMSETS, ev, ev->name), dur, ev->size);
    } else {
      sm_row *row = row_of(s, 0, ev, name);
      if (s->opt->truncate_kernels && !row->short_name) {
        tt_kernel_short_name(name, &s->tmp);
        row->short_name = tt_strdup(s->tmp.data);
      }
      row_add(row, dur, HUB_NULL);
    }
    agent_add(s, ev);
    /* Not Kineto's cuda_sync rows (dispatches too): a wait, not launched
     * work. One sample per launching call, by its first GPU work: a graph
     * launch's later kernels wait on its earlier ones, not on the launch. */
    if (ev->cls != HUB_CLS_SYNC && ev->launch_ts != HUB_NULL && ev->link_index == 0 &&
        !(ev->clipped & HUB_CLIP_START))
      latency_add(s, ev);
    break;
  }
  case HUB_COPY:
    row_add(row_of(s, 1, ev, ev->name), dur, ev->size);
    agent_add(s, ev);
    break;
  case HUB_ALLOC:
    row_add(row_of(s, ev->cls == HUB_CLS_MEMSET ? SEC_IX_MEMSETS : 2, ev, ev->name), dur, ev->size);
    break;
  case HUB_REGION: {
    if (strncmp(ev->category, "executorch", 10) == 0) sm_et_event(s, r, ev);
    int sec = region_section(s, ev);
    row_add(row_of(s, sec, ev, ev->name), dur, HUB_NULL);
    break;
  }
  default: /* instants and counter samples have no duration to sum */
    break;
  }
}

void sm_free(sm_summary *s) {
  sm_samples_free(s);
  for (size_t i = 0; i < s->nsections; i++) {
    free(s->sections[i].key);
    free(s->sections[i].slug);
    free(s->sections[i].title);
  }
  free(s->sections);
  for (size_t i = 0; i < s->nrows; i++) free(s->rows[i].name), free(s->rows[i].short_name);
  free(s->db_spans);
  free(s->rows);
  for (size_t i = 0; i < s->nlat; i++) sm_hist_free(&s->lat[i].hist);
  free(s->lat);
  for (size_t i = 0; i < s->nagents; i++) sm_union_free(&s->agents[i].u);
  free(s->agents);
  sm_procs_free(s);
  sm_et_free(s);
  tt_strmap_free(&s->section_ix);
  tt_strmap_free(&s->row_ix);
  tt_i64map_free(&s->agent_ix);
  tt_strmap_free(&s->lat_ix);
  tt_buf_free(&s->key);
  tt_buf_free(&s->tmp);
}
