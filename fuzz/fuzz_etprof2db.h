/* What both etprof2db harnesses run: etprof2db's import (its main renamed
 * away) of arbitrary bytes as a file into an in-memory hub, --lenient
 * --summary, the summary printed after a successful import as main does.
 * `etdump` picks the reader: the ETDump flatbuffer or the legacy buffer. */
#define main etprof2db_main
#include "../converters/etprof2db/etprof2db.c"
#undef main
#include "fuzz_file.h"

static int fuzz_etprof2db(const uint8_t *data, size_t size, int etdump) {
  cli k;
  memset(&k, 0, sizeof k);
  k.o.lenient = 1; /* past the first disagreement between iterations */
  k.o.summary = 1;
  run_ctx r = {.k = &k, .etdump = etdump, .sum = etp_summary_new()};
  FILE *null = fuzz_import("etprof2db", import, &r, data, size) == 0 ? fopen("/dev/null", "w") : NULL;
  if (null) {
    etp_summary_print(r.sum, null, "fuzz-input", "ns");
    fclose(null);
  }
  etp_summary_free(r.sum);
  return 0;
}
