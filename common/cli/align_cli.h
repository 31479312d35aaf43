/* --align for every exporter, db2summary and dbmerge (issue 38): the
 * option, the plan (hub_align.h) made once (before any reader opens, or by
 * the first reader opened: tt_align_defer), and the error stated: a line
 * per host on stderr unless -q. */
#ifndef TT_ALIGN_CLI_H
#define TT_ALIGN_CLI_H
#include <stddef.h>

#include "cli/cli.h"
#include "hub/hub_align.h"

typedef struct tt_align_opts {
  hub_align_mode mode; /* --align; AUTO unless given */
  const char *file;    /* --align FILE */
  tt_cli_ext ext;      /* the option, for tt_cli.ext */
  hub_alignment result;
  /* tt_align_defer: the plan the first reader opened makes (hub_reader.h,
   * hub_time_plan), from the inputs' info that open reads anyway. */
  hub_time_plan *plan;
  hub_align_survey *survey;
} tt_align_opts;

/* The --align option, parsed into o (its ext points into o). */
const tt_cli_ext *tt_align_cli_ext(tt_align_opts *o);

/* Plans the alignment of the inputs and states it on stderr (unless -q).
 * 0, or -1 after saying why. The maps then stay in o->result until
 * tt_align_free. */
int tt_align_resolve(tt_align_opts *o, const char *const *inputs, size_t n);
void tt_align_free(tt_align_opts *o);

/* The exporters' way: the plan is made by the first reader opened with
 * tt_align_filter's filter, which tells it every input's info from its own
 * open (so planning opens no input for its info); it is stated on stderr
 * then, and in o->result afterwards. A plan that fails (said) fails that
 * open. Nothing to do for --align none. */
void tt_align_defer(tt_align_opts *o);
/* Sets f's time_plan (deferred) or time_maps (resolved) from o. */
void tt_align_filter(const tt_align_opts *o, hub_filter *f);

/* The maps to hand the reader (hub_filter.time_maps): NULL when no time
 * moves. */
const hub_time_maps *tt_align_maps(const tt_align_opts *o);

#endif
