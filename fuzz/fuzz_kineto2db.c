/* libFuzzer harness: the Kineto JSON path of kineto2db (repair stage ->
 * yajl callbacks -> one event at a time -> hub rows) on arbitrary bytes,
 * into an in-memory hub (or the file TT_FUZZ_HUB names: fuzz_hub.h). The
 * same session as kineto2db_import (kineto_begin, kineto_feed,
 * kineto_end: kineto2db.h), without the file and gzip layer; in two
 * pieces, as the file is read in chunks, so tokens are split across.
 * Seeds: fixtures/kineto/. Built by `make fuzz` (FUZZ=1: clang, libFuzzer,
 * ASan, UBSan). */
#include <stdint.h>

#include "../converters/kineto2db/kineto2db.h"
#include "base/progress.h"
#include "base/util.h"
#include "fuzz_hub.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    tt_set_progname("kineto2db");
    tt_progress_init(-1); /* quiet: no warnings on stderr for every input */
    init = 1;
  }
  hub_writer *w = fuzz_hub_writer();
  kineto k;
  kineto_begin(&k, w, "fuzz-input", 0);
  size_t half = size / 2;
  int rc = kineto_feed(&k, data, half) || kineto_feed(&k, data + half, size - half) || kineto_end(&k);
  kineto_free(&k);
  if (rc == 0)
    hub_writer_finish(w);
  else
    hub_writer_abort(w);
  return 0;
}
