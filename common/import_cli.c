#include "import_cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_output.h"
#include "input_check.h"
#include "progress.h"
#include "sqlite_setup.h"
#include "threads.h"
#include "util.h"

/* What --threads auto (the default) gives an importer: at most this many.
 * 1: on the 2-core machine measured (shared, load average 9), --threads 2
 * made kineto2db 1.22x faster on the resnet50 fixture but 0.97x on a 1M
 * event trace, etprof2db 1.01x and rpd2db 0.89x (README, Performance):
 * short of the 1.3x that keeps a thread on by default. */
#define AUTO_THREADS_MAX 1

static void usage(FILE *f, const char *what, const char *input_help, const tt_import_ext *ext) {
  fprintf(f,
          "Usage: %s [options] INPUT -o OUTPUT.db\n"
          "%s into a rocpd (schema v3) SQLite database.\n\n"
          "  INPUT              %s\n"
          "  -o, --output FILE  the database to write (required; replaced if it exists)\n"
          "  -q, --quiet        no messages except errors\n"
          "      --progress     show progress even when stderr is not a terminal\n"
          "      --threads N    1, 2 or auto: 2 writes the database on a second thread\n"
          "                     while the input is read (auto: %s)\n"
          "  -h, --help         show this help\n"
          "  -V, --version      show the version\n",
          tt_progname(), what, input_help,
          AUTO_THREADS_MAX >= 2 ? "2 with two CPUs or more" : "1, see the man page");
  if (ext && ext->help) fputs(ext->help, f);
}

void tt_import_parse(int argc, char **argv, const char *what, const char *input_help,
                     tt_import_opts *opts) {
  tt_import_parse_ext(argc, argv, what, input_help, NULL, opts);
}

void tt_import_parse_ext(int argc, char **argv, const char *what, const char *input_help,
                         const tt_import_ext *ext, tt_import_opts *opts) {
  static const struct option common[] = {
      {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
      {"progress", no_argument, NULL, 'P'},     {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},    {"threads", required_argument, NULL, 'T'}};
  size_t ncommon = sizeof common / sizeof *common, nextra = 0;
  while (ext && ext->longopts && ext->longopts[nextra].name) nextra++;
  struct option *longopts = tt_calloc(ncommon + nextra + 1, sizeof *longopts);
  memcpy(longopts, common, sizeof common);
  if (nextra) memcpy(longopts + ncommon, ext->longopts, nextra * sizeof *longopts);
  tt_set_progname(argv[0]);
  memset(opts, 0, sizeof *opts);
  int c;
  while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
    if (c >= 256 && ext && ext->handle) {
      if (ext->handle(c, optarg, ext->ctx) != 0) {
        usage(stderr, what, input_help, ext);
        exit(2);
      }
      continue;
    }
    switch (c) {
    case 'o': opts->output = optarg; break;
    case 'q': opts->progress_mode = -1; break;
    case 'P': opts->progress_mode = 1; break;
    case 'T':
      opts->threads = tt_threads_parse(optarg, AUTO_THREADS_MAX);
      if (opts->threads < 0) {
        tt_error("--threads: '%s' is not 1, 2 or auto", optarg);
        exit(2);
      }
      break;
    case 'h': usage(stdout, what, input_help, ext); exit(0);
    case 'V': printf("%s (tracetools) %s\n", tt_progname(), TT_VERSION); exit(0);
    default: usage(stderr, what, input_help, ext); exit(2);
    }
  }
  if (optind + 1 != argc) {
    tt_error(optind >= argc ? "missing INPUT" : "exactly one INPUT expected");
    usage(stderr, what, input_help, ext);
    exit(2);
  }
  free(longopts);
  if (!opts->threads) opts->threads = tt_threads_default(AUTO_THREADS_MAX);
  /* Before anything opens SQLite (the input checks below may). */
  tt_sqlite_threads(opts->threads);
  opts->input = argv[optind];
  if (opts->progress_mode < 0) tt_set_quiet(1);
  if (tt_input_check(opts->input) != 0 || tt_input_refuse_foreign(opts->input, tt_progname()) != 0)
    exit(1);
  if (!opts->output && ext && ext->output_optional && *ext->output_optional) {
    tt_progress_init(opts->progress_mode);
    return;
  }
  if (!opts->output) {
    tt_error("missing -o OUTPUT.db");
    exit(2);
  }
  if (strcmp(opts->output, "-") == 0) {
    tt_error("a database cannot be written to stdout; give -o FILE.db");
    exit(2);
  }
  struct stat in, out;
  if (stat(opts->output, &out) == 0 && !S_ISREG(out.st_mode)) {
    tt_error("%s: not a regular file; a database needs a file", opts->output);
    exit(2);
  }
  if (stat(opts->input, &in) == 0 && stat(opts->output, &out) == 0 && in.st_dev == out.st_dev &&
      in.st_ino == out.st_ino) {
    tt_error("%s: output would overwrite the input", opts->output);
    exit(2);
  }
  tt_progress_init(opts->progress_mode);
}

int tt_import_run(const tt_import_opts *opts, tt_import_fn fn, void *ctx) {
  tt_output *out = tt_output_begin(opts->output);
  hub_writer *w = hub_writer_create(tt_output_tmp_path(out));
  hub_writer_threads(w, opts->threads);
  hub_writer_metadata(w, "tracetools_source", opts->input);
  int rc = fn(w, opts, ctx);
  tt_progress_done();
  if (rc != 0) {
    hub_writer_abort(w);
    tt_output_abort(out);
    return rc;
  }
  int64_t rows = hub_writer_row_count(w);
  if (hub_writer_finish(w) != 0 || tt_output_commit(out) != 0) return 1;
  tt_progress_finish("hub rows", (uint64_t)rows);
  tt_info("wrote %s (%lld rows)", opts->output, (long long)rows);
  return 0;
}
