/* text_escape.h: control characters of trace text shown as \xHH. */
#include "base/text_escape.h"

#include <string.h>

/* The length of the valid UTF-8 sequence at s (of n bytes left) that is
 * safe to copy, 0 when s[0] must be escaped: a control, DEL, a C1 control
 * or a byte outside a valid sequence (overlong, surrogate, past U+10FFFF,
 * cut short). */
static size_t safe_run(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  if (c < 0x20 || c == 0x7f) return 0;
  if (c < 0x80) return 1;
  size_t len;
  unsigned lo = 0x80, hi = 0xbf; /* the range of the second byte */
  if (c >= 0xc2 && c <= 0xdf) {
    len = 2;
    if (c == 0xc2) lo = 0xa0; /* C2 80-C2 9F: the C1 controls */
  } else if (c >= 0xe0 && c <= 0xef) {
    len = 3;
    if (c == 0xe0) lo = 0xa0;      /* no overlong forms */
    else if (c == 0xed) hi = 0x9f; /* no surrogates */
  } else if (c >= 0xf0 && c <= 0xf4) {
    len = 4;
    if (c == 0xf0) lo = 0x90;
    else if (c == 0xf4) hi = 0x8f; /* nothing past U+10FFFF */
  } else {
    return 0;
  }
  if (n < len || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if ((s[i] & 0xc0) != 0x80) return 0;
  return len;
}

static void escape_byte(unsigned char c, char e[4]) {
  static const char hex[] = "0123456789abcdef";
  e[0] = '\\';
  e[1] = 'x';
  e[2] = hex[c >> 4];
  e[3] = hex[c & 15];
}

size_t tt_text_escape_into(char *out, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0, k = 0;
  while (i < n) {
    size_t run = safe_run(p + i, n - i);
    if (run) {
      memcpy(out + k, s + i, run);
      k += run;
      i += run;
    } else {
      escape_byte(p[i++], out + k);
      k += 4;
    }
  }
  out[k] = '\0';
  return k;
}

void tt_text_escape_file(FILE *fp, const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    size_t run = safe_run(p + i, n - i);
    if (run) {
      fwrite(s + i, 1, run, fp);
      i += run;
      continue;
    }
    char e[4];
    escape_byte(p[i++], e);
    fwrite(e, 1, 4, fp);
  }
}

int tt_text_is_plain(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t n = strlen(s);
  for (size_t i = 0; i < n;) {
    size_t run = safe_run(p + i, n - i);
    if (!run) return 0;
    i += run;
  }
  return 1;
}
