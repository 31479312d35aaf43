#include "cli/import_cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_output.h"
#include "cli/cli.h"
#include "base/input_check.h"
#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "base/threads.h"
#include "base/util.h"

/* What --threads auto (the default) gives an importer: at most this many,
 * unless its tt_import_ext says less. 2: on an otherwise idle 2-core
 * machine the second thread made kineto2db, nvvp2db, nsys2db and rpd2db
 * 1.4-1.8x faster end to end (docs/performance.md), past the 1.3x that
 * keeps a thread on by default. */
#define AUTO_THREADS_MAX 2

static int auto_threads_max(const tt_import_ext *ext) {
  return ext && ext->auto_threads_max > 0 ? ext->auto_threads_max : AUTO_THREADS_MAX;
}

/* What usage prints: the importer's line and INPUT. */
typedef struct import_usage {
  const char *what, *input_help;
} import_usage;

static void usage(FILE *f, const void *ctx) {
  const import_usage *u = ctx;
  fprintf(f,
          "Usage: %s [options] INPUT -o OUTPUT.db\n"
          "%s\ninto a rocpd (schema v3) SQLite database.\n\n"
          "  INPUT              %s\n"
          "  -o, --output FILE  the database to write (required; replaced if it exists)\n",
          tt_progname(), u->what, u->input_help);
}

void tt_import_parse(int argc, char **argv, const char *what, const char *input_help,
                     tt_import_opts *opts) {
  tt_import_parse_ext(argc, argv, what, input_help, NULL, opts);
}

void tt_import_parse_ext(int argc, char **argv, const char *what, const char *input_help,
                         const tt_import_ext *ext, tt_import_opts *opts) {
  import_usage u = {what, input_help};
  int threads_max = auto_threads_max(ext);
  tt_cli cli = {.usage = usage, .usage_ctx = &u, .help_width = 21,
                .ext = {ext ? &ext->options : NULL},
                .threads_max = threads_max, .one_input = 1,
                .threads_auto = threads_max >= 2 ? "2 when it may run on two CPUs or more"
                                                 : "1, see the man page"};
  tt_cli_parse(argc, argv, &cli);
  memset(opts, 0, sizeof *opts);
  opts->input = cli.inputs[0];
  opts->output = cli.output;
  opts->progress_mode = cli.progress_mode;
  opts->threads = cli.threads;
  /* Before anything opens SQLite (the input checks below may). */
  tt_sqlite_threads(opts->threads);
  if (tt_input_check(opts->input) != 0 || tt_input_refuse_foreign(opts->input, tt_progname()) != 0)
    exit(1);
  if (!opts->output && ext && ext->output_optional && *ext->output_optional) return;
  tt_cli_check_db_output(opts->output, cli.inputs, 1);
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
