/* libFuzzer harness: db2otf2 (the hub reader, OTF2 locations, regions,
 * nesting and the archive's staging directory) on event streams built from
 * the fuzzer's bytes (fuzz/fuzz_stream.h). */
#include "../converters/db2otf2/db2otf2.h"
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2otf2", db2otf2_exporter)
