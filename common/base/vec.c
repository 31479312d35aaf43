/* tt_grow_: the one place an array of the project grows (vec.h). */
#include "base/vec.h"

#include <stdint.h>
#include <string.h>

#include "base/util.h"

void *tt_grow_(void *p, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap) return p;
  size_t n = *cap < 4 ? 8 : *cap * 2;
  if (n < need || n < *cap) n = need;
  if (elem && n > SIZE_MAX / elem) tt_die(3, "out of memory (%zu elements of %zu bytes)", need, elem);
  char *q = tt_realloc(p, n * elem);
  memset(q + *cap * elem, 0, (n - *cap) * elem);
  *cap = n;
  return q;
}
