/* tt_strmap: what interning relies on. Keys that share a hash prefix,
 * differ only in length, are empty or longer than an arena chunk; growth
 * past many thousands of keys; clear and reuse; every key reached by
 * walking the slots (db2otf2 writes its strings that way). */
#include <stdlib.h>
#include <string.h>

#include "../common/base/hashmap.h"
#include "unit.h"

#define MANY 100000

static void key_of(char *buf, size_t n, int i) { snprintf(buf, n, "kernel_%d_name", i); }

int main(void) {
  tt_strmap m = {0};
  CHECK(tt_strmap_get(&m, "x") == NULL, "empty map: no key found");

  /* Keys a byte apart, a prefix of each other, empty, and with 8-byte words
   * in common (the hash reads words). */
  const char *keys[] = {"", "a", "ab", "abc", "abcd", "abcdefgh", "abcdefghi", "abcdefgh0",
                        "0abcdefgh", "hipLaunchKernel", "hipLaunchKernelGGL"};
  size_t nkeys = sizeof keys / sizeof *keys;
  for (size_t i = 0; i < nkeys; i++) tt_strmap_put(&m, keys[i], (int64_t)i * 10);
  int all = 1;
  for (size_t i = 0; i < nkeys; i++) {
    int64_t *v = tt_strmap_get(&m, keys[i]);
    if (!v || *v != (int64_t)i * 10) all = 0;
  }
  CHECK(all && m.count == nkeys, "%zu near-alike keys each find their own value", nkeys);
  CHECK(tt_strmap_get(&m, "abcdefg") == NULL && tt_strmap_get(&m, "abcdefghij") == NULL,
        "a key one byte shorter or longer than a stored one is absent");

  tt_strmap_put(&m, "ab", 7);
  CHECK(*tt_strmap_get(&m, "ab") == 7 && m.count == nkeys, "put overwrites, count unchanged");

  int added = -1;
  int64_t *v = tt_strmap_add(&m, "abc", 99, &added);
  CHECK(added == 0 && *v == 30, "add of a present key: not added, its value kept (30)");
  v = tt_strmap_add(&m, "new key", 5, &added);
  CHECK(added == 1 && *v == 5 && m.count == nkeys + 1, "add of an absent key: added with 5");

  /* A key longer than the largest arena chunk (64 KiB) gets a chunk of its
   * own; the key is copied, not kept by reference. */
  size_t long_len = 200000;
  char *long_key = malloc(long_len + 1);
  memset(long_key, 'z', long_len);
  long_key[long_len] = 0;
  tt_strmap_put(&m, long_key, 42);
  long_key[0] = 'y';
  CHECK(tt_strmap_get(&m, long_key) == NULL, "the map keeps its own copy of a key");
  long_key[0] = 'z';
  v = tt_strmap_get(&m, long_key);
  CHECK(v && *v == 42, "a %zu-byte key is found", long_len);
  free(long_key);

  /* Growth: many keys, every one still found with its value. */
  tt_strmap_clear(&m);
  CHECK(m.count == 0 && tt_strmap_get(&m, "abc") == NULL, "clear forgets every key");
  char buf[64];
  for (int i = 0; i < MANY; i++) {
    key_of(buf, sizeof buf, i);
    tt_strmap_put(&m, buf, i);
  }
  int found = 0;
  for (int i = 0; i < MANY; i++) {
    key_of(buf, sizeof buf, i);
    v = tt_strmap_get(&m, buf);
    if (v && *v == i) found++;
  }
  CHECK(found == MANY && m.count == MANY, "%d keys after growth: %d found with their values",
        MANY, found);

  /* Walking the slots reaches each key once, with its value. */
  char *seen = calloc(MANY, 1);
  int walked = 0, right = 1;
  for (size_t i = 0; i < m.cap; i++) {
    if (!m.slots[i].key) continue;
    walked++;
    int64_t k = m.slots[i].val;
    key_of(buf, sizeof buf, (int)k);
    if (k < 0 || k >= MANY || seen[k] || strcmp(buf, m.slots[i].key) != 0) right = 0;
    else seen[k] = 1;
  }
  CHECK(walked == MANY && right, "walking the slots: %d keys, each once with its value", walked);
  free(seen);
  tt_strmap_free(&m);
  CHECK(m.cap == 0 && m.count == 0 && m.slots == NULL, "free leaves an empty map");
  return failures ? 1 : 0;
}
