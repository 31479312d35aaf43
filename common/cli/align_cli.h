/* --align for every exporter, db2summary and dbmerge (issue 38): the
 * option, the plan (hub_align.h) made once before any reader opens, and
 * the error stated: a line per host on stderr unless -q. */
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
} tt_align_opts;

/* The --align option, parsed into o (its ext points into o). */
const tt_cli_ext *tt_align_cli_ext(tt_align_opts *o);

/* Plans the alignment of the inputs and states it on stderr (unless -q).
 * 0, or -1 after saying why. The maps then stay in o->result until
 * tt_align_free. */
int tt_align_resolve(tt_align_opts *o, const char *const *inputs, size_t n);
void tt_align_free(tt_align_opts *o);

/* The maps to hand the reader (hub_filter.time_maps): NULL when no time
 * moves. */
const hub_time_maps *tt_align_maps(const tt_align_opts *o);

#endif
