/* One growable array for the whole project.
 *
 *   TT_VEC(hub_thread_info) threads = {0};
 *   hub_thread_info *t = tt_vec_add(&threads);   // a new zeroed slot
 *   tt_vec_push(&ids, 42);                        // append a value
 *   tt_vec_free(&threads);
 *
 * A struct that keeps its array, count and capacity in fields of its own
 * names grows with tt_grow(ptr, need, cap) instead. Either way capacity
 * doubles (at least 8), so n appends cost O(n) whatever the element, and
 * new slots are zeroed. Out of memory or a size that overflows ends the
 * program through tt_die, as every tt_ allocation does. */
#ifndef TT_VEC_H
#define TT_VEC_H
#include <stddef.h>
#include <stdlib.h>

/* Returns p grown to hold at least need elements of elem bytes, the new
 * capacity in *cap; slots from the old capacity on are zeroed. */
void *tt_grow_(void *p, size_t *cap, size_t need, size_t elem);

#define tt_grow(ptr, need, cap) \
  ((need) > (cap) ? (void)((ptr) = tt_grow_((ptr), &(cap), (need), sizeof *(ptr))) : (void)0)

#define TT_VEC(T)  \
  struct {         \
    T *v;          \
    size_t n, cap; \
  }
#define tt_vec_reserve(vec, need) tt_grow((vec)->v, (need), (vec)->cap)
#define tt_vec_add(vec) (tt_vec_reserve((vec), (vec)->n + 1), &(vec)->v[(vec)->n++])
#define tt_vec_push(vec, item) (tt_vec_reserve((vec), (vec)->n + 1), (vec)->v[(vec)->n++] = (item))
#define tt_vec_free(vec) (free((vec)->v), (vec)->v = NULL, (vec)->n = (vec)->cap = 0)

#endif
