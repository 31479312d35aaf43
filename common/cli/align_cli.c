/* --align (align_cli.h). */
#include "cli/align_cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/progress.h"
#include "base/util.h"

static const char *const align_help =
    "\nClocks of several hosts:\n"
    "      --align HOW          auto (default): nothing moves when every input has\n"
    "                           one host and clock, else each host is aligned on\n"
    "                           its collectives when the fit passes its checks,\n"
    "                           else left as recorded with a warning naming it;\n"
    "                           collectives: the same, a refused fit an error;\n"
    "                           wall: recorded wall-clock anchors; none; or a\n"
    "                           FILE of lines 'HOST_OR_RANK OFFSET_NS [DRIFT_PPM]'\n";

static const struct option align_longopts[] = {{"align", required_argument, NULL, 1},
                                               {NULL, 0, NULL, 0}};

static int align_option(int val, const char *arg, void *ctx) {
  (void)val;
  tt_align_opts *o = ctx;
  static const struct {
    const char *name;
    hub_align_mode mode;
  } words[] = {{"auto", HUB_ALIGN_AUTO}, {"none", HUB_ALIGN_NONE},
               {"collectives", HUB_ALIGN_COLLECTIVES}, {"wall", HUB_ALIGN_WALL}};
  for (size_t i = 0; i < sizeof words / sizeof *words; i++)
    if (strcmp(arg, words[i].name) == 0) {
      o->mode = words[i].mode;
      o->file = NULL;
      return 0;
    }
  if (!*arg) tt_die(2, "--align: expected auto, collectives, wall, none or a FILE");
  /* Anything else names a file (./auto for one named so); a bare word
   * that names none is a mode mistyped, not a file to complain of. */
  if (access(arg, F_OK) != 0 && !strpbrk(arg, "/."))
    tt_die(2, "--align: '%s' is neither a mode (auto, collectives, wall, none) nor a file; "
           "see --help", arg);
  o->mode = HUB_ALIGN_FILE;
  o->file = arg;
  return 0;
}

const tt_cli_ext *tt_align_cli_ext(tt_align_opts *o) {
  memset(o, 0, sizeof *o);
  o->ext = (tt_cli_ext){.longopts = align_longopts, .help = align_help,
                        .handle = align_option, .ctx = o};
  return &o->ext;
}

static const char *host_name(const hub_align_host *h) { return h->host[0] ? h->host : "(no host)"; }

/* One line per host: what moved it, and how well it fits. */
static void state(const hub_alignment *a) {
  for (size_t i = 0; i < a->nhosts; i++) {
    const hub_align_host *h = &a->hosts[i];
    if (h->reference && h->first_rank != HUB_NULL) {
      tt_info("align: %s (%s clock): the reference (rank %lld)", host_name(h),
              hub_clock_name(h->clock), (long long)h->first_rank);
    } else if (h->reference) {
      tt_info("align: %s (%s clock): the reference", host_name(h), hub_clock_name(h->clock));
    } else if (a->method == HUB_ALIGN_COLLECTIVES && !h->accepted) {
      tt_info("align: %s (%s clock): left as recorded (fit refused: %s)", host_name(h),
              hub_clock_name(h->clock), hub_fit_verdict_name(h->judged.verdict));
    } else if (a->method == HUB_ALIGN_COLLECTIVES) {
      tt_info("align: %s (%s clock): offset %+" PRId64 " ns, drift %+.3f ppm, residual median %"
              PRId64 " ns, p99 %" PRId64 " ns, %zu collectives",
              host_name(h), hub_clock_name(h->clock), h->fit.offset_ns, h->fit.drift_ppm,
              h->fit.resid_median_ns, h->fit.resid_p99_ns, h->fit.used);
    } else {
      tt_info("align: %s (%s clock): offset %+" PRId64 " ns, drift %+.3f ppm (%s)", host_name(h),
              hub_clock_name(h->clock), h->map.offset_ns, h->map.drift_ppm,
              hub_align_mode_name(a->method));
    }
  }
}

/* What the plan did, once: a line per host when times moved; one line
 * when --align collectives had nothing to do. */
static void state_plan(const tt_align_opts *o) {
  const hub_alignment *a = &o->result;
  if (a->method != HUB_ALIGN_NONE) state(a);
  else if (o->mode == HUB_ALIGN_COLLECTIVES && a->nhosts <= 1)
    tt_info("align: every input is of one host and clock (%s): nothing to align",
            a->nhosts ? host_name(&a->hosts[0]) : "no input");
}

int tt_align_resolve(tt_align_opts *o, const char *const *inputs, size_t n) {
  if (hub_align_plan(inputs, n, o->mode, o->file, &o->result) != 0) return -1;
  state_plan(o);
  return 0;
}

int tt_align_plan_inputs(tt_align_opts *o, hub_input_set *in) {
  hub_align_survey *s = hub_input_set_take_survey(in);
  if (o->mode == HUB_ALIGN_NONE) {
    hub_align_survey_free(s);
    return 0;
  }
  if (!s) { /* planning on no survey would move nothing and say it aligned */
    tt_error("--align: the inputs were opened without their survey (a bug, please report it)");
    return -1;
  }
  if (hub_align_survey_plan(s, o->mode, o->file, &o->result) != 0) return -1;
  state_plan(o);
  return 0;
}

void tt_align_filter(const tt_align_opts *o, hub_filter *f) { f->time_maps = tt_align_maps(o); }

void tt_align_free(tt_align_opts *o) {
  hub_alignment_free(&o->result);
}

const hub_time_maps *tt_align_maps(const tt_align_opts *o) {
  return o->result.method != HUB_ALIGN_NONE && o->result.maps.n ? &o->result.maps : NULL;
}
