/* A verifier-first flatbuffer reader, just enough for ETDump. Debian ships
 * no C flatbuffers runtime (libflatbuffers-dev is C++ only, flatcc is not
 * packaged), so this is the project's one hand-written format reader
 * (ARCHITECTURE.md). Every access checks before it reads: the table's
 * vtable and both their lengths against the buffer, each field against the
 * table's length, every offset's target, vector length and string bounds
 * (with its NUL) against the buffer. Offsets to tables, vectors and
 * strings (uoffset) are unsigned and must be non-zero, so each one followed
 * moves strictly forward: no chain of them can loop. Nesting is also
 * capped (FB_MAX_DEPTH). Values are read with memcpy-free byte loads, so
 * alignment is never assumed. Errors print "PATH: byte N: what: problem",
 * N being the offset in the file. */
#ifndef ETPROF2DB_FB_H
#define ETPROF2DB_FB_H
#include <stddef.h>
#include <stdint.h>

#define FB_MAX_DEPTH 16

typedef struct fb {
  const uint8_t *p; /* the buffer (after a size prefix) */
  uint64_t len;
  uint64_t base; /* file offset of p[0] */
  const char *path;
} fb;

typedef struct fb_table {
  uint64_t pos, vt;
  uint32_t vtlen, tlen;
  int depth;
} fb_table;

typedef struct fb_vec {
  uint64_t pos; /* first element */
  uint32_t n;
  int depth; /* of the table holding it */
} fb_vec;

/* The root table of a buffer whose identifier (bytes 4..7) is `ident`. */
int fb_root(const fb *b, const char *ident, const char *what, fb_table *root);

/* Field `id` of t: 1 present (value in *out), 0 absent (*out = dflt),
 * -1 invalid (message printed). */
int fb_u8(const fb *b, const fb_table *t, int id, uint8_t dflt, const char *what, uint8_t *out);
int fb_i32(const fb *b, const fb_table *t, int id, int32_t dflt, const char *what, int32_t *out);
int fb_u32(const fb *b, const fb_table *t, int id, uint32_t dflt, const char *what, uint32_t *out);
int fb_u64(const fb *b, const fb_table *t, int id, uint64_t dflt, const char *what, uint64_t *out);
int fb_f32(const fb *b, const fb_table *t, int id, float dflt, const char *what, float *out);
int fb_f64(const fb *b, const fb_table *t, int id, double dflt, const char *what, double *out);
/* A string: *s points into the buffer (NUL-terminated there), *n its length. */
int fb_string(const fb *b, const fb_table *t, int id, const char *what, const char **s,
              uint32_t *n);
/* A sub-table. */
int fb_subtable(const fb *b, const fb_table *t, int id, const char *what, fb_table *out);
/* A vector of elem_size-byte scalars or of offsets (elem_size 4). */
int fb_vector(const fb *b, const fb_table *t, int id, uint32_t elem_size, const char *what,
              fb_vec *v);
/* Element i (< v->n) of a vector of tables. 0 or -1. */
int fb_vec_table(const fb *b, const fb_vec *v, uint32_t i, const char *what, fb_table *out);
/* Element i of a vector of 8-byte integers (bounds already checked). */
uint64_t fb_vec_u64(const fb *b, const fb_vec *v, uint32_t i);
/* File offset of a buffer position, for messages. */
static inline unsigned long long fb_at(const fb *b, uint64_t pos) {
  return (unsigned long long)(b->base + pos);
}

#endif
