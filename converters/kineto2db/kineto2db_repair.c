/* The JSON PyTorch has written that JSON forbids, repaired between zlib and
 * yajl (whose lexer refuses it and cannot resume):
 *   - raw control characters inside strings → \u00XX (the text is kept);
 *   - a backslash that starts no valid escape (torch\cuda\__init__.py) →
 *     "\\" (the backslash is kept);
 *   - invalid UTF-8 inside strings → U+FFFD, one per invalid byte;
 *   - NaN, Infinity, -Infinity, nan, inf (any case) outside strings → the
 *     same word as a string.
 * A chunk that needs no repair is handed to yajl as it is (no copy): 64
 * bytes at a time, SSE2 or AVX2 compares give the quotes, the special bytes and
 * the letters n/i, a prefix XOR of the quotes which bytes are inside
 * strings; only a block with a special byte inside a string or an n/i
 * outside one is walked byte by byte. A repaired chunk keeps marks that
 * map its offsets back to the file's. */
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define KR_AVX2 1
#else
#define KR_AVX2 0
#endif

#include "base/vec.h"
#include "kineto2db.h"

/* Longest word repaired ("-infinity"): a longer run of letters is left
 * for yajl to refuse, and no more is ever held back. */
#define WORD_MAX 9

static void add_mark(kr_repair *r, size_t out, size_t orig, int inside) {
  tt_grow(r->marks, r->nmarks + 1, r->cap_marks);
  r->marks[r->nmarks++] = (struct kr_mark){out, orig, inside};
}

/* Replaces p[at..at+skip) with `with`: the chunk is copied from here on. */
static void replace(kr_repair *r, const unsigned char *p, size_t at, size_t skip,
                    const char *with, size_t with_len) {
  if (!r->repaired) {
    r->repaired = 1;
    tt_buf_clear(&r->out);
  }
  tt_buf_append(&r->out, (const char *)p + r->copied, at - r->copied);
  add_mark(r, r->out.len, at, 1);
  tt_buf_append(&r->out, with, with_len);
  r->copied = at + skip;
  add_mark(r, r->out.len, r->copied, 0);
}

/* Length of the valid UTF-8 sequence at s (n bytes left); 0 if invalid;
 * -1 if it may be valid but is cut by the end of the buffer. */
static int utf8_seq(const unsigned char *s, size_t n) {
  unsigned c = s[0], len, cp, min;
  if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; min = 0x10000; }
  else return 0;
  for (unsigned i = 1; i < len; i++) {
    if (i == n) return -1;
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return (int)len;
}

static int is_hex(unsigned c) {
  return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}
static int is_letter(unsigned c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

/* Whether p[0..n) is NaN, Infinity or inf, any case, with an optional '-'. */
static int nonfinite_word(const unsigned char *p, size_t n) {
  char w[WORD_MAX + 1];
  size_t i = p[0] == '-' ? 1 : 0, m = 0;
  for (; i < n; i++) w[m++] = (char)(p[i] | 0x20);
  w[m] = '\0';
  return strcmp(w, "nan") == 0 || strcmp(w, "inf") == 0 || strcmp(w, "infinity") == 0;
}

/* Walks p[i..) byte by byte up to `stop` at least, finishing the token at
 * stop. Returns where it stopped: `stop` or a bit beyond, or the start of
 * a token whose repair depends on bytes not read yet (held back). */
static size_t walk(kr_repair *r, const unsigned char *p, size_t n, size_t i, size_t stop,
                   int *hold) {
  while (i < stop) {
    unsigned c = p[i];
    if (!r->in_string) {
      if (c == '"') {
        r->in_string = 1;
        i++;
        continue;
      }
      if ((c | 0x20) != 'n' && (c | 0x20) != 'i') {
        i++;
        continue;
      }
      size_t w = i > r->copied && p[i - 1] == '-' ? i - 1 : i, e = i;
      while (e < n && is_letter(p[e]) && e - w <= WORD_MAX) e++;
      if (e == n && e - w <= WORD_MAX) {
        *hold = 1;
        return w;
      }
      if (e - w <= WORD_MAX && nonfinite_word(p + w, e - w)) {
        char q[WORD_MAX + 2];
        q[0] = '"';
        memcpy(q + 1, p + w, e - w);
        q[e - w + 1] = '"';
        replace(r, p, w, e - w, q, e - w + 2);
        r->n_nonfinite++;
      }
      i = e;
      continue;
    }
    if (c == '"') {
      r->in_string = 0;
      i++;
    } else if (c == '\\') {
      if (i + 1 == n) {
        *hold = 1;
        return i;
      }
      unsigned e = p[i + 1];
      if (e && strchr("\"\\/bfnrt", (int)e)) {
        i += 2;
        continue;
      }
      if (e == 'u') {
        size_t h = 2;
        while (h < 6 && i + h < n && is_hex(p[i + h])) h++;
        if (h == 6) {
          i += 6;
          continue;
        }
        if (i + h == n) {
          *hold = 1;
          return i;
        }
      }
      replace(r, p, i, 1, "\\\\", 2);
      r->n_bad_escape++;
      i++; /* the byte after it is read as text */
    } else if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
      replace(r, p, i, 1, esc, 6);
      r->n_control++;
      i++;
    } else if (c >= 0x80) {
      int len = utf8_seq(p + i, n - i);
      if (len > 0) {
        i += (size_t)len;
      } else if (len < 0) {
        *hold = 1;
        return i;
      } else {
        replace(r, p, i, 1, "\xEF\xBF\xBD", 3);
        r->n_bad_utf8++;
        i++;
      }
    } else {
      i++;
    }
  }
  return i;
}

/* bit j of the result: the XOR of bits 0..j of x. On the quotes of a
 * block: byte j is inside a string (an opening quote counts as inside, a
 * closing one as outside), exact up to the first backslash inside a
 * string, which sends the block to walk(). */
static inline uint64_t prefix_xor(uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

/* Whether a 64-byte block needs no repair, from its masks (bit j for
 * byte j): prefix_xor of its quotes, its special bytes (control,
 * 0x80-0xFF, backslash) and its letters n/N/i/I; if so, whether it ends
 * inside a string. */
static inline int clean_masks(kr_repair *r, uint64_t inside, uint64_t special,
                              uint64_t letters) {
  if (r->in_string) inside = ~inside;
  if ((special & inside) | (letters & ~inside)) return 0;
  r->in_string = (int)(inside >> 63);
  return 1;
}

/* The blocks of p[i..n) up to the first that needs walk(), which walks it;
 * `clean` tests one block. Returns where it stopped. */
#define KR_BLOCKS(clean)                                                                   \
  do {                                                                                     \
    while (i + 64 <= n && !*hold) {                                                        \
      if (clean(r, p + i))                                                                 \
        i += 64;                                                                           \
      else                                                                                 \
        i = walk(r, p, n, i, i + 64, hold);                                                \
    }                                                                                      \
    return i;                                                                              \
  } while (0)

#ifdef __SSE2__
static inline int clean_block_sse2(kr_repair *r, const unsigned char *b) {
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                space = _mm_set1_epi8(0x20), n = _mm_set1_epi8('n'), i = _mm_set1_epi8('i');
  uint64_t quotes = 0, special = 0, letters = 0;
#define KR_LANE(k)                                                                         \
  do {                                                                                     \
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * (k)));            \
    /* signed: below 0x20 is a control byte or one of 0x80-0xFF */                        \
    __m128i sp = _mm_or_si128(_mm_cmplt_epi8(x, space), _mm_cmpeq_epi8(x, backslash));     \
    __m128i low = _mm_or_si128(x, space); /* letters in lower case */                      \
    __m128i ni = _mm_or_si128(_mm_cmpeq_epi8(low, n), _mm_cmpeq_epi8(low, i));             \
    quotes |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, quote)) << (16 * (k)); \
    special |= (uint64_t)(unsigned)_mm_movemask_epi8(sp) << (16 * (k));                    \
    letters |= (uint64_t)(unsigned)_mm_movemask_epi8(ni) << (16 * (k));                    \
  } while (0)
  KR_LANE(0);
  KR_LANE(1);
  KR_LANE(2);
  KR_LANE(3);
#undef KR_LANE
  return clean_masks(r, prefix_xor(quotes), special, letters);
}

static size_t blocks_sse2(kr_repair *r, const unsigned char *p, size_t n, size_t i, int *hold) {
  KR_BLOCKS(clean_block_sse2);
}
#endif

#if KR_AVX2
/* The same with 32-byte vectors, and the prefix XOR as one carry-less
 * multiplication by all ones, on CPUs that have them. */
__attribute__((target("avx2,pclmul"))) static inline int clean_block_avx2(kr_repair *r,
                                                                  const unsigned char *b) {
  const __m256i quote = _mm256_set1_epi8('"'), backslash = _mm256_set1_epi8('\\'),
                space = _mm256_set1_epi8(0x20), n = _mm256_set1_epi8('n'),
                i = _mm256_set1_epi8('i');
  uint64_t quotes = 0, special = 0, letters = 0;
  for (int k = 0; k < 2; k++) {
    __m256i x = _mm256_loadu_si256((const __m256i *)(const void *)(b + 32 * k));
    __m256i sp = _mm256_or_si256(_mm256_cmpgt_epi8(space, x), _mm256_cmpeq_epi8(x, backslash));
    __m256i low = _mm256_or_si256(x, space);
    __m256i ni = _mm256_or_si256(_mm256_cmpeq_epi8(low, n), _mm256_cmpeq_epi8(low, i));
    quotes |= (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, quote)) << (32 * k);
    special |= (uint64_t)(uint32_t)_mm256_movemask_epi8(sp) << (32 * k);
    letters |= (uint64_t)(uint32_t)_mm256_movemask_epi8(ni) << (32 * k);
  }
  __m128i px = _mm_clmulepi64_si128(_mm_cvtsi64_si128((long long)quotes), _mm_set1_epi8(-1), 0);
  return clean_masks(r, (uint64_t)_mm_cvtsi128_si64(px), special, letters);
}

__attribute__((target("avx2,pclmul"))) static size_t blocks_avx2(kr_repair *r, const unsigned char *p,
                                                         size_t n, size_t i, int *hold) {
  KR_BLOCKS(clean_block_avx2);
}
#endif

/* The block scan this CPU runs: AVX2, else SSE2, else none (walk() does
 * it all). TT_KINETO_SIMD=sse2 or none chooses a narrower one, for tests. */
enum { SIMD_NONE, SIMD_SSE2, SIMD_AVX2 };
static int simd_level(void) {
  static int level = -1;
  if (level < 0) {
    const char *want = getenv("TT_KINETO_SIMD");
    level = SIMD_NONE;
#ifdef __SSE2__
    level = SIMD_SSE2;
#endif
#if KR_AVX2
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul")) level = SIMD_AVX2;
#endif
    if (want && strcmp(want, "none") == 0) level = SIMD_NONE;
    if (want && strcmp(want, "sse2") == 0 && level > SIMD_SSE2) level = SIMD_SSE2;
  }
  return level;
}

void kr_feed(kr_repair *r, const unsigned char *in, size_t n, uint64_t offset,
             const unsigned char **out, size_t *out_n) {
  const unsigned char *p = in;
  if (r->ncarry) { /* rare: a chunk boundary split a token to repair */
    tt_buf_clear(&r->joined);
    tt_buf_append(&r->joined, (const char *)r->carry, r->ncarry);
    tt_buf_append(&r->joined, (const char *)in, n);
    p = (const unsigned char *)r->joined.data;
    offset -= r->ncarry;
    n += r->ncarry;
    r->ncarry = 0;
  }
  r->base = offset;
  r->repaired = 0;
  r->copied = 0;
  r->nmarks = 0;
  size_t i = 0;
  int hold = 0;
  switch (simd_level()) {
#if KR_AVX2
  case SIMD_AVX2: i = blocks_avx2(r, p, n, i, &hold); break;
#endif
#ifdef __SSE2__
  case SIMD_SSE2: i = blocks_sse2(r, p, n, i, &hold); break;
#endif
  default: break;
  }
  if (!hold) i = walk(r, p, n, i, n, &hold);
  /* "-" may begin -Infinity: its repair needs what follows. */
  if (!hold && i == n && n > r->copied && !r->in_string && p[n - 1] == '-') i = n - 1;
  r->ncarry = n - i;
  memcpy(r->carry, p + i, r->ncarry);
  if (r->repaired) {
    tt_buf_append(&r->out, (const char *)p + r->copied, i - r->copied);
    *out = (const unsigned char *)r->out.data;
    *out_n = r->out.len;
  } else {
    *out = p;
    *out_n = i;
  }
}

void kr_finish(kr_repair *r, uint64_t end, const unsigned char **out, size_t *out_n) {
  /* Held back at the end of the file: an unfinished token, which no repair
   * makes valid; yajl reports it. */
  r->repaired = 0;
  r->base = end - r->ncarry;
  *out = r->carry;
  *out_n = r->ncarry;
  r->ncarry = 0;
}

uint64_t kr_offset(const kr_repair *r, size_t consumed) {
  if (!r->repaired) return r->base + consumed;
  size_t out = 0, orig = 0;
  int inside = 0;
  for (size_t m = 0; m < r->nmarks && r->marks[m].out <= consumed; m++) {
    out = r->marks[m].out;
    orig = r->marks[m].orig;
    inside = r->marks[m].inside;
  }
  return r->base + orig + (inside ? 0 : consumed - out);
}

void kr_free(kr_repair *r) {
  tt_buf_free(&r->out);
  tt_buf_free(&r->joined);
  free(r->marks);
}

yajl_status kineto_parse_bytes(kineto *k, yajl_handle h, const unsigned char *buf, size_t n,
                               uint64_t offset) {
  const unsigned char *p;
  size_t len;
  kr_feed(&k->repair, buf, n, offset, &p, &len);
  k->repair.chunk = p;
  k->repair.chunk_len = len;
  yajl_status st = len ? yajl_parse(h, p, len) : yajl_status_ok;
  k->repair.chunk = NULL;
  return st;
}

yajl_status kineto_parse_end(kineto *k, yajl_handle h, uint64_t end) {
  const unsigned char *p;
  size_t len;
  kr_finish(&k->repair, end, &p, &len);
  if (len && yajl_parse(h, p, len) != yajl_status_ok) return yajl_status_error;
  k->repair.base = end;
  k->repair.ended = 1;
  return yajl_complete_parse(h);
}

uint64_t kineto_error_offset(const kineto *k, yajl_handle h) {
  if (k->repair.ended) return k->repair.base;
  return kr_offset(&k->repair, yajl_get_bytes_consumed(h));
}
