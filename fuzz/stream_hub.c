/* stream_hub INPUT OUT.db: the hub an exporter harness (fuzz_db2json,
 * fuzz_db2perfetto, fuzz_db2otf2) builds from a fuzzer input, written to
 * OUT.db, so scripts/fuzz-to-case.sh can turn a finding into a tests/data/bad
 * case on the exporter itself. Built with the tools (`make all`). */
#include <stdlib.h>

#include "fuzz_stream.h"

int main(int argc, char **argv) {
  tt_set_progname("stream_hub");
  if (argc != 3) {
    fprintf(stderr, "usage: stream_hub INPUT OUT.db\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) tt_die(1, "%s: cannot open", argv[1]);
  tt_buf in = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tt_buf_append(&in, chunk, n);
  fclose(f);
  int rc = fuzz_hub(argv[2], (const uint8_t *)in.data, in.len);
  tt_buf_free(&in);
  return rc == 0 ? 0 : 1;
}
