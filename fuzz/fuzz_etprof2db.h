/* What both etprof2db harnesses run: etprof2db_import of arbitrary bytes
 * as a file into an in-memory hub, with --lenient --summary, the summary
 * made and printed around it by the calls main makes
 * (etprof2db_summary_begin/end). `etdump` picks the reader: the ETDump
 * flatbuffer or the legacy buffer. */
#include "../converters/etprof2db/etprof2db.h"
#include "fuzz_file.h"

static int fuzz_etprof2db(const uint8_t *data, size_t size, int etdump) {
  etprof2db_run r = {.etdump = etdump};
  r.o.lenient = 1; /* past the first disagreement between iterations */
  r.o.summary = 1;
  etprof2db_summary_begin(&r);
  int rc = fuzz_import("etprof2db", etprof2db_import, &r, data, size);
  FILE *null = fopen("/dev/null", "w");
  etprof2db_summary_end(&r, null ? rc : 1, null, "fuzz-input");
  if (null) fclose(null);
  return 0;
}
