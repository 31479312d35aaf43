/* --align (issue 38): which map moves each input's times onto one
 * timeline, and how good it is. Inputs are grouped by (host, clock), the
 * processes of one host sharing its clock; each group gets one map:
 *   collectives  fitted on the ends of collectives every rank ran
 *                (hub_collectives.h, hub_clock_fit.h) against the group
 *                of the lowest rank, the reference;
 *   wall         each input's recorded wall-clock anchor
 *                (hub_process_info.to_wall_ns): the timeline is Unix time;
 *   file         offsets the user gives per host or rank (man db2json);
 *   auto         nothing when every input is of one host and clock, else
 *                collectives for every host whose fit is accepted
 *                (hub_clock_judge); a host refused stays as recorded,
 *                with a warning naming it and the test it failed (or,
 *                when every input has a wall-clock anchor, wall for all);
 *   none         nothing.
 * Memory: a few words per input, and per host the ends of its
 * collectives (one value per collective instance): never the events.
 * Opens: each input's info comes from whoever opened it (an exporter's
 * reader, through hub_align_survey; hub_align_plan opens each itself);
 * the collectives of a host are read from its lowest rank's hub alone. */
#ifndef TT_HUB_ALIGN_H
#define TT_HUB_ALIGN_H
#include <stddef.h>
#include <stdint.h>

#include "base/util.h"
#include "hub/hub_clock_fit.h"
#include "hub/hub_reader.h"
#include "hub/hub_time_map.h"

typedef enum hub_align_mode {
  HUB_ALIGN_AUTO = 0,
  HUB_ALIGN_NONE,
  HUB_ALIGN_COLLECTIVES,
  HUB_ALIGN_WALL,
  HUB_ALIGN_FILE
} hub_align_mode;

typedef struct hub_align_host {
  char *host;          /* hostname, "" when the inputs record none */
  hub_clock clock;
  int64_t first_rank;  /* its lowest rank, HUB_NULL when none is known */
  size_t ninputs;
  int reference;       /* the timeline is its clock (collectives) */
  int accepted;        /* collectives: the reference, or its fit accepted */
  hub_time_map map;    /* what its times were moved by (identity when refused) */
  hub_clock_fit fit;   /* collectives: the fit applied (fit.used 0: none) */
  hub_clock_judgement judged; /* collectives: the verdict on its fit, and why */
} hub_align_host;

typedef struct hub_alignment {
  hub_align_mode method; /* what was applied: NONE when no time moved */
  hub_time_maps maps;    /* by input path: hand to hub_filter.time_maps */
  hub_align_host *hosts; /* in host name order */
  size_t nhosts;
  int mixed;             /* auto: clocks differ and some host is left as recorded */
  tt_buf why;            /* a merged input's hosts, when that is why */
} hub_alignment;

/* The plan made from opens that read the inputs anyway (the run's
 * inputs, hub_input_set.h): told each input's info, then planned. add: path's
 * processes and metadata, those of the dbs of `info` whose path it is; 0.
 * plan: as hub_align_plan, from every input added; s is freed. */
typedef struct hub_align_survey hub_align_survey;
hub_align_survey *hub_align_survey_new(void);
int hub_align_survey_add(hub_align_survey *s, const char *path, hub_reader *info);
int hub_align_survey_plan(hub_align_survey *s, hub_align_mode mode, const char *file,
                          hub_alignment *out);
void hub_align_survey_free(hub_align_survey *s);

/* Plans the alignment of paths, opening each for its info. file: FILE mode's offsets. 0, or -1 after
 * saying why (a host without enough collectives under `collectives`, an
 * input without an anchor under `wall`, a bad FILE line: "FILE:LINE: ..."). */
int hub_align_plan(const char *const *paths, size_t n, hub_align_mode mode, const char *file,
                   hub_alignment *out);
void hub_alignment_free(hub_alignment *a);

const char *hub_align_mode_name(hub_align_mode m); /* "auto", "none", ... */

/* The rocpd_metadata tag dbmerge --align writes: its inputs' times are
 * already on one timeline (value: the method), never aligned again. */
#define HUB_ALIGNED_TAG "tracetools.aligned"

#endif
