/* The inputs of a run, opened once (hub_input_set.h). */
#include "hub/hub_input_set.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "hub/hub_reader_internal.h"

struct hub_input_set {
  const char *const *paths; /* the caller's */
  size_t npaths;
  /* Read directly: every input open, its info loaded, no stream yet. */
  hub_reader *open;
  /* Read in passes (open NULL): inputs per group, each path's order key
   * and, for a file of more uuids than one connection reads, its uuids. */
  size_t group;
  char **keys;
  size_t *hubs;
  hub_align_survey *survey;
};

/* The order key hr_file_order_key reads, from a reader of the file: its
 * smallest suffix. */
static char *order_key(const hub_reader *g) {
  const char *key = "";
  for (size_t d = 0; d < g->in.ndbs; d++)
    if (d == 0 || strcmp(g->in.dbs[d].suffix, key) < 0) key = g->in.dbs[d].suffix;
  return tt_strdup(key);
}

/* In passes: each path opened alone for its info (the survey) and its
 * order; without a survey only its order is read. */
static int survey_alone(hub_input_set *in) {
  in->keys = tt_calloc(in->npaths ? in->npaths : 1, sizeof *in->keys);
  for (size_t i = 0; i < in->npaths; i++) {
    if (!in->survey) {
      in->keys[i] = hr_file_order_key(in->paths[i]);
      continue;
    }
    hub_reader *g = hub_reader_open_info(in->paths[i]);
    if (!g) return -1;
    hub_align_survey_add(in->survey, in->paths[i], g);
    in->keys[i] = order_key(g);
    hub_reader_close(g);
  }
  return 0;
}

hub_input_set *hub_input_set_open(const char *const *paths, size_t npaths, int survey) {
  hub_input_set *in = tt_calloc(1, sizeof *in);
  in->paths = paths;
  in->npaths = npaths;
  if (survey) in->survey = hub_align_survey_new();
  in->group = hr_passes_group(npaths);
  if (!in->group) {
    hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
    hub_reader *r = hr_direct_inputs(paths, npaths, &f, 0, 0);
    if (!r) {
      hub_input_set_close(in);
      return NULL;
    }
    if (r->in.crowded) { /* a file of many uuids: read in passes, its uuids in slices */
      in->hubs = hr_crowded_hubs(r, paths, npaths);
      in->group = npaths;
      hub_reader_close(r);
    } else {
      in->open = r;
      if (in->survey)
        for (size_t i = 0; i < npaths; i++) hub_align_survey_add(in->survey, paths[i], r);
    }
  }
  if (in->group && survey_alone(in) != 0) {
    hub_input_set_close(in);
    return NULL;
  }
  return in;
}

hub_align_survey *hub_input_set_take_survey(hub_input_set *in) {
  hub_align_survey *s = in->survey;
  in->survey = NULL;
  return s;
}

hub_reader *hub_reader_open_set(hub_input_set *in, const hub_filter *f) {
  hub_reader *r = in->open;
  in->open = NULL;
  if (r && hr_start_stream(r, f) != 0) {
    hub_reader_close(r);
    r = NULL;
  } else if (!r) {
    r = hr_passes_open(in->paths, in->npaths, f, in->group, in->hubs, in->keys);
    in->keys = NULL; /* taken */
  }
  hub_input_set_close(in);
  return r;
}

void hub_input_set_close(hub_input_set *in) {
  if (!in) return;
  hub_reader_close(in->open);
  if (in->keys)
    for (size_t i = 0; i < in->npaths; i++) free(in->keys[i]);
  free(in->keys);
  free(in->hubs);
  hub_align_survey_free(in->survey);
  free(in);
}
