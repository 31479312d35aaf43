/* tt_decimal_to_int_scaled: the int64 fast path (at most 18 digits, no
 * exponent) and the exact __int128 path give the values worked out by
 * hand here, on both sides of the 18-digit boundary. */
#include <stdint.h>
#include <string.h>

#include "../common/base/util.h"
#include "unit.h"

static void expect(const char *s, int64_t scale, int rc, int64_t want) {
  int64_t got = 0;
  int r = tt_decimal_to_int_scaled(s, strlen(s), scale, &got);
  CHECK(r == rc && (rc != 0 || got == want), "\"%s\" x %lld -> rc %d, %lld (want rc %d, %lld)", s,
        (long long)scale, r, (long long)got, rc, (long long)want);
}

int main(void) {
  expect("1695835536123.456", 1000, 0, 1695835536123456);    /* Kineto ts, us -> ns */
  expect("1695835536123.4567", 1000, 0, 1695835536123457);   /* rounds up */
  expect("12.3454", 1000, 0, 12345);                         /* rounds down */
  expect("0.0005", 1000, 0, 1);                              /* half away from zero */
  expect("-0.0005", 1000, 0, -1);
  expect("-42", 1, 0, -42);
  expect("+7.", 10, 0, 70);
  expect("123456789012345678", 1, 0, 123456789012345678);    /* 18 digits: fast path */
  expect("9223372036854775807", 1, 0, INT64_MAX);            /* 19 digits: exact path */
  expect("9223372036854775808", 1, -1, 0);                   /* past int64 */
  expect("9223372036854775.807", 1000, 0, INT64_MAX);        /* 19 digits scaled */
  expect("922337203685477.5808", 10000, -1, 0);              /* overflows once scaled */
  expect("9223372036854775.80", 1000, 0, 9223372036854775800); /* 18 digits, overflows before the division */
  expect("1e3", 1000, 0, 1000000);                           /* exponent: exact path */
  expect("2.5e-3", 1000, 0, 3);
  expect(".", 1, -1, 0);
  expect("", 1, -1, 0);
  expect("12a", 1, -1, 0);
  expect("1.2.3", 1, -1, 0);
  return failures ? 1 : 0;
}
