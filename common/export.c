#include "export.h"

#include <ftw.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gzip_file.h"
#include "input_check.h"
#include "progress.h"
#include "util.h"

/* --- command line ----------------------------------------------------- */

static void usage(FILE *f, const tt_exporter *ex) {
  fprintf(f,
          "Usage: %s [options] DB... -o OUTPUT%s\n"
          "%s\n\n"
          "  DB...                    rocpd hub databases, read as one time-ordered stream\n"
          "  -o, --output FILE        output file, replaced if it exists%s%s\n"
          "      --split MODE         process: one output per process (FILE.pPID%s)\n"
          "                           window: consecutive time windows (FILE.wNNN%s)\n"
          "      --windows N          with --split window: N windows of equal length\n"
          "      --window-size DUR    with --split window: windows of DUR, with its unit\n"
          "                           (ns, us, ms, s: 250ms, 1.5s)\n"
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
          "%s"
          "      --max-parts N        refuse a split into more than N parts (default 10000)\n"
          "      --count-parts        print the number of parts the split makes, write nothing\n"
          "      --list-categories    print each category in the inputs with its event count\n"
          "  -q, --quiet              no messages except errors (wins over --progress)\n"
          "      --progress           show progress even when stderr is not a terminal\n"
          "  -h, --help               show this help\n"
          "  -V, --version            show the version\n",
          tt_progname(), ex->extension, ex->description,
          ex->stdout_ok ? " ('-' for stdout)" : "",
          ex->no_gzip ? ""
                      : "; a name\n"
                        "                           ending in .gz is written gzip-compressed",
          ex->extension, ex->extension,
          ex->no_event_args ? "" : "      --no-args            leave event arguments out\n");
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

static void push(const char ***list, size_t *n, const char *s) {
  *list = tt_realloc((void *)*list, (*n + 1) * sizeof **list);
  (*list)[(*n)++] = s;
}

static int64_t parse_count(const char *opt, const char *s) {
  char *end;
  long long v = strtoll(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0) tt_die(2, "%s: not a count: '%s'", opt, s);
  return v;
}

static void parse_args(int argc, char **argv, const tt_exporter *ex, tt_export_opts *o) {
  enum { O_SPLIT = 256, O_WINDOWS, O_WSIZE, O_PART, O_START, O_END, O_CAT, O_XCAT, O_NAME,
         O_NOARGS, O_PROGRESS, O_MAXPARTS, O_COUNTPARTS, O_LISTCAT, O_GPU };
  static const struct option longopts[] = {
      {"output", required_argument, NULL, 'o'},
      {"split", required_argument, NULL, O_SPLIT},
      {"windows", required_argument, NULL, O_WINDOWS},
      {"window-size", required_argument, NULL, O_WSIZE},
      {"part", required_argument, NULL, O_PART},
      {"start", required_argument, NULL, O_START},
      {"end", required_argument, NULL, O_END},
      {"category", required_argument, NULL, O_CAT},
      {"exclude-category", required_argument, NULL, O_XCAT},
      {"name", required_argument, NULL, O_NAME},
      {"gpu", no_argument, NULL, O_GPU},
      {"no-args", no_argument, NULL, O_NOARGS},
      {"max-parts", required_argument, NULL, O_MAXPARTS},
      {"count-parts", no_argument, NULL, O_COUNTPARTS},
      {"list-categories", no_argument, NULL, O_LISTCAT},
      {"quiet", no_argument, NULL, 'q'},
      {"progress", no_argument, NULL, O_PROGRESS},
      {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},
      {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->part = -1;
  o->max_parts = 10000;
  int quiet = 0;
  int c;
  while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': o->output = optarg; break;
    case O_SPLIT:
      if (strcmp(optarg, "process") == 0) o->split = TT_SPLIT_PROCESS;
      else if (strcmp(optarg, "window") == 0) o->split = TT_SPLIT_WINDOW;
      else tt_die(2, "--split: expected 'process' or 'window', got '%s'", optarg);
      break;
    case O_WINDOWS:
      o->windows = parse_count("--windows", optarg);
      if (o->windows < 1) tt_die(2, "--windows: must be at least 1");
      break;
    case O_WSIZE: {
      /* A bare number once meant ns and split a 43 s trace into 4 million
       * files: the unit is required. */
      size_t n = strlen(optarg);
      if (n == 0 || (optarg[n - 1] >= '0' && optarg[n - 1] <= '9') || optarg[n - 1] == '.')
        tt_die(2, "--window-size: give a unit (ns, us, ms or s), e.g. 250ms: '%s'", optarg);
      if (tt_parse_duration(optarg, &o->window_size) != 0 || o->window_size <= 0)
        tt_die(2, "--window-size: not a positive duration: '%s' (e.g. 250ms, 1s)", optarg);
      break;
    }
    case O_PART: o->part = parse_count("--part", optarg); break;
    case O_START: o->start_text = optarg; break;
    case O_END: o->end_text = optarg; break;
    case O_CAT: push(&o->categories, &o->ncategories, optarg); break;
    case O_XCAT: push(&o->exclude_categories, &o->nexclude, optarg); break;
    case O_NAME: push(&o->names, &o->nnames, optarg); break;
    case O_GPU: o->gpu_only = 1; break;
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
    case 'q': quiet = 1; break;
    case O_PROGRESS: o->progress_mode = 1; break;
    case 'h': usage(stdout, ex); exit(0);
    case 'V': printf("%s (tracetools) %s\n", tt_progname(), TT_VERSION); exit(0);
    default: usage(stderr, ex); exit(2);
    }
  }
  if (optind >= argc) {
    tt_error("missing input database");
    usage(stderr, ex);
    exit(2);
  }
  if (quiet) o->progress_mode = -1; /* -q wins over --progress */
  tt_progress_init(o->progress_mode);
  o->inputs = (const char **)argv + optind;
  o->ninputs = (size_t)(argc - optind);
  for (size_t i = 0; i < o->ninputs; i++)
    if (tt_input_check(o->inputs[i]) != 0) exit(1);
  if (o->list_categories || o->count_parts) {
    if (o->list_categories && o->count_parts) tt_die(2, "give --list-categories or --count-parts, not both");
  } else if (!o->output) {
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
  if (o->split == TT_SPLIT_WINDOW && !o->windows && !o->window_size)
    tt_die(2, "--split window needs --windows N or --window-size DURATION");
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

typedef struct carried {
  hub_record ev;
  char *name, *category, *kernel_name;
} carried;

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
  uint64_t events, progress_total;
  int64_t parts_written, parts_empty;
  uint64_t bytes_written;
  int bytes_unknown;       /* a part went to stdout or a device: not counted */
  int64_t range[2], span[2]; /* --start/--end resolved; the inputs' time span */
  int span_any;              /* the inputs hold an event */
  carried *carry;
  size_t ncarry, cap_carry;
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

static char *part_path_of(const run *ru, int64_t count, const char *tag) {
  return count > 1 || tag[0] ? tt_part_path(ru->o->output, tag) : tt_strdup(ru->o->output);
}

static void window_tag(const run *ru, int64_t w, char *tag, size_t n) {
  snprintf(tag, n, ".w%0*lld", ru->tag_width, (long long)w);
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

static int ensure_begun(run *ru) {
  if (ru->begun) return 0;
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
  if (!ru->begun) {
    ru->parts_empty++;
    return 0;
  }
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
  rc = tt_output_commit_part(ru->out);
  ru->out = NULL;
  if (rc == 0) {
    ru->parts_written++;
    struct stat st;
    if (strcmp(ru->path, "-") != 0 && stat(ru->path, &st) == 0 &&
        (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
      if (in_place) ru->bytes_unknown = 1;
      else ru->bytes_written += S_ISDIR(st.st_mode) ? dir_bytes(ru->path) : (uint64_t)st.st_size;
      if (ru->part.count <= 16) tt_info("wrote %s", ru->path);
    } else {
      ru->bytes_unknown = 1;
    }
  }
  return rc;
}

static int emit(run *ru, hub_record *ev) {
  if (ensure_begun(ru) != 0) return -1;
  clip(ev, ru->part.start, ru->part.end);
  ru->events++;
  if ((ru->events & 0xFFF) == 0) tt_progress("events", ru->events, ru->progress_total);
  return ru->ex->event(ru->state, ru->r, ev);
}

static void carry_push(run *ru, const hub_record *ev) {
  if (ru->ncarry == ru->cap_carry) {
    ru->cap_carry = ru->cap_carry ? 2 * ru->cap_carry : 16;
    ru->carry = tt_realloc(ru->carry, ru->cap_carry * sizeof *ru->carry);
  }
  carried *c = &ru->carry[ru->ncarry++];
  c->ev = *ev;
  c->name = tt_strdup(ev->name);
  c->category = tt_strdup(ev->category);
  c->kernel_name = tt_strdup(ev->kernel_name);
  c->ev.name = c->name;
  c->ev.category = c->category;
  c->ev.kernel_name = c->kernel_name;
  c->ev.link_starts = ""; /* re-emitted clipped: no arrow starts there */
}

/* Opens the next window: re-emits, clipped, what the last one carried. */
static int carry_into(run *ru) {
  size_t kept = 0;
  int rc = 0;
  for (size_t i = 0; i < ru->ncarry; i++) {
    carried c = ru->carry[i];
    if (rc == 0 && c.ev.end > ru->part.start) {
      hub_record ev = c.ev;
      rc = emit(ru, &ev);
      if (c.ev.end > ru->part.end) {
        ru->carry[kept++] = c;
        continue;
      }
    }
    free(c.name);
    free(c.category);
    free(c.kernel_name);
  }
  ru->ncarry = kept;
  return rc;
}

static void carry_free(run *ru) {
  for (size_t i = 0; i < ru->ncarry; i++) {
    free(ru->carry[i].name);
    free(ru->carry[i].category);
    free(ru->carry[i].kernel_name);
  }
  free(ru->carry);
  ru->carry = NULL;
  ru->ncarry = ru->cap_carry = 0;
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
  return f;
}

static int has_event_filter(const tt_export_opts *o) {
  return o->ncategories || o->nexclude || o->nnames || o->gpu_only;
}

/* Streams one reader into the current part; 0 ok, -1 error. */
static int stream_part(run *ru) {
  hub_record ev;
  int rc;
  while ((rc = hub_reader_next(ru->r, &ev)) > 0)
    if (emit(ru, &ev) != 0) return -1;
  return rc;
}

/* All windows in one pass over one time-ordered stream. */
static int stream_windows(run *ru, int64_t t0, int64_t size, int64_t count) {
  hub_record ev;
  int64_t w = 0;
  char tag[48];
  window_tag(ru, 0, tag, sizeof tag);
  set_part(ru, 0, count, t0, t0 + size, HUB_NULL, tag);
  int rc;
  while ((rc = hub_reader_next(ru->r, &ev)) > 0) {
    while (ev.start >= ru->part.end && w + 1 < count) {
      if (end_part(ru) != 0) return -1;
      w++;
      window_tag(ru, w, tag, sizeof tag);
      set_part(ru, w, count, t0 + w * size, t0 + (w + 1) * size, HUB_NULL, tag);
      if (carry_into(ru) != 0) return -1;
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
    if (end_part(ru) != 0) return -1;
    if (++w >= count) break;
    window_tag(ru, w, tag, sizeof tag);
    set_part(ru, w, count, t0 + w * size, t0 + (w + 1) * size, HUB_NULL, tag);
    if (carry_into(ru) != 0) return -1;
  }
  return 0;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
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
static void refuse_input_as_output(const run *ru, const char *path) {
  struct stat out;
  if (strcmp(path, "-") == 0 || stat(path, &out) != 0) return;
  for (size_t i = 0; i < ru->o->ninputs; i++) {
    struct stat in;
    if (stat(ru->o->inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      tt_die(2, "%s: output would overwrite the input %s", path, ru->o->inputs[i]);
  }
}

/* The window split's part count; dies when it exceeds --max-parts. */
static void check_part_count(const run *ru, int64_t count, const char *what) {
  if (count > ru->o->max_parts)
    tt_die(2, "the split would write %lld parts (%s), more than --max-parts %lld: choose larger "
           "windows, fewer --windows, or raise --max-parts",
           (long long)count, what, (long long)ru->o->max_parts);
}

static int list_categories(run *ru) {
  hub_category_count *cats = NULL;
  size_t n = 0;
  if (hub_reader_category_counts(ru->r, &cats, &n) != 0) return 1;
  printf("%-32s %12s  %s\n", "category", "events", "kinds");
  for (size_t i = 0; i < n; i++)
    printf("%-32s %12lld  %s\n", cats[i].category[0] ? cats[i].category : "(none)",
           (long long)cats[i].count, cats[i].kinds);
  hub_category_counts_free(cats, n);
  return 0;
}

static int run_all(run *ru) {
  const tt_export_opts *o = ru->o;
  hub_filter f = base_filter(o);
  ru->r = hub_reader_open(o->inputs, o->ninputs, &f);
  if (!ru->r) return 1;
  if (o->list_categories) return list_categories(ru);
  if (o->output) refuse_input_as_output(ru, o->output);
  if (tt_progress_enabled()) ru->progress_total = (uint64_t)hub_reader_row_count(ru->r);
  int bounded = o->start_text || o->end_text;
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
    if (bounded) {
      hub_reader_close(ru->r);
      f.start = t0;
      f.end = t1;
      ru->r = hub_reader_open(o->inputs, o->ninputs, &f);
      if (!ru->r) return 1;
    }
    set_part(ru, 0, 1, bounded ? t0 : INT64_MIN, bounded ? t1 : INT64_MAX, HUB_NULL, "");
    if (stream_part(ru) != 0) return 1;
    /* An empty trace is still a trace, unless filters or a time range
     * matched nothing (an error, said by the caller, nothing written). */
    if (!ru->begun && !has_event_filter(o) && !bounded && ensure_begun(ru) != 0) return 1;
    return end_part(ru) ? 1 : 0;
  }

  if (o->split == TT_SPLIT_WINDOW) {
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
    ru->tag_width = digits(count - 1) < 3 ? 3 : digits(count - 1);
    if (o->count_parts) {
      printf("%lld\n", (long long)count);
      return 0;
    }
    char what[64];
    snprintf(what, sizeof what, "windows of %lld ns", (long long)size);
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
    if (o->part < 0) tt_info("%lld parts (windows of %lld ns)", (long long)count, (long long)size);
    /* Every window of the whole span: the windows cover [min start, max
     * end + 1), so a time filter would drop no row; the reader that gave
     * the span streams them unfiltered, as one file would (no reopen, no
     * per-row range test, a row with a bad time said as without --split). */
    if (o->part < 0 && !bounded) return stream_windows(ru, t0, size, count) ? 1 : 0;
    hub_reader_close(ru->r);
    if (o->part >= 0) {
      f.start = t0 + o->part * size;
      f.end = f.start + size;
    } else {
      f.start = t0;
      f.end = t0 + count * size;
    }
    ru->r = hub_reader_open(o->inputs, o->ninputs, &f);
    if (!ru->r) return 1;
    if (o->part >= 0) {
      char tag[48];
      window_tag(ru, o->part, tag, sizeof tag);
      set_part(ru, o->part, count, f.start, f.end, HUB_NULL, tag);
      if (stream_part(ru) != 0) return 1;
      return end_part(ru) ? 1 : 0;
    }
    return stream_windows(ru, t0, size, count) ? 1 : 0;
  }

  /* --split process: one pass per process, the pid pushed into SQL. */
  size_t np = hub_reader_nprocesses(ru->r), n = 0;
  int64_t *pids = tt_calloc(np ? np : 1, sizeof *pids);
  for (size_t i = 0; i < np; i++) pids[i] = hub_reader_process(ru->r, i)->pid;
  qsort(pids, np, sizeof *pids, cmp_i64);
  /* Distinct pids that have events: a process row alone makes no part. */
  for (size_t i = 0; i < np; i++)
    if ((n == 0 || pids[n - 1] != pids[i]) && hub_reader_pid_has_events(ru->r, pids[i]))
      pids[n++] = pids[i];
  if (o->count_parts) {
    printf("%zu\n", n);
    free(pids);
    return 0;
  }
  if ((int64_t)n > o->max_parts) {
    free(pids);
    check_part_count(ru, (int64_t)n, "one per process");
  }
  if (o->part >= (int64_t)n) {
    free(pids);
    tt_die(2, "--part %lld: the split has %zu processes", (long long)o->part, n);
  }
  for (size_t i = 0; i < n; i++) {
    if (o->part >= 0 && (int64_t)i != o->part) continue;
    char tag[40];
    snprintf(tag, sizeof tag, ".p%lld", (long long)pids[i]);
    char *p = part_path_of(ru, (int64_t)n, tag);
    refuse_input_as_output(ru, p);
    free(p);
  }
  if (o->part < 0) tt_info("%zu parts (one per process)", n);
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (o->part >= 0 && (int64_t)i != o->part) continue;
    hub_reader_close(ru->r);
    f.pid = pids[i];
    f.start = bounded ? t0 : HUB_NULL;
    f.end = bounded ? t1 : HUB_NULL;
    ru->r = hub_reader_open(o->inputs, o->ninputs, &f);
    if (!ru->r) {
      rc = 1;
      break;
    }
    char tag[40];
    snprintf(tag, sizeof tag, ".p%lld", (long long)pids[i]);
    set_part(ru, (int64_t)i, (int64_t)n, bounded ? t0 : INT64_MIN, bounded ? t1 : INT64_MAX,
             pids[i], tag);
    if (stream_part(ru) != 0 || end_part(ru) != 0) rc = 1;
  }
  free(pids);
  return rc;
}

int tt_export_main(int argc, char **argv, const tt_exporter *ex) {
  tt_set_progname(argv[0]);
  tt_export_opts o;
  parse_args(argc, argv, ex, &o);
  run ru = {.ex = ex, .o = &o, .tag_width = 3};
  int rc = run_all(&ru);
  if (rc == 0 && !o.list_categories && !o.count_parts) {
    tt_progress_finish("events", ru.events);
    int bounded = o.start_text || o.end_text;
    if (ru.events == 0 && has_event_filter(&o) && !bounded && o.part < 0) {
      /* Category names differ by importer: an empty result is almost
       * always a misspelt filter, not what the user wanted. */
      tt_error("no event matched the --category/--exclude-category/--name%s filters; "
               "--list-categories shows the categories in the inputs",
               o.gpu_only ? "/--gpu" : "");
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
    }
  }
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
  hub_reader_close(ru.r);
  free(ru.path);
  free(o.categories);
  free(o.exclude_categories);
  free(o.names);
  return rc;
}
