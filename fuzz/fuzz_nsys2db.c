/* libFuzzer harness: nsys2db's Nsight Systems export reader (the SQLite
 * header check, the format checks, the descriptive tables, CUPTI rows with
 * their kernel sizes, NVTX, OS runtime ranges and their times) on arbitrary
 * bytes written to a file, into an in-memory hub. Seeds: the nsys fixture,
 * shrunk (scripts/fuzz.sh); libFuzzer's mutations of an SQLite file reach
 * SQLite's corruption checks as well as the reader's row checks. */
#include "../converters/nsys2db/nsys2db.h"
#include "fuzz_file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import("nsys2db", nsys2db_import, NULL, data, size);
  return 0;
}
