/* Open-addressing hash maps used for interning: string -> int64 and
 * int64 -> int64. Sized by distinct keys (names, threads), never by events. */
#ifndef TT_HASHMAP_H
#define TT_HASHMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct tt_strmap {
  char **keys;
  int64_t *vals;
  size_t cap, count;
} tt_strmap;

/* Returns a pointer to the value slot for key, or NULL if absent. */
int64_t *tt_strmap_get(const tt_strmap *m, const char *key);
/* Inserts (copying key) or overwrites. */
void tt_strmap_put(tt_strmap *m, const char *key, int64_t val);
void tt_strmap_clear(tt_strmap *m);
void tt_strmap_free(tt_strmap *m);

typedef struct tt_i64map {
  int64_t *keys;
  int64_t *vals;
  unsigned char *used;
  size_t cap, count;
} tt_i64map;

int64_t *tt_i64map_get(const tt_i64map *m, int64_t key);
void tt_i64map_put(tt_i64map *m, int64_t key, int64_t val);
void tt_i64map_free(tt_i64map *m);

uint64_t tt_hash_bytes(const void *p, size_t n);
/* Folds one 64-bit word into hash h (murmur3's finalizer): hashes a key
 * of a few integers word by word, far cheaper than tt_hash_bytes on them. */
uint64_t tt_hash_mix(uint64_t h, uint64_t word);

#endif
