/* The command line every tool shares, parsed in one place:
 *   -o/--output FILE, -q/--quiet, --progress, -v/--verbose, -h/--help,
 *   -V/--version,
 *   --threads N (tools that set threads_max), then the input operands,
 * plus the long options a tool (or a family of tools, the exporters' split
 * and filters) adds through tt_cli_ext. -q wins over --progress whatever
 * their order; -v asks for the items a warning sums up (tt_verbose).
 * --help prints the usage and each extension's help to stdout (exit 0).
 * An option getopt refuses (unknown, ambiguous, a value missing or not
 * taken) is one line on stderr naming it, the nearest option when one is
 * close ("did you mean --format?") and "see PROG --help" (option_hint.h),
 * exit 2; other usage errors print the usage to stderr (exit 2). */
#ifndef TT_CLI_H
#define TT_CLI_H
#include <stddef.h>
#include <stdio.h>

struct option;

/* Long options added to the shared ones. `longopts` ends with a zeroed
 * entry; its `val`s are the extension's own (any value: the core renumbers
 * them, so two extensions never clash; `flag` must be NULL) and `handle`
 * gets them back with the option's argument (NULL when it takes none).
 * handle returns 0, or non-zero after printing why the value is wrong
 * (usage error: the usage on stderr, exit 2); it may also exit itself
 * (tt_die(2, ...)). `help` is printed after the shared options' lines
 * (NULL: nothing). */
typedef struct tt_cli_ext {
  const struct option *longopts;
  const char *help;
  int (*handle)(int val, const char *arg, void *ctx);
  void *ctx;
} tt_cli_ext;

typedef struct tt_cli {
  /* Set by the tool. */
  /* The tool's usage and its options; the shared -q, --progress,
   * --threads, -h and -V follow, their text at column help_width. */
  void (*usage)(FILE *f, const void *ctx);
  const void *usage_ctx;
  int help_width;
  const tt_cli_ext *ext[3]; /* extensions, in order (NULL: none) */
  int threads_max;   /* > 0: --threads 1|2|auto accepted, auto gives at most this */
  const char *threads_auto; /* what --threads auto gives, for --help */
  /* What 2 threads do, for --help: two lines of text, the second
   * indented (NULL: an importer's, the hub written on a second thread). */
  const char *threads_help[2];
  int one_input;     /* exactly one INPUT (an importer), else one or more DB */
  /* Filled by tt_cli_parse. */
  const char *output;    /* -o, NULL when not given */
  int progress_mode;     /* -1 quiet, 0 auto, 1 forced (tt_progress_init) */
  int verbose;           /* -v/--verbose, and not -q (tt_progress_verbose) */
  int threads;           /* --threads resolved (0 when the tool takes none) */
  const char **inputs;   /* the operands, in argv */
  size_t ninputs;
} tt_cli;

/* Parses argv into `cli` and initialises progress and messages
 * (tt_progress_init, tt_progress_verbose). Exits on --help/--version and
 * on usage errors: an unknown option, a missing operand ("missing INPUT" for an importer,
 * "missing input database" else), a second INPUT for an importer. */
void tt_cli_parse(int argc, char **argv, tt_cli *cli);

/* Exits with status 2 when `output` is one of the inputs, under any name
 * (same device and inode: a symlink or a hard link too), before anything
 * is written: "OUTPUT: output would overwrite the input INPUT". "-" and an
 * output that does not exist yet pass. */
void tt_cli_refuse_input_as_output(const char *output, const char *const *inputs, size_t n);
/* The input that `output` names (same device and inode), or NULL; for a
 * caller that must stop work of its own before refusing. */
const char *tt_cli_input_named_by(const char *output, const char *const *inputs, size_t n);

/* The output of a tool writing a database (importers, dbmerge): required,
 * not stdout, a regular file when it exists, none of the inputs. Exits
 * with status 2 otherwise. */
void tt_cli_check_db_output(const char *output, const char *const *inputs, size_t n);

#endif
