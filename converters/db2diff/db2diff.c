/* db2diff BASE CAND: what changed between two runs, op by op (db2diff.h):
 * the command line and the run, db2diff_main (which the fuzz harness runs
 * too). Exit status: 0, 1 on an error, 2 on a usage error, 3 when
 * --fail-above is exceeded. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_output.h"
#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "cli/cli.h"
#include "cli/hub_inputs.h"
#include "db2diff.h"

static const dd_options default_opts = {.format = DD_TEXT, .fail_above = -1, .top = 10};
static dd_options opts;

static void usage(FILE *f, const void *ctx) {
  (void)ctx;
  fprintf(f,
          "Usage: %s [options] BASE CAND\n"
          "Compares two runs op by op: each GPU op is put to the CPU op that launched\n"
          "it, and the two runs' ops are paired in order within each step and thread;\n"
          "every pair says which rule made it (docs/diff.md).\n\n"
          "  BASE, CAND           a hub; several hubs joined by commas (a.db,b.db); or a\n"
          "                       directory, for the hubs (*.db) in it (a run's\n"
          "                       per-process hubs, as rocprofv3 writes them)\n"
          "  -o, --output FILE    where the report goes (default: stdout)\n",
          tt_progname());
}

static const char *const diff_help =
    "\ndb2diff options:\n"
    "      --format FMT       text (default), csv, json, markdown or html (one\n"
    "                         offline file with a chart of the largest changes)\n"
    "      --step NAME        steps are the ranges (NVTX, ROCTX, annotations, ops)\n"
    "                         named NAME or NAME#N (default: Kineto's ProfilerStep#N)\n"
    "      --steps A:B        compare only steps A to B (by position, from 1; A: or\n"
    "                         :B leaves an end open)\n"
    "      --instances        one row per paired op instance too (csv: only those)\n"
    "      --top N            text and markdown: rows shown (default 10; 0: all)\n"
    "      --fail-above PCT   exit 3 when the candidate's step time (GPU time where\n"
    "                         there are no steps) is worse than the base's by more\n"
    "                         than PCT percent beyond the steps' noise\n";

enum { O_FORMAT, O_STEP, O_STEPS, O_INSTANCES, O_TOP, O_FAIL_ABOVE };
static const struct option diff_longopts[] = {
    {"format", required_argument, NULL, O_FORMAT},   {"step", required_argument, NULL, O_STEP},
    {"steps", required_argument, NULL, O_STEPS},     {"instances", no_argument, NULL, O_INSTANCES},
    {"top", required_argument, NULL, O_TOP},         {"fail-above", required_argument, NULL, O_FAIL_ABOVE},
    {NULL, 0, NULL, 0}};

static int64_t position(const char *s, const char *end, const char *opt) {
  if (s == end) return 0;
  char *stop;
  long long v = strtoll(s, &stop, 10);
  if (stop != end || v < 1) tt_die(2, "%s: not a step position (1, 2, ...): '%.*s'", opt, (int)(end - s), s);
  return v;
}

static int diff_option(int val, const char *arg, void *ctx) {
  (void)ctx;
  switch (val) {
  case O_FORMAT:
    if (strcmp(arg, "text") == 0) opts.format = DD_TEXT;
    else if (strcmp(arg, "csv") == 0) opts.format = DD_CSV;
    else if (strcmp(arg, "json") == 0) opts.format = DD_JSON;
    else if (strcmp(arg, "markdown") == 0 || strcmp(arg, "md") == 0) opts.format = DD_MARKDOWN;
    else if (strcmp(arg, "html") == 0) opts.format = DD_HTML;
    else tt_die(2, "--format: expected text, csv, json, markdown or html, got '%s'", arg);
    break;
  case O_STEP:
    if (!*arg) tt_die(2, "--step: an empty name");
    opts.step_name = arg;
    break;
  case O_STEPS: {
    const char *colon = strchr(arg, ':');
    if (!colon) tt_die(2, "--steps: expected A:B (A: or :B for an open end), got '%s'", arg);
    opts.steps_from = position(arg, colon, "--steps");
    opts.steps_to = position(colon + 1, colon + 1 + strlen(colon + 1), "--steps");
    if (opts.steps_to && opts.steps_from > opts.steps_to) tt_die(2, "--steps: %s is an empty range", arg);
    if (!opts.steps_from) opts.steps_from = 1;
    break;
  }
  case O_INSTANCES: opts.instances = 1; break;
  case O_TOP: {
    char *end;
    long long n = strtoll(arg, &end, 10);
    if (!*arg || *end || n < 0 || n > 1000000) tt_die(2, "--top: not a count: '%s'", arg);
    opts.top = (int)n;
    break;
  }
  case O_FAIL_ABOVE: {
    char *end;
    double v = strtod(arg, &end);
    if (!*arg || *end || !(v >= 0) || v > 1e6) tt_die(2, "--fail-above: not a percentage (0 or more): '%s'", arg);
    opts.fail_above = v;
    break;
  }
  }
  return 0;
}

/* Reads both sides segment by segment, each pair summed as it comes. */
static int run(dd_side *b, dd_side *c, dd_report *rep) {
  int more_b = 1, more_c = 1;
  while (more_b || more_c) {
    dd_segment *sb = NULL, *sc = NULL;
    if (more_b && (more_b = dd_side_next(b, &sb)) < 0) return -1;
    if (more_c && (more_c = dd_side_next(c, &sc)) < 0) {
      dd_segment_free(sb);
      return -1;
    }
    if (sb || sc) dd_report_add(rep, sb, sc);
    dd_segment_free(sb);
    dd_segment_free(sc);
  }
  return 0;
}

int db2diff_main(int argc, char **argv) {
  opts = default_opts;
  tt_cli_ext own = {.longopts = diff_longopts, .help = diff_help, .handle = diff_option};
  tt_cli cli = {.usage = usage, .help_width = 23, .ext = {&own}};
  tt_cli_parse(argc, argv, &cli);
  if (cli.ninputs != 2) {
    tt_error("expected two runs, BASE and CAND, got %zu operand%s", cli.ninputs, cli.ninputs == 1 ? "" : "s");
    usage(stderr, NULL);
    return 2;
  }
  tt_hub_inputs in[2] = {{0}};
  for (int i = 0; i < 2; i++)
    if (tt_hub_inputs_expand(cli.inputs[i], &in[i]) != 0) {
      tt_hub_inputs_free(&in[0]);
      return 1;
    }
  const char *output = cli.output ? cli.output : "-";
  for (int i = 0; i < 2; i++)
    tt_cli_refuse_input_as_output(output, (const char *const *)in[i].paths, in[i].n);
  tt_sqlite_setup();
  dd_names names = {0};
  dd_side *side[2] = {NULL, NULL};
  dd_progress progress = {0};
  tt_progress_estimate(1);
  side[0] = dd_side_open("base", (const char *const *)in[0].paths, in[0].n, &opts, &names, &progress);
  if (side[0])
    side[1] = dd_side_open("candidate", (const char *const *)in[1].paths, in[1].n, &opts, &names, &progress);
  int rc = side[0] && side[1] ? 0 : -1;
  dd_report rep;
  dd_report_init(&rep, &opts, &names);
  if (rc == 0) rc = run(side[0], side[1], &rep);
  int status = 1;
  if (rc == 0) {
    for (int i = 0; i < 2; i++) rep.info[i] = *dd_side_info_of(side[i]);
    dd_report_finish(&rep);
    tt_output *out = tt_output_begin(output);
    FILE *fp = tt_output_fopen(out, "w");
    if (tt_output_is_stdout(out)) tt_progress_stdout_begins();
    if (dd_write(&rep, fp) != 0) {
      tt_error("%s: write failed", output);
      tt_output_abort(out);
    } else if (tt_output_commit(out) != 0) {
      tt_error("%s: write failed", output);
    } else {
      status = dd_report_fails(&rep) ? 3 : 0;
      if (status == 3)
        tt_warn("--fail-above %g: the candidate's %s is %+.2f%% against the base's (noise %.2f%%)",
                opts.fail_above, rep.by_steps ? "step time" : "GPU time", rep.change_pct, rep.noise_pct);
    }
  }
  tt_progress_done();
  if (status == 0 || status == 3)
    tt_info("compared %llu and %llu events: %s, %zu groups", (unsigned long long)dd_side_events(side[0]),
            (unsigned long long)dd_side_events(side[1]), rep.verdict, rep.groups.n);
  dd_report_free(&rep);
  dd_side_close(side[0]);
  dd_side_close(side[1]);
  dd_names_free(&names);
  tt_hub_inputs_free(&in[0]);
  tt_hub_inputs_free(&in[1]);
  return status;
}
