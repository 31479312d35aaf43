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

/* Word-at-a-time (names and values are short: a byte-at-a-time hash was
 * most of a lookup). The last word overlaps the one before rather than
 * being read byte by byte; the length is mixed in, so keys differing only
 * in length still hash apart. */
static uint64_t word_at(const char *s) {
  uint64_t w;
  memcpy(&w, s, 8);
  return w;
}

uint64_t tt_hash_str(const char *s, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ n, w;
  if (n >= 8) {
    for (; n > 8; s += 8, n -= 8) {
      h = (h ^ word_at(s)) * 0xff51afd7ed558ccdULL;
      h ^= h >> 32;
    }
    w = word_at(s + n - 8);
  } else if (n >= 4) {
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    w = (uint64_t)a << 32 | b;
  } else {
    w = 0;
    for (size_t i = 0; i < n; i++) w = w << 8 | (unsigned char)s[i];
  }
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 29;
  return h ? h : 1;
}

/* The keys' arena: chunks that never move, so a slot's key pointer stays
 * valid; they grow with the map (a small map, one per open hub, stays
 * small) and are freed together. */
typedef struct tt_strchunk {
  struct tt_strchunk *next;
  size_t used, cap;
  char data[];
} tt_strchunk;

#define STRCHUNK_MIN 1024
#define STRCHUNK_MAX (64 * 1024)

static const char *arena_copy(tt_strmap *m, const char *key, size_t n) {
  tt_strchunk *c = m->arena;
  if (!c || c->cap - c->used < n + 1) {
    size_t cap = c ? 2 * c->cap : STRCHUNK_MIN;
    if (cap > STRCHUNK_MAX) cap = STRCHUNK_MAX;
    if (cap < n + 1) cap = n + 1;
    tt_strchunk *fresh = tt_malloc(sizeof *fresh + cap);
    fresh->next = c;
    fresh->used = 0;
    fresh->cap = cap;
    m->arena = c = fresh;
  }
  char *copy = c->data + c->used;
  memcpy(copy, key, n + 1);
  c->used += n + 1;
  return copy;
}

static tt_strslot *strmap_find(const tt_strmap *m, const char *key, uint64_t h) {
  for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    tt_strslot *e = &m->slots[i];
    if (!e->hash || (e->hash == h && strcmp(e->key, key) == 0)) return e;
  }
}

int64_t *tt_strmap_get(const tt_strmap *m, const char *key) {
  if (!m->cap) return NULL;
  tt_strslot *e = strmap_find(m, key, tt_hash_str(key, strlen(key)));
  return e->hash ? &e->val : NULL;
}

static void strmap_grow(tt_strmap *m) {
  size_t cap = m->cap ? m->cap * 2 : 64;
  tt_strslot *slots = tt_calloc(cap, sizeof *slots);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->slots[i].hash) continue;
    size_t j = m->slots[i].hash & (cap - 1);
    while (slots[j].hash) j = (j + 1) & (cap - 1);
    slots[j] = m->slots[i];
  }
  free(m->slots);
  m->slots = slots;
  m->cap = cap;
}

int64_t *tt_strmap_add(tt_strmap *m, const char *key, int64_t val, int *added) {
  size_t n = strlen(key);
  uint64_t h = tt_hash_str(key, n);
  if (m->cap) {
    tt_strslot *e = strmap_find(m, key, h);
    if (e->hash) {
      if (added) *added = 0;
      return &e->val;
    }
  }
  if ((m->count + 1) * 4 >= m->cap * 3) strmap_grow(m);
  tt_strslot *e = strmap_find(m, key, h); /* the empty slot it goes to */
  *e = (tt_strslot){h, arena_copy(m, key, n), val};
  m->count++;
  if (added) *added = 1;
  return &e->val;
}

void tt_strmap_put(tt_strmap *m, const char *key, int64_t val) {
  int added;
  int64_t *v = tt_strmap_add(m, key, val, &added);
  if (!added) *v = val;
}

void tt_strmap_clear(tt_strmap *m) {
  if (m->cap) memset(m->slots, 0, m->cap * sizeof *m->slots);
  m->count = 0;
  while (m->arena) {
    tt_strchunk *next = m->arena->next;
    free(m->arena);
    m->arena = next;
  }
}

void tt_strmap_free(tt_strmap *m) {
  tt_strmap_clear(m);
  free(m->slots);
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
