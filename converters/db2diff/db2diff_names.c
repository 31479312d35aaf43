/* One string table for both sides: a name has one id whichever side it
 * came from, so keys compare as integers (db2diff.h). */
#include <stddef.h>

#include "db2diff.h"

int32_t dd_name_id(dd_names *n, const char *s) {
  int added = 0;
  int64_t *val = tt_strmap_add(&n->ids, s, (int64_t)n->str.n, &added);
  if (added) {
    /* the map's copy of the key never moves (hashmap.h: its arena) */
    const tt_strslot *slot = (const tt_strslot *)((const char *)val - offsetof(tt_strslot, val));
    tt_vec_push(&n->str, slot->key);
  }
  return (int32_t)*val;
}

const char *dd_name(const dd_names *n, int32_t id) {
  return id < 0 || (size_t)id >= n->str.n ? "" : n->str.v[id];
}

void dd_names_free(dd_names *n) {
  tt_strmap_free(&n->ids);
  tt_vec_free(&n->str);
}
