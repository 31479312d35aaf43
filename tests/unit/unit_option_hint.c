/* tt_option_nearest (the "did you mean" of a misspelt option) with
 * distances worked out by hand: insertions, deletions, substitutions and
 * swaps of neighbours each count 1; a guess is made within a third of the
 * name (at least 1, at most 3). */
#include <getopt.h>
#include <string.h>

#include "../common/cli/option_hint.h"
#include "unit.h"

static const struct option opts[] = {
    {"format", required_argument, NULL, 1}, {"output", required_argument, NULL, 2},
    {"progress", no_argument, NULL, 3},     {"split", required_argument, NULL, 4},
    {"start", required_argument, NULL, 5},  {"top", required_argument, NULL, 6},
    {"max-part-size", required_argument, NULL, 7}, {NULL, 0, NULL, 0}};

static void near(const char *given, const char *want) {
  const char *got = tt_option_nearest(given, opts);
  CHECK((!got && !want) || (got && want && strcmp(got, want) == 0), "nearest \"%s\" -> %s (want %s)",
        given, got ? got : "none", want ? want : "none");
}

int main(void) {
  near("formt", "format");       /* a deletion: 1, limit 5/3 = 1 */
  near("fromat", "format");      /* a swap of neighbours: 1 */
  near("outptu", "output");      /* a swap: 1, limit 2 */
  near("formt=csv", "format");   /* the value is not part of the name */
  near("progres", "progress");   /* a deletion: 1 */
  near("prgoress", "progress");  /* a swap: 1 */
  near("tpo", "top");            /* a swap: 1, limit 1 */
  near("xyz", NULL);             /* 3 from "top", limit 1 */
  near("max-part-sise", "max-part-size"); /* a substitution: 1 */
  near("max-size", NULL);        /* 5 from "max-part-size", limit 2 */
  near("no-such-option", NULL);  /* far from every one */
  near("sptil", NULL);           /* "split": 2 (two swaps are not neighbours'), limit 1 */
  return failures ? 1 : 0;
}
