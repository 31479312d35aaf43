/* The command line every importer shares:
 *   X2db [options] INPUT -o OUTPUT.db
 * with -o/--output, -q/--quiet, --progress, --threads N, -h/--help,
 * -V/--version (parsed by cli.h, as every tool's), and
 * the run that writes the hub under a temporary name and renames it only
 * when the import succeeded. */
#ifndef TT_IMPORT_CLI_H
#define TT_IMPORT_CLI_H
#include "cli/cli.h"
#include "hub/hub_writer.h"

typedef struct tt_import_opts {
  const char *input;
  const char *output;
  int progress_mode; /* -1 quiet, 0 auto, 1 forced */
  int threads;       /* --threads: 1 or 2 (hub_writer_threads), auto resolved */
} tt_import_opts;

/* `what` is one line ("Imports a PyTorch profiler (Kineto) JSON trace"),
 * `input_help` describes INPUT. Exits on --help/--version/usage errors. */
void tt_import_parse(int argc, char **argv, const char *what, const char *input_help,
                     tt_import_opts *opts);

/* Options an importer adds to the common ones (etprof2db's --time-scale):
 * `options` is the extension every tool's command line takes (cli.h); a
 * non-zero return of its handle is a usage error (exit 2).
 * When `output_optional` is set and *output_optional is non-zero once the
 * options are read, -o may be left out (opts->output is then NULL).
 * `auto_threads_max` caps what --threads auto gives this importer (1 where
 * the second thread was measured short of 1.3x faster); 0 keeps the
 * importers' default, 2. */
typedef struct tt_import_ext {
  tt_cli_ext options;
  const int *output_optional;
  int auto_threads_max;
} tt_import_ext;

/* tt_import_parse with extra options; ext NULL is tt_import_parse. */
void tt_import_parse_ext(int argc, char **argv, const char *what, const char *input_help,
                         const tt_import_ext *ext, tt_import_opts *opts);

/* The importer's work: reads opts->input, writes through w. Returns 0 on
 * success; on failure it has printed a message naming file and position. */
typedef int (*tt_import_fn)(hub_writer *w, const tt_import_opts *opts, void *ctx);

/* Creates the output (temporary name), runs fn, finishes and renames.
 * Returns the process exit code (0 ok, 1 bad input, 2 usage). */
int tt_import_run(const tt_import_opts *opts, tt_import_fn fn, void *ctx);

#endif
