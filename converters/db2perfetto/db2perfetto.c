/* db2perfetto: hub databases -> Perfetto protobuf traces (.pftrace),
 * streamed: packets are serialized one at a time and appended, so there
 * is no size limit and nothing is dropped; split parts (--split) are each
 * a complete trace the Perfetto UI can load on its own.
 *
 * Each part is one packet sequence: its first packet clears the
 * incremental state; names, categories and annotation names are interned
 * on it. Slices are SLICE_BEGIN/SLICE_END pairs on tracks that nest
 * strictly (overflow tracks take what would not). CPU launch -> GPU work
 * arrows are flows (flow_ids / terminating_flow_ids). */
#include <stdlib.h>
#include <string.h>

#include "db2perfetto.h"
#include "base/progress.h"

static int pf_end(void *state, hub_reader *r);

static void *pf_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                      tt_output *out) {
  pf_ctx *c = tt_calloc(1, sizeof *c);
  c->r = r;
  c->o = o;
  c->part = p;
  FILE *fp = tt_output_fopen(out, "wb"); /* pf_writer buffers: no setvbuf */
  pf_writer_init(&c->w, fp, p->path, 1);
  pf_intern_init(&c->in);
  pf_tracks_init(&c->tracks);
  pf_slices_init(&c->sl);
  /* The sequence starts with a packet that only clears its state: every
   * part (an empty window too) is then a valid trace of its own. */
  pf_packet start = PERFETTO__PROTOS__TRACE_PACKET__INIT;
  if (pf_writer_put(&c->w, &start, 0, 0) != 0 || pf_tracks_root(&c->w) != 0 ||
      tt_part_samples_open(&c->samples, r, o, p) != 0) {
    pf_end(c, r);
    return NULL;
  }
  return c;
}

/* A flow end is written only when its other end is in this part too. */
static int partner_in_part(const pf_ctx *c, const hub_record *ev) {
  return ev->link_ts != HUB_NULL && !(ev->clipped & HUB_CLIP_START) &&
         ev->link_ts >= c->part->start && ev->link_ts < c->part->end;
}

static int add_flow(uint64_t *ids, uint8_t *n, uint64_t id) {
  for (uint8_t i = 0; i < *n; i++)
    if (ids[i] == id) return 1;
  if (*n == PF_MAX_FLOWS) return 0;
  ids[(*n)++] = id;
  return 1;
}

/* A recorded flow end (Kineto s/t/f): joins the slice starting at its
 * time on its lane (held back for that reason), else the enclosing slice
 * through its END, else it becomes an instant carrying the flow, so the
 * arrow is still drawn. */
static int flow_end(pf_ctx *c, const hub_record *ev) {
  if (!partner_in_part(c, ev)) return 0;
  uint64_t id = (uint64_t)ev->link_id, keys[PF_MAX_LANE_KEYS];
  int terminating = ev->flow_phase == 'f';
  int nkeys = pf_flow_lanes(c->r, ev, keys);
  pf_held *h = pf_held_begin_on(c, keys, nkeys);
  if (h && (terminating ? add_flow(h->flow_in, &h->nin, id) : add_flow(h->flow_out, &h->nout, id)))
    return 0;
  /* The enclosing slice's END, when the trace processor will already
   * have seen the other end by then (it reads in time order). */
  for (int k = 0; k < nkeys; k++) {
    int64_t tr = pf_track_find(&c->tracks, keys[k]);
    pf_open *o = tr >= 0 ? pf_open_top(c, (uint32_t)tr) : NULL;
    if (!o) continue;
    if (terminating ? ev->link_ts <= o->end && add_flow(o->flow_in, &o->nin, id)
                    : o->end <= ev->link_ts && add_flow(o->flow_out, &o->nout, id))
      return 0;
  }
  /* On the GPU stream when that is where the flow points, else its lane. */
  pf_place pl = {0, 0};
  int64_t tr = -1;
  for (int k = nkeys - 1; k > 0 && tr < 0; k--) {
    tr = pf_track_find(&c->tracks, keys[k]);
    pl.lane_key = keys[k];
  }
  if (tr >= 0) pl.track = (uint32_t)tr;
  else if (pf_track_for(&c->tracks, &c->w, c->r, ev, &pl) != 0) return -1;
  pf_held *fi = pf_hold(c, ev, &pl);
  if (!fi) return -1;
  fi->flow_instant = 1;
  if (terminating) fi->flow_in[fi->nin++] = id;
  else fi->flow_out[fi->nout++] = id;
  c->flow_instants++;
  return 0;
}

static int pf_event_cb(void *state, hub_reader *r, const hub_record *ev) {
  pf_ctx *c = state;
  (void)r;
  if (pf_samples_before(c, ev->start) != 0 || pf_advance(c, ev->start) != 0) return -1;
  if (ev->kind == HUB_FLOW) return flow_end(c, ev);
  pf_place pl;
  if (pf_track_for(&c->tracks, &c->w, c->r, ev, &pl) != 0) return -1;
  /* A call's backtrace (nsys's OS runtime calls): its stack interned now,
   * so the part's size counts it; the slice refers to it. */
  int64_t site = ev->kind == HUB_REGION ? tt_part_region_stack(&c->samples, ev) : -1;
  if (site == -2 || (site >= 0 && pf_stack_send(c, site) != 0)) return -1;
  pf_held *h = pf_hold(c, ev, &pl);
  if (!h) return -1;
  h->callsite = site;
  /* Arrows derived from correlation: launch -> GPU work, one per GPU
   * work the launch started in this part. */
  if (ev->link_ts != HUB_NULL && partner_in_part(c, ev)) {
    if (ev->kind == HUB_REGION) {
      h->flow_out[h->nout++] = (uint64_t)ev->link_id;
      h->more_out = hub_record_links_before(ev, c->part->end) - 1;
    } else if (ev->kind == HUB_KERNEL || ev->kind == HUB_COPY) {
      h->flow_in[h->nin++] = (uint64_t)hub_arrow_id(ev->link_id, ev->link_index);
    }
  }
  return 0;
}

static int pf_advance_cb(void *state, hub_reader *r, int64_t t) {
  (void)r;
  return pf_samples_before(state, t);
}

static int pf_end(void *state, hub_reader *r) {
  (void)r;
  pf_ctx *c = state;
  int rc = pf_samples_before(c, INT64_MAX) != 0 ? -1 : pf_finish(c);
  if (rc == 0 && pf_writer_flush(&c->w) != 0) rc = -1;
  if (rc == 0 && fflush(c->w.fp) != 0) rc = -1;
  if (rc == 0 && ferror(c->w.fp)) {
    tt_error("%s: write failed", c->part->path);
    rc = -1;
  }
  if (rc == 0 && c->in.resets)
    tt_info("%s: interning tables reset %llu times (bound reached)", c->part->path,
            (unsigned long long)c->in.resets);
  pf_writer_free(&c->w);
  pf_intern_free(&c->in);
  pf_tracks_free(&c->tracks);
  pf_slices_free(&c->sl);
  pf_anns_free(&c->ann);
  free(c->flow_ids);
  tt_part_samples_close(&c->samples);
  pf_stacks_free(c->stacks);
  free(c);
  return rc;
}

/* Written, buffered, and a bound of what ending the part would add. */
static uint64_t pf_part_bytes(void *state) {
  const pf_ctx *c = state;
  return c->w.bytes_out + c->w.len + pf_pending_bound(c);
}

const tt_exporter *db2perfetto_exporter(void) {
  static const tt_exporter ex = {
      .description = "Writes Perfetto protobuf traces (.pftrace) for ui.perfetto.dev, streamed;\n"
                     "split parts load on their own.",
      .extension = ".pftrace",
      .stdout_ok = 1,
      .binary = 1,
      .begin_part = pf_begin,
      .event = pf_event_cb,
      .advance = pf_advance_cb,
      .end_part = pf_end,
      .part_bytes = pf_part_bytes,
      /* An end clipped: a "clipped" annotation on its BEGIN; once, the
       * annotation name and value interned. */
      .clip_bytes = 24,
      .clip_bytes_once = 64,
      /* The Perfetto UI gets about 2 GB from the browser and a proto
       * trace takes 2-4x its size once loaded (perfetto.dev, "Visualising
       * large traces"): 500 MB is the size that opens. */
      .auto_max_part_size = 500ull << 20,
      .viewer_limit = "the Perfetto UI",
  };
  return &ex;
}
