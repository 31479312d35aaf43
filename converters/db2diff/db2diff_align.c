/* Pairing two segments' instances (db2diff.h). Per launching thread
 * (stream), the two sequences of ops are aligned as a diff aligns lines:
 * equal keys at the most exact level first (name and shapes), as a
 * longest common subsequence, so an op present on one side only shifts
 * nothing; each gap left between two pairs is aligned again at the next
 * level (name, vendor-neutral name, parent op, annotation). What no level
 * pairs, and GPU work with no launching op, pairs by category in order
 * (the i-th GEMM left with the i-th); the rest is one side's only. */
#include <stdlib.h>
#include <string.h>

#include "db2diff.h"

const char *dd_rule_name(dd_rule r) {
  static const char *const names[DD_NRULES] = {"op+shapes", "op",       "vendor names",
                                               "parent op", "annotation", "category",
                                               "base only", "candidate only"};
  return r < DD_NRULES ? names[r] : "?";
}

/* The longest common subsequence is found exactly when the table is at
 * most this many cells (16 MB); a longer gap is paired by a greedy walk
 * that looks this far ahead on each side. */
#define DD_LCS_CELLS (4u << 20)
#define DD_GREEDY_WINDOW 256

typedef TT_VEC(const dd_instance *) inst_list;

typedef struct aligner {
  const dd_segment *sb, *sc;
  dd_pair_fn pair;
  void *ctx;
  inst_list left[2]; /* what no key paired, for the category pass */
  TT_VEC(uint32_t) table;
} aligner;

static int same(const dd_instance *a, const dd_instance *b, int level) {
  return a->key[level] >= 0 && a->key[level] == b->key[level];
}

static void emit(aligner *al, const dd_instance *b, const dd_instance *c, int level) {
  al->pair(al->ctx, al->sb, b, al->sc, c, (dd_rule)level, b->key[level]);
}

typedef struct anchor {
  size_t i, j;
} anchor;
typedef TT_VEC(anchor) anchor_list;

/* Pairs of equal keys in A[0..n) x B[0..m), in order. */
static void lcs(aligner *al, const dd_instance *const *A, size_t n, const dd_instance *const *B,
                size_t m, int level, anchor_list *out) {
  if ((uint64_t)(n + 1) * (m + 1) <= DD_LCS_CELLS) {
    size_t w = m + 1;
    tt_vec_reserve(&al->table, (n + 1) * w);
    uint32_t *t = al->table.v; /* t[i][j]: LCS of A[i..n) and B[j..m) */
    for (size_t j = 0; j <= m; j++) t[n * w + j] = 0;
    for (size_t i = n; i-- > 0;) {
      t[i * w + m] = 0;
      for (size_t j = m; j-- > 0;)
        t[i * w + j] = same(A[i], B[j], level) ? t[(i + 1) * w + j + 1] + 1
                       : t[(i + 1) * w + j] >= t[i * w + j + 1] ? t[(i + 1) * w + j]
                                                                : t[i * w + j + 1];
    }
    for (size_t i = 0, j = 0; i < n && j < m;) {
      if (same(A[i], B[j], level)) {
        tt_vec_push(out, ((anchor){i, j}));
        i++, j++;
      } else if (t[(i + 1) * w + j] >= t[i * w + j + 1]) {
        i++;
      } else {
        j++;
      }
    }
    return;
  }
  for (size_t i = 0, j = 0; i < n && j < m;) {
    if (same(A[i], B[j], level)) {
      tt_vec_push(out, ((anchor){i, j}));
      i++, j++;
      continue;
    }
    size_t di = 0, dj = 0; /* the nearest match of B[j] in A, and of A[i] in B */
    for (size_t k = 1; k < DD_GREEDY_WINDOW && !di && i + k < n; k++)
      if (same(A[i + k], B[j], level)) di = k;
    for (size_t k = 1; k < DD_GREEDY_WINDOW && !dj && j + k < m; k++)
      if (same(A[i], B[j + k], level)) dj = k;
    if (di && (!dj || di <= dj)) i += di;
    else if (dj) j += dj;
    else i++, j++;
  }
}

static void align(aligner *al, const dd_instance *const *A, size_t n, const dd_instance *const *B,
                  size_t m, int level) {
  if (level == DD_NKEYS) {
    for (size_t i = 0; i < n; i++) tt_vec_push(&al->left[0], A[i]);
    for (size_t j = 0; j < m; j++) tt_vec_push(&al->left[1], B[j]);
    return;
  }
  /* a common head and tail are pairs at once: a run against itself, or
   * two runs that differ in a few ops, costs no table */
  size_t head = 0, tail = 0;
  while (head < n && head < m && same(A[head], B[head], level)) emit(al, A[head], B[head], level), head++;
  while (tail < n - head && tail < m - head && same(A[n - 1 - tail], B[m - 1 - tail], level)) tail++;
  A += head, B += head, n -= head + tail, m -= head + tail;
  anchor_list anchors = {0};
  if (n && m) lcs(al, A, n, B, m, level, &anchors);
  size_t i = 0, j = 0;
  for (size_t k = 0; k <= anchors.n; k++) {
    size_t ai = k < anchors.n ? anchors.v[k].i : n, aj = k < anchors.n ? anchors.v[k].j : m;
    if (ai > i || aj > j) align(al, A + i, ai - i, B + j, aj - j, level + 1);
    if (k < anchors.n) emit(al, A[ai], B[aj], level);
    i = ai + 1, j = aj + 1;
  }
  tt_vec_free(&anchors);
  for (size_t t = 0; t < tail; t++) emit(al, A[n + t], B[m + t], level);
}

static int by_stream(const void *x, const void *y) {
  const dd_instance *a = *(const dd_instance *const *)x, *b = *(const dd_instance *const *)y;
  if (a->stream != b->stream) return a->stream < b->stream ? -1 : 1;
  return a < b ? -1 : a > b; /* instances of one segment: their order */
}

static int by_category(const void *x, const void *y) {
  const dd_instance *a = *(const dd_instance *const *)x, *b = *(const dd_instance *const *)y;
  if (a->category != b->category) return a->category < b->category ? -1 : 1;
  return 0; /* stable order kept by the pass below (ties broken by index) */
}

/* The segment's instances sorted by stream (then their order). */
static void list_of(const dd_segment *g, inst_list *out) {
  if (!g) return;
  for (size_t i = 0; i < g->inst.n; i++) /* a launch that ran nothing (a sync) is no op to pair */
    if (g->inst.v[i].kernels) tt_vec_push(out, &g->inst.v[i]);
  if (out->n) qsort(out->v, out->n, sizeof *out->v, by_stream);
}

/* qsort is not stable: sorts by (category, position in the list). */
typedef struct ranked {
  const dd_instance *x;
  size_t pos;
} ranked;
static int by_category_ranked(const void *x, const void *y) {
  const ranked *a = x, *b = y;
  int c = by_category(&a->x, &b->x);
  return c ? c : (a->pos < b->pos ? -1 : a->pos > b->pos);
}
static void sort_by_category(inst_list *l) {
  ranked *r = tt_malloc((l->n ? l->n : 1) * sizeof *r);
  for (size_t i = 0; i < l->n; i++) r[i] = (ranked){l->v[i], i};
  qsort(r, l->n, sizeof *r, by_category_ranked);
  for (size_t i = 0; i < l->n; i++) l->v[i] = r[i].x;
  free(r);
}

static void by_categories(aligner *al) {
  inst_list *b = &al->left[0], *c = &al->left[1];
  sort_by_category(b);
  sort_by_category(c);
  size_t i = 0, j = 0;
  while (i < b->n || j < c->n) {
    int32_t cb = i < b->n ? b->v[i]->category : INT32_MAX, cc = j < c->n ? c->v[j]->category : INT32_MAX;
    if (cb == cc) {
      al->pair(al->ctx, al->sb, b->v[i], al->sc, c->v[j], DD_RULE_CATEGORY, cb);
      i++, j++;
    } else if (cb < cc) {
      al->pair(al->ctx, al->sb, b->v[i], al->sc, NULL, DD_RULE_BASE_ONLY, -1);
      i++;
    } else {
      al->pair(al->ctx, al->sb, NULL, al->sc, c->v[j], DD_RULE_CANDIDATE_ONLY, -1);
      j++;
    }
  }
}

void dd_align_segments(const dd_segment *b, const dd_segment *c, dd_pair_fn pair, void *ctx) {
  aligner al = {.sb = b, .sc = c, .pair = pair, .ctx = ctx};
  inst_list lb = {0}, lc = {0};
  list_of(b, &lb);
  list_of(c, &lc);
  size_t i = 0, j = 0;
  while (i < lb.n || j < lc.n) {
    int32_t sb = i < lb.n ? lb.v[i]->stream : INT32_MAX, sc = j < lc.n ? lc.v[j]->stream : INT32_MAX;
    int32_t s = sb < sc ? sb : sc;
    size_t ie = i, je = j;
    while (ie < lb.n && lb.v[ie]->stream == s) ie++;
    while (je < lc.n && lc.v[je]->stream == s) je++;
    if (s < 0) { /* no launching op: by category */
      for (size_t k = i; k < ie; k++) tt_vec_push(&al.left[0], lb.v[k]);
      for (size_t k = j; k < je; k++) tt_vec_push(&al.left[1], lc.v[k]);
    } else {
      align(&al, lb.v + i, ie - i, lc.v + j, je - j, 0);
    }
    i = ie, j = je;
  }
  by_categories(&al);
  tt_vec_free(&lb);
  tt_vec_free(&lc);
  tt_vec_free(&al.left[0]);
  tt_vec_free(&al.left[1]);
  tt_vec_free(&al.table);
}
