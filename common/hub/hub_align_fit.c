/* --align collectives (hub_align.h): per host, one end time per
 * collective instance (its lowest rank's), matched by instance with the
 * reference host's, judged and fitted (hub_clock_fit.h). The judgement
 * decides; this file only matches and says what it decided.
 *
 * Matching. An instance keyed by Kineto's Seq is the same key on both
 * sides. One keyed by its kernel's name and order is not: a profile that
 * starts late, or a warm-up collective on one rank, shifts every later
 * instance of that name. So per name the shift s (the host's k-th
 * against the reference's (k+s)-th, |s| <= HA_MAX_SHIFT) whose fit leaves
 * the smallest median residual is searched; it is kept only when that
 * residual is HA_CLEAR_FACTOR times smaller than the next shift's (a run
 * whose steps all last alike fits two shifts equally: refused as
 * ambiguous, not guessed). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_collectives.h"
#include "hub_align_internal.h"

#define HA_MAX_SHIFT 16
#define HA_CLEAR_FACTOR 4

/* Keyed instances (name 0) first, by key; then by name and order. */
static int end_cmp(const void *a, const void *b) {
  const hub_collective_end *x = a, *y = b;
  if (x->name != y->name) return x->name < y->name ? -1 : 1;
  if (x->name == 0) {
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
  }
  return (x->ord > y->ord) - (x->ord < y->ord);
}

/* The host's collectives, one per instance, sorted (end_cmp): those of
 * its lowest rank's input (its ranks share one clock: one rank places it;
 * the first input when none has a rank). *out malloc'ed. */
static int host_points(const ha_input *in, size_t n, size_t host, hub_collective_end **out,
                       size_t *nout) {
  const ha_input *pick = NULL;
  for (size_t i = 0; i < n; i++) {
    if (in[i].host != host || in[i].aligned) continue;
    if (!pick || (in[i].rank != HUB_NULL && (pick->rank == HUB_NULL || in[i].rank < pick->rank)))
      pick = &in[i];
  }
  hub_collective_end *v = NULL;
  size_t nv = 0, cap = 0;
  if (pick && hub_collectives_read(pick->path, &v, &nv, &cap) != 0) {
    free(v);
    return -1;
  }
  if (nv) qsort(v, nv, sizeof *v, end_cmp);
  size_t k = 0; /* a keyed instance twice in one process (a key's collision): its first */
  for (size_t i = 0; i < nv; i++)
    if (k == 0 || v[i].name != 0 || v[k - 1].name != 0 || v[k - 1].key != v[i].key) v[k++] = v[i];
  *out = v;
  *nout = k;
  return 0;
}

static hub_clock_pair pair_of(const hub_collective_end *r, const hub_collective_end *h) {
  return (hub_clock_pair){r->end, h->end, r->start, h->start};
}

/* The pairs of one name at shift s: host k with reference k + s. */
static size_t shifted(const hub_collective_end *r, size_t nr, const hub_collective_end *h,
                      size_t nh, long s, hub_clock_pair *out) {
  size_t m = 0;
  for (size_t k = 0; k < nh; k++) {
    long j = (long)k + s;
    if (j >= 0 && (size_t)j < nr) out[m++] = pair_of(&r[j], &h[k]);
  }
  return m;
}

/* One name's pairs at its best shift, appended to pairs (*np). 0, or -1
 * when no shift is clearly best (why says so). */
static int match_name(const hub_collective_end *r, size_t nr, const hub_collective_end *h,
                      size_t nh, hub_clock_pair *pairs, size_t *np, hub_clock_pair *tmp,
                      tt_buf *why) {
  size_t fewer = nr < nh ? nr : nh, need = fewer / 2 > 3 ? fewer / 2 : 3;
  long reach = (long)(nr > nh ? nr : nh) - 1;
  if (reach > HA_MAX_SHIFT) reach = HA_MAX_SHIFT;
  long best = 0;
  int64_t best_res = -1, next_res = -1;
  for (long s = -reach; s <= reach; s++) {
    size_t m = shifted(r, nr, h, nh, s, tmp);
    if (m < need) continue;
    hub_clock_fit f;
    hub_clock_fit_pairs(tmp, m, &f);
    int64_t res = f.resid_median_ns;
    if (best_res < 0 || res < best_res) {
      next_res = best_res;
      best_res = res, best = s;
    } else if (next_res < 0 || res < next_res) {
      next_res = res;
    }
  }
  if (best_res < 0) { /* too few of this name to search: in order, when the counts agree */
    if (nr == nh) *np += shifted(r, nr, h, nh, 0, pairs + *np);
    return 0;
  }
  if (next_res >= 0 && (best_res + 1) * HA_CLEAR_FACTOR > next_res + 1) {
    tt_buf_printf(why, "the order of %zu collectives of one kernel name fits the reference's "
                  "at two shifts alike (residual median %" PRId64 " and %" PRId64 " ns): which "
                  "instance is which cannot be told", nh, best_res, next_res);
    return -1;
  }
  *np += shifted(r, nr, h, nh, best, pairs + *np);
  return 0;
}

/* The pairs of host points hp against the reference's rp (both sorted
 * by end_cmp). 0, or -1 when a name's matching is ambiguous (why). */
static int match(const hub_collective_end *rp, size_t nrp, const hub_collective_end *hp,
                 size_t nhp, hub_clock_pair *pairs, size_t *np, tt_buf *why) {
  *np = 0;
  size_t i = 0, j = 0;
  for (; i < nrp && j < nhp && rp[i].name == 0 && hp[j].name == 0;) {
    if (rp[i].key < hp[j].key) i++;
    else if (hp[j].key < rp[i].key) j++;
    else pairs[(*np)++] = pair_of(&rp[i++], &hp[j++]);
  }
  while (i < nrp && rp[i].name == 0) i++;
  while (j < nhp && hp[j].name == 0) j++;
  hub_clock_pair *tmp = tt_malloc((nhp + 1) * sizeof *tmp);
  int rc = 0;
  while (rc == 0 && i < nrp && j < nhp) {
    if (rp[i].name < hp[j].name) i++;
    else if (hp[j].name < rp[i].name) j++;
    else {
      size_t a = i, b = j;
      while (a < nrp && rp[a].name == rp[i].name) a++;
      while (b < nhp && hp[b].name == hp[j].name) b++;
      rc = match_name(rp + i, a - i, hp + j, b - j, pairs, np, tmp, why);
      i = a, j = b;
    }
  }
  free(tmp);
  return rc;
}

static const char *name_of(const hub_align_host *h) { return h->host[0] ? h->host : "no host"; }

int ha_plan_collectives(hub_alignment *a, const ha_input *in, size_t n, int quiet_fail) {
  size_t ref = 0;
  for (size_t h = 1; h < a->nhosts; h++) {
    int64_t r = a->hosts[h].first_rank, best = a->hosts[ref].first_rank;
    if (r != HUB_NULL && (best == HUB_NULL || r < best)) ref = h;
  }
  a->hosts[ref].reference = 1;
  a->hosts[ref].accepted = 1;
  hub_collective_end *rp = NULL;
  size_t nrp = 0;
  if (host_points(in, n, ref, &rp, &nrp) != 0) return -1;
  int rc = 0;
  size_t refused = 0;
  tt_buf why = {0};
  for (size_t h = 0; h < a->nhosts && rc == 0; h++) {
    if (h == ref) continue;
    hub_collective_end *hp = NULL;
    size_t nhp = 0;
    if (host_points(in, n, h, &hp, &nhp) != 0) {
      rc = -1;
      break;
    }
    hub_align_host *ho = &a->hosts[h];
    hub_clock_pair *pairs = tt_malloc((nhp + 1) * sizeof *pairs);
    size_t np = 0;
    why.len = 0;
    if (match(rp, nrp, hp, nhp, pairs, &np, &why) != 0) {
      memset(&ho->judged, 0, sizeof ho->judged);
      ho->judged.verdict = HUB_FIT_AMBIGUOUS;
      snprintf(ho->judged.why, sizeof ho->judged.why, "%s", why.data);
    } else {
      hub_clock_judge(pairs, np, nrp, nhp, &ho->judged);
    }
    free(pairs);
    free(hp);
    ho->accepted = ho->judged.verdict == HUB_FIT_ACCEPTED;
    if (ho->accepted) {
      ho->fit = ho->judged.fit;
      ho->map = (hub_time_map){ho->fit.offset_ns, ho->fit.drift_ppm, ho->fit.anchor_ns};
    } else {
      refused++;
      if (quiet_fail)
        tt_warn("the timeline mixes clocks: %s (%s clock) is left as recorded, its fit on the "
                "collectives refused (%s): %s", name_of(ho), hub_clock_name(ho->clock),
                hub_fit_verdict_name(ho->judged.verdict), ho->judged.why);
      else
        tt_error("--align collectives: %s (%s clock) against the reference %s: refused (%s): %s",
                 name_of(ho), hub_clock_name(ho->clock), name_of(&a->hosts[ref]),
                 hub_fit_verdict_name(ho->judged.verdict), ho->judged.why);
    }
  }
  if (rc == 0 && refused) {
    a->mixed = 1;
    if (!quiet_fail) rc = -1;
  }
  tt_buf_free(&why);
  free(rp);
  return rc;
}
