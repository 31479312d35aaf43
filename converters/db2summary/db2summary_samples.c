/* The CPU-samples table: per function (and process with --by-process)
 * the samples it is the leaf of (self: it was running) and the samples it
 * is anywhere on the stack of (total: it or what it called was running;
 * a recursive function counts once per sample). Rows are by function
 * name, whatever the module or address; memory holds one row per distinct
 * (process, function), never the samples. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2summary.h"

static sm_fn *fn_row(sm_summary *s, int db, int64_t pid, const char *name) {
  tt_buf_clear(&s->key);
  tt_buf_printf(&s->key, "%d/%lld/%s", db, (long long)pid, name);
  int64_t *ix = tt_strmap_get(&s->fn_ix, s->key.data);
  if (ix) return &s->fns[*ix];
  tt_grow(s->fns, s->nfns + 1, s->cap_fns);
  sm_fn *f = &s->fns[s->nfns];
  *f = (sm_fn){.db = db, .pid = pid, .name = tt_strdup(name), .last = UINT64_MAX};
  tt_strmap_put(&s->fn_ix, s->key.data, (int64_t)s->nfns++);
  return f;
}

static sm_fn *scope_row(sm_summary *s, int db, int64_t pid) {
  for (size_t i = 0; i < s->nscopes; i++)
    if (s->scopes[i].db == db && s->scopes[i].pid == pid) return &s->scopes[i];
  tt_grow(s->scopes, s->nscopes + 1, s->cap_scopes);
  s->scopes[s->nscopes] = (sm_fn){.db = db, .pid = pid};
  return &s->scopes[s->nscopes++];
}

void sm_sample(sm_summary *s, hub_sample_reader *sr, const hub_cpu_sample *smp) {
  int db = s->opt->by_process ? smp->db : -1;
  int64_t pid = s->opt->by_process ? smp->pid : HUB_NULL;
  scope_row(s, db, pid)->self++; /* the scope's sample count */
  uint64_t n = s->nsamples++;
  int leaf = 1;
  for (const hub_callsite *cs = hub_samples_callsite(sr, smp->callsite); cs;
       cs = hub_samples_callsite(sr, cs->parent), leaf = 0) {
    sm_fn *f = fn_row(s, db, pid, hub_samples_frame(sr, cs->frame)->name);
    if (leaf) f->self++;
    if (f->last != n) f->total++;
    f->last = n;
  }
}

static const sm_summary *sort_ctx;

static int cmp_fns(const void *pa, const void *pb) {
  const sm_fn *a = &sort_ctx->fns[*(const size_t *)pa], *b = &sort_ctx->fns[*(const size_t *)pb];
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->db != b->db) return a->db < b->db ? -1 : 1;
  if (a->self != b->self) return a->self > b->self ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  return strcmp(a->name, b->name);
}

static const char *const plain_cols[] = {"self_samples", "self_percent", "total_samples",
                                         "total_percent", "name"};
static const char *const pid_cols[] = {"pid", "host", "self_samples", "self_percent",
                                       "total_samples", "total_percent", "name"};

static char *percent(const sm_summary *s, uint64_t part, uint64_t whole) {
  double p = whole ? 100.0 * (double)part / (double)whole : 0.0;
  int machine = s->opt->format == SM_CSV || s->opt->format == SM_JSON || s->opt->format == SM_HTML;
  tt_buf b = {0};
  tt_buf_printf(&b, machine ? "%.6f" : "%.2f", p);
  return b.data;
}

static char *count(uint64_t v) {
  tt_buf b = {0};
  tt_buf_printf(&b, "%" PRIu64, v);
  return b.data;
}

void sm_sample_tables(sm_summary *s, hub_reader *r, sm_table **out, size_t *nout, size_t *cap) {
  if (!s->nsamples) return;
  size_t *order = tt_malloc((s->nfns ? s->nfns : 1) * sizeof *order);
  for (size_t i = 0; i < s->nfns; i++) order[i] = i;
  sort_ctx = s;
  qsort(order, s->nfns, sizeof *order, cmp_fns);
  for (size_t i = 0; i < s->nfns;) {
    const sm_fn *first = &s->fns[order[i]];
    size_t j = i;
    while (j < s->nfns && s->fns[order[j]].pid == first->pid && s->fns[order[j]].db == first->db) j++;
    uint64_t samples = scope_row(s, first->db, first->pid)->self;
    int with_pid = first->pid != HUB_NULL;
    tt_grow(*out, *nout + 1, *cap);
    sm_table *t = &(*out)[(*nout)++];
    tt_buf title = {0};
    tt_buf_printf(&title, "CPU samples: %" PRIu64 " samples; self: the function running, total: "
                          "it or a function it called",
                  samples);
    char *scoped = sm_scope_title(r, title.data, first->pid, first->db);
    tt_buf_free(&title);
    *t = (sm_table){.id = "cpu_samples", .title = scoped, .cols = with_pid ? pid_cols : plain_cols,
                    .ncols = with_pid ? 7 : 5, .pid = first->pid, .db = first->db, .section = -1};
    for (size_t k = i; k < j; k++) {
      if (s->opt->top > 0 && (int64_t)(k - i) >= s->opt->top) break;
      const sm_fn *f = &s->fns[order[k]];
      char *cells[7];
      size_t c = 0;
      if (with_pid) {
        tt_buf p = {0};
        tt_buf_printf(&p, "%lld", (long long)f->pid);
        cells[c++] = p.data;
        cells[c++] = tt_strdup(sm_process_host(r, f->db, f->pid));
      }
      cells[c++] = count(f->self);
      cells[c++] = percent(s, f->self, samples);
      cells[c++] = count(f->total);
      cells[c++] = percent(s, f->total, samples);
      cells[c++] = tt_strdup(f->name);
      sm_table_add(t, cells);
    }
    i = j;
  }
  free(order);
}

void sm_samples_free(sm_summary *s) {
  for (size_t i = 0; i < s->nfns; i++) free(s->fns[i].name);
  free(s->fns);
  free(s->scopes);
  tt_strmap_free(&s->fn_ix);
}
