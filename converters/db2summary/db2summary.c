/* db2summary: hub databases -> the flat profile (top kernels, copies,
 * allocations, one table per API category, GPU busy time, launch latency)
 * as text, csv, markdown or json, or as one self-contained html report with
 * charts (busy over time per device and per process, launch latency
 * histogram). A sink on common/export.h, so every
 * shared filter, --start/--end and --split apply; the output defaults to
 * stdout. */
#include <stdlib.h>
#include <string.h>

#include "db2summary.h"
#include "export.h"

static sm_options opts = {.format = SM_TEXT, .top = 20};

typedef struct summary_part {
  sm_summary s;
  FILE *fp;
  const char *path;
} summary_part;

static void *summary_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p,
                           tt_output *out) {
  (void)o;
  summary_part *sp = tt_calloc(1, sizeof *sp);
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
  return sp;
}

static int summary_event(void *state, hub_reader *r, const hub_record *ev) {
  sm_add(&((summary_part *)state)->s, r, ev);
  return 0;
}

static int summary_end(void *state, hub_reader *r) {
  summary_part *sp = state;
  sm_finish(&sp->s);
  int rc = sm_write(&sp->s, r, sp->fp);
  if (rc) tt_error("%s: write failed", sp->path);
  sm_free(&sp->s);
  free(sp);
  return rc;
}

/* --- db2summary's own options ---------------------------------------- *
 * common/export.c parses the shared command line and knows no option of
 * one exporter, so ours are taken out of argv before it sees it. */

static const char *const summary_help =
    "\ndb2summary options (the output defaults to stdout):\n"
    "      --format FMT         text (default), csv, markdown, json or html (one\n"
    "                           self-contained report with charts; json has\n"
    "                           every figure the html shows)\n"
    "      --top N              rows per table, heaviest first (default 20; 0: all)\n"
    "      --by-process         one table per process and category (pid and host)\n"
    "      --mangled            kernels by their mangled symbol name, as recorded\n"
    "      --truncate-kernels   kernel names cut to the function name (no template\n"
    "                           arguments, no parameters), rows merged accordingly\n";

static void print_summary_help(void) { fputs(summary_help, stdout); }

/* Shared options that take a value in the next argument. */
static int takes_value(const char *a) {
  static const char *const with_value[] = {"-o", "--output", "--split", "--windows",
                                           "--window-size", "--part", "--start", "--end",
                                           "--category", "--exclude-category", "--name"};
  for (size_t i = 0; i < sizeof with_value / sizeof *with_value; i++)
    if (strcmp(a, with_value[i]) == 0) return 1;
  return 0;
}

/* --opt VALUE or --opt=VALUE: the value, else NULL. */
static const char *value_of(const char *opt, int argc, char **argv, int *i) {
  size_t n = strlen(opt);
  if (strncmp(argv[*i], opt, n) != 0) return NULL;
  if (argv[*i][n] == '=') return argv[*i] + n + 1;
  if (argv[*i][n] != '\0') return NULL;
  if (*i + 1 >= argc) tt_die(2, "%s needs a value", opt);
  return argv[++*i];
}

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

/* Returns the argv for tt_export_main: ours removed, "-o -" added when no
 * output was given. */
static char **take_own_options(int argc, char **argv, int *nargc) {
  char **out = tt_calloc((size_t)argc + 3, sizeof *out);
  int n = 0, has_output = 0;
  out[n++] = argv[0];
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    if (strcmp(a, "--") == 0) {
      while (i < argc) out[n++] = argv[i++];
      break;
    }
    if ((v = value_of("--format", argc, argv, &i))) parse_format(v);
    else if ((v = value_of("--top", argc, argv, &i))) parse_top(v);
    else if (strcmp(a, "--by-process") == 0) opts.by_process = 1;
    else if (strcmp(a, "--truncate-kernels") == 0) opts.truncate_kernels = 1;
    else if (strcmp(a, "--mangled") == 0) opts.mangled = 1;
    else {
      if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) atexit(print_summary_help);
      if (strcmp(a, "-o") == 0 || strncmp(a, "--output", 8) == 0 ||
          (a[0] == '-' && a[1] != '-' && strchr(a, 'o')))
        has_output = 1;
      out[n++] = argv[i];
      if (takes_value(a) && i + 1 < argc) out[n++] = argv[++i];
    }
  }
  if (!has_output) {
    /* after argv[0]: a later -o would still win */
    memmove(out + 3, out + 1, (size_t)(n - 1) * sizeof *out);
    out[1] = "-o";
    out[2] = "-";
    n += 2;
  }
  out[n] = NULL;
  *nargc = n;
  return out;
}

int main(int argc, char **argv) {
  tt_set_progname(argv[0]);
  static const char *const ext[] = {".txt", ".csv", ".md", ".json", ".html"};
  int nargc;
  char **nargv = take_own_options(argc, argv, &nargc);
  tt_exporter ex = {
      .description = "Writes the flat profile of the hubs: top kernels, copies, allocations, "
                     "one table per API\ncategory, GPU busy time and launch latency.",
      .extension = ext[opts.format],
      .stdout_ok = 1,
      .no_event_args = 1,
      .begin_part = summary_begin,
      .event = summary_event,
      .end_part = summary_end,
  };
  int rc = tt_export_main(nargc, nargv, &ex);
  free(nargv);
  return rc;
}
