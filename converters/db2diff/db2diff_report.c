/* The pairs summed (db2diff.h): groups by rule and key, each side's
 * totals and steps, the share of GPU time paired, and the verdict. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db2diff.h"

/* Within this many percent (beyond the steps' noise) a change is called
 * neutral, and a side with less than this share of its GPU time paired
 * is warned of. */
#define DD_NEUTRAL_PCT 1.0
#define DD_MATCHED_WARN 0.9
#define DD_MATCHED_MIN 0.5
/* Steps a side needs before its spread says anything about its noise. */
#define DD_NOISE_MIN_STEPS 3

void dd_report_init(dd_report *r, const dd_options *o, dd_names *names) {
  memset(r, 0, sizeof *r);
  r->o = o;
  r->names = names;
  if (o->instances) {
    r->instances = tmpfile();
    if (!r->instances) tt_die(1, "--instances: cannot create a temporary file in TMPDIR");
  }
}

static dd_group *group_of(dd_report *r, dd_rule rule, int32_t key) {
  tt_i64map *m = &r->group_ids;
  int64_t k = ((int64_t)rule << 32) | (uint32_t)(key + 1);
  int64_t *ix = tt_i64map_get(m, k);
  if (ix) return &r->groups.v[*ix];
  dd_group *g = tt_vec_add(&r->groups);
  g->rule = rule;
  g->key = key;
  tt_i64map_put(m, k, (int64_t)(r->groups.n - 1));
  return g;
}

static void tally_add(dd_tally_side *t, const dd_instance *x) {
  t->kernels += x->kernels;
  t->gpu_ns += x->gpu_ns;
  t->instances++;
  t->other_kernels += x->more_kernels;
  for (int i = 0; i < DD_INST_KERNELS && x->k[i].count; i++) {
    int j = 0;
    while (j < DD_INST_KERNELS && t->k[j].count && t->k[j].name != x->k[i].name) j++;
    if (j == DD_INST_KERNELS) {
      t->other_kernels += x->k[i].count;
      continue;
    }
    t->k[j].name = x->k[i].name;
    t->k[j].count += x->k[i].count;
    t->k[j].ns += x->k[i].ns;
  }
}

/* A lone instance's key: its op and shapes, else its annotation, else
 * its category. */
static int32_t own_key(const dd_instance *x) {
  if (x->key[DD_KEY_FULL] >= 0) return x->key[DD_KEY_FULL];
  if (x->key[DD_KEY_ANNOT] >= 0) return x->key[DD_KEY_ANNOT];
  return x->category;
}

static void on_pair(void *ctx, const dd_segment *sb, const dd_instance *b, const dd_segment *sc,
                    const dd_instance *c, dd_rule rule, int32_t key) {
  dd_report *r = ctx;
  if (rule == DD_RULE_BASE_ONLY) key = own_key(b);
  if (rule == DD_RULE_CANDIDATE_ONLY) key = own_key(c);
  dd_group *g = group_of(r, rule, key);
  if (b) tally_add(&g->side[0], b);
  if (c) tally_add(&g->side[1], c);
  if (b && c) {
    r->matched_ns[0] += b->gpu_ns;
    r->matched_ns[1] += c->gpu_ns;
    if (rule <= DD_RULE_PARENT) {
      r->matched_op_ns[0] += b->gpu_ns;
      r->matched_op_ns[1] += c->gpu_ns;
    }
  }
  if (r->instances) {
    /* step, rule, key, each side's own key, gpu_ns and kernels (-1: none) */
    const dd_segment *s = sb ? sb : sc;
    fprintf(r->instances, "%lld\t%d\t%d\t%d\t%d\t%lld\t%lld\t%d\t%d\n", (long long)s->step_label,
            (int)rule, key, b ? own_key(b) : -1, c ? own_key(c) : -1,
            b ? (long long)b->gpu_ns : -1LL, c ? (long long)c->gpu_ns : -1LL, b ? b->kernels : -1,
            c ? c->kernels : -1);
    r->ninstances++;
  }
}

static void add_side(dd_report *r, int i, const dd_segment *g) {
  if (!g || !g->selected) return;
  r->gpu_ns[i] += g->gpu_ns;
  r->kernels[i] += g->kernels;
  if (g->step_ns > 0) {
    tt_vec_push(&r->steps[i].ns, g->step_ns);
    tt_vec_push(&r->steps[i].brk, g->brk);
  }
}

void dd_report_add(dd_report *r, const dd_segment *b, const dd_segment *c) {
  add_side(r, 0, b);
  add_side(r, 1, c);
  const dd_segment *sb = b && b->selected ? b : NULL, *sc = c && c->selected ? c : NULL;
  if (sb || sc) dd_align_segments(sb, sc, on_pair, r);
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return a < b ? -1 : a > b;
}

/* Median (the two middle values' mean, floored, for an even count). */
static int64_t median(int64_t *v, size_t n) {
  qsort(v, n, sizeof *v, cmp_i64);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void step_stats(dd_steps *s) {
  size_t n = s->ns.n;
  if (!n) return;
  int64_t *v = tt_malloc(n * sizeof *v);
  memcpy(v, s->ns.v, n * sizeof *v);
  s->median_ns = median(v, n);
  for (size_t i = 0; i < n; i++) v[i] = llabs(s->ns.v[i] - s->median_ns);
  s->spread_ns = median(v, n);
  /* the breakdown shown is the median step's own, so it adds up */
  memcpy(v, s->ns.v, n * sizeof *v);
  qsort(v, n, sizeof *v, cmp_i64);
  int64_t mid = v[(n - 1) / 2];
  for (size_t i = 0; i < n; i++)
    if (s->ns.v[i] == mid) {
      s->median_brk = s->brk.v[i];
      s->median_step = (int64_t)i;
      break;
    }
  free(v);
}

static int by_change(const void *x, const void *y) {
  const dd_group *a = x, *b = y;
  int64_t da = llabs(a->side[1].gpu_ns - a->side[0].gpu_ns);
  int64_t db = llabs(b->side[1].gpu_ns - b->side[0].gpu_ns);
  if (da != db) return da > db ? -1 : 1;
  int64_t ta = a->side[0].gpu_ns + a->side[1].gpu_ns, tb = b->side[0].gpu_ns + b->side[1].gpu_ns;
  if (ta != tb) return ta > tb ? -1 : 1;
  if (a->rule != b->rule) return a->rule < b->rule ? -1 : 1;
  return a->key < b->key ? -1 : a->key > b->key;
}

static void warn(dd_report *r, const char *fmt, ...) TT_PRINTF(2, 3);
static void warn(dd_report *r, const char *fmt, ...) {
  char tmp[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  tt_vec_push(&r->warnings, tt_strdup(tmp));
}

double dd_share(const dd_report *r, int side, int by_op) {
  if (r->gpu_ns[side] <= 0) return 0;
  return (double)(by_op ? r->matched_op_ns[side] : r->matched_ns[side]) / (double)r->gpu_ns[side];
}

void dd_report_finish(dd_report *r) {
  if (r->groups.n) qsort(r->groups.v, r->groups.n, sizeof *r->groups.v, by_change);
  step_stats(&r->steps[0]);
  step_stats(&r->steps[1]);
  r->by_steps = r->steps[0].ns.n && r->steps[1].ns.n;
  double b = r->by_steps ? (double)r->steps[0].median_ns : (double)r->gpu_ns[0];
  double c = r->by_steps ? (double)r->steps[1].median_ns : (double)r->gpu_ns[1];
  r->change_pct = b > 0 ? (c - b) / b * 100.0 : 0;
  r->noise_pct = r->by_steps && b > 0
                     ? (double)(r->steps[0].spread_ns + r->steps[1].spread_ns) / b * 100.0
                     : 0;
  const dd_side_info *ib = &r->info[0], *ic = &r->info[1];
  if (ib->ranks != ic->ranks)
    warn(r, "world size differs: %lld processes launched GPU work in base, %lld in candidate",
         (long long)ib->ranks, (long long)ic->ranks);
  if (strcmp(ib->models ? ib->models : "", ic->models ? ic->models : "") != 0)
    warn(r, "devices differ: base %s, candidate %s", ib->devices && *ib->devices ? ib->devices : "none",
         ic->devices && *ic->devices ? ic->devices : "none");
  if (ib->steps != ic->steps)
    warn(r, "steps found differ: %lld in base, %lld in candidate", (long long)ib->steps,
         (long long)ic->steps);
  /* One or two steps give a spread of 0: say the noise was not measured
   * rather than let a 0% noise look like a quiet run. */
  if (r->by_steps && (r->steps[0].ns.n < DD_NOISE_MIN_STEPS || r->steps[1].ns.n < DD_NOISE_MIN_STEPS))
    warn(r, "too few steps to measure noise: %zu in base, %zu in candidate (the spread needs %d)",
         r->steps[0].ns.n, r->steps[1].ns.n, DD_NOISE_MIN_STEPS);
  if (!r->by_steps && (ib->steps || ic->steps))
    warn(r, "one side has no steps: GPU time compared instead of step time");
  for (int i = 0; i < 2; i++)
    if (r->gpu_ns[i] > 0 && dd_share(r, i, 0) < DD_MATCHED_WARN)
      warn(r, "little matched: %.1f%% of the %s's GPU time is paired", 100 * dd_share(r, i, 0),
           i ? "candidate" : "base");
  for (int i = 0; i < 2; i++)
    if (r->info[i].late)
      warn(r, "%lld GPU ops of the %s ran after their step was compared: counted by category",
           (long long)r->info[i].late, i ? "candidate" : "base");
  double limit = fmax(r->noise_pct, DD_NEUTRAL_PCT);
  if (b <= 0 || c <= 0 || dd_share(r, 0, 0) < DD_MATCHED_MIN || dd_share(r, 1, 0) < DD_MATCHED_MIN)
    r->verdict = "not comparable";
  else if (r->change_pct > limit) r->verdict = "regression";
  else if (r->change_pct < -limit) r->verdict = "improvement";
  else r->verdict = "neutral";
}

int dd_report_fails(const dd_report *r) {
  if (r->o->fail_above < 0) return 0;
  double b = r->by_steps ? (double)r->steps[0].median_ns : (double)r->gpu_ns[0];
  if (b <= 0) return 0;
  return r->change_pct > r->o->fail_above + r->noise_pct;
}

void dd_report_free(dd_report *r) {
  tt_i64map_free(&r->group_ids);
  tt_vec_free(&r->groups);
  for (int i = 0; i < 2; i++) {
    tt_vec_free(&r->steps[i].ns);
    tt_vec_free(&r->steps[i].brk);
  }
  for (size_t i = 0; i < r->warnings.n; i++) free(r->warnings.v[i]);
  tt_vec_free(&r->warnings);
  if (r->instances) fclose(r->instances);
}
