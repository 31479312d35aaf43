/* What stands in for libFuzzer when a harness is built without FUZZ=1
 * (gcc, `make all`): its LLVMFuzzerTestOneInput run once on each file
 * named on the command line, in order, as libFuzzer runs a saved input.
 * So every harness is compiled and run by make check with or without
 * clang (tests/tools/test_fuzz_harness.sh). Exit 0 when every file was
 * read; a crash or a sanitizer's finding ends the process as under
 * libFuzzer. */
#include <stdint.h>
#include <stdio.h>

#include "base/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s INPUT...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "%s: %s: cannot open\n", argv[0], argv[i]);
      return 1;
    }
    tt_buf in = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) tt_buf_append(&in, chunk, n);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
      fprintf(stderr, "%s: %s: read error\n", argv[0], argv[i]);
      tt_buf_free(&in);
      return 1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)(in.data ? in.data : ""), in.len);
    tt_buf_free(&in);
  }
  return 0;
}
