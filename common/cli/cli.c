#include "cli/cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/progress.h"
#include "base/threads.h"
#include "base/util.h"
#include "cli/option_hint.h"

/* The shared options' getopt values; an extension's option k (counted
 * over all extensions) gets EXT_VAL + k. */
enum { O_PROGRESS = 256, O_THREADS, EXT_VAL };

#define NEXT (sizeof ((tt_cli *)0)->ext / sizeof *((tt_cli *)0)->ext)

static void usage(FILE *f, const tt_cli *cli) {
  int w = cli->help_width - 2;
  cli->usage(f, cli->usage_ctx);
  fprintf(f, "  %-*s%s\n", w, "-q, --quiet", "no messages except errors (wins over --progress)");
  fprintf(f, "  %-*s%s\n", w, "    --progress", "show progress even when stderr is not a terminal");
  fprintf(f, "  %-*s%s\n", w, "-v, --verbose", "each item of a warning that sums them up");
  if (cli->threads_max > 0)
    fprintf(f, "  %-*s%s\n  %-*s%s\n  %-*s%s%s)\n", w, "    --threads N",
            cli->threads_help[0] ? cli->threads_help[0]
                                 : "1, 2 or auto: 2 writes the database on a second thread",
            w, "", cli->threads_help[1] ? cli->threads_help[1] : "while the input is read", w, "",
            "(auto: ", cli->threads_auto);
  fprintf(f, "  %-*s%s\n", w, "-h, --help", "show this help");
  fprintf(f, "  %-*s%s\n", w, "-V, --version", "show the version");
  for (size_t e = 0; e < NEXT; e++)
    if (cli->ext[e] && cli->ext[e]->help) fputs(cli->ext[e]->help, f);
}

static void usage_error(const tt_cli *cli) {
  usage(stderr, cli);
  exit(2);
}

static size_t count_options(const struct option *o) {
  size_t n = 0;
  while (o && o[n].name) n++;
  return n;
}

/* Gives an extension's option back to its extension, with its own val. */
static void dispatch(const tt_cli *cli, int val, const char *arg) {
  int k = val - EXT_VAL;
  for (size_t e = 0; e < NEXT; e++) {
    const tt_cli_ext *x = cli->ext[e];
    if (!x) continue;
    int n = (int)count_options(x->longopts);
    if (k < n) {
      if (x->handle(x->longopts[k].val, arg, x->ctx) != 0) usage_error(cli);
      return;
    }
    k -= n;
  }
}

/* The option table being parsed: file-scope, so a usage error's exit
 * (tt_die, exit) leaves it reachable rather than leaked. */
static struct option *longopts;

void tt_cli_parse(int argc, char **argv, tt_cli *cli) {
  static const struct option shared[] = {
      {"output", required_argument, NULL, 'o'},  {"quiet", no_argument, NULL, 'q'},
      {"progress", no_argument, NULL, O_PROGRESS}, {"help", no_argument, NULL, 'h'},
      {"version", no_argument, NULL, 'V'},       {"verbose", no_argument, NULL, 'v'},
      {"threads", required_argument, NULL, O_THREADS}};
  size_t nshared = sizeof shared / sizeof *shared - (cli->threads_max > 0 ? 0 : 1), n = nshared;
  for (size_t e = 0; e < NEXT; e++)
    if (cli->ext[e]) n += count_options(cli->ext[e]->longopts);
  longopts = tt_calloc(n + 1, sizeof *longopts);
  memcpy(longopts, shared, nshared * sizeof *longopts);
  for (size_t e = 0, k = nshared; e < NEXT; e++) {
    size_t m = cli->ext[e] ? count_options(cli->ext[e]->longopts) : 0;
    for (size_t i = 0; i < m; i++, k++) {
      longopts[k] = cli->ext[e]->longopts[i];
      longopts[k].flag = NULL;
      longopts[k].val = EXT_VAL + (int)(k - nshared);
    }
  }
  tt_set_progname(argv[0]);
  cli->output = NULL;
  cli->threads = 0;
  int quiet = 0, progress = 0, verbose = 0, c, before = optind;
  opterr = 0; /* getopt's errors are said by tt_option_error, in one line */
  while ((c = getopt_long(argc, argv, ":o:qvhV", longopts, NULL)) != -1) {
    switch (c) {
    case '?':
    case ':':
      /* The argument at fault: getopt has stepped past it, unless it is
       * in the middle of a cluster of short options ("-Zq"). */
      tt_option_error(optind > before ? argv[optind - 1] : argv[optind], c, optopt, longopts);
    case 'v': verbose = 1; break;
    case 'o': cli->output = optarg; break;
    case 'q': quiet = 1; break;
    case O_PROGRESS: progress = 1; break;
    case O_THREADS:
      cli->threads = tt_threads_parse(optarg, cli->threads_max);
      if (cli->threads < 0) tt_die(2, "--threads: '%s' is not 1, 2 or auto", optarg);
      break;
    case 'h': usage(stdout, cli); exit(0);
    case 'V': printf("%s (tracetools) %s\n", tt_progname(), TT_VERSION); exit(0);
    default:
      if (c >= EXT_VAL) dispatch(cli, c, optarg);
      else usage_error(cli);
    }
    before = optind;
  }
  free(longopts);
  longopts = NULL;
  if (optind >= argc || (cli->one_input && optind + 1 != argc)) {
    tt_error(!cli->one_input ? "missing input database"
             : optind >= argc ? "missing INPUT"
                              : "exactly one INPUT expected");
    usage_error(cli);
  }
  if (cli->threads_max > 0 && !cli->threads) cli->threads = tt_threads_default(cli->threads_max);
  cli->progress_mode = quiet ? -1 : progress; /* -q wins over --progress */
  cli->inputs = (const char **)argv + optind;
  cli->ninputs = (size_t)(argc - optind);
  cli->verbose = verbose && !quiet;
  tt_progress_init(cli->progress_mode);
  tt_progress_verbose(cli->verbose);
}

const char *tt_cli_input_named_by(const char *output, const char *const *inputs, size_t n) {
  struct stat out;
  if (strcmp(output, "-") == 0 || stat(output, &out) != 0) return NULL;
  for (size_t i = 0; i < n; i++) {
    struct stat in;
    if (stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev && in.st_ino == out.st_ino)
      return inputs[i];
  }
  return NULL;
}

void tt_cli_refuse_input_as_output(const char *output, const char *const *inputs, size_t n) {
  const char *in = tt_cli_input_named_by(output, inputs, n);
  if (in) tt_die(2, "%s: output would overwrite the input %s", output, in);
}

void tt_cli_check_db_output(const char *output, const char *const *inputs, size_t n) {
  if (!output) tt_die(2, "missing -o OUTPUT.db");
  if (strcmp(output, "-") == 0) tt_die(2, "a database cannot be written to stdout; give -o FILE.db");
  struct stat st;
  if (stat(output, &st) == 0 && !S_ISREG(st.st_mode))
    tt_die(2, "%s: not a regular file; a database needs a file", output);
  tt_cli_refuse_input_as_output(output, inputs, n);
}
