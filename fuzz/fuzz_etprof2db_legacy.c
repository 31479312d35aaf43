/* libFuzzer harness: etprof2db's ExecuTorch legacy profiler buffer reader
 * (prof_result.bin: block headers, events, allocators, allocations) and
 * --summary on arbitrary bytes, into an in-memory hub. Seeds: legacy
 * buffers from tests/data/etprof_gen.py (scripts/fuzz.sh). */
#include "fuzz_etprof2db.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  return fuzz_etprof2db(data, size, 0);
}
