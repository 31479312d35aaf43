/* Open-addressing hash maps used for interning: string -> int64 and
 * int64 -> int64. Sized by distinct keys (names, threads), never by events. */
#ifndef TT_HASHMAP_H
#define TT_HASHMAP_H
#include <stddef.h>
#include <stdint.h>

/* A string key's slot: hash 0 marks it empty (key hashes are never 0);
 * the hash is kept so that a probe compares strings only when the hashes
 * match (a strcmp per probe was a cache miss per probe on large maps) and
 * growing needs no rehashing. key points into the map's arena. */
typedef struct tt_strslot {
  uint64_t hash;
  const char *key;
  int64_t val;
} tt_strslot;

typedef struct tt_strmap {
  tt_strslot *slots; /* cap of them; iterate over those with a key */
  size_t cap, count;
  struct tt_strchunk *arena; /* the keys' copies, freed together */
} tt_strmap;

/* Returns a pointer to the value slot for key, or NULL if absent. */
int64_t *tt_strmap_get(const tt_strmap *m, const char *key);
/* Inserts (copying key) or overwrites. */
void tt_strmap_put(tt_strmap *m, const char *key, int64_t val);
/* The value slot of key, adding key with val first when it is absent
 * (*added says which): one lookup where get-then-put takes two. The
 * pointer is valid until the next insertion. */
int64_t *tt_strmap_add(tt_strmap *m, const char *key, int64_t val, int *added);
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

/* FNV-1a: stable across versions, so it may name things kept in a hub. */
uint64_t tt_hash_bytes(const void *p, size_t n);
/* A word-at-a-time hash of the n bytes at s, for in-memory tables only (it
 * may change): several times faster than tt_hash_bytes on names. Never 0. */
uint64_t tt_hash_str(const char *s, size_t n);
/* Folds one 64-bit word into hash h (murmur3's finalizer): hashes a key
 * of a few integers word by word, far cheaper than tt_hash_bytes on them. */
uint64_t tt_hash_mix(uint64_t h, uint64_t word);

#endif
