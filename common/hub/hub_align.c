/* --align's plan (hub_align.h): the inputs' hosts and clocks, then one
 * map per host by the method asked for. */
#include "hub/hub_align.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_collectives.h"
#include "hub_align_internal.h"

const char *hub_align_mode_name(hub_align_mode m) {
  static const char *const names[] = {"auto", "none", "collectives", "wall", "file"};
  return (unsigned)m < sizeof names / sizeof *names ? names[m] : "?";
}

static int host_cmp(const void *a, const void *b) {
  const hub_align_host *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  return c ? c : (int)x->clock - (int)y->clock;
}

/* Pass 1: each input's host, clock, ranks and anchor, from its info
 * tables only; the hosts in name order. */
static int read_inputs(const char *const *paths, size_t n, hub_alignment *a, ha_input *in) {
  tt_strmap group = {0}; /* "clock host" -> index + 1 */
  tt_buf key = {0};
  size_t cap = 0;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL, .info_only = 1};
    hub_reader *r = hub_reader_open(&paths[i], 1, &f);
    if (!r) {
      rc = -1;
      break;
    }
    ha_input *p = &in[i];
    p->path = paths[i];
    p->rank = HUB_NULL;
    p->to_wall_ns = HUB_NULL;
    const hub_process_info *first = hub_reader_nprocesses(r) ? hub_reader_process(r, 0) : NULL;
    const char *other = NULL;
    for (size_t k = 0; k < hub_reader_nprocesses(r); k++) {
      const hub_process_info *pr = hub_reader_process(r, k);
      if (strcmp(pr->hostname, first->hostname) != 0 || pr->clock != first->clock)
        other = pr->hostname;
      if (pr->rank != HUB_NULL && (p->rank == HUB_NULL || pr->rank < p->rank)) p->rank = pr->rank;
      if (k == 0) p->to_wall_ns = pr->to_wall_ns;
      else if (pr->to_wall_ns != p->to_wall_ns) p->to_wall_ns = HUB_NULL;
    }
    for (size_t d = 0; d < hub_reader_ndbs(r); d++)
      if (hub_reader_metadata(r, (int)d, HUB_ALIGNED_TAG)) p->aligned = 1;
    p->mixed = other != NULL && !p->aligned;
    if (p->mixed && !a->mixed) {
      /* Its rows of two clocks are in one table: no map per input moves
       * them apart. An error when asked to align, else a warning. */
      a->mixed = 1;
      tt_buf_printf(&a->why, "%s holds processes of two hosts or clocks (%s, %s); --align places "
                    "the hubs of each host: give them before merging, or merge with dbmerge "
                    "--align", paths[i], first->hostname[0] ? first->hostname : "no host",
                    other[0] ? other : "no host");
    }
    /* Every (host, clock) of its processes is a host of the run (a merged
     * hub's too: its clocks differ as its inputs' did); the input belongs
     * to its first process's. A hub aligned by dbmerge is one timeline. */
    size_t np = p->aligned && hub_reader_nprocesses(r) ? 1 : hub_reader_nprocesses(r);
    for (size_t k = 0; k < (np ? np : 1); k++) {
      const hub_process_info *pr = np ? hub_reader_process(r, k) : NULL;
      const char *host = pr ? pr->hostname : "";
      hub_clock clock = pr ? pr->clock : HUB_CLOCK_UNKNOWN;
      key.len = 0;
      tt_buf_printf(&key, "%d\x1f%s", (int)clock, host);
      int added;
      int64_t *g = tt_strmap_add(&group, key.data, (int64_t)a->nhosts, &added);
      if (added) {
        tt_grow(a->hosts, a->nhosts + 1, cap);
        hub_align_host *h = &a->hosts[a->nhosts++];
        h->host = tt_strdup(host);
        h->clock = clock;
        h->first_rank = HUB_NULL;
      }
      hub_align_host *h = &a->hosts[*g];
      int64_t rank = pr ? pr->rank : HUB_NULL;
      if (rank != HUB_NULL && (h->first_rank == HUB_NULL || rank < h->first_rank)) h->first_rank = rank;
      if (k == 0) {
        p->host = (size_t)*g;
        h->ninputs++;
      }
    }
    hub_reader_close(r);
  }
  tt_buf_free(&key);
  tt_strmap_free(&group);
  if (rc != 0) return rc;
  /* Name order, each input's host index following its host. */
  size_t *perm = tt_malloc((a->nhosts + 1) * sizeof *perm);
  for (size_t h = 0; h < a->nhosts; h++) a->hosts[h].fit.used = h; /* old index, for a moment */
  qsort(a->hosts, a->nhosts, sizeof *a->hosts, host_cmp);
  for (size_t h = 0; h < a->nhosts; h++) {
    perm[a->hosts[h].fit.used] = h;
    a->hosts[h].fit.used = 0;
  }
  for (size_t i = 0; i < n; i++) in[i].host = perm[in[i].host];
  free(perm);
  return 0;
}

static void set_maps(hub_alignment *a, const ha_input *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!in[i].aligned) hub_time_maps_set(&a->maps, in[i].path, &a->hosts[in[i].host].map);
}

/* wall: each input by its own anchor; a host reports its first input's. */
static int plan_wall(hub_alignment *a, const ha_input *in, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (in[i].aligned) continue;
    if (in[i].to_wall_ns == HUB_NULL) {
      tt_error("%s: --align wall: the hub records no wall-clock anchor for its times "
               "(host %s, %s clock); use --align collectives or FILE", in[i].path,
               a->hosts[in[i].host].host[0] ? a->hosts[in[i].host].host : "unknown",
               hub_clock_name(a->hosts[in[i].host].clock));
      return -1;
    }
  }
  int *seen = tt_calloc(a->nhosts + 1, sizeof *seen);
  for (size_t i = 0; i < n; i++) {
    if (in[i].aligned) continue;
    hub_time_map m = {.offset_ns = -in[i].to_wall_ns};
    hub_time_maps_set(&a->maps, in[i].path, &m);
    if (!seen[in[i].host]++) a->hosts[in[i].host].map = m;
  }
  free(seen);
  return 0;
}

int hub_align_plan(const char *const *paths, size_t n, hub_align_mode mode, const char *file,
                   hub_alignment *out) {
  memset(out, 0, sizeof *out);
  out->method = HUB_ALIGN_NONE;
  if (mode == HUB_ALIGN_NONE) return 0;
  ha_input *in = tt_calloc(n + 1, sizeof *in);
  int rc = read_inputs(paths, n, out, in);
  if (rc == 0 && out->mixed) {
    if (mode == HUB_ALIGN_AUTO) tt_warn("the timeline mixes clocks: %s; times are left as recorded", out->why.data);
    else tt_error("--align %s: %s", hub_align_mode_name(mode), out->why.data);
    rc = mode == HUB_ALIGN_AUTO ? 0 : -1;
  } else if (rc == 0) {
    switch (mode) {
    case HUB_ALIGN_AUTO:
      if (out->nhosts <= 1) break;
      rc = ha_plan_collectives(out, in, n, 1);
      if (rc == 0 && !out->mixed) {
        set_maps(out, in, n);
        out->method = HUB_ALIGN_COLLECTIVES;
      }
      break;
    case HUB_ALIGN_COLLECTIVES:
      rc = out->nhosts <= 1 ? 0 : ha_plan_collectives(out, in, n, 0);
      if (rc == 0 && out->nhosts > 1) {
        set_maps(out, in, n);
        out->method = HUB_ALIGN_COLLECTIVES;
      }
      break;
    case HUB_ALIGN_WALL:
      rc = plan_wall(out, in, n);
      if (rc == 0) out->method = HUB_ALIGN_WALL;
      break;
    case HUB_ALIGN_FILE:
      rc = ha_plan_file(out, in, n, file);
      if (rc == 0) out->method = HUB_ALIGN_FILE;
      break;
    default: break;
    }
  }
  hub_time_maps_seal(&out->maps);
  free(in);
  return rc;
}

void hub_alignment_free(hub_alignment *a) {
  for (size_t h = 0; h < a->nhosts; h++) free(a->hosts[h].host);
  free(a->hosts);
  hub_time_maps_free(&a->maps);
  tt_buf_free(&a->why);
  memset(a, 0, sizeof *a);
}
