/* --align collectives (hub_align.h): per host, one end time per
 * collective instance (its lowest rank's), matched by instance with the
 * reference host's and fitted (hub_clock_fit.h). */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_collectives.h"
#include "hub_align_internal.h"

static int end_cmp(const void *a, const void *b) {
  const hub_collective_end *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return (x->end > y->end) - (x->end < y->end);
}

/* The host's collectives, one per instance, sorted by key: those of its
 * lowest rank's input (its ranks share one clock: one rank places it; the
 * first input when none has a rank). *out malloc'ed. */
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
  size_t k = 0; /* an instance twice in one process (a key's collision): its first */
  for (size_t i = 0; i < nv; i++)
    if (k == 0 || v[k - 1].key != v[i].key) v[k++] = v[i];
  *out = v;
  *nout = k;
  return 0;
}

int ha_plan_collectives(hub_alignment *a, const ha_input *in, size_t n, int quiet_fail) {
  size_t ref = 0;
  for (size_t h = 1; h < a->nhosts; h++) {
    int64_t r = a->hosts[h].first_rank, best = a->hosts[ref].first_rank;
    if (r != HUB_NULL && (best == HUB_NULL || r < best)) ref = h;
  }
  a->hosts[ref].reference = 1;
  hub_collective_end *rp = NULL;
  size_t nrp = 0;
  if (host_points(in, n, ref, &rp, &nrp) != 0) return -1;
  hub_clock_pair *pairs = tt_malloc((nrp + 1) * sizeof *pairs);
  int rc = 0;
  tt_buf unplaced = {0};
  for (size_t h = 0; h < a->nhosts && rc == 0; h++) {
    if (h == ref) continue;
    hub_collective_end *hp = NULL;
    size_t nhp = 0;
    if (host_points(in, n, h, &hp, &nhp) != 0) {
      rc = -1;
      break;
    }
    size_t np = 0;
    for (size_t i = 0, j = 0; i < nrp && j < nhp;) {
      if (rp[i].key < hp[j].key) i++;
      else if (hp[j].key < rp[i].key) j++;
      else pairs[np++] = (hub_clock_pair){rp[i++].end, hp[j++].end};
    }
    free(hp);
    hub_align_host *ho = &a->hosts[h];
    if (np < HUB_ALIGN_MIN_COLLECTIVES) {
      tt_buf_printf(&unplaced, "%s%s (%s clock, %zu collective%s matched)",
                    unplaced.len ? ", " : "", ho->host[0] ? ho->host : "no host",
                    hub_clock_name(ho->clock), np, np == 1 ? "" : "s");
      continue;
    }
    hub_clock_fit_pairs(pairs, np, &ho->fit);
    ho->map = (hub_time_map){ho->fit.offset_ns, ho->fit.drift_ppm, ho->fit.anchor_ns};
  }
  if (rc == 0 && unplaced.len) {
    const hub_align_host *r = &a->hosts[ref];
    tt_buf hosts = {0};
    for (size_t h = 0; h < a->nhosts; h++)
      tt_buf_printf(&hosts, "%s%s (%s)", h ? ", " : "", a->hosts[h].host[0] ? a->hosts[h].host : "no host",
                    hub_clock_name(a->hosts[h].clock));
    if (quiet_fail) {
      tt_warn("the timeline mixes clocks: hosts %s; not aligned: %s share fewer than %d "
              "collectives with the reference %s; times are left as recorded (--align FILE "
              "gives offsets)",
              hosts.data, unplaced.data, HUB_ALIGN_MIN_COLLECTIVES, r->host[0] ? r->host : "no host");
      a->mixed = 1;
      for (size_t h = 0; h < a->nhosts; h++) {
        a->hosts[h].map = (hub_time_map){0};
        a->hosts[h].fit = (hub_clock_fit){0};
        a->hosts[h].reference = 0;
      }
    } else {
      tt_error("--align collectives: %s share fewer than %d collectives with the reference %s",
               unplaced.data, HUB_ALIGN_MIN_COLLECTIVES, r->host[0] ? r->host : "no host");
      rc = -1;
    }
    tt_buf_free(&hosts);
  }
  tt_buf_free(&unplaced);
  free(pairs);
  free(rp);
  return rc;
}
