/* db2summary: hub databases -> the flat profile (top kernels, copies,
 * allocations, one table per API category, GPU busy time, launch latency)
 * as text, csv, markdown or json, or as one self-contained html report with
 * charts (busy over time per device and per process, launch latency
 * histogram). A sink on common/cli/export.h, so every
 * shared filter, --start/--end and --split apply; the output defaults to
 * stdout. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "db2summary.h"
#include "cli/export.h"
#include "cli/part_samples.h"

/* The options of the run (db2summary_exporter sets them to these defaults). */
static const sm_options default_opts = {.format = SM_TEXT, .top = 20, .width = -1};
static sm_options opts;

typedef struct summary_part {
  sm_summary s;
  tt_part_samples samples;
  FILE *fp;
  const char *path;
  int to_stdout;
} summary_part;

/* Text's line width: --width, else the terminal's when stdout is one, else
 * 100 columns. */
static int text_width(int to_stdout) {
  if (opts.width >= 0) return opts.width;
  struct winsize ws;
  if (to_stdout && isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 &&
      ws.ws_col > 0)
    return ws.ws_col;
  return 100;
}

static void *summary_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                           tt_output *out) {
  summary_part *sp = tt_calloc(1, sizeof *sp);
  opts.align = &o->align.result;
  sm_init(&sp->s, &opts);
  if (sp->s.charts) {
    /* Bins need the range before the first event: the part's own (a
     * window, --start/--end), else the inputs' time span. */
    int64_t lo = p->start, hi = p->end - 1;
    if (p->start == INT64_MIN || p->end == INT64_MAX) {
      lo = hi = 0;
      hub_reader_time_span(r, &lo, &hi);
    }
    sm_bins_set(&sp->s, lo, hi);
  }
  sp->fp = tt_output_fopen(out, "w");
  sp->path = p->path;
  if (tt_part_samples_open(&sp->samples, r, o, p) != 0) {
    sm_free(&sp->s);
    free(sp);
    return NULL;
  }
  sp->to_stdout = tt_output_is_stdout(out);
  return sp;
}

static int summary_event(void *state, hub_reader *r, const hub_record *ev) {
  sm_add(&((summary_part *)state)->s, r, ev);
  return 0;
}

static int summary_end(void *state, hub_reader *r) {
  summary_part *sp = state;
  hub_cpu_sample smp;
  int got;
  while ((got = tt_part_samples_before(&sp->samples, INT64_MAX, &smp)) == 1)
    sm_sample(&sp->s, tt_part_samples_stacks(&sp->samples), &smp);
  if (got < 0) {
    tt_part_samples_close(&sp->samples);
    sm_free(&sp->s);
    free(sp);
    return -1;
  }
  sm_finish(&sp->s);
  sm_warn_runs(&sp->s, r);
  opts.width = text_width(sp->to_stdout);
  int rc = sm_write(&sp->s, r, sp->fp, sp->to_stdout ? NULL : sp->path);
  if (rc == -1) tt_error("%s: write failed", sp->path);
  tt_part_samples_close(&sp->samples);
  sm_free(&sp->s);
  free(sp);
  return rc;
}

/* --- db2summary's own options ---------------------------------------- *
 * Parsed with the shared ones by common/cli/cli.h (tt_exporter.options). */

static const char *const summary_help =
    "\ndb2summary options (the output defaults to stdout):\n"
    "      --format FMT         text (default), csv, markdown, json or html (one\n"
    "                           self-contained report with charts; json has\n"
    "                           every figure the html shows)\n"
    "      --top N              rows per table, heaviest first (default 20; 0: all)\n"
    "      --by-process         one table per process and category (pid and host)\n"
    "      --mangled            kernels by their mangled symbol name, as recorded\n"
    "      --truncate-kernels   kernels by their short name: the function's qualified\n"
    "                           name without template arguments and parameters;\n"
    "                           kernels that shorten alike stay apart (\"[1 of 2]\")\n"
    "      --width N            text: lines of at most N columns, long names cut with\n"
    "                           \"...\" (default: the terminal's width, else 100; 0: no\n"
    "                           limit); csv, json, markdown and html keep whole names\n"
    "      --table NAME         only the tables NAME (\"kernels\", \"copies\" ...); csv\n"
    "                           without it needs -o FILE.csv: each table in\n"
    "                           FILE.NAME.csv, their index in FILE.csv\n";

enum { O_FORMAT, O_TOP, O_BY_PROCESS, O_MANGLED, O_TRUNCATE, O_WIDTH, O_TABLE };
static const struct option summary_longopts[] = {
    {"format", required_argument, NULL, O_FORMAT},
    {"top", required_argument, NULL, O_TOP},
    {"by-process", no_argument, NULL, O_BY_PROCESS},
    {"mangled", no_argument, NULL, O_MANGLED},
    {"truncate-kernels", no_argument, NULL, O_TRUNCATE},
    {"width", required_argument, NULL, O_WIDTH},
    {"table", required_argument, NULL, O_TABLE},
    {NULL, 0, NULL, 0}};

static void parse_format(const char *v) {
  if (strcmp(v, "text") == 0) opts.format = SM_TEXT;
  else if (strcmp(v, "csv") == 0) opts.format = SM_CSV;
  else if (strcmp(v, "markdown") == 0 || strcmp(v, "md") == 0) opts.format = SM_MARKDOWN;
  else if (strcmp(v, "json") == 0) opts.format = SM_JSON;
  else if (strcmp(v, "html") == 0) opts.format = SM_HTML;
  else tt_die(2, "--format: expected text, csv, markdown, json or html, got '%s'", v);
}

static void parse_top(const char *v) {
  char *end;
  long long n = strtoll(v, &end, 10);
  if (!*v || *end || n < 0) tt_die(2, "--top: not a count: '%s'", v);
  opts.top = n;
}

/* One of our options; ctx is the exporter, whose default output extension
 * follows --format. */
static int summary_option(int val, const char *arg, void *ctx) {
  static const char *const ext[] = {".txt", ".csv", ".md", ".json", ".html"};
  switch (val) {
  case O_FORMAT:
    parse_format(arg);
    ((tt_exporter *)ctx)->extension = ext[opts.format];
    break;
  case O_TOP: parse_top(arg); break;
  case O_BY_PROCESS: opts.by_process = 1; break;
  case O_MANGLED: opts.mangled = 1; break;
  case O_TRUNCATE: opts.truncate_kernels = 1; break;
  case O_WIDTH: {
    char *end;
    long n = strtol(arg, &end, 10);
    if (!*arg || *end || n < 0 || n > 100000) tt_die(2, "--width: not a column count: '%s'", arg);
    opts.width = (int)n;
    break;
  }
  case O_TABLE: opts.table = arg; break;
  }
  return 0;
}

const tt_exporter *db2summary_exporter(void) {
  static tt_exporter ex;
  static tt_cli_ext own;
  ex = (tt_exporter){
      .description = "Writes the flat profile of the hubs: top kernels, copies, allocations,\n"
                     "one table per API category, GPU busy time and launch latency.",
      .extension = ".txt",
      .stdout_ok = 1,
      .no_event_args = 1,
      .launch_times = 1, /* launch latency, also where the input records its arrows */
      .writes_at_end = 1,
      .begin_part = summary_begin,
      .event = summary_event,
      .end_part = summary_end,
      .default_output = "-",
  };
  own = (tt_cli_ext){.longopts = summary_longopts, .help = summary_help,
                     .handle = summary_option, .ctx = &ex};
  ex.options = &own;
  opts = default_opts;
  return &ex;
}
