/* tt_nesting_place: where an interval goes so that every sub-lane nests
 * strictly (Perfetto and OTF2 need it), with sub-lanes worked out by hand. */
#include <stdint.h>

#include "../common/cli/tracks.h"
#include "unit.h"

static void place(tt_nesting *n, uint64_t lane, int64_t start, int64_t end, int want) {
  int got = tt_nesting_place(n, lane, start, end);
  CHECK(got == want, "lane %llu [%lld, %lld) -> sub-lane %d (want %d)", (unsigned long long)lane,
        (long long)start, (long long)end, got, want);
}

int main(void) {
  tt_nesting *n = tt_nesting_new();
  place(n, 1, 0, 10, 0);
  place(n, 1, 2, 5, 0);   /* nested */
  place(n, 1, 5, 8, 0);   /* [2,5) has closed, nests under [0,10) */
  place(n, 1, 8, 12, 1);  /* ends after [0,10): overflow sub-lane */
  place(n, 1, 9, 11, 1);  /* nests under [8,12) */
  place(n, 1, 10, 20, 0); /* [0,10) closed at 10 */
  place(n, 1, 12, 13, 0);
  place(n, 2, 8, 12, 0);  /* another lane: its own stack */
  place(n, 2, 8, 12, 0);  /* equal interval nests */
  place(n, 2, 12, 12, 0); /* zero length at the end: [8,12) has closed */
  place(n, 3, 0, 10, 0);  /* a staircase: each one its own sub-lane */
  place(n, 3, 1, 11, 1);
  place(n, 3, 2, 12, 2);
  place(n, 3, 3, 4, 0);   /* under [0,10) again */
  place(n, 3, 12, 14, 0); /* everything before has closed */
  place(n, UINT64_MAX, INT64_MIN, INT64_MAX, 0);
  place(n, UINT64_MAX, -5, 5, 0);
  place(n, 0, -20, -10, 0);
  place(n, 0, -15, -5, 1);
  tt_nesting_free(n);
  tt_nesting_free(NULL);
  return failures ? 1 : 0;
}
