/* Compact JSON re-serialisation of SAX tokens, and UTF-8 repair. Kineto
 * args hold nested arrays ("Input Dims": [[321271]]) that the hub keeps as
 * JSON text; yajl hands them over token by token. */
#include <stdint.h>
#include <string.h>

#include "kineto2db.h"

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  unsigned char c = s[0];
  size_t len;
  unsigned min;
  unsigned cp;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) { len = 2; cp = c & 0x1F; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; cp = c & 0x0F; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { len = 4; cp = c & 0x07; min = 0x10000; }
  else return 0;
  if (n < len) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/* Whether s[0..n) is all ASCII without NUL, the common case, checked 8
 * bytes at a time. */
static int plain_ascii(const char *s, size_t n) {
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t x;
    memcpy(&x, s + i, 8);
    /* a high bit set, or a zero byte (the classic haszero test) */
    if ((x & highs) || ((x - ones) & ~x & highs)) return 0;
  }
  for (; i < n; i++)
    if ((unsigned char)s[i] - 1u >= 0x7Fu) return 0;
  return 1;
}

void kj_clean_utf8(tt_buf *b, const char *s, size_t n) {
  if (plain_ascii(s, n)) {
    tt_buf_append(b, s, n);
    return;
  }
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  tt_buf_reserve(b, n);
  while (i < n) {
    size_t run = i;
    /* Copy runs of valid text at once; stop at NUL or a bad byte. */
    while (run < n) {
      if (p[run] >= 0x01 && p[run] < 0x80) { /* ASCII, the common case */
        run++;
        continue;
      }
      if (p[run] == 0) break;
      size_t l = utf8_len(p + run, n - run);
      if (!l) break;
      run += l;
    }
    if (run > i) tt_buf_append(b, s + i, run - i);
    if (run < n) {
      tt_buf_append(b, "\xEF\xBF\xBD", 3);
      run++;
    }
    i = run;
  }
  if (!b->data) tt_buf_append(b, "", 0);
}

void kj_begin(kj_capture *c) {
  tt_buf_clear(&c->out);
  if (!c->out.data) tt_buf_append(&c->out, "", 0);
  c->depth = 0;
  c->need_comma = 0;
}

static void sep(kj_capture *c) {
  if (c->need_comma) tt_buf_putc(&c->out, ',');
}

void kj_open(kj_capture *c, char bracket) {
  sep(c);
  tt_buf_putc(&c->out, bracket);
  c->depth++;
  c->need_comma = 0;
}

void kj_close(kj_capture *c, char bracket) {
  tt_buf_putc(&c->out, bracket);
  c->depth--;
  c->need_comma = 1;
}

void kj_key(kj_capture *c, const char *s, size_t n) {
  sep(c);
  tt_json_string(&c->out, s, n);
  tt_buf_putc(&c->out, ':');
  c->need_comma = 0;
}

void kj_string(kj_capture *c, const char *s, size_t n) {
  sep(c);
  tt_json_string(&c->out, s, n);
  c->need_comma = 1;
}

void kj_raw(kj_capture *c, const char *text, size_t n) {
  sep(c);
  tt_buf_append(&c->out, text, n);
  c->need_comma = 1;
}
