/* libFuzzer harness: db2perfetto (the hub reader, track layout, interning
 * and the protobuf writer) on event streams built from the fuzzer's bytes
 * (fuzz/fuzz_stream.h). */
#include "../converters/db2perfetto/db2perfetto.h"
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2perfetto", db2perfetto_exporter)
