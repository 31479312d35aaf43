/* What the exporters' command line and split rest on, with values worked
 * out by hand: tt_parse_duration (--window-size, --start/--end) and
 * tt_part_path (the names of split parts). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../common/cli/export.h"
#include "unit.h"

#define N(a) (sizeof a / sizeof *a)

static const struct {
  const char *text;
  int64_t ns;
} durations[] = {
    /* Every unit, and a bare number as ns. */
    {"250ms", 250000000},
    {"1.5s", 1500000000},
    {"100us", 100000},
    {"42ns", 42},
    {"42", 42},
    {"0", 0},
    {"0s", 0},
    {"1ms", 1000000}, /* not "1m" + "s" */
    {"+5ms", 5000000},
    {"1e3us", 1000000},   /* an exponent, as the decimal parser reads it */
    {"0.0000000015s", 2}, /* 1.5 ns rounds half away from zero */
    {"1.25us", 1250},
    {"9223372036854775807", INT64_MAX},
    {"9223372036s", 9223372036000000000},
};

/* No number, an unknown or misspelt unit, negative, past int64. */
static const char *const refused[] = {
    "", "ms", "s", "1m", "10S", "5 ms", "1h", "abc", "-5ms", "-1", "1.2.3s",
    "9223372036854775808", "9223372037s",
};

static const struct {
  const char *output, *tag, *path;
} parts[] = {
    /* The tag goes before the extension; ".json.gz" counts as one. */
    {"t.json", ".w003", "t.w003.json"},
    {"t.json.gz", ".w003", "t.w003.json.gz"},
    {"out.tar.gz", ".p5", "out.p5.tar.gz"},
    {"t.gz", ".w0", "t.w0.gz"},
    {"a.b.c", ".w1", "a.b.w1.c"},
    {"t", ".w003", "t.w003"},
    {"t.", ".w0", "t.w0."},
    /* A dot in a directory name or a leading dot is no extension. */
    {"run.d/t", ".p12", "run.d/t.p12"},
    {"run.d/t.pftrace", ".p12", "run.d/t.p12.pftrace"},
    {".hidden", ".w0", ".hidden.w0"},
    {"dir/.json.gz", ".w1", "dir/.json.w1.gz"},
    {"/abs/x.otf2", ".p1234", "/abs/x.p1234.otf2"},
    {"t.json", "", "t.json"},
};

int main(void) {
  for (size_t i = 0; i < N(durations); i++) {
    int64_t got = -7;
    int rc = tt_parse_duration(durations[i].text, &got);
    CHECK(rc == 0 && got == durations[i].ns, "duration \"%s\" -> rc %d, %lld (want %lld)",
          durations[i].text, rc, (long long)got, (long long)durations[i].ns);
  }
  for (size_t i = 0; i < N(refused); i++) {
    int64_t got = -7;
    int rc = tt_parse_duration(refused[i], &got);
    CHECK(rc == -1, "duration \"%s\" refused (rc %d, %lld)", refused[i], rc, (long long)got);
  }
  for (size_t i = 0; i < N(parts); i++) {
    char *got = tt_part_path(parts[i].output, parts[i].tag);
    CHECK(strcmp(got, parts[i].path) == 0, "part path \"%s\" + \"%s\" -> \"%s\" (want \"%s\")",
          parts[i].output, parts[i].tag, got, parts[i].path);
    free(got);
  }
  return failures ? 1 : 0;
}
