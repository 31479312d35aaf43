/* libFuzzer harness: etprof2db's ETDump flatbuffer reader (.etdp: the
 * flatbuffer walk, RunData, profile, allocation and debug events) and
 * --summary on arbitrary bytes, into an in-memory hub. Seeds:
 * fixtures/executorch/ and ETDumps from tests/data/etprof_gen.py (scripts/fuzz.sh). */
#include "fuzz_etprof2db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_etprof2db(data, size, 1);
}
