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

/* What --threads auto (the default) gives an importer: at most this many,
 * unless its tt_import_ext says less. 2: on an otherwise idle 2-core
 * machine the second thread made kineto2db, nvvp2db, nsys2db and rpd2db
 * 1.4-1.8x faster end to end (docs/performance.md), past the 1.3x that
 * keeps a thread on by default. */
#define AUTO_THREADS_MAX 2

static int auto_threads_max(const tt_import_ext *ext) {
  return ext && ext->auto_threads_max > 0 ? ext->auto_threads_max : AUTO_THREADS_MAX;
}

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
          auto_threads_max(ext) >= 2 ? "2 when it may run on two CPUs or more"
                                     : "1, see the man page");
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
      opts->threads = tt_threads_parse(optarg, auto_threads_max(ext));
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
  if (!opts->threads) opts->threads = tt_threads_default(auto_threads_max(ext));
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
  hub_writer_finish(w); /* dies on failure */
  if (tt_output_commit(out) != 0) return 1;
  tt_progress_finish("hub rows", (uint64_t)rows);
  /* The thread count is said when it is not 1: --threads auto depends on
   * the CPUs this process may use. */
  if (opts->threads > 1)
    tt_info("wrote %s (%lld rows, %d threads)", opts->output, (long long)rows, opts->threads);
  else
    tt_info("wrote %s (%lld rows)", opts->output, (long long)rows);
  return 0;
}
