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
 * Each kind answers the reading calls through its hr_ops; a tap on a
 * reader (hub_reader_spool_into) copies what it reads into a spool. */
#include <stdlib.h>

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

int hub_reader_next(hub_reader *r, hub_record *ev) { return r->ops->next(r, ev); }

int hub_reader_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  return r->ops->time_span(r, min_start, max_end);
}

const char *hub_reader_track_name(hub_reader *r, int db, int64_t track_id) {
  return r->ops->track_name(r, db, track_id);
}

void hub_reader_close(hub_reader *r) {
  if (!r) return;
  hr_passes_free(r);
  hr_tap_free(r);
  hr_replay_free(r);
  hr_merge_free(r); /* its statements before the inputs' connections close */
  hr_inputs_free(&r->in);
  free(r->metadata_value);
  free(r);
}
