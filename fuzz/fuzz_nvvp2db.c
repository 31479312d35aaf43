/* libFuzzer harness: nvvp2db's nvprof reader (the SQLite header check, the
 * format checks, CUPTI_ACTIVITY_KIND_* rows, markers and their times) on
 * arbitrary bytes written to a file, into an in-memory hub. Seeds: the nvprof
 * fixtures (scripts/fuzz.sh); libFuzzer's mutations of an SQLite file reach
 * SQLite's corruption checks as well as the reader's row checks. */
#include "../converters/nvvp2db/nvvp2db.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import("nvvp2db", nvvp2db_import, NULL, data, size);
  return 0;
}
