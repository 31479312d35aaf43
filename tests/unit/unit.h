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
#endif
