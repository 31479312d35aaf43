/* The command line every importer shares:
 *   X2db [options] INPUT -o OUTPUT.db
 * with -o/--output, -q/--quiet, --progress, -h/--help, -V/--version, and
 * the run that writes the hub under a temporary name and renames it only
 * when the import succeeded. */
#ifndef TT_IMPORT_CLI_H
#define TT_IMPORT_CLI_H
#include "hub_writer.h"

typedef struct tt_import_opts {
  const char *input;
  const char *output;
  int progress_mode; /* -1 quiet, 0 auto, 1 forced */
} tt_import_opts;

/* `what` is one line ("Imports a PyTorch profiler (Kineto) JSON trace"),
 * `input_help` describes INPUT. Exits on --help/--version/usage errors. */
void tt_import_parse(int argc, char **argv, const char *what, const char *input_help,
                     tt_import_opts *opts);

/* The importer's work: reads opts->input, writes through w. Returns 0 on
 * success; on failure it has printed a message naming file and position. */
typedef int (*tt_import_fn)(hub_writer *w, const tt_import_opts *opts, void *ctx);

/* Creates the output (temporary name), runs fn, finishes and renames.
 * Returns the process exit code (0 ok, 1 bad input, 2 usage). */
int tt_import_run(const tt_import_opts *opts, tt_import_fn fn, void *ctx);

#endif
