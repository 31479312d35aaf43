/* libFuzzer harness: db2perfetto (the hub reader, track layout, interning
 * and the protobuf writer) on event streams built from the fuzzer's bytes
 * (fuzz/fuzz_stream.h). */
#define main db2perfetto_main
#include "../converters/db2perfetto/db2perfetto.c"
#undef main
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2perfetto", db2perfetto_main)
