/* What both etprof2db harnesses run: etprof2db_import of arbitrary bytes
 * as a file into an in-memory hub, --lenient --summary, the summary
 * printed after a successful import as main does. `etdump` picks the
 * reader: the ETDump flatbuffer or the legacy buffer. */
#include "../converters/etprof2db/etprof2db.h"
#include "fuzz_file.h"

static int fuzz_etprof2db(const uint8_t *data, size_t size, int etdump) {
  etprof2db_run r = {.etdump = etdump, .sum = etp_summary_new()};
  r.o.lenient = 1; /* past the first disagreement between iterations */
  r.o.summary = 1;
  int rc = fuzz_import("etprof2db", etprof2db_import, &r, data, size);
  FILE *null = rc == 0 ? fopen("/dev/null", "w") : NULL;
  if (null) {
    etp_summary_print(r.sum, null, "fuzz-input", "ns");
    fclose(null);
  }
  etp_summary_free(r.sum);
  return 0;
}
