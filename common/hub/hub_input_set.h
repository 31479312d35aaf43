/* The inputs of a run, opened once, before any stream: every file opened
 * read-only, its hubs found and ordered, their info tables loaded (the
 * processes, threads, agents, lanes and metadata hub_reader.h answers),
 * and, when asked, each input's hosts, clocks and ranks surveyed for the
 * alignment plan (hub_align.h). The plan is made from the survey, then
 * the first reader of the run is opened on the inputs with the plan's
 * maps (hub_reader_open_set) and takes their connections: planning
 * opens no input of its own, and nothing in a reader's open plans.
 *
 * More inputs than may be open at once (hub_reader.h reads them in
 * passes): each is opened alone for its order and its survey, and the
 * reader opens them again, group by group. */
#ifndef TT_HUB_INPUT_SET_H
#define TT_HUB_INPUT_SET_H
#include <stddef.h>

#include "hub/hub_align.h"
#include "hub/hub_reader.h"

typedef struct hub_input_set hub_input_set;

/* Opens paths (kept by the caller while the inputs are open). survey:
 * also survey each input for the alignment plan. NULL after saying
 * "PATH: reason", as hub_reader_open. */
hub_input_set *hub_input_set_open(const char *const *paths, size_t npaths, int survey);

/* The survey made at open (NULL when none was asked for), the caller's
 * from now on (hub_align_survey_plan frees it). */
hub_align_survey *hub_input_set_take_survey(hub_input_set *in);

/* A reader of the inputs under f, as hub_reader_open(paths, f) would
 * open it. The inputs are closed, on failure too. */
hub_reader *hub_reader_open_set(hub_input_set *in, const hub_filter *f);

void hub_input_set_close(hub_input_set *in);

#endif
