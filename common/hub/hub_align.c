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

/* The plan's inputs as they are told (hub_align.h). */
struct hub_align_survey {
  hub_alignment a;           /* its hosts, in the order first seen */
  TT_VEC(ha_input) in;
  tt_strmap group;           /* "clock<US>host" -> index into a.hosts */
  tt_buf key;
  size_t cap;                /* of a.hosts */
};

hub_align_survey *hub_align_survey_new(void) { return tt_calloc(1, sizeof(hub_align_survey)); }

void hub_align_survey_free(hub_align_survey *s) {
  if (!s) return;
  for (size_t i = 0; i < s->in.n; i++) free((char *)s->in.v[i].path);
  tt_vec_free(&s->in);
  tt_strmap_free(&s->group);
  tt_buf_free(&s->key);
  hub_alignment_free(&s->a);
  free(s);
}

/* The host of (host, clock), added when new. */
static size_t host_of(hub_align_survey *s, const char *host, hub_clock clock) {
  s->key.len = 0;
  tt_buf_printf(&s->key, "%d\x1f%s", (int)clock, host);
  int added;
  int64_t *g = tt_strmap_add(&s->group, s->key.data, (int64_t)s->a.nhosts, &added);
  if (added) {
    tt_grow(s->a.hosts, s->a.nhosts + 1, s->cap);
    hub_align_host *h = &s->a.hosts[s->a.nhosts++];
    memset(h, 0, sizeof *h);
    h->host = tt_strdup(host);
    h->clock = clock;
    h->first_rank = HUB_NULL;
  }
  return (size_t)*g;
}

/* path's host, clock, ranks and anchor, from its processes and metadata
 * (the dbs of `info` whose path it is). */
int hub_align_survey_add(hub_align_survey *s, const char *path, hub_reader *info) {
  hub_alignment *a = &s->a;
  ha_input *p = tt_vec_add(&s->in);
  memset(p, 0, sizeof *p);
  p->path = tt_strdup(path);
  p->rank = HUB_NULL;
  p->to_wall_ns = HUB_NULL;
  const hub_process_info *first = NULL;
  const char *other = NULL;
  size_t np = 0;
  for (size_t d = 0; d < hub_reader_ndbs(info); d++)
    if (strcmp(hub_reader_db_path(info, (int)d), path) == 0 &&
        hub_reader_metadata(info, (int)d, HUB_ALIGNED_TAG))
      p->aligned = 1;
  for (size_t k = 0; k < hub_reader_nprocesses(info); k++) {
    const hub_process_info *pr = hub_reader_process(info, k);
    if (strcmp(hub_reader_db_path(info, pr->db), path) != 0) continue;
    if (!first) first = pr;
    if (strcmp(pr->hostname, first->hostname) != 0 || pr->clock != first->clock)
      other = pr->hostname;
    if (pr->rank != HUB_NULL && (p->rank == HUB_NULL || pr->rank < p->rank)) p->rank = pr->rank;
    if (np == 0) p->to_wall_ns = pr->to_wall_ns;
    else if (pr->to_wall_ns != p->to_wall_ns) p->to_wall_ns = HUB_NULL;
    /* Every (host, clock) of its processes is a host of the run (a merged
     * hub's too: its clocks differ as its inputs' did); the input belongs
     * to its first process's. A hub aligned by dbmerge is one timeline. */
    if (np++ == 0 || !p->aligned) {
      size_t hi = host_of(s, pr->hostname, pr->clock); /* may move a->hosts */
      hub_align_host *h = &a->hosts[hi];
      if (pr->rank != HUB_NULL && (h->first_rank == HUB_NULL || pr->rank < h->first_rank))
        h->first_rank = pr->rank;
    }
  }
  size_t hi = first ? host_of(s, first->hostname, first->clock) : host_of(s, "", HUB_CLOCK_UNKNOWN);
  p->host = hi;
  a->hosts[p->host].ninputs++;
  p->mixed = other != NULL && !p->aligned;
  if (p->mixed && !a->mixed) {
    /* Its rows of two clocks are in one table: no map per input moves
     * them apart. An error when asked to align, else a warning. */
    a->mixed = 1;
    tt_buf_printf(&a->why, "%s holds processes of two hosts or clocks (%s, %s); --align places "
                  "the hubs of each host: give them before merging, or merge with dbmerge "
                  "--align", path, first->hostname[0] ? first->hostname : "no host",
                  other[0] ? other : "no host");
  }
  return 0;
}

/* The hosts in name order, each input's host index following its host. */
static void order_hosts(hub_alignment *a, ha_input *in, size_t n) {
  size_t *perm = tt_malloc((a->nhosts + 1) * sizeof *perm);
  for (size_t h = 0; h < a->nhosts; h++) a->hosts[h].fit.used = h; /* old index, for a moment */
  qsort(a->hosts, a->nhosts, sizeof *a->hosts, host_cmp);
  for (size_t h = 0; h < a->nhosts; h++) {
    perm[a->hosts[h].fit.used] = h;
    a->hosts[h].fit.used = 0;
  }
  for (size_t i = 0; i < n; i++) in[i].host = perm[in[i].host];
  free(perm);
}

/* The maps of the inputs of accepted hosts (the reference's identity
 * too: dbmerge marks what has a map); a refused host's have none. */
static void set_maps(hub_alignment *a, const ha_input *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!in[i].aligned && a->hosts[in[i].host].accepted)
      hub_time_maps_set(&a->maps, in[i].path, &a->hosts[in[i].host].map);
}

static int all_anchored(const ha_input *in, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!in[i].aligned && in[i].to_wall_ns == HUB_NULL) return 0;
  return 1;
}

/* A fresh start for another method: no host moved, none fitted. */
static void reset_hosts(hub_alignment *a) {
  for (size_t h = 0; h < a->nhosts; h++) {
    hub_align_host *ho = &a->hosts[h];
    ho->map = (hub_time_map){0};
    ho->fit = (hub_clock_fit){0};
    ho->reference = ho->accepted = 0;
  }
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

/* auto on several hosts: collectives for the hosts accepted; when some
 * host is refused and every input is anchored, wall for all instead (one
 * timeline, if a coarser one, beats one that mixes clocks). */
static int plan_auto(hub_alignment *a, const ha_input *in, size_t n) {
  if (ha_plan_collectives(a, in, n, 1) != 0) return -1;
  if (a->mixed && all_anchored(in, n)) {
    a->mixed = 0;
    reset_hosts(a);
    tt_warn("aligning by the inputs' wall-clock anchors instead (--align wall): every input "
            "records one");
    int rc = plan_wall(a, in, n);
    if (rc == 0) a->method = HUB_ALIGN_WALL;
    return rc;
  }
  set_maps(a, in, n);
  for (size_t h = 0; h < a->nhosts; h++)
    if (a->hosts[h].accepted && !a->hosts[h].reference) a->method = HUB_ALIGN_COLLECTIVES;
  return 0;
}

int hub_align_survey_plan(hub_align_survey *s, hub_align_mode mode, const char *file,
                          hub_alignment *out) {
  memset(out, 0, sizeof *out);
  out->method = HUB_ALIGN_NONE;
  if (mode == HUB_ALIGN_NONE) {
    hub_align_survey_free(s);
    return 0;
  }
  *out = s->a; /* the hosts move out */
  memset(&s->a, 0, sizeof s->a);
  out->method = HUB_ALIGN_NONE;
  ha_input *in = s->in.v;
  size_t n = s->in.n;
  order_hosts(out, in, n);
  int rc = 0;
  if (out->mixed) {
    if (mode == HUB_ALIGN_AUTO) tt_warn("the timeline mixes clocks: %s; times are left as recorded", out->why.data);
    else tt_error("--align %s: %s", hub_align_mode_name(mode), out->why.data);
    rc = mode == HUB_ALIGN_AUTO ? 0 : -1;
  } else {
    switch (mode) {
    case HUB_ALIGN_AUTO:
      if (out->nhosts > 1) rc = plan_auto(out, in, n);
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
  hub_align_survey_free(s);
  return rc;
}

int hub_align_plan(const char *const *paths, size_t n, hub_align_mode mode, const char *file,
                   hub_alignment *out) {
  memset(out, 0, sizeof *out);
  out->method = HUB_ALIGN_NONE;
  if (mode == HUB_ALIGN_NONE) return 0;
  hub_align_survey *s = hub_align_survey_new();
  for (size_t i = 0; i < n; i++) {
    hub_reader *r = hub_reader_open_info(paths[i]);
    int rc = r ? hub_align_survey_add(s, paths[i], r) : -1;
    hub_reader_close(r);
    if (rc != 0) {
      hub_align_survey_free(s);
      return -1;
    }
  }
  return hub_align_survey_plan(s, mode, file, out);
}

void hub_alignment_free(hub_alignment *a) {
  for (size_t h = 0; h < a->nhosts; h++) free(a->hosts[h].host);
  free(a->hosts);
  hub_time_maps_free(&a->maps);
  tt_buf_free(&a->why);
  memset(a, 0, sizeof *a);
}
