/* libFuzzer harness: etprof2db's ETDump flatbuffer reader (.etdp: the
 * flatbuffer walk, RunData, profile, allocation and debug events) and
 * --summary on arbitrary bytes, into an in-memory hub. Seeds:
 * fixtures/executorch/ and ETDumps from tests/etprof_gen.py (scripts/fuzz.sh). */
#define main etprof2db_main
#include "../converters/etprof2db/etprof2db.c"
#undef main
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cli k;
  memset(&k, 0, sizeof k);
  k.o.lenient = 1; /* past the first disagreement between iterations */
  k.o.summary = 1;
  run_ctx r = {.k = &k, .etdump = 1, .sum = etp_summary_new()};
  /* the summary is printed after a successful import, as main does */
  FILE *null = fuzz_import("etprof2db", import, &r, data, size) == 0 ? fopen("/dev/null", "w") : NULL;
  if (null) {
    etp_summary_print(r.sum, null, "fuzz-input", "ns");
    fclose(null);
  }
  etp_summary_free(r.sum);
  return 0;
}
