/* kineto2db: a PyTorch profiler (Kineto) JSON trace into a hub database.
 * The command line around kineto2db_import (kineto2db.h). */
#include <getopt.h>

#include "kineto2db.h"

enum { OPT_LENIENT = 256 };

static int handle_opt(int val, const char *arg, void *ctx) {
  (void)arg;
  if (val == OPT_LENIENT) ((kineto2db_opts *)ctx)->lenient = 1;
  return 0;
}

int main(int argc, char **argv) {
  static const struct option extra[] = {{"lenient", no_argument, NULL, OPT_LENIENT},
                                         {NULL, 0, NULL, 0}};
  kineto2db_opts k = {0};
  tt_import_ext ext = {
      .options = {
          .longopts = extra,
          .help = "      --lenient      import a trace cut short (its writer killed): every event\n"
                  "                     complete before the cut is imported, and a warning gives\n"
                  "                     the byte offset of the cut\n",
          .handle = handle_opt,
          .ctx = &k}};
  tt_import_opts opts;
  tt_import_parse_ext(argc, argv, "Imports a PyTorch profiler (Kineto) trace",
                      "a .json or .json.gz trace", &ext, &opts);
  return tt_import_run(&opts, kineto2db_import, &k);
}
