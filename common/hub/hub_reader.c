/* The hub reader (hub_reader.h) as its callers see it: which reader an
 * open makes, and each call handed to it.
 *
 *   hub_reader_open ── many inputs ──> in passes (hub_reader_passes.c):
 *        │                             groups merged into record streams,
 *        │                             each group a reader of its own
 *        └─ else ──> direct (hub_reader_merge.c): the inputs opened
 *                    (hub_reader_inputs.c, _info.c, _devices.c), then
 *                    their rows merged by cursor, or a spool replayed
 *                    (hub_reader_spool.c), as the filter says.
 *
 * A reader reads one record source (hr_source: merge, passes or replay),
 * wrapped by a tap when it keeps its stream in a spool
 * (hub_reader_spool_into); its questions about the inputs go to its kind
 * (hr_query_ops). */
#include <stdlib.h>

#include "base/util.h"
#include "hub/hub_reader_internal.h"

hub_reader *hub_reader_open(const char *const *paths, size_t npaths, const hub_filter *f) {
  size_t group = hr_passes_group(npaths);
  if (group) return hr_passes_open(paths, npaths, f, group, NULL, NULL);
  return hr_open_direct(paths, npaths, f, 0, 0);
}

hub_reader *hub_reader_open_info(const char *path) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL,
                  .info_only = HUB_INFO_PROCESSES};
  return hub_reader_open(&path, 1, &f);
}

hub_reader *hr_open_direct(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t slice_first, size_t slice_count) {
  hub_reader *r = hr_direct_inputs(paths, npaths, f, slice_first, slice_count);
  if (!r) return NULL;
  if (r->in.crowded) return hr_passes_crowded(r, paths, npaths);
  if (f->info_only) {
    hr_exclude_hosts(&r->in, f);
    return r;
  }
  if (hr_start_stream(r, f) != 0) {
    hub_reader_close(r);
    return NULL;
  }
  return r;
}

int hr_start_stream(hub_reader *r, const hub_filter *f) {
  hr_direct_stream(r, f);
  /* A replay reads its records from the spool: no cursor, no links. */
  return f->replay ? hr_replay_start(r) : hr_direct_prepare(r);
}

hr_source *hr_source_new(hub_reader *r, const hr_source_ops *ops) {
  hr_source *s = tt_calloc(1, sizeof *s);
  *s = (hr_source){.ops = ops, .r = r};
  return s;
}

void hr_source_free(hr_source *s) { free(s); }

/* The spool a replay read was given up (the disk filled): the reader
 * reads its inputs instead, from the record after the last one the
 * replay handed out (the same records, in the same order). Only a direct
 * reader's replay: a filled spool, which a reader in passes never has
 * (hub_spool_fill), is the one given up. */
static int read_inputs_instead(hub_reader *r) {
  uint64_t skip;
  r->src = hr_replay_end(r, &skip);
  if (r->passes) {
    tt_error("the stream kept in a temporary file was given up while read in passes");
    return -1;
  }
  if (hr_direct_prepare(r) != 0) return -1;
  hub_record ev;
  for (uint64_t i = 0; i < skip; i++)
    if (r->src->ops->next(r->src, &ev) <= 0) {
      if (!r->failed) tt_error("the inputs changed while they were read: the stream ends early");
      return -1;
    }
  return 0;
}

int hub_reader_next(hub_reader *r, hub_record *ev) {
  int rc = r->src->ops->next(r->src, ev);
  if (rc != HR_SOURCE_GIVEN_UP) return rc;
  if (read_inputs_instead(r) != 0) {
    r->failed = 1;
    return -1;
  }
  return r->src->ops->next(r->src, ev);
}

int hub_reader_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  return r->query->time_span(r, min_start, max_end);
}

const char *hub_reader_track_name(hub_reader *r, int db, int64_t track_id) {
  return r->src->ops->track_name(r->src, db, track_id);
}

void hub_reader_close(hub_reader *r) {
  if (!r) return;
  if (r->src) r->src->ops->free(r->src); /* a wrapper frees what it wraps */
  hr_passes_free(r);
  hr_merge_free(r); /* its statements before the inputs' connections close */
  hr_inputs_free(&r->in);
  free(r->metadata_value);
  free(r);
}
