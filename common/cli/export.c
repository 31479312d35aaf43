/* The exporters' driver (export.h): the command line, then the parts.
 * Every window split is one writer, stream_windows, that asks a cut source
 * (cut_source.h) where each window ends and knows the count before the
 * first part. The cut policies:
 *   equal    --windows N, --window-size DUR (tt_cuts_equal);
 *   planned  --max-part-size planned before writing: one CPU, or --part K
 *            (the balanced plan of cut_plan.h; tt_cuts_planned);
 *   ahead    --max-part-size on two CPUs: the same cuts, planned on a
 *            second thread while the writer writes just behind it, a
 *            window's events before its end is known (settle; tt_cuts_ahead);
 *   process  --split process: one reader per part, whole processes packed
 *            (export_split.h), a process too big alone cut into planned
 *            windows of its own (run_processes).
 * A --max-part-size split reads its inputs once: the fewest pass keeps
 * the stream in a spool (hub_reader.h), which the balanced pass and the
 * writer replay (size_cuts). */
#include "cli/export.h"
#include "cli/part_samples.h"

#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cut_source.h"
#include "cli/export_split.h"
#include "base/gzip_file.h"
#include "base/hashmap.h"
#include "base/input_check.h"
#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "base/threads.h"
#include "base/util.h"
#include "base/vec.h"

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
static uint64_t auto_limit(const tt_exporter *ex) {
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
    o->max_part_size = auto_limit(ex);
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

static void parse_args(int argc, char **argv, const tt_exporter *ex, tt_export_opts *o) {
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
static int64_t resolve_time(const char *opt, const char *s, int64_t lo, int64_t hi) {
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

/* --- running the parts ------------------------------------------------ */

int tt_part_has_pid(const tt_part *p, int64_t pid) {
  if (p->npids) {
    size_t lo = 0, hi = p->npids;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (p->pids[mid] < pid) lo = mid + 1;
      else hi = mid;
    }
    return lo < p->npids && p->pids[lo] == pid;
  }
  return p->pid == HUB_NULL || p->pid == pid;
}

typedef struct run {
  const tt_exporter *ex;
  const tt_export_opts *o;
  hub_reader *r;
  void *state;
  tt_output *out;
  tt_part part;      /* the part being read; begun lazily (see ensure_begun) */
  int begun;         /* the sink has been given this part */
  int tag_width;     /* digits of the part numbers, so names sort */
  char tag[48];
  char *path;
  uint64_t events, records, progress_total; /* events written; records read */
  int64_t parts_written, parts_empty;
  uint64_t bytes_written;
  int bytes_unknown;       /* a part went to stdout or a device: not counted */
  int64_t range[2], span[2]; /* --start/--end resolved; the inputs' time span */
  int span_any;              /* the inputs hold an event */
  TT_VEC(hub_held_record) carry; /* events crossing the window's end */
  /* The window split: where each window ends (cut_source.h). */
  tt_cut_source *src;
  uint64_t part_bytes;  /* bytes of the part last written */
  uint64_t *part_sizes; /* size split: each part's bytes (--part: unused) */
  uint64_t *bounds;     /* size split: each part's planned bound */
  /* The size split may plan on a second thread (set before the first
   * reader opens, as SQLite is told then). */
  int plan_ahead;
  int end_known; /* part.end is the window's end (else INT64_MAX: see settle) */
  uint64_t early; /* events written before their window's end was planned */
  /* A size split's stream as its fewest pass read it: the balanced pass
   * and the writer replay it rather than read the inputs again. */
  hub_spool *spool;
} run;

static void clip(hub_record *ev, int64_t a, int64_t b) {
  if (ev->start < a) {
    ev->start = a;
    ev->clipped |= HUB_CLIP_START;
  }
  if (ev->end > b) {
    ev->end = b;
    ev->clipped |= HUB_CLIP_END;
  }
  if (ev->end < ev->start) ev->end = ev->start;
}

/* A size split (--max-part-size) that needs one part writes the plain
 * name: the user asked for parts only where one file is too big. */
static char *part_path_of(const run *ru, int64_t count, const char *tag) {
  int plain = !tag[0] || (count == 1 && ru->o->split == TT_SPLIT_WINDOW && ru->o->max_part_size);
  return plain ? tt_strdup(ru->o->output) : tt_part_path(ru->o->output, tag);
}

static void window_tag(const run *ru, int64_t w, char *tag, size_t n) {
  int width = ru->tag_width < 3 ? 3 : ru->tag_width > 19 ? 19 : ru->tag_width;
  snprintf(tag, n, ".w%0*lld", width, (long long)w);
}

/* Names the next part; the sink sees it only when its first event comes,
 * so a part without events writes no file. */
static void set_part(run *ru, int64_t index, int64_t count, int64_t start, int64_t end,
                     int64_t pid, const char *tag) {
  free(ru->path);
  ru->path = part_path_of(ru, count, tag);
  ru->part = (tt_part){.index = index, .count = count, .start = start, .end = end, .pid = pid,
                       .path = ru->path};
  ru->begun = 0;
}

static int is_stdout(const char *path) { return strcmp(path, "-") == 0; }

static int ensure_begun(run *ru) {
  if (ru->begun) return 0;
  /* A streamed output on the terminal: no progress line in it. */
  if (is_stdout(ru->path) && !ru->ex->writes_at_end) tt_progress_stdout_begins();
  ru->out = tt_output_begin(ru->path);
  ru->state = ru->ex->begin_part(ru->r, ru->o, &ru->part, ru->out);
  if (!ru->state) {
    tt_output_abort(ru->out);
    ru->out = NULL;
    return -1;
  }
  ru->begun = 1;
  return 0;
}

/* Bytes of the regular files under a directory output (an OTF2 archive). */
static uint64_t dir_total;
static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (flag == FTW_F && S_ISREG(st->st_mode)) dir_total += (uint64_t)st->st_size;
  return 0;
}
static uint64_t dir_bytes(const char *dir) {
  dir_total = 0;
  nftw(dir, add_file, 16, FTW_PHYS);
  return dir_total;
}

static int end_part(run *ru) {
  /* A part with CPU samples and no event (a window between calls) is
   * written: the sink gives its samples when it ends. */
  if (!ru->begun) {
    int has = tt_part_samples_any(ru->r, ru->o, &ru->part);
    if (has < 0) return -1;
    if (!has || ensure_begun(ru) != 0) {
      if (!has) ru->parts_empty++;
      return has ? -1 : 0;
    }
  }
  /* db2summary's text goes out now: the progress line leaves first. */
  if (is_stdout(ru->path)) tt_progress_stdout_begins();
  int rc = ru->ex->end_part(ru->state, ru->r);
  ru->state = NULL;
  ru->begun = 0;
  if (rc != 0) {
    tt_output_abort(ru->out);
    ru->out = NULL;
    return -1;
  }
  /* Written in place (stdout, a device, a directory a sink replaces at
   * exit): what is at the path now is not what this run wrote. */
  int in_place = strcmp(tt_output_tmp_path(ru->out), tt_output_final_path(ru->out)) == 0;
  const char *staged = tt_output_staged_path(ru->out);
  char *measure = staged ? tt_strdup(staged) : NULL; /* what replaces the path at exit */
  rc = tt_output_commit_part(ru->out);
  ru->out = NULL;
  if (rc == 0) {
    ru->parts_written++;
    struct stat st;
    ru->part_bytes = 0;
    if (strcmp(ru->path, "-") != 0 && stat(ru->path, &st) == 0 &&
        (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
      if (in_place && !measure) {
        ru->bytes_unknown = 1;
      } else {
        ru->part_bytes = measure            ? dir_bytes(measure)
                         : S_ISDIR(st.st_mode) ? dir_bytes(ru->path)
                                             : (uint64_t)st.st_size;
        ru->bytes_written += ru->part_bytes;
        if (ru->part_sizes) ru->part_sizes[ru->part.index] = ru->part_bytes;
      }
      if (ru->part.count <= 16) tt_info("wrote %s", ru->path);
    } else {
      ru->bytes_unknown = 1;
    }
  }
  free(measure);
  return rc;
}

static int emit(run *ru, hub_record *ev) {
  if (ensure_begun(ru) != 0) return -1;
  clip(ev, ru->part.start, ru->part.end);
  /* A flow arrow's recorded end is drawn on its event, not one of its own:
   * counted as db2summary counts (the progress counts every row read). */
  ru->events += ev->kind != HUB_FLOW;
  if ((++ru->records & 0xFFF) == 0) tt_progress("rows", ru->records, ru->progress_total);
  return ru->ex->event(ru->state, ru->r, ev);
}

static void carry_push(run *ru, const hub_record *ev) {
  hub_held_record *c = tt_vec_add(&ru->carry);
  hub_record_hold(c, ev);
  c->ev.link_starts = ""; /* re-emitted clipped: no arrow starts there */
}

static int settle(run *ru, const hub_record *ev);

/* Opens the next window: re-emits, clipped, what the last one carried. */
static int carry_into(run *ru) {
  size_t kept = 0;
  int rc = 0;
  for (size_t i = 0; i < ru->carry.n; i++) {
    hub_held_record c = ru->carry.v[i];
    if (rc == 0 && c.ev.end > ru->part.start) {
      hub_record ev = c.ev;
      rc = settle(ru, &ev);
      if (rc == 0) rc = emit(ru, &ev);
      if (c.ev.end > ru->part.end) {
        ru->carry.v[kept++] = c;
        continue;
      }
    }
    hub_record_release(&c);
  }
  ru->carry.n = kept;
  return rc;
}

static void carry_free(run *ru) {
  for (size_t i = 0; i < ru->carry.n; i++) hub_record_release(&ru->carry.v[i]);
  tt_vec_free(&ru->carry);
}

static hub_filter base_filter(const tt_export_opts *o) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  f.categories = o->categories;
  f.ncategories = o->ncategories;
  f.exclude_categories = o->exclude_categories;
  f.nexclude = o->nexclude;
  f.names = o->names;
  f.nnames = o->nnames;
  f.gpu_only = o->gpu_only;
  f.min_duration = o->min_duration;
  tt_align_filter(&o->align, &f);
  return f;
}

static int has_event_filter(const tt_export_opts *o) {
  return o->ncategories || o->nexclude || o->nnames || o->gpu_only || o->min_duration;
}

/* Streams one reader into the current part; 0 ok, -1 error. */
static int stream_part(run *ru) {
  hub_record ev;
  int rc;
  while ((rc = hub_reader_next(ru->r, &ev)) > 0)
    if (emit(ru, &ev) != 0) return -1;
  return rc;
}

static void refuse_input_as_output(run *ru, const char *path);
static void warn_oversize(const run *ru, int64_t w, uint64_t bytes, int64_t at);

/* The current window's end, from the cut source (which may wait for its
 * planner); -1 when planning failed (said). */
static int learn_end(run *ru) {
  int64_t w = ru->part.index, end;
  uint64_t bound;
  if (ru->src->next(ru->src, w, &end, &bound) != 1) return -1;
  ru->part.end = end;
  ru->end_known = 1;
  if (ru->bounds) ru->bounds[w] = bound;
  if (ru->o->max_part_size && bound > ru->o->max_part_size)
    warn_oversize(ru, w, bound, ru->part.start);
  return 0;
}

/* Names window w, starting where the last one ended; its end is asked for
 * now, or, planned ahead, when an event needs it (settle). */
static int open_window(run *ru, int64_t w) {
  char tag[48];
  window_tag(ru, w, tag, sizeof tag);
  if (w && !ru->end_known && learn_end(ru) != 0) return -1;
  int64_t start = w ? ru->part.end : ru->src->start;
  set_part(ru, w, ru->src->count, start, INT64_MAX, HUB_NULL, tag);
  ru->end_known = 0;
  return ru->src->reach ? 0 : learn_end(ru);
}

/* The time the window's end must be at or after for `ev` to be written the
 * same whatever the end: after its start, not before its end (no clip, no
 * carry), after its arrows' other ends (the sinks count those before the
 * end). */
static int64_t end_needed(const hub_record *ev) {
  int64_t t = ev->start + 1;
  if (ev->end > t) t = ev->end;
  if (ev->link_ts != HUB_NULL) {
    if (ev->link_ts >= t) t = ev->link_ts + 1;
    if (ev->link_last >= t) t = ev->link_last + 1;
  }
  return t;
}

/* Before `ev` goes to a window whose end is not known yet (planned ahead):
 * waits until the planner has passed end_needed(ev), or has decided the
 * end (then known). -1 when planning failed (said). */
static int settle(run *ru, const hub_record *ev) {
  if (ru->end_known) return 0;
  int rc = ru->src->reach(ru->src, ru->part.index, end_needed(ev));
  ru->early += rc == 0;
  return rc < 0 ? -1 : rc == 1 ? learn_end(ru) : 0;
}

/* All windows in one pass over one time-ordered stream (the last window
 * ends after every event, so no event asks for a window past it). */
static int stream_windows(run *ru) {
  hub_record ev;
  int64_t w = 0, count = ru->src->count;
  if (open_window(ru, 0) != 0) return -1;
  int rc;
  while ((rc = hub_reader_next(ru->r, &ev)) > 0) {
    if (settle(ru, &ev) != 0) return -1;
    while (ev.start >= ru->part.end && w + 1 < count) {
      if (end_part(ru) != 0) return -1;
      w++;
      if (open_window(ru, w) != 0 || carry_into(ru) != 0 || settle(ru, &ev) != 0) return -1;
    }
    int64_t end = ev.end;
    if (emit(ru, &ev) != 0) return -1;
    if (end > ru->part.end && w + 1 < count) {
      hub_record whole = ev;
      whole.end = end;
      whole.clipped &= ~HUB_CLIP_END;
      carry_push(ru, &whole);
    }
  }
  if (rc < 0) return -1;
  /* Trailing windows (empty, or holding only carried events). */
  for (;;) {
    if ((!ru->end_known && learn_end(ru) != 0) || end_part(ru) != 0) return -1;
    if (++w >= count) break;
    if (open_window(ru, w) != 0 || carry_into(ru) != 0) return -1;
  }
  /* For the tests: the writer wrote behind the planner, not after it. */
  if (ru->src->reach && getenv("TT_SPLIT_TRACE"))
    fprintf(stderr, "split-write: %llu events written before their part's end was planned\n",
            (unsigned long long)ru->early);
  return ru->src->finish(ru->src);
}

static int digits(int64_t v) {
  int d = 1;
  while (v >= 10) {
    v /= 10;
    d++;
  }
  return d;
}

/* Refuses, before anything is written, an output or part path that is one
 * of the inputs (by inode: a symlink or another name of the input too). */
static void refuse_input_as_output(run *ru, const char *path) {
  if (!tt_cli_input_named_by(path, ru->o->inputs, ru->o->ninputs)) return;
  /* A planner still running stops before the program ends. */
  tt_cut_source_free(ru->src);
  ru->src = NULL;
  tt_cli_refuse_input_as_output(path, ru->o->inputs, ru->o->ninputs);
}

/* The window split's part count; dies when it exceeds --max-parts. */
static void check_part_count(run *ru, int64_t count, const char *what) {
  if (count > ru->o->max_parts)
    tt_die(2, "the split would write %lld parts (%s), more than --max-parts %lld: choose larger "
           "windows, fewer --windows, or raise --max-parts",
           (long long)count, what, (long long)ru->o->max_parts);
}

/* "3 parts (one per process)", "1 part (...)". */
static void say_part_count(int64_t count, const char *what) {
  tt_info("%lld part%s (%s)", (long long)count, count == 1 ? "" : "s", what);
}

/* A part the plan could not make small enough (it starts at `at`). */
static void warn_oversize(const run *ru, int64_t w, uint64_t bytes, int64_t at) {
  char sz[32], b[32];
  tt_warn("part %lld holds about %s, more than --max-part-size %s: the events at one instant "
          "(%lld ns), with those that cross it, cannot be cut apart",
          (long long)w, tt_size_text(bytes, b, sizeof b),
          tt_size_text(ru->o->max_part_size, sz, sizeof sz), (long long)at);
}

/* After part w is written: its planned bound must hold (it is an upper
 * bound, so more is a bug). A window but the last planned under half of
 * the size (balanced parts are about total/n, at least about half) is
 * said. `next` is the next window's bound (0: none). */
static void check_part_size(const run *ru, int64_t w, uint64_t planned, uint64_t real,
                            uint64_t next) {
  uint64_t max = ru->o->max_part_size;
  char sz[32], b[32];
  tt_size_text(max, sz, sizeof sz);
  /* For the tests: the plan's bound beside what was written. */
  if (getenv("TT_SPLIT_TRACE"))
    fprintf(stderr, "split: part %lld planned %llu written %llu\n", (long long)w,
            (unsigned long long)planned, (unsigned long long)real);
  if (real > max && planned <= max)
    tt_warn("part %lld holds %s, more than --max-part-size %s (planned at most %llu bytes): a "
            "bug, please report it", (long long)w, tt_size_text(real, b, sizeof b), sz,
            (unsigned long long)planned);
  else if (next && planned < max / 2 && next <= max)
    tt_warn("part %lld holds %s, less than half of --max-part-size %s: the instant after it "
            "does not fit in the same part", (long long)w, tt_size_text(real, b, sizeof b), sz);
}

static int list_categories(run *ru) {
  hub_category_count *cats = NULL;
  size_t n = 0;
  if (hub_reader_category_counts(ru->r, &cats, &n) != 0) return 1;
  tt_progress_stdout_begins();
  printf("%-32s %12s  %s\n", "category", "events", "kinds");
  for (size_t i = 0; i < n; i++)
    printf("%-32s %12lld  %s\n", cats[i].category[0] ? cats[i].category : "(none)",
           (long long)cats[i].count, cats[i].kinds);
  hub_category_counts_free(cats, n);
  return 0;
}

/* --- --split process ------------------------------------------------- */

/* The processes that have events, in --split process order (host, pid),
 * as the reader keys them: a process row alone makes no part, and two
 * hosts' pid 1234 are two parts. Keys own their host. Its inputs (the
 * files with a row for the process, in input order) are `files`, each
 * file once: a merged hub is one file holding several hubs, given to a
 * part's reader once. */
static tt_proc_key *process_keys(hub_reader *r, size_t *n_out, const char ***files_out,
                                 size_t *nfiles_out) {
  size_t np = hub_reader_nprocesses(r), ndbs = hub_reader_ndbs(r), nfiles = 0;
  const char **files = tt_calloc(ndbs ? ndbs : 1, sizeof *files);
  size_t *file_of = tt_calloc(ndbs ? ndbs : 1, sizeof *file_of);
  for (size_t d = 0; d < ndbs; d++) {
    const char *path = hub_reader_db_path(r, (int)d);
    size_t f = 0;
    while (f < nfiles && strcmp(files[f], path) != 0) f++;
    if (f == nfiles) files[nfiles++] = tt_strdup(path);
    file_of[d] = f;
  }
  hub_process_key *hk;
  size_t n = hub_reader_process_keys(r, &hk);
  tt_proc_key *keys = tt_calloc(n ? n : 1, sizeof *keys);
  for (size_t i = 0; i < n; i++)
    keys[i] = (tt_proc_key){.host = tt_strdup(hk[i].host), .pid = hk[i].pid,
                            .ambiguous = hk[i].ambiguous};
  free(hk);
  /* Each key's files, in input order (keys are sorted by (host, pid)). */
  for (size_t d = 0; d < ndbs; d++) {
    const char *file = files[file_of[d]];
    for (size_t i = 0; i < np; i++) {
      const hub_process_info *p = hub_reader_process(r, i);
      if (p->db != (int)d) continue;
      tt_proc_key probe = {.host = p->hostname ? p->hostname : "", .pid = p->pid};
      tt_proc_key *key = bsearch(&probe, keys, n, sizeof *keys, tt_proc_key_cmp);
      if (!key) continue;
      int have = 0;
      for (size_t j = 0; j < key->ninputs && !have; j++) have = key->inputs[j] == file;
      if (have) continue;
      tt_grow(key->inputs, key->ninputs + 1, key->cap_inputs);
      key->inputs[key->ninputs++] = file;
    }
  }
  free(file_of);
  *n_out = n;
  *files_out = files;
  *nfiles_out = nfiles;
  return keys;
}

static void process_keys_free(tt_proc_key *keys, size_t n, const char **paths, size_t npaths) {
  for (size_t i = 0; i < n; i++) {
    free((void *)keys[i].inputs);
    free((void *)keys[i].host);
  }
  free(keys);
  for (size_t d = 0; d < npaths; d++) free((void *)paths[d]);
  free((void *)paths);
}

/* The inputs of a part packing keys[first, first + n): in input order. */
static const char **part_inputs(const tt_proc_key *keys, size_t first, size_t n,
                                const char **paths, size_t npaths, size_t *count) {
  const char **v = tt_calloc(npaths ? npaths : 1, sizeof *v);
  size_t c = 0;
  for (size_t d = 0; d < npaths; d++) {
    int in = 0;
    for (size_t k = first; k < first + n && !in; k++)
      for (size_t j = 0; j < keys[k].ninputs && !in; j++) in = keys[k].inputs[j] == paths[d];
    if (in) v[c++] = paths[d];
  }
  *count = c;
  return v;
}

/* The longest host written whole in a part's name: a file name holds at
 * most 255 bytes (NAME_MAX), and a cluster's host names can be longer. */
#define HOST_IN_NAME_MAX 48

/* A host as a part's name writes it: as it is when it is short, made of
 * [A-Za-z0-9._-] only and not "nohost"; else its first characters (others
 * as '_'), '+' and a hash of the whole name ('+' is in no host written as
 * it is, so two hosts never share a name). No host known: "nohost". */
static void put_host(tt_buf *b, const char *host) {
  size_t n = strlen(host), keep = n < HOST_IN_NAME_MAX ? n : HOST_IN_NAME_MAX;
  if (n == 0) {
    tt_buf_puts(b, "nohost");
    return;
  }
  int changed = n > keep || strcmp(host, "nohost") == 0;
  for (size_t i = 0; i < keep; i++) {
    char c = host[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '-' || c == '_';
    tt_buf_putc(b, ok ? c : '_');
    changed |= !ok;
  }
  if (changed) tt_buf_printf(b, "+%016llx", (unsigned long long)tt_hash_str(host, n));
}

/* A part's tag: ".p1234", ".p1234-1301" (a pack of one host's processes,
 * its first and last), or ".p1234.w003" (a window of a process too big
 * alone); ".HOST.p1234..." when another host has one of its pids. A part
 * is named by its first process (host, pid), which no other part starts
 * with, so no two parts share a name. Malloc'ed. */
static char *process_tag(const tt_proc_key *keys, const tt_proc_part *pp) {
  tt_buf b = {0};
  const tt_proc_key *k = &keys[pp->first];
  int with_host = 0;
  for (size_t i = pp->first; i < pp->first + pp->n; i++) with_host |= keys[i].ambiguous;
  tt_buf_putc(&b, '.');
  if (with_host) {
    put_host(&b, k->host);
    tt_buf_putc(&b, '.');
  }
  tt_buf_printf(&b, "p%lld", (long long)k->pid);
  if (pp->n > 1) {
    tt_buf_printf(&b, "-%lld", (long long)keys[pp->first + pp->n - 1].pid);
  } else if (pp->window >= 0) {
    int width = digits(pp->nwindows - 1);
    tt_buf_printf(&b, ".w%0*lld", width < 3 ? 3 : width > 19 ? 19 : width, (long long)pp->window);
  }
  return b.data;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parts' tags, each part's at its index; dies before anything is
 * written if two were the same (they cannot be: see process_tag), as a
 * part written over another loses it. */
static char **process_tags(const tt_proc_key *keys, const tt_proc_plan *plan) {
  char **tags = tt_calloc(plan->nparts ? plan->nparts : 1, sizeof *tags);
  char **sorted = tt_calloc(plan->nparts ? plan->nparts : 1, sizeof *sorted);
  for (size_t i = 0; i < plan->nparts; i++) sorted[i] = tags[i] = process_tag(keys, &plan->parts[i]);
  qsort(sorted, plan->nparts, sizeof *sorted, cmp_str);
  for (size_t i = 1; i < plan->nparts; i++)
    if (strcmp(sorted[i - 1], sorted[i]) == 0)
      tt_die(2, "--split process: two parts would be named '%s'; nothing written", sorted[i]);
  free(sorted);
  return tags;
}

static void tags_free(char **tags, size_t n) {
  for (size_t i = 0; i < n; i++) free(tags[i]);
  free(tags);
}

static int cmp_pid(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* One pass per part, its process(es) pushed into SQL. */
static int run_processes(run *ru, hub_filter *f, int bounded, int64_t t0, int64_t t1) {
  const tt_export_opts *o = ru->o;
  size_t n = 0, npaths = 0;
  const char **paths = NULL;
  tt_proc_key *keys = process_keys(ru->r, &n, &paths, &npaths);
  tt_proc_plan plan = {0};
  char what[64] = "one per process";
  if (o->max_part_size) {
    if (tt_plan_processes(ru->ex, o, f, keys, n, bounded, t0, t1, &plan) != 0) {
      process_keys_free(keys, n, paths, npaths);
      return 1;
    }
    char sz[32];
    snprintf(what, sizeof what, "processes packed into parts of at most %s",
             tt_size_text(o->max_part_size, sz, sizeof sz));
  } else {
    plan.parts = tt_calloc(n ? n : 1, sizeof *plan.parts);
    for (size_t i = 0; i < n; i++) plan.parts[i] = (tt_proc_part){.first = i, .n = 1, .window = -1};
    plan.nparts = n;
  }
  int64_t count = (int64_t)plan.nparts;
  int rc = 0;
  if (o->count_parts) {
    tt_progress_stdout_begins();
    printf("%lld\n", (long long)count);
    goto done;
  }
  if (count > o->max_parts) {
    tt_proc_plan_free(&plan);
    process_keys_free(keys, n, paths, npaths);
    check_part_count(ru, count, what);
  }
  if (o->part >= count) {
    tt_proc_plan_free(&plan);
    process_keys_free(keys, n, paths, npaths);
    tt_die(2, "--part %lld: the split has %lld parts", (long long)o->part, (long long)count);
  }
  char **tags = process_tags(keys, &plan);
  for (int64_t i = 0; i < count; i++) {
    if (o->part >= 0 && i != o->part) continue;
    char *p = part_path_of(ru, count, tags[i]);
    refuse_input_as_output(ru, p);
    free(p);
  }
  if (o->part < 0) say_part_count(count, what);
  int64_t *pids = NULL;
  for (int64_t i = 0; i < count && rc == 0; i++) {
    if (o->part >= 0 && i != o->part) continue;
    const tt_proc_part *pp = &plan.parts[i];
    hub_reader_close(ru->r);
    hub_filter pf = *f;
    int64_t start = bounded ? t0 : INT64_MIN, end = bounded ? t1 : INT64_MAX;
    pf.pid = keys[pp->first].pid;
    pf.host = keys[pp->first].host; /* one process: its host's only */
    pf.start = bounded ? t0 : HUB_NULL;
    pf.end = bounded ? t1 : HUB_NULL;
    if (pp->window >= 0) {
      start = pf.start = pp->cuts[pp->window];
      end = pf.end = pp->cuts[pp->window + 1];
    }
    free(pids);
    pids = NULL;
    if (pp->n > 1) {
      pids = tt_calloc(pp->n, sizeof *pids);
      for (size_t k = 0; k < pp->n; k++) pids[k] = keys[pp->first + k].pid;
      qsort(pids, pp->n, sizeof *pids, cmp_pid);
      pf.pids = pids;
      pf.npids = pp->n;
      pf.pid = HUB_NULL; /* a pack holds one host's processes: pf.host stays */
    }
    if (o->max_part_size) {
      /* Only the part's databases, as its planning pass read them. */
      size_t ni;
      const char **in = part_inputs(keys, pp->first, pp->n, paths, npaths, &ni);
      ru->r = hub_reader_open(in, ni, &pf);
      free((void *)in);
    } else {
      ru->r = hub_reader_open(o->inputs, o->ninputs, &pf);
    }
    if (!ru->r) {
      rc = 1;
      break;
    }
    set_part(ru, i, count, start, end, keys[pp->first].pid, tags[i]);
    ru->part.pids = pids;
    ru->part.npids = pids ? pp->n : 0;
    ru->part.host = keys[pp->first].host;
    if (stream_part(ru) != 0 || end_part(ru) != 0) rc = 1;
    if (rc == 0 && o->max_part_size) check_part_size(ru, i, pp->bytes, ru->part_bytes, 0);
  }
  /* The reader keeps the filter's pid array: closed before it is freed. */
  hub_reader_close(ru->r);
  ru->r = NULL;
  free(pids);
  tags_free(tags, (size_t)count);
done:
  tt_proc_plan_free(&plan);
  process_keys_free(keys, n, paths, npaths);
  return rc;
}

/* Reopens the reader on the time range [t0, t1) only (pushed into SQL). */
static int reopen_in_range(run *ru, hub_filter *f, int64_t t0, int64_t t1) {
  hub_reader_close(ru->r);
  f->start = t0;
  f->end = t1;
  ru->r = hub_reader_open(ru->o->inputs, ru->o->ninputs, f);
  return ru->r ? 0 : -1;
}

/* Reopens the reader on [t0, t1) as reopen_in_range, replaying the size
 * split's spool when there is one (the same range: the planners' and the
 * writer's reads are the fewest pass's). */
static int reopen_replay(run *ru, hub_filter *f, int64_t t0, int64_t t1) {
  f->replay = hub_spool_usable(ru->spool) ? ru->spool : NULL;
  int rc = reopen_in_range(ru, f, t0, t1);
  f->replay = NULL;
  return rc;
}

/* Whether the size split keeps its stream for the passes after the
 * fewest: not for the count alone; not for --part K, whose jobs run many
 * at once (scripts/convert-parallel.sh) and would each keep a copy of the
 * whole stream in TMPDIR to save one read of three; not under TT_SPOOL=0
 * (tests compare the two ways). */
static int want_spool(const tt_export_opts *o) {
  const char *env = getenv("TT_SPOOL");
  return !o->count_parts && o->part < 0 && !(env && strcmp(env, "0") == 0);
}

/* The size split's cut source: the fewest plan first (the count, before
 * anything is written: --count-parts prints it, more than --max-parts is
 * refused), then, for more than one part, the balanced cuts: planned
 * whole, or on a second thread while the writer writes. Reads the stream
 * the writer reads (the whole hub, or the time range), so every run, with
 * --part K or not, cuts at the same times. `spec` must outlive the source. */
static tt_cut_source *size_cuts(run *ru, hub_filter *f, int bounded, int64_t t0, int64_t t1,
                                tt_plan_spec *spec, tt_part *proto, char *what, size_t nwhat) {
  const tt_export_opts *o = ru->o;
  *proto = (tt_part){.pid = HUB_NULL, .path = o->output ? o->output : "-"};
  *spec = (tt_plan_spec){.ex = ru->ex, .o = o, .proto = proto, .t0 = t0, .t1 = t1,
                         .max = o->max_part_size, .progress_total = ru->progress_total};
  char sz[32];
  snprintf(what, nwhat, "parts of at most %s", tt_size_text(o->max_part_size, sz, sizeof sz));
  if (bounded && reopen_in_range(ru, f, t0, t1) != 0) return NULL;
  /* The fewest pass keeps what it reads; the balanced pass and the writer
   * replay it (else they read again: the same records). On two CPUs a
   * thread of its own reads the inputs into the spool, and the fewest
   * pass replays it just behind: SQLite's reading (most of a pass) beside
   * the planner's formatting. */
  if (want_spool(o)) {
    ru->spool = hub_spool_new();
    if (hub_reader_spool_into(ru->r, ru->spool) == 0 && ru->plan_ahead &&
        hub_spool_fill(ru->spool, ru->r) == 0) {
      ru->r = NULL; /* the spool's thread reads it */
      if (getenv("TT_SPLIT_TRACE")) fprintf(stderr, "split-spool: filled on a thread of its own\n");
      if (reopen_replay(ru, f, bounded ? t0 : HUB_NULL, bounded ? t1 : HUB_NULL) != 0) return NULL;
    }
  }
  tt_cut_plan fewest;
  /* Each pass says what it does (the first two write nothing). */
  tt_progress_phase("planning");
  if (tt_plan_fewest(ru->r, spec, &fewest) != 0) return NULL;
  int64_t count = (int64_t)fewest.nparts;
  if (o->count_parts || !tt_plan_balances(&fewest, o->max_part_size))
    return tt_cuts_planned(&fewest);
  if (count > o->max_parts) {
    tt_cut_plan_free(&fewest);
    check_part_count(ru, count, what); /* dies */
  }
  if (reopen_replay(ru, f, bounded ? t0 : HUB_NULL, bounded ? t1 : HUB_NULL) != 0) {
    tt_cut_plan_free(&fewest);
    return NULL;
  }
  /* The planner takes the reader; the writer opens its own. */
  int ahead = ru->plan_ahead && tt_plan_balances_ahead(&fewest, o->max_part_size);
  if (!ahead) tt_progress_phase("balancing");
  tt_cut_source *src = tt_cuts_balanced(ru->r, spec, &fewest, ahead);
  ru->r = NULL;
  return src;
}

/* The window split: the cut source gives the count before anything is
 * written, then one pass writes every window (or --part K's). */
static int run_windows(run *ru, hub_filter *f, int bounded, int64_t t0, int64_t t1) {
  const tt_export_opts *o = ru->o;
  char what[96];
  tt_plan_spec spec;
  tt_part proto;
  if (o->max_part_size) {
    ru->src = size_cuts(ru, f, bounded, t0, t1, &spec, &proto, what, sizeof what);
    if (!ru->src) return 1;
  } else {
    int64_t span = t1 - t0, count, size;
    if (o->windows) {
      count = o->windows;
      size = (span + count - 1) / count;
    } else {
      size = o->window_size;
      count = (span + size - 1) / size;
    }
    if (size < 1) size = 1;
    if (count < 1) count = 1;
    ru->src = tt_cuts_equal(t0, size, count);
    snprintf(what, sizeof what, "windows of %lld ns", (long long)size);
  }
  int64_t count = ru->src->count;
  ru->tag_width = digits(count - 1) < 3 ? 3 : digits(count - 1);
  if (o->count_parts) {
    tt_progress_stdout_begins();
    printf("%lld\n", (long long)count);
    return 0;
  }
  check_part_count(ru, count, what);
  if (o->part >= count)
    tt_die(2, "--part %lld: the split has %lld windows (0..%lld)", (long long)o->part,
           (long long)count, (long long)count - 1);
  for (int64_t w = 0; w < count; w++) {
    if (o->part >= 0 && w != o->part) continue;
    char tag[48];
    window_tag(ru, w, tag, sizeof tag);
    char *p = part_path_of(ru, count, tag);
    refuse_input_as_output(ru, p);
    free(p);
  }
  if (o->part < 0) say_part_count(count, what);
  if (o->max_part_size) tt_progress_phase("writing");
  if (o->max_part_size) {
    ru->bounds = tt_calloc((size_t)count, sizeof *ru->bounds);
    ru->part_sizes = tt_calloc((size_t)count, sizeof *ru->part_sizes);
  }
  if (o->part >= 0) {
    int64_t start, end;
    uint64_t bound;
    if (tt_cut_range(ru->src, o->part, &start, &end, &bound) != 1) return 1;
    if (reopen_in_range(ru, f, start, end) != 0) return 1;
    char tag[48];
    window_tag(ru, o->part, tag, sizeof tag);
    set_part(ru, o->part, count, start, end, HUB_NULL, tag);
    if (o->max_part_size && bound > o->max_part_size) warn_oversize(ru, o->part, bound, start);
    if (stream_part(ru) != 0 || end_part(ru) != 0) return 1;
    if (o->max_part_size) check_part_size(ru, o->part, bound, ru->part_bytes, 0);
    return 0;
  }
  /* Every window of the whole span: the windows cover [min start, max
   * end + 1), so a time filter would drop no row; the reader that gave
   * the span streams them unfiltered, as one file would (no reopen, no
   * per-row range test, a row with a bad time said as without --split).
   * A size split's planning read it: the writer opens its own. */
  if (bounded || o->max_part_size) {
    int64_t last_end, unused;
    uint64_t bound;
    /* The range's end; for a size split it is t1 (its last cut) without
     * waiting for a planner. */
    if (o->max_part_size) last_end = t1;
    else if (tt_cut_range(ru->src, count - 1, &unused, &last_end, &bound) != 1) return 1;
    if (reopen_replay(ru, f, bounded ? t0 : HUB_NULL, bounded ? last_end : HUB_NULL) != 0)
      return 1;
  }
  if (stream_windows(ru) != 0) return 1;
  if (o->max_part_size)
    for (int64_t w = 0; w < count; w++)
      check_part_size(ru, w, ru->bounds[w], ru->part_sizes[w], w + 1 < count ? ru->bounds[w + 1] : 0);
  return 0;
}

/* The default time base: one for the whole run (every part, every input,
 * whatever the filters), so it is the same in every part of a split. */
static int resolve_time_base(tt_export_opts *o) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  tt_align_filter(&o->align, &f);
  hub_reader *r = hub_reader_open(o->inputs, o->ninputs, &f);
  if (!r) return 1;
  int64_t lo = 0, hi = 0;
  if (!hub_reader_time_span(r, &lo, &hi)) lo = 0;
  hub_reader_close(r);
  int64_t us = lo / 1000 - (lo % 1000 < 0); /* floor, for a start before 1970 */
  o->time_base = us * 1000;
  return 0;
}

static int run_all(run *ru) {
  const tt_export_opts *o = ru->o;
  hub_filter f = base_filter(o);
  f.launch_times = ru->ex->launch_times;
  ru->r = hub_reader_open(o->inputs, o->ninputs, &f);
  if (!ru->r) return 1;
  if (o->list_categories) return list_categories(ru);
  if (o->output) refuse_input_as_output(ru, o->output);
  int bounded = o->start_text || o->end_text;
  if (tt_progress_enabled()) {
    ru->progress_total = (uint64_t)hub_reader_row_count(ru->r);
    /* Every row is read unless filters or a range leave some out: then
     * the count is an upper bound, said "~". */
    tt_progress_estimate(has_event_filter(o) || bounded || o->part >= 0);
  }
  int64_t t0 = 0, t1 = 1;
  /* The time span (a scan of every table) only when a range or the
   * window split needs it. */
  if (bounded || o->split == TT_SPLIT_WINDOW) {
    int64_t lo = 0, hi = 0;
    int any = hub_reader_time_span(ru->r, &lo, &hi);
    hi += 1; /* ranges are half-open: keep events that end at the last ns */
    t0 = o->start_text ? resolve_time("--start", o->start_text, lo, hi) : lo;
    t1 = o->end_text ? resolve_time("--end", o->end_text, lo, hi) : hi;
    if (t1 <= t0)
      tt_die(2, "--start/--end: empty time range [%lld, %lld)", (long long)t0, (long long)t1);
    ru->range[0] = t0, ru->range[1] = t1, ru->span[0] = lo, ru->span[1] = hi - 1;
    ru->span_any = any;
    if (!any) t1 = t0 + 1;
  }

  if (o->split == TT_SPLIT_NONE) {
    if (bounded && reopen_in_range(ru, &f, t0, t1) != 0) return 1;
    set_part(ru, 0, 1, bounded ? t0 : INT64_MIN, bounded ? t1 : INT64_MAX, HUB_NULL, "");
    if (stream_part(ru) != 0) return 1;
    /* An empty trace is still a trace, unless filters or a time range
     * matched nothing (an error, said by the caller, nothing written). */
    if (!ru->begun && !has_event_filter(o) && !bounded && ensure_begun(ru) != 0) return 1;
    return end_part(ru) ? 1 : 0;
  }

  if (o->split == TT_SPLIT_WINDOW) return run_windows(ru, &f, bounded, t0, t1);

  return run_processes(ru, &f, bounded, t0, t1);
}

int tt_export_main(int argc, char **argv, const tt_exporter *ex) {
  tt_set_progname(argv[0]);
  tt_export_opts o;
  parse_args(argc, argv, ex, &o);
  /* --align is planned by the first reader opened, from its own look at
   * each input (the plan opens no input for its info). */
  if (!o.list_categories) tt_align_defer(&o.align);
  run ru = {.ex = ex, .o = &o, .tag_width = 3};
  /* A whole size split on two cores: its balanced cuts planned on a
   * second thread. SQLite's threading is set here, before any connection
   * opens (the time base below opens the inputs), and checked before a
   * second thread may start. */
  ru.plan_ahead = o.max_part_size && o.split == TT_SPLIT_WINDOW && o.part < 0 && !o.count_parts &&
                  !o.list_categories && o.threads >= 2;
  tt_sqlite_threads(ru.plan_ahead ? 2 : 1);
  tt_sqlite_setup();
  if (ru.plan_ahead && !tt_sqlite_threaded()) {
    tt_info("SQLite here is not built for threads: the size split runs on one thread");
    ru.plan_ahead = 0;
  }
  /* --count-parts too: a size split's cuts depend on the bytes of each time. */
  if (ex->relative_times && !o.time_base_given && !o.list_categories) {
    /* Parts share one base, found before the first is written; one whole
     * file takes its first event's (the stream is in start order). */
    if (o.split == TT_SPLIT_NONE && o.part < 0 && !o.count_parts)
      o.time_base = TT_TIME_BASE_FIRST_EVENT;
    else if (resolve_time_base(&o) != 0)
      return 1;
  }
  int rc = run_all(&ru);
  if (rc == 0 && !o.list_categories && !o.count_parts) {
    tt_progress_finish("rows", ru.records);
    int bounded = o.start_text || o.end_text;
    if (ru.events == 0 && tt_part_samples_written() == 0 && has_event_filter(&o) && !bounded &&
        o.part < 0) {
      /* Category names differ by importer: an empty result is almost
       * always a misspelt filter, not what the user wanted. */
      tt_error("no event matched the --category/--exclude-category/--name%s%s filters; "
               "--list-categories shows the categories in the inputs",
               o.gpu_only ? "/--gpu" : "", o.min_duration ? "/--min-duration" : "");
      rc = 1;
    } else if (ru.events == 0 && bounded && o.part < 0) {
      /* The same for a time range: nothing in it is a mistaken range. */
      if (ru.span_any)
        tt_error("no event%s in the time range [%lld, %lld) ns: the inputs span [%lld, %lld] ns",
                 has_event_filter(&o) ? " matched the filters" : "", (long long)ru.range[0],
                 (long long)ru.range[1], (long long)ru.span[0], (long long)ru.span[1]);
      else
        tt_error("no event in the time range [%lld, %lld) ns: the inputs hold no event",
                 (long long)ru.range[0], (long long)ru.range[1]);
      rc = 1;
    } else {
      if (ru.parts_empty)
        tt_info("%lld empty part%s: no file written for %s", (long long)ru.parts_empty,
                ru.parts_empty == 1 ? "" : "s", ru.parts_empty == 1 ? "it" : "them");
      if (ru.bytes_unknown)
        tt_info("wrote %llu events in %lld part%s", (unsigned long long)ru.events,
                (long long)ru.parts_written, ru.parts_written == 1 ? "" : "s");
      else
        tt_info("wrote %llu events in %lld part%s, %llu bytes", (unsigned long long)ru.events,
                (long long)ru.parts_written, ru.parts_written == 1 ? "" : "s",
                (unsigned long long)ru.bytes_written);
      if (o.split == TT_SPLIT_NONE && ex->auto_max_part_size && !ru.bytes_unknown &&
          ru.bytes_written > auto_limit(ex)) {
        char sz[32], limit[32];
        tt_warn("%s holds %s, more than %s opens (%s): --max-part-size auto splits it into "
                "parts that open", o.output, tt_size_text(ru.bytes_written, sz, sizeof sz),
                ex->viewer_limit, tt_size_text(auto_limit(ex), limit, sizeof limit));
      }
    }
  }
  /* The planner (still running if the writer failed) ends first. */
  tt_cut_source_free(ru.src);
  ru.src = NULL;
  /* A failed split removes the parts it finished (see tt_output_commit_part). */
  if (rc == 0) tt_output_keep_parts();
  tt_progress_done();
  if (rc != 0 && ru.state) {
    ex->end_part(ru.state, ru.r);
    ru.state = NULL;
  }
  if (ru.out) tt_output_abort(ru.out);
  if (rc != 0) tt_output_abort_all();
  carry_free(&ru);
  free(ru.part_sizes);
  free(ru.bounds);
  hub_reader_close(ru.r);
  hub_spool_free(ru.spool); /* after every reader replaying it */
  free(ru.path);
  free(o.categories);
  free(o.exclude_categories);
  free(o.names);
  tt_align_free(&o.align);
  return rc;
}
