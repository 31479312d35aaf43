/* libFuzzer harness: db2diff on two hubs built from the fuzzer's bytes
 * (fuzz/fuzz_stream.h: ops, launches with correlations, kernels with
 * durations that may be negative): the first byte splits the rest into
 * the base's and the candidate's streams, so the pairing meets two
 * different sequences; every output format is written (json with the
 * instances, html, csv, text). */
#include "../converters/db2diff/db2diff.h"
#include "fuzz_stream.h"

static int run(const char *base, const char *cand, const char *out, const char *format) {
  char *argv[] = {"db2diff", "-q", "--format", (char *)format, "--instances", (char *)base, (char *)cand,
                  "-o", (char *)out, NULL};
  optind = 0; /* glibc: a full getopt restart for each run */
  return db2diff_main(9, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char base[64], cand[64], out[64];
  if (!base[0]) { /* in /dev/shm when there is one: no disk writes per run */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(base, sizeof base, "%s/fuzz-db2diff-%ld.a.db", dir, (long)getpid());
    snprintf(cand, sizeof cand, "%s/fuzz-db2diff-%ld.b.db", dir, (long)getpid());
    snprintf(out, sizeof out, "%s/fuzz-db2diff-%ld.out", dir, (long)getpid());
  }
  tt_set_progname("db2diff");
  if (size < 1) return 0;
  size_t split = 1 + (size_t)data[0] * (size - 1) / 255;
  if (fuzz_hub(base, data + 1, split - 1) == 0 && fuzz_hub(cand, data + split, size - split) == 0) {
    static const char *const formats[] = {"json", "html", "csv", "text"};
    for (size_t f = 0; f < 4; f++) {
      run(base, cand, out, formats[f]);
      unlink(out);
    }
  }
  unlink(base);
  unlink(cand);
  return 0;
}
