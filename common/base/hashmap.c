#include "base/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"

uint64_t tt_hash_bytes(const void *p, size_t n) {
  /* FNV-1a, 64-bit. */
  const unsigned char *s = p;
  uint64_t h = 1469598103934665603ULL;
  for (size_t i = 0; i < n; i++) {
    h ^= s[i];
    h *= 1099511628211ULL;
  }
  return h;
}

uint64_t tt_hash_mix(uint64_t h, uint64_t word) {
  h ^= word;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

static uint64_t hash_i64(int64_t k) {
  uint64_t x = (uint64_t)k;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

int64_t *tt_strmap_get(const tt_strmap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t i = tt_hash_bytes(key, strlen(key)) & (m->cap - 1);
  while (m->keys[i]) {
    if (strcmp(m->keys[i], key) == 0) return &m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

static void strmap_grow(tt_strmap *m) {
  tt_strmap n = {0};
  n.cap = m->cap ? m->cap * 2 : 64;
  n.keys = tt_calloc(n.cap, sizeof *n.keys);
  n.vals = tt_calloc(n.cap, sizeof *n.vals);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->keys[i]) continue;
    size_t j = tt_hash_bytes(m->keys[i], strlen(m->keys[i])) & (n.cap - 1);
    while (n.keys[j]) j = (j + 1) & (n.cap - 1);
    n.keys[j] = m->keys[i];
    n.vals[j] = m->vals[i];
  }
  n.count = m->count;
  free(m->keys);
  free(m->vals);
  *m = n;
}

void tt_strmap_put(tt_strmap *m, const char *key, int64_t val) {
  int64_t *slot = tt_strmap_get(m, key);
  if (slot) {
    *slot = val;
    return;
  }
  if ((m->count + 1) * 4 >= m->cap * 3) strmap_grow(m);
  size_t i = tt_hash_bytes(key, strlen(key)) & (m->cap - 1);
  while (m->keys[i]) i = (i + 1) & (m->cap - 1);
  m->keys[i] = tt_strdup(key);
  m->vals[i] = val;
  m->count++;
}

void tt_strmap_clear(tt_strmap *m) {
  for (size_t i = 0; i < m->cap; i++) {
    free(m->keys[i]);
    m->keys[i] = NULL;
  }
  m->count = 0;
}

void tt_strmap_free(tt_strmap *m) {
  tt_strmap_clear(m);
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

int64_t *tt_i64map_get(const tt_i64map *m, int64_t key) {
  if (!m->cap) return NULL;
  size_t i = hash_i64(key) & (m->cap - 1);
  while (m->used[i]) {
    if (m->keys[i] == key) return &m->vals[i];
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

static void i64map_grow(tt_i64map *m) {
  tt_i64map n = {0};
  n.cap = m->cap ? m->cap * 2 : 64;
  n.keys = tt_calloc(n.cap, sizeof *n.keys);
  n.vals = tt_calloc(n.cap, sizeof *n.vals);
  n.used = tt_calloc(n.cap, 1);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->used[i]) continue;
    size_t j = hash_i64(m->keys[i]) & (n.cap - 1);
    while (n.used[j]) j = (j + 1) & (n.cap - 1);
    n.used[j] = 1;
    n.keys[j] = m->keys[i];
    n.vals[j] = m->vals[i];
  }
  n.count = m->count;
  tt_i64map_free(m);
  *m = n;
}

void tt_i64map_put(tt_i64map *m, int64_t key, int64_t val) {
  int64_t *slot = tt_i64map_get(m, key);
  if (slot) {
    *slot = val;
    return;
  }
  if ((m->count + 1) * 4 >= m->cap * 3) i64map_grow(m);
  size_t i = hash_i64(key) & (m->cap - 1);
  while (m->used[i]) i = (i + 1) & (m->cap - 1);
  m->used[i] = 1;
  m->keys[i] = key;
  m->vals[i] = val;
  m->count++;
}

void tt_i64map_free(tt_i64map *m) {
  free(m->keys);
  free(m->vals);
  free(m->used);
  memset(m, 0, sizeof *m);
}
