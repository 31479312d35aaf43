/* libFuzzer harness: db2json (the hub reader and the Chrome JSON writer)
 * on event streams built from the fuzzer's bytes (fuzz/fuzz_stream.h). */
#include "../converters/db2json/db2json.h"
#include "fuzz_stream.h"

FUZZ_EXPORTER("db2json", db2json_exporter)
