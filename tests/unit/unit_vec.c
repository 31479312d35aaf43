/* vec.h: values kept across growth, new slots zeroed, capacity doubling
 * (so growing one at a time is amortised: few reallocations for many
 * appends), and the field form tt_grow on a struct's own names. */
#include <stdint.h>
#include <stdlib.h>

#include "../common/base/vec.h"
#include "unit.h"

typedef struct pair {
  int64_t a;
  const char *b;
} pair;

int main(void) {
  TT_VEC(int64_t) ids = {0};
  size_t grows = 0, last_cap = 0;
  for (int64_t i = 0; i < 100000; i++) {
    tt_vec_push(&ids, i * 3);
    if (ids.cap != last_cap) grows++, last_cap = ids.cap;
  }
  int kept = 1;
  for (size_t i = 0; i < ids.n; i++)
    if (ids.v[i] != (int64_t)i * 3) kept = 0;
  CHECK(ids.n == 100000 && kept, "100000 pushes: every value kept in order");
  CHECK(grows <= 15, "capacity grew %zu times for 100000 appends (doubling from 8: 15)", grows);
  CHECK(ids.cap >= ids.n && ids.cap < 2 * ids.n, "capacity %zu: at least n, under 2n", ids.cap);
  tt_vec_free(&ids);
  CHECK(ids.v == NULL && ids.n == 0 && ids.cap == 0, "free leaves an empty vector, reusable");

  TT_VEC(pair) pairs = {0};
  int zeroed = 1;
  for (int i = 0; i < 50; i++) {
    pair *p = tt_vec_add(&pairs);
    if (p->a != 0 || p->b != NULL) zeroed = 0;
    p->a = i;
    p->b = "x";
  }
  CHECK(zeroed && pairs.n == 50 && pairs.v[49].a == 49, "tt_vec_add gives 50 zeroed slots in turn");
  tt_vec_free(&pairs);

  /* The field form: a struct's own array, count and capacity. */
  struct {
    double *vals;
    size_t nvals, capvals;
  } s = {0};
  for (int i = 0; i < 20; i++) {
    tt_grow(s.vals, s.nvals + 1, s.capvals);
    s.vals[s.nvals++] = i + 0.5;
  }
  tt_grow(s.vals, 5, s.capvals); /* asking for less than held changes nothing */
  CHECK(s.nvals == 20 && s.vals[19] == 19.5 && s.capvals == 32, "tt_grow on own fields: 20 values, capacity 32");
  tt_grow(s.vals, 1000, s.capvals);
  CHECK(s.capvals == 1000 && s.vals[0] == 0.5 && s.vals[999] == 0.0,
        "a jump past double the capacity gives exactly what was asked, zeroed");
  free(s.vals);
  return failures != 0;
}
