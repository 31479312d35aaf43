/* libFuzzer harness: rpd2db's RPD reader (the SQLite header check, the
 * format checks, rocpd_api/op/monitor rows and their time conversions) on
 * arbitrary bytes written to a file, into an in-memory hub. Seeds: the RPD
 * fixtures (scripts/fuzz.sh); libFuzzer's mutations of an SQLite file reach
 * SQLite's corruption checks as well as the reader's row checks. */
#include "../converters/rpd2db/rpd2db.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import("rpd2db", rpd2db_import, NULL, data, size);
  return 0;
}
