/* What every C unit test (tests/unit/unit_*.c) shares: CHECK prints one
 * "PASS: ..." or "FAIL: ..." line (tests/run.sh counts them) and counts
 * failures for main's exit code. */
#ifndef TT_TESTS_UNIT_H
#define TT_TESTS_UNIT_H
#include <stdio.h>

static int failures;
#define CHECK(cond, ...)            \
  do {                              \
    if (cond) {                     \
      printf("PASS: " __VA_ARGS__); \
    } else {                        \
      printf("FAIL: " __VA_ARGS__); \
      failures++;                   \
    }                               \
    printf("\n");                   \
    fflush(stdout);                 \
  } while (0)

/* Writes text to path, a file a test makes; 0, or -1 when it cannot. */
static inline int unit_write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = fputs(text, f) >= 0;
  return fclose(f) == 0 && ok ? 0 : -1;
}
#endif
