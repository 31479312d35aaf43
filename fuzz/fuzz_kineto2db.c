/* libFuzzer harness: the Kineto JSON path of kineto2db (repair stage ->
 * yajl callbacks -> one event at a time -> hub rows) on arbitrary bytes, into an in-memory
 * hub. The same calls as kineto2db_import, without the file and gzip
 * layer (zlib reads plain bytes as they are). Seeds: fixtures/kineto/.
 * Built by `make fuzz` (FUZZ=1: clang, libFuzzer, ASan, UBSan). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_writer.h"
#include "../converters/kineto2db/kineto2db.h"
#include "base/progress.h"
#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    tt_set_progname("fuzz_kineto");
    tt_progress_init(-1); /* quiet: no warnings on stderr for every input */
    init = 1;
  }
  hub_writer *w = hub_writer_create(":memory:");
  kineto k;
  memset(&k, 0, sizeof k);
  k.w = w;
  k.path = "fuzz-input";
  k.last_ts = INT64_MIN;
  tt_buf_append(&k.key, "", 0);
  yajl_handle h = yajl_alloc(kineto_callbacks(), NULL, &k);
  yajl_config(h, yajl_dont_validate_strings, 1);
  /* In two pieces, as the file is read in chunks: tokens split across. */
  size_t half = size / 2;
  int ok = kineto_parse_bytes(&k, h, data, half, 0) == yajl_status_ok &&
           kineto_parse_bytes(&k, h, data + half, size - half, half) == yajl_status_ok &&
           kineto_parse_end(&k, h, size) == yajl_status_ok;
  if (!ok) kineto_error_offset(&k, h); /* what the error message would say */
  if (ok) kineto_finish(&k);
  yajl_free(h);
  kineto_parse_free(&k);
  kineto_event_free(&k);
  if (ok) hub_writer_finish(w);
  else hub_writer_abort(w);
  return 0;
}
