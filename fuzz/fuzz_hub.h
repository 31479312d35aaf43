/* The hub an importer's harness writes: in memory while fuzzing (no disk
 * writes per run), or the file the environment's TT_FUZZ_HUB names, made
 * anew for each input, so that a test (tests/tools/test_fuzz_harness.sh)
 * can read what the harness's own code path imported. Included by
 * fuzz/fuzz_file.h and fuzz/fuzz_kineto2db.c. */
#include <stdlib.h>
#include <unistd.h>

#include "hub/hub_writer.h"

static hub_writer *fuzz_hub_writer(void) {
  const char *path = getenv("TT_FUZZ_HUB");
  if (!path || !*path) return hub_writer_create(":memory:");
  unlink(path); /* a new database: the schema is created in it */
  return hub_writer_create(path);
}
