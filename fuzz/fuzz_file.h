/* What the file-reading harnesses share: the fuzzer's bytes written to a
 * file of this process (the readers open paths: SQLite files, the
 * ExecuTorch buffers), and the importer's own import function run on it
 * into an in-memory hub (fuzz_hub.h), as tt_import_run does with a file
 * hub. Included by fuzz/fuzz_etprof2db_*.c, fuzz_rpd2db.c, fuzz_nvvp2db.c
 * and fuzz_nsys2db.c. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/import_cli.h"
#include "base/progress.h"
#include "base/util.h"
#include "fuzz_hub.h"

/* The input file of this process (in /dev/shm when there is one: no disk
 * writes per run), rewritten with data; NULL when it cannot be written. */
static const char *fuzz_input_file(const char *tool, const uint8_t *data, size_t size) {
  static char path[128];
  if (!path[0])
    snprintf(path, sizeof path, "%s/fuzz-%s-%ld.in", access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp",
             tool, (long)getpid());
  FILE *f = fopen(path, "wb");
  if (!f) return NULL;
  int ok = fwrite(data, 1, size, f) == size;
  if (fclose(f) != 0) ok = 0;
  return ok ? path : NULL;
}

/* fn on the file as tt_import_run runs it, into fuzz_hub_writer's hub; fn's
 * result (0 imported), -1 when the file could not be written. */
static int fuzz_import(const char *tool, tt_import_fn fn, void *ctx, const uint8_t *data,
                        size_t size) {
  static int init;
  if (!init) {
    tt_set_progname(tool);
    tt_progress_init(-1); /* quiet: no warnings on stderr for every input */
    init = 1;
  }
  const char *in = fuzz_input_file(tool, data, size);
  if (!in) return -1;
  /* The output is only a name (rpd2db unpacks a .rpd.gz beside it). */
  static char out[160];
  snprintf(out, sizeof out, "%s.db", in);
  tt_import_opts opts = {.input = in, .output = out, .progress_mode = -1};
  hub_writer *w = fuzz_hub_writer();
  int rc = fn(w, &opts, ctx);
  if (rc == 0)
    hub_writer_finish(w);
  else
    hub_writer_abort(w);
  unlink(in);
  return rc;
}
