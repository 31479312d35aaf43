/* --align for every exporter, db2summary and dbmerge (issue 38): the
 * option, the plan (hub_align.h) made once, before any reader opens
 * (from the run's opened inputs, hub_input_set.h, or by opening each input),
 * and the error stated: a line per host on stderr unless -q. */
#ifndef TT_ALIGN_CLI_H
#define TT_ALIGN_CLI_H
#include <stddef.h>

#include "cli/cli.h"
#include "hub/hub_align.h"
#include "hub/hub_input_set.h"

typedef struct tt_align_opts {
  hub_align_mode mode; /* --align; AUTO unless given */
  const char *file;    /* --align FILE */
  tt_cli_ext ext;      /* the option, for tt_cli.ext */
  hub_alignment result;
} tt_align_opts;

/* The --align option, parsed into o (its ext points into o). */
const tt_cli_ext *tt_align_cli_ext(tt_align_opts *o);

/* Plans the alignment of the inputs and states it on stderr (unless -q).
 * 0, or -1 after saying why. The maps then stay in o->result until
 * tt_align_free. */
int tt_align_resolve(tt_align_opts *o, const char *const *inputs, size_t n);
void tt_align_free(tt_align_opts *o);

/* The exporters' way: the plan made from the survey of the run's inputs,
 * opened once (hub_input_set_open with a survey; taken from in), and stated
 * as tt_align_resolve does. 0, or -1 after saying why. Nothing to do for
 * --align none. */
int tt_align_plan_inputs(tt_align_opts *o, hub_input_set *in);
/* Sets f's time_maps from o's plan. */
void tt_align_filter(const tt_align_opts *o, hub_filter *f);

/* The maps to hand the reader (hub_filter.time_maps): NULL when no time
 * moves. */
const hub_time_maps *tt_align_maps(const tt_align_opts *o);

#endif
