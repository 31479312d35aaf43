/* The verifier-first flatbuffer reader (contract in etprof2db_fb.h). */
#include "etprof2db_fb.h"

#include <string.h>

#include "base/util.h"

static uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t rd32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t rd64(const uint8_t *p) { return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32; }

static int bad(const fb *b, uint64_t pos, const char *what, const char *problem) {
  tt_error("%s: byte %llu: %s: %s", b->path, fb_at(b, pos), what, problem);
  return -1;
}

/* [pos, pos + n) lies inside the buffer (no overflow: all are < 2^63). */
static int inside(const fb *b, uint64_t pos, uint64_t n) { return pos <= b->len && n <= b->len - pos; }

static int table_at(const fb *b, uint64_t pos, int depth, const char *what, fb_table *t) {
  if (depth > FB_MAX_DEPTH) return bad(b, pos, what, "tables nested deeper than the schema allows");
  if (!inside(b, pos, 4)) return bad(b, pos, what, "table offset points outside the buffer");
  int64_t soff = (int32_t)rd32(b->p + pos);
  int64_t vt = (int64_t)pos - soff;
  if (vt < 0 || !inside(b, (uint64_t)vt, 4))
    return bad(b, pos, what, "vtable offset points outside the buffer");
  t->pos = pos;
  t->vt = (uint64_t)vt;
  t->vtlen = rd16(b->p + t->vt);
  t->tlen = rd16(b->p + t->vt + 2);
  t->depth = depth;
  if (t->vtlen < 4 || (t->vtlen & 1) || !inside(b, t->vt, t->vtlen))
    return bad(b, t->vt, what, "vtable length is invalid or runs past the end of the buffer");
  if (t->tlen < 4 || !inside(b, pos, t->tlen))
    return bad(b, pos, what, "table length is invalid or runs past the end of the buffer");
  return 0;
}

int fb_root(const fb *b, const char *ident, const char *what, fb_table *root) {
  if (b->len < 8) return bad(b, 0, what, "buffer shorter than a flatbuffer header (8 bytes)");
  if (memcmp(b->p + 4, ident, 4) != 0) return bad(b, 4, what, "wrong file identifier");
  uint32_t off = rd32(b->p);
  if (off < 8) return bad(b, 0, what, "root table offset points into the header");
  return table_at(b, off, 0, what, root);
}

/* Position of field id's `size` bytes: 1 present, 0 absent, -1 bad. */
static int field(const fb *b, const fb_table *t, int id, uint32_t size, const char *what,
                 uint64_t *pos) {
  uint32_t vo = 4 + 2 * (uint32_t)id;
  if (vo + 2 > t->vtlen) return 0;
  uint16_t fo = rd16(b->p + t->vt + vo);
  if (fo == 0) return 0;
  if (fo < 4 || (uint32_t)fo + size > t->tlen)
    return bad(b, t->vt + vo, what, "field lies outside its table");
  *pos = t->pos + fo;
  return 1;
}

#define SCALAR(fn, type, size, load)                                                       \
  int fn(const fb *b, const fb_table *t, int id, type dflt, const char *what, type *out) { \
    uint64_t pos;                                                                          \
    int r = field(b, t, id, size, what, &pos);                                             \
    *out = dflt;                                                                           \
    if (r == 1) *out = load;                                                               \
    return r;                                                                              \
  }
SCALAR(fb_u8, uint8_t, 1, b->p[pos])
SCALAR(fb_i32, int32_t, 4, (int32_t)rd32(b->p + pos))
SCALAR(fb_u32, uint32_t, 4, rd32(b->p + pos))
SCALAR(fb_u64, uint64_t, 8, rd64(b->p + pos))

int fb_f32(const fb *b, const fb_table *t, int id, float dflt, const char *what, float *out) {
  uint32_t bits;
  int r = fb_u32(b, t, id, 0, what, &bits);
  *out = dflt;
  if (r == 1) memcpy(out, &bits, 4);
  return r;
}

int fb_f64(const fb *b, const fb_table *t, int id, double dflt, const char *what, double *out) {
  uint64_t bits;
  int r = fb_u64(b, t, id, 0, what, &bits);
  *out = dflt;
  if (r == 1) memcpy(out, &bits, 8);
  return r;
}

/* Follows the uoffset at pos: the target must lie forward, with room for
 * at least 4 bytes. */
static int follow(const fb *b, uint64_t pos, const char *what, uint64_t *target) {
  uint32_t u = rd32(b->p + pos);
  if (u == 0) return bad(b, pos, what, "offset 0 (points at itself)");
  *target = pos + u;
  if (!inside(b, *target, 4)) return bad(b, pos, what, "offset points outside the buffer");
  return 0;
}

static int ref(const fb *b, const fb_table *t, int id, const char *what, uint64_t *target) {
  uint64_t pos;
  int r = field(b, t, id, 4, what, &pos);
  if (r != 1) return r;
  return follow(b, pos, what, target) ? -1 : 1;
}

int fb_string(const fb *b, const fb_table *t, int id, const char *what, const char **s,
              uint32_t *n) {
  uint64_t at;
  *s = NULL;
  *n = 0;
  int r = ref(b, t, id, what, &at);
  if (r != 1) return r;
  uint32_t len = rd32(b->p + at);
  if (!inside(b, at + 4, (uint64_t)len + 1))
    return bad(b, at, what, "string length runs past the end of the buffer");
  if (b->p[at + 4 + len] != 0) return bad(b, at + 4 + len, what, "string lacks its NUL terminator");
  *s = (const char *)b->p + at + 4;
  *n = len;
  return 1;
}

int fb_subtable(const fb *b, const fb_table *t, int id, const char *what, fb_table *out) {
  uint64_t at;
  int r = ref(b, t, id, what, &at);
  if (r != 1) return r;
  return table_at(b, at, t->depth + 1, what, out) ? -1 : 1;
}

int fb_vector(const fb *b, const fb_table *t, int id, uint32_t elem_size, const char *what,
              fb_vec *v) {
  uint64_t at;
  v->n = 0;
  v->pos = 0;
  v->depth = t->depth;
  int r = ref(b, t, id, what, &at);
  if (r != 1) return r;
  uint32_t n = rd32(b->p + at);
  if (!inside(b, at + 4, (uint64_t)n * elem_size))
    return bad(b, at, what, "vector length runs past the end of the buffer");
  v->n = n;
  v->pos = at + 4;
  return 1;
}

int fb_vec_table(const fb *b, const fb_vec *v, uint32_t i, const char *what, fb_table *out) {
  uint64_t e = v->pos + 4 * (uint64_t)i, at;
  if (follow(b, e, what, &at)) return -1;
  return table_at(b, at, v->depth + 1, what, out);
}

uint64_t fb_vec_u64(const fb *b, const fb_vec *v, uint32_t i) {
  return rd64(b->p + v->pos + 8 * (uint64_t)i);
}
