/* --summary: what ExecuTorch's own tools print, as tab-separated lines.
 *   event  block iteration index name chain instr start_ns duration_ns
 *     (parse_profiler_results.py's per-iteration table, one row per entry)
 *   tax    block iteration execute_ns kernel_ns tax_percent
 *     E, K and (E-K)/E as executorch_tax.h computes them; tax =
 *     round((E-K)/E, 4) x 100 (Python's round, half-even on the exact
 *     binary value, as printf's %.4f does); iterations without a
 *     Method::execute event (or E = 0) have no row.
 *   stat   block name count min p10 p50 p90 avg max   (microseconds, 3
 *     decimals; percentiles by linear interpolation like numpy's default)
 *   alloc  block allocator count total_bytes
 * Unfinished events (legacy end_time 0) are listed with duration
 * "unfinished" and left out of the tax and the statistics. Sums that do
 * not fit in 64 bits (durations near 2^63 ns, only in broken files) stop
 * at INT64_MAX; the average is summed in floating point. This mode keeps
 * every duration in memory (the percentiles need them all). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "etprof2db.h"
#include "sources/executorch_tax.h"

/* What the statistics and the allocations are grouped by: the block and
 * an event's or an allocator's name. */
typedef struct group_key {
  char *block, *name;
} group_key;

typedef struct group {
  group_key key;
  int64_t *d;
  size_t n, cap;
} group;

typedef struct agroup {
  group_key key; /* name: the allocator */
  int64_t count, total;
} agroup;

struct etp_summary {
  tt_buf events, taxes, key;
  tt_strmap gindex, aindex;
  group *groups;
  size_t ngroups, capgroups;
  agroup *agroups;
  size_t nagroups, capagroups;
  tt_et_iteration it; /* the iteration being read */
};

etp_summary *etp_summary_new(void) {
  etp_summary *s = tt_calloc(1, sizeof *s);
  tt_buf_puts(&s->events, "");
  tt_buf_puts(&s->taxes, "");
  return s;
}

/* a + b for a, b >= 0, INT64_MAX when it does not fit */
static int64_t add_sat(int64_t a, int64_t b) {
  int64_t r;
  return __builtin_add_overflow(a, b, &r) ? INT64_MAX : r;
}

static void put_field(tt_buf *b, const char *s) {
  /* names are the source's bytes; tabs and newlines would break the lines */
  for (; *s; s++) tt_buf_putc(b, *s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s);
}

static const char *key2(etp_summary *s, const char *a, const char *b) {
  tt_buf_clear(&s->key);
  tt_buf_puts(&s->key, a);
  tt_buf_putc(&s->key, '\x1f');
  tt_buf_puts(&s->key, b);
  return s->key.data;
}

/* The entry of (block, name) in a table of `size`-byte entries that begin
 * with their group_key, appended zeroed with its key copied when new.
 * Returns the table (moved when it grew); *ix is the entry's index. */
static void *group_entry(etp_summary *s, tt_strmap *index, void *items, size_t *n, size_t *cap,
                         size_t size, const char *block, const char *name, size_t *ix) {
  const char *k = key2(s, block, name);
  int64_t *known = tt_strmap_get(index, k);
  if (known) {
    *ix = (size_t)*known;
    return items;
  }
  items = tt_grow_(items, cap, *n + 1, size);
  group_key *e = memset((char *)items + *n * size, 0, size);
  e->block = tt_strdup(block);
  e->name = tt_strdup(name);
  tt_strmap_put(index, k, (int64_t)*n);
  *ix = (*n)++;
  return items;
}

/* block TAB name, as the stat and alloc lines start */
static void put_group_key(tt_buf *b, const group_key *key) {
  put_field(b, key->block);
  tt_buf_putc(b, '\t');
  put_field(b, key->name);
}

void etp_summary_event(etp_summary *s, const char *block, int64_t iteration, const etp_ev *e) {
  tt_buf *b = &s->events;
  tt_buf_puts(b, "event\t");
  put_field(b, block);
  tt_buf_printf(b, "\t%lld\t%lld\t", (long long)iteration, (long long)e->index);
  put_field(b, e->name);
  tt_buf_printf(b, "\t%lld\t%lld\t%lld\t", (long long)e->chain, (long long)e->instr,
                (long long)e->start);
  if (e->unfinished) {
    tt_buf_puts(b, "unfinished\n");
    return;
  }
  int64_t d = e->end - e->start;
  tt_buf_printf(b, "%lld\n", (long long)d);
  tt_et_iteration_add(&s->it, e->name, d);
  size_t gi;
  s->groups = group_entry(s, &s->gindex, s->groups, &s->ngroups, &s->capgroups,
                          sizeof *s->groups, block, e->name, &gi);
  group *g = &s->groups[gi];
  tt_grow(g->d, g->n + 1, g->cap);
  g->d[g->n++] = d;
}

void etp_summary_alloc(etp_summary *s, const char *block, const char *allocator, int64_t size) {
  size_t ai;
  s->agroups = group_entry(s, &s->aindex, s->agroups, &s->nagroups, &s->capagroups,
                           sizeof *s->agroups, block, allocator, &ai);
  s->agroups[ai].count++;
  s->agroups[ai].total = add_sat(s->agroups[ai].total, size);
}

void etp_summary_iteration_end(etp_summary *s, const char *block, int64_t iteration) {
  double x;
  if (tt_et_iteration_tax(&s->it, &x)) {
    char r[64];
    snprintf(r, sizeof r, "%.4f", x); /* Python's round(x, 4) */
    double tax = strtod(r, NULL) * 100;
    tt_buf_puts(&s->taxes, "tax\t");
    put_field(&s->taxes, block);
    tt_buf_printf(&s->taxes, "\t%lld\t%lld\t%lld\t%.2f\n", (long long)iteration,
                  (long long)s->it.exec_max, (long long)s->it.kernel_sum, tax);
  }
  s->it = (tt_et_iteration){0};
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* numpy.percentile's default (linear) on sorted d[0..n-1] */
static double percentile(const int64_t *d, size_t n, double q) {
  double idx = q / 100 * (double)(n - 1);
  size_t lo = (size_t)floor(idx), hi = lo + 1 < n ? lo + 1 : lo;
  double f = idx - (double)lo;
  return (double)d[lo] + (double)(d[hi] - d[lo]) * f;
}

void etp_summary_print(etp_summary *s, FILE *f, const char *path, const char *unit) {
  fprintf(f, "# etprof2db summary of %s (times in %s)\n", path, unit);
  fputs("# event\tblock\titeration\tindex\tname\tchain\tinstr\tstart_ns\tduration_ns\n", f);
  fputs(s->events.data, f);
  fputs("# tax\tblock\titeration\texecute_ns\tkernel_ns\ttax_percent\n", f);
  fputs(s->taxes.data, f);
  fputs("# stat\tblock\tname\tcount\tmin_us\tp10_us\tp50_us\tp90_us\tavg_us\tmax_us\n", f);
  tt_buf line = {0};
  for (size_t i = 0; i < s->ngroups; i++) {
    group *g = &s->groups[i];
    qsort(g->d, g->n, sizeof *g->d, cmp_i64);
    double sum = 0;
    for (size_t j = 0; j < g->n; j++) sum += (double)g->d[j];
    tt_buf_clear(&line);
    tt_buf_puts(&line, "stat\t");
    put_group_key(&line, &g->key);
    tt_buf_printf(&line, "\t%zu\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\t%.3f\n", g->n,
                  (double)g->d[0] / 1000.0, percentile(g->d, g->n, 10) / 1000.0,
                  percentile(g->d, g->n, 50) / 1000.0, percentile(g->d, g->n, 90) / 1000.0,
                  sum / (double)g->n / 1000.0, (double)g->d[g->n - 1] / 1000.0);
    fputs(line.data, f);
  }
  fputs("# alloc\tblock\tallocator\tcount\ttotal_bytes\n", f);
  for (size_t i = 0; i < s->nagroups; i++) {
    agroup *a = &s->agroups[i];
    tt_buf_clear(&line);
    tt_buf_puts(&line, "alloc\t");
    put_group_key(&line, &a->key);
    tt_buf_printf(&line, "\t%lld\t%lld\n", (long long)a->count, (long long)a->total);
    fputs(line.data, f);
  }
  tt_buf_free(&line);
}

void etp_summary_free(etp_summary *s) {
  for (size_t i = 0; i < s->ngroups; i++) {
    free(s->groups[i].key.block);
    free(s->groups[i].key.name);
    free(s->groups[i].d);
  }
  for (size_t i = 0; i < s->nagroups; i++) {
    free(s->agroups[i].key.block);
    free(s->agroups[i].key.name);
  }
  free(s->groups);
  free(s->agroups);
  tt_strmap_free(&s->gindex);
  tt_strmap_free(&s->aindex);
  tt_buf_free(&s->events);
  tt_buf_free(&s->taxes);
  tt_buf_free(&s->key);
  free(s);
}
