/* libFuzzer harness: db2otf2 (the hub reader, OTF2 locations, regions,
 * nesting and the archive's staging directory) on event streams built from
 * the fuzzer's bytes (fuzz/fuzz_stream.h). */
#define main db2otf2_main
#include "../converters/db2otf2/db2otf2.c"
#undef main
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2otf2", db2otf2_main)
