/* libFuzzer harness: db2json (the hub reader and the Chrome JSON writer)
 * on event streams built from the fuzzer's bytes (fuzz/fuzz_stream.h). */
#define main db2json_main
#include "../converters/db2json/db2json.c"
#undef main
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2json", db2json_main)
