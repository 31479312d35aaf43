/* etprof2db: ExecuTorch profiles into a hub database. The command line
 * around etprof2db_import (etprof2db.h): its options and the choice of
 * reader. */
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "etprof2db.h"

enum { OPT_TIME_SCALE = 256, OPT_CPU_FREQ, OPT_LENIENT, OPT_SUMMARY, OPT_FORMAT };

typedef struct cli {
  etprof2db_run r;
  int summary_only; /* --summary: -o may be left out */
  const char *format; /* NULL auto, "legacy", "etdump" */
} cli;

static int handle_opt(int val, const char *arg, void *ctx) {
  cli *k = ctx;
  switch (val) {
  case OPT_TIME_SCALE:
    for (int i = 0; i < 4; i++)
      if (strcmp(arg, etp_scale_names[i]) == 0) {
        k->r.o.scale = (etp_scale)i;
        return 0;
      }
    tt_error("--time-scale must be ns, us, ms or cycles, not '%s'", arg);
    return 1;
  case OPT_CPU_FREQ: {
    char *end;
    double f = strtod(arg, &end);
    if (end == arg || *end || !(f >= 1) || f > 1e15 || f != floor(f)) {
      tt_error("--cpu-freq takes a whole number of Hz (1 to 1e15), not '%s'", arg);
      return 1;
    }
    k->r.o.cpu_freq = f;
    return 0;
  }
  case OPT_LENIENT: k->r.o.lenient = 1; return 0;
  case OPT_SUMMARY: k->r.o.summary = 1; k->summary_only = 1; return 0;
  case OPT_FORMAT:
    if (strcmp(arg, "legacy") && strcmp(arg, "etdump") && strcmp(arg, "auto")) {
      tt_error("--format must be auto, legacy or etdump, not '%s'", arg);
      return 1;
    }
    k->format = strcmp(arg, "auto") ? arg : NULL;
    return 0;
  }
  return 1;
}

/* ETDump when the name ends in .etdp or the identifier ED00 sits at byte
 * 8 (size-prefixed) or 4; otherwise the legacy buffer. */
static int sniff_etdump(const char *path, const char *format) {
  if (format) return strcmp(format, "etdump") == 0;
  size_t n = strlen(path);
  if (n >= 5 && strcmp(path + n - 5, ".etdp") == 0) return 1;
  FILE *f = fopen(path, "rb");
  if (!f) return 0; /* the reader reports it */
  unsigned char h[12];
  size_t got = fread(h, 1, sizeof h, f);
  fclose(f);
  return (got >= 12 && memcmp(h + 8, "ED00", 4) == 0) || (got >= 8 && memcmp(h + 4, "ED00", 4) == 0);
}

int main(int argc, char **argv) {
  static const struct option extra[] = {
      {"time-scale", required_argument, NULL, OPT_TIME_SCALE},
      {"cpu-freq", required_argument, NULL, OPT_CPU_FREQ},
      {"lenient", no_argument, NULL, OPT_LENIENT},
      {"summary", no_argument, NULL, OPT_SUMMARY},
      {"format", required_argument, NULL, OPT_FORMAT},
      {NULL, 0, NULL, 0}};
  cli k;
  memset(&k, 0, sizeof k);
  tt_import_ext ext = {
      .options =
          {.longopts = extra,
           .help =
               "      --time-scale U the unit of the recorded ticks: ns (default), us, ms or\n"
               "                     cycles\n"
               "      --cpu-freq HZ  the clock for --time-scale cycles (whole Hz, e.g.\n"
               "                     1000000000)\n"
               "      --lenient      import iterations that disagree (warning each) instead of\n"
               "                     failing\n"
               "      --summary      print per-iteration events, framework tax and per-name\n"
               "                     statistics on stdout (-o is then optional)\n"
               "      --format F     auto (default: .etdp or identifier ED00), legacy or etdump\n",
           .handle = handle_opt,
           .ctx = &k},
      .output_optional = &k.summary_only,
      /* Nearly all of etprof2db's time is SQLite's (the buffer is read in
       * place): the second thread made it 1.06x faster on an idle 2-core
       * machine, short of the 1.3x that turns it on by default. */
      .auto_threads_max = 1};
  tt_import_opts opts;
  tt_import_parse_ext(argc, argv,
                      "Imports an ExecuTorch profile (ETDump .etdp or legacy prof_result.bin)",
                      "an ETDump (.etdp) or a legacy profiler buffer\n"
                      "                     (prof_result.bin)", &ext,
                      &opts);
  if (k.r.o.scale == ETP_CYCLES && k.r.o.cpu_freq == 0) {
    tt_error("--time-scale cycles needs --cpu-freq HZ (the hub holds nanoseconds)");
    return 2;
  }
  if (k.r.o.scale != ETP_CYCLES && k.r.o.cpu_freq != 0) {
    tt_error("--cpu-freq only applies with --time-scale cycles");
    return 2;
  }
  etprof2db_run *r = &k.r;
  r->etdump = sniff_etdump(opts.input, k.format);
  etprof2db_summary_begin(r);
  int rc = opts.output ? tt_import_run(&opts, etprof2db_import, r)
                        : etprof2db_import(NULL, &opts, r);
  rc = etprof2db_summary_end(r, rc, stdout, opts.input);
  if (rc == 0 && fflush(stdout) != 0) {
    tt_error("writing the summary failed");
    rc = 1;
  }
  return rc;
}
