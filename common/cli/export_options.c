/* The exporters' command line (export.h): the options every exporter
 * shares, parsed and checked together before anything is opened. */
#include "cli/export_options.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/gzip_file.h"
#include "base/input_check.h"
#include "base/util.h"
#include "base/vec.h"
#include "cli/cli.h"
#include "cli/export_split.h"

/* --- command line ----------------------------------------------------- */

/* The usage; an option the tool refuses is left out (--no-args without
 * event arguments, --max-part-size without part_bytes). */
static void usage(FILE *f, const void *ctx) {
  const tt_exporter *ex = ctx;
  char limit[32], auto_text[96] = "refused: this format has no viewer limit";
  if (ex->auto_max_part_size)
    snprintf(auto_text, sizeof auto_text, "%s, what %s opens",
             tt_size_text(ex->auto_max_part_size, limit, sizeof limit), ex->viewer_limit);
  fprintf(f,
          "Usage: %s [options] DB... -o OUTPUT%s\n"
          "%s\n\n"
          "  DB...                    rocpd hub databases, read as one time-ordered stream\n"
          "  -o, --output FILE        output file, replaced if it exists%s%s\n"
          "      --split MODE         process: one output per process (FILE.pPID%s)\n"
          "                           window: consecutive time windows (FILE.wNNN%s)\n"
          "      --windows N          with --split window: N windows of equal length\n"
          "      --window-size DUR    with --split window: windows of DUR, with its unit\n"
          "                           (ns, us, ms, s: 250ms, 1.5s)\n",
          tt_progname(), ex->extension, ex->description,
          ex->stdout_ok ? " ('-' for stdout)" : "",
          ex->no_gzip ? ""
                      : ";\n"
                        "                           a name ending in .gz is written gzip-compressed",
          ex->extension, ex->extension);
  if (ex->part_bytes)
    fprintf(f,
            "      --max-part-size SIZE with --split window: cut where each part's file\n"
            "                           holds at most SIZE (K, M, G: powers of 1024; 200M);\n"
            "                           with --split process: whole processes packed into\n"
            "                           parts of SIZE. Alone, it means --split window.\n"
            "                           'auto': %s.\n",
            auto_text);
  fprintf(f,
          "      --part K             write only part K (from 0) of the split\n"
          "      --start T, --end T   time range: absolute ns, a duration from the\n"
          "                           trace start (10ms), or a percentage (25%%)\n"
          "      --category GLOB      keep only events whose category matches (repeatable;\n"
          "                           case-insensitive; see --list-categories)\n"
          "      --exclude-category GLOB  drop events whose category matches (repeatable)\n"
          "      --name GLOB          keep only events whose name matches (repeatable,\n"
          "                           case-insensitive)\n"
          "      --gpu                keep only GPU work: kernels, copies, memsets and GPU\n"
          "                           annotations, whatever their category's name\n"
          "      --min-duration DUR   drop intervals shorter than DUR (10us, 1ms), with\n"
          "                           their arrows; instants and counters stay\n"
          "%s"
          "      --max-parts N        refuse a split into more than N parts (default 10000)\n"
          "      --count-parts        print the number of parts the split makes, write\n"
          "                           nothing\n"
          "      --list-categories    print each category in the inputs with its event\n"
          "                           count\n",
          ex->no_event_args ? "" : "      --no-args            leave event arguments out\n");
  if (ex->relative_times)
    fprintf(f, "      --time-base NS       write times relative to NS (absolute ns, written\n"
               "                           in the file); default: the inputs' first start,\n"
               "                           floored to a whole microsecond\n");
}

int tt_parse_duration(const char *s, int64_t *ns) {
  static const struct {
    const char *unit;
    int64_t scale;
  } units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}, {"", 1}};
  size_t n = strlen(s);
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    size_t u = strlen(units[i].unit);
    if (n <= u || strcmp(s + n - u, units[i].unit) != 0) continue;
    /* "1ms" must not be read as "1m" + "s": the number part must parse. */
    if (tt_decimal_to_int_scaled(s, n - u, units[i].scale, ns) == 0 && *ns >= 0) return 0;
  }
  return -1;
}

char *tt_part_path(const char *output, const char *tag) {
  const char *base = strrchr(output, '/');
  base = base ? base + 1 : output;
  const char *dot = strrchr(base, '.');
  /* "t.json.gz": the tag goes before ".json.gz", not before ".gz". */
  if (dot && dot > base && strcmp(dot, ".gz") == 0) {
    const char *inner = dot;
    while (inner > base && inner[-1] != '.') inner--;
    if (inner - 1 > base) dot = inner - 1;
  }
  tt_buf b = {0};
  if (!dot || dot == base) {
    tt_buf_puts(&b, output);
    tt_buf_puts(&b, tag);
  } else {
    tt_buf_append(&b, output, (size_t)(dot - output));
    tt_buf_puts(&b, tag);
    tt_buf_puts(&b, dot);
  }
  return b.data;
}

static int64_t parse_count(const char *opt, const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0) tt_die(2, "%s: not a count: '%s'", opt, s);
  return v;
}

/* The format's viewer limit (--max-part-size auto); TT_AUTO_MAX_PART_SIZE
 * (bytes) lowers it for tests, as a 200 MB trace would take too long. */
uint64_t tt_export_auto_limit(const tt_exporter *ex) {
  const char *env = getenv("TT_AUTO_MAX_PART_SIZE");
  if (ex->auto_max_part_size && env && *env) return strtoull(env, NULL, 10);
  return ex->auto_max_part_size;
}

/* A positive duration with its unit for option `opt` (example: `eg`).
 * The unit is required: a bare number once meant ns and split a 43 s
 * trace into 4 million files. */
static int64_t parse_positive_duration(const char *opt, const char *arg, const char *eg) {
  size_t n = strlen(arg);
  int64_t ns = 0;
  if (n == 0 || (arg[n - 1] >= '0' && arg[n - 1] <= '9') || arg[n - 1] == '.')
    tt_die(2, "%s: give a unit (ns, us, ms or s), e.g. %s: '%s'", opt, eg, arg);
  if (tt_parse_duration(arg, &ns) != 0 || ns <= 0)
    tt_die(2, "%s: not a positive duration: '%s' (e.g. %s)", opt, arg, eg);
  return ns;
}

/* --max-part-size SIZE|auto. Like --window-size, a bare number is
 * refused: the unit is required. */
static void parse_max_part_size(const tt_exporter *ex, tt_export_opts *o, const char *arg) {
  if (!ex->part_bytes) tt_die(2, "--max-part-size: not for this tool");
  if (strcmp(arg, "auto") == 0) {
    if (!ex->auto_max_part_size)
      tt_die(2, "--max-part-size auto: this format has no automatic limit (%s); give a size "
             "such as 2G",
             ex->viewer_limit ? ex->viewer_limit : "no viewer limit is known");
    o->max_part_size = tt_export_auto_limit(ex);
    o->max_part_auto = 1;
    return;
  }
  size_t n = strlen(arg);
  if (n == 0 || (arg[n - 1] >= '0' && arg[n - 1] <= '9') || arg[n - 1] == '.')
    tt_die(2, "--max-part-size: give a unit (K, M or G, powers of 1024), e.g. 200M: '%s'", arg);
  if (tt_parse_size(arg, &o->max_part_size) != 0)
    tt_die(2, "--max-part-size: not a positive size: '%s' (e.g. 200M, 1.5G, 'auto')", arg);
  if (o->max_part_size < 1024)
    tt_die(2, "--max-part-size: %s is less than 1K: no part could hold a trace", arg);
}

/* The exporters' own options, added to the shared ones (cli.h). */
enum { O_SPLIT, O_WINDOWS, O_WSIZE, O_PART, O_START, O_END, O_CAT, O_XCAT, O_NAME, O_NOARGS,
       O_MAXPARTS, O_COUNTPARTS, O_LISTCAT, O_GPU, O_MAXPARTSIZE, O_TIMEBASE,
       O_MINDUR };
static const struct option export_longopts[] = {
    {"split", required_argument, NULL, O_SPLIT},
    {"windows", required_argument, NULL, O_WINDOWS},
    {"window-size", required_argument, NULL, O_WSIZE},
    {"part", required_argument, NULL, O_PART},
    {"max-part-size", required_argument, NULL, O_MAXPARTSIZE},
    {"start", required_argument, NULL, O_START},
    {"end", required_argument, NULL, O_END},
    {"category", required_argument, NULL, O_CAT},
    {"exclude-category", required_argument, NULL, O_XCAT},
    {"name", required_argument, NULL, O_NAME},
    {"gpu", no_argument, NULL, O_GPU},
    {"min-duration", required_argument, NULL, O_MINDUR},
    {"no-args", no_argument, NULL, O_NOARGS},
    {"max-parts", required_argument, NULL, O_MAXPARTS},
    {"count-parts", no_argument, NULL, O_COUNTPARTS},
    {"list-categories", no_argument, NULL, O_LISTCAT},
    {"time-base", required_argument, NULL, O_TIMEBASE},
    {NULL, 0, NULL, 0}};

typedef TT_VEC(const char *) text_list;

typedef struct export_parse {
  const tt_exporter *ex;
  tt_export_opts *o;
  text_list categories, exclude, names; /* the repeatable options, in order */
} export_parse;

/* One exporter option; a wrong value exits with status 2. */
static int export_option(int val, const char *optarg, void *ctx) {
  export_parse *pa = ctx;
  const tt_exporter *ex = pa->ex;
  tt_export_opts *o = pa->o;
  switch (val) {
  case O_SPLIT:
    if (strcmp(optarg, "process") == 0) o->split = TT_SPLIT_PROCESS;
    else if (strcmp(optarg, "window") == 0) o->split = TT_SPLIT_WINDOW;
    else tt_die(2, "--split: expected 'process' or 'window', got '%s'", optarg);
    break;
  case O_WINDOWS:
    o->windows = parse_count("--windows", optarg);
    if (o->windows < 1) tt_die(2, "--windows: must be at least 1");
    break;
  case O_WSIZE: o->window_size = parse_positive_duration("--window-size", optarg, "250ms"); break;
  case O_PART: o->part = parse_count("--part", optarg); break;
  case O_MAXPARTSIZE: parse_max_part_size(ex, o, optarg); break;
  case O_START: o->start_text = optarg; break;
  case O_END: o->end_text = optarg; break;
  case O_CAT: tt_vec_push(&pa->categories, optarg); break;
  case O_XCAT: tt_vec_push(&pa->exclude, optarg); break;
  case O_NAME: tt_vec_push(&pa->names, optarg); break;
  case O_GPU: o->gpu_only = 1; break;
  case O_MINDUR: o->min_duration = parse_positive_duration("--min-duration", optarg, "10us"); break;
  case O_NOARGS:
    if (ex->no_event_args) tt_die(2, "--no-args: %s writes no event arguments", tt_progname());
    o->no_args = 1;
    break;
  case O_MAXPARTS:
    o->max_parts = parse_count("--max-parts", optarg);
    if (o->max_parts < 1) tt_die(2, "--max-parts: must be at least 1");
    break;
  case O_COUNTPARTS: o->count_parts = 1; break;
  case O_LISTCAT: o->list_categories = 1; break;
  case O_TIMEBASE:
    if (!ex->relative_times) tt_die(2, "--time-base: %s writes absolute times", tt_progname());
    o->time_base = parse_count("--time-base", optarg);
    o->time_base_given = 1;
    break;
  }
  return 0;
}

void tt_export_parse(int argc, char **argv, const tt_exporter *ex, tt_export_opts *o) {
  memset(o, 0, sizeof *o);
  o->part = -1;
  o->max_parts = 10000;
  export_parse ctx = {.ex = ex, .o = o};
  const tt_cli_ext own = {.longopts = export_longopts, .handle = export_option, .ctx = &ctx};
  tt_cli cli = {.usage = usage, .usage_ctx = ex, .help_width = 27,
                .ext = {&own, ex->options, tt_align_cli_ext(&o->align)}};
  if (ex->part_bytes) { /* the one thing a second thread does: plan a size split */
    cli.threads_max = 2;
    cli.threads_auto = "2 when it may run on two CPUs or more";
    cli.threads_help[0] = "1, 2 or auto: with --max-part-size, 2 plans the";
    cli.threads_help[1] = "cuts on a second thread while parts are written";
  }
  tt_cli_parse(argc, argv, &cli);
  o->categories = ctx.categories.v, o->ncategories = ctx.categories.n;
  o->exclude_categories = ctx.exclude.v, o->nexclude = ctx.exclude.n;
  o->names = ctx.names.v, o->nnames = ctx.names.n;
  o->output = cli.output;
  o->progress_mode = cli.progress_mode;
  o->threads = cli.threads;
  o->inputs = cli.inputs;
  o->ninputs = cli.ninputs;
  for (size_t i = 0; i < o->ninputs; i++)
    if (tt_input_check(o->inputs[i]) != 0) exit(1);
  if (o->list_categories || o->count_parts) {
    if (o->list_categories && o->count_parts) tt_die(2, "give --list-categories or --count-parts, not both");
  } else if (!o->output && !(o->output = ex->default_output)) {
    tt_die(2, "missing -o OUTPUT");
  }
  if (o->output && ex->no_gzip && tt_path_is_gz(o->output))
    tt_die(2, "%s: this format is not written compressed: give a name without .gz", o->output);
  if (o->output && strcmp(o->output, "-") == 0) {
    if (!ex->stdout_ok || o->split != TT_SPLIT_NONE)
      tt_die(2, "-o -: %s",
             ex->stdout_ok ? "split output needs a file name" : "this format cannot go to stdout");
    if (ex->binary && isatty(STDOUT_FILENO))
      tt_die(2, "-o -: standard output is a terminal; redirect it to a file or a pipe");
  }
  if (o->max_part_size && o->split == TT_SPLIT_NONE) {
    if (o->output && strcmp(o->output, "-") == 0) tt_die(2, "-o -: split output needs a file name");
    o->split = TT_SPLIT_WINDOW;
  }
  if (o->max_part_size && (o->windows || o->window_size))
    tt_die(2, "give --windows, --window-size or --max-part-size, not two of them");
  if (o->split == TT_SPLIT_WINDOW && !o->windows && !o->window_size && !o->max_part_size)
    tt_die(2, "--split window needs --windows N, --window-size DURATION or --max-part-size SIZE");
  if (o->split != TT_SPLIT_WINDOW && (o->windows || o->window_size))
    tt_die(2, "--windows/--window-size need --split window");
  if (o->windows && o->window_size) tt_die(2, "give --windows or --window-size, not both");
  if (o->part >= 0 && o->split == TT_SPLIT_NONE) tt_die(2, "--part needs --split");
  if (o->count_parts && o->split == TT_SPLIT_NONE) tt_die(2, "--count-parts needs --split");
}

/* --start/--end: absolute ns, a duration after the trace start, or N%. */
int64_t tt_export_resolve_time(const char *opt, const char *s, int64_t lo, int64_t hi) {
  size_t n = strlen(s);
  int64_t v;
  if (n > 1 && s[n - 1] == '%') {
    int64_t permille; /* percent with 6 decimals, exact */
    if (tt_decimal_to_int_scaled(s, n - 1, 1000000, &permille) != 0)
      tt_die(2, "%s: not a percentage: '%s'", opt, s);
    if (permille < 0 || permille > 100000000)
      tt_die(2, "%s: '%s' is out of the 0-100%% range", opt, s);
    return lo + (int64_t)((__int128)(hi - lo) * permille / 100000000);
  }
  int all_digits = 1;
  for (size_t i = 0; i < n; i++)
    if (s[i] < '0' || s[i] > '9') all_digits = 0;
  if (all_digits && n > 0) {
    if (tt_decimal_to_int_scaled(s, n, 1, &v) != 0) tt_die(2, "%s: bad time '%s'", opt, s);
    return v;
  }
  if (tt_parse_duration(s, &v) != 0)
    tt_die(2, "%s: expected ns, a duration (10ms) or a percentage (25%%): '%s'", opt, s);
  return lo + v;
}

