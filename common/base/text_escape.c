/* text_escape.h: control characters of trace text shown as \xHH. */
#include "base/text_escape.h"

#include <string.h>

size_t tt_utf8_seq_len(const unsigned char *s, size_t n) {
  unsigned c = s[0];
  size_t len;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) { len = 2; min = 0x80; }
  else if (c >= 0xE0 && c <= 0xEF) { len = 3; min = 0x800; }
  else if (c >= 0xF0 && c <= 0xF4) { len = 4; min = 0x10000; }
  else return 0;
  if (n < len) return 0;
  unsigned cp = c & (0x3F >> (len - 1));
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (s[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

/* The length of the valid UTF-8 sequence at s (of n bytes left) that is
 * safe to copy, 0 when s[0] must be escaped: a control, DEL, a C1 control
 * (C2 80-C2 9F) or a byte outside a valid sequence. */
static size_t safe_run(const unsigned char *s, size_t n) {
  if (s[0] < 0x20 || s[0] == 0x7f) return 0;
  size_t len = tt_utf8_seq_len(s, n);
  if (len == 2 && s[0] == 0xc2 && s[1] < 0xa0) return 0;
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
