#include "base/util.h"

#include "base/text_escape.h"

#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

static const char *progname = "tracetools";

void tt_set_progname(const char *argv0) {
  const char *slash = strrchr(argv0, '/');
  progname = slash ? slash + 1 : argv0;
}

const char *tt_progname(void) { return progname; }

static void (*message_hook)(void);
void tt_set_message_hook(void (*hook)(void)) { message_hook = hook; }

void tt_vmessage(const char *kind, const char *fmt, va_list ap) {
  if (message_hook) message_hook();
  /* Messages quote names from traces: their control characters are shown
   * escaped (text_escape.h), never sent to the terminal. Formatted first,
   * on the stack unless long; malloc, not tt_malloc: out of memory is
   * itself reported here. */
  char stack[1024], *text = stack;
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(stack, sizeof stack, fmt, ap);
  if (n >= (int)sizeof stack) {
    char *big = malloc((size_t)n + 1);
    if (big) vsnprintf(big, (size_t)n + 1, fmt, again), text = big;
    else n = (int)sizeof stack - 1;
  }
  va_end(again);
  fprintf(stderr, "%s: %s", progname, kind);
  if (n > 0) tt_text_escape_file(stderr, text, (size_t)n);
  fputc('\n', stderr);
  if (text != stack) free(text);
}

void tt_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tt_vmessage("error: ", fmt, ap);
  va_end(ap);
}

static int quiet_warnings;
void tt_set_quiet(int quiet) { quiet_warnings = quiet; }

void tt_warn(const char *fmt, ...) {
  if (quiet_warnings) return;
  va_list ap;
  va_start(ap, fmt);
  tt_vmessage("warning: ", fmt, ap);
  va_end(ap);
}

static void (*die_hook)(void);
void tt_set_die_hook(void (*hook)(void)) { die_hook = hook; }
static _Thread_local int die_ends_thread;
void tt_die_ends_thread(void) { die_ends_thread = 1; }

void tt_die(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  tt_vmessage("error: ", fmt, ap);
  va_end(ap);
  if (die_ends_thread) pthread_exit(NULL);
  if (die_hook) die_hook();
  exit(code);
}

void *tt_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) tt_die(3, "out of memory (%zu bytes)", n);
  return p;
}

void *tt_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) tt_die(3, "out of memory");
  return p;
}

void *tt_realloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) tt_die(3, "out of memory (%zu bytes)", n);
  return q;
}

char *tt_strdup(const char *s) { return tt_strndup(s, strlen(s)); }

char *tt_strndup(const char *s, size_t n) {
  char *d = tt_malloc(n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

void tt_buf_reserve(tt_buf *b, size_t extra) {
  if (b->len + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < b->len + extra + 1) cap *= 2;
  b->data = tt_realloc(b->data, cap);
  b->cap = cap;
}

void tt_buf_puts(tt_buf *b, const char *s) { tt_buf_append(b, s, strlen(s)); }

void tt_buf_putc(tt_buf *b, char c) {
  if (b->len + 2 > b->cap) tt_buf_reserve(b, 1);
  b->data[b->len++] = c;
  b->data[b->len] = '\0';
}

void tt_buf_printf(tt_buf *b, const char *fmt, ...) {
  /* One formatting pass when the result fits the spare capacity. */
  tt_buf_reserve(b, 64);
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  size_t room = b->cap - b->len;
  int n = vsnprintf(b->data + b->len, room, fmt, ap);
  va_end(ap);
  if (n > 0 && (size_t)n >= room) {
    tt_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
  }
  if (n > 0) b->len += (size_t)n;
  b->data[b->len] = '\0';
  va_end(ap2);
}

/* "00".."99": two digits per division (a table lookup, half the divides). */
static const char digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

char *tt_format_i64(char *p, int64_t v) {
  char tmp[TT_I64_CHARS], *t = tmp + sizeof tmp;
  uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100) * 2;
    u /= 100;
    *--t = digit_pairs[d + 1];
    *--t = digit_pairs[d];
  }
  if (u >= 10) {
    *--t = digit_pairs[u * 2 + 1];
    *--t = digit_pairs[u * 2];
  } else {
    *--t = (char)('0' + u);
  }
  if (v < 0) *p++ = '-';
  size_t n = (size_t)(tmp + sizeof tmp - t);
  memcpy(p, t, n);
  return p + n;
}

void tt_buf_put_i64(tt_buf *b, int64_t v) {
  tt_buf_reserve(b, TT_I64_CHARS);
  b->len = (size_t)(tt_format_i64(b->data + b->len, v) - b->data);
  b->data[b->len] = '\0';
}

void tt_buf_clear(tt_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = '\0';
}

void tt_buf_free(tt_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* Bytes of s[0..n) that are valid UTF-8 from the start. */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (s[i] < 0x80) {
      i++;
      continue;
    }
    size_t len = tt_utf8_seq_len(s + i, n - i);
    if (len == 0) break;
    i += len;
  }
  return i;
}

void tt_buf_put_utf8(tt_buf *b, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  size_t i = 0;
  while (i < n) {
    size_t ok = utf8_valid_prefix(s + i, n - i);
    tt_buf_append(b, str + i, ok);
    i += ok;
    if (i < n) {
      tt_buf_append(b, "\xef\xbf\xbd", 3);
      i++;
    }
  }
}

char *tt_utf8_clean(const char *s, tt_buf *scratch) {
  if (!s) return NULL;
  size_t n = strlen(s);
  if (utf8_valid_prefix((const unsigned char *)s, n) == n) return (char *)s;
  tt_buf_clear(scratch);
  tt_buf_put_utf8(scratch, s, n);
  return scratch->data;
}

void tt_json_string(tt_buf *b, const char *str, size_t n) {
  const unsigned char *s = (const unsigned char *)str;
  tt_buf_reserve(b, n + 2);
  tt_buf_putc(b, '"');
  size_t i = 0;
  while (i < n) {
    /* Runs of plain ASCII go in one copy: most names need no escaping. */
    size_t run = i;
    while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '"' && s[run] != '\\')
      run++;
    if (run > i) {
      tt_buf_append(b, str + i, run - i);
      i = run;
      continue;
    }
    unsigned char c = s[i];
    if (c == '"' || c == '\\') {
      char esc[2] = {'\\', (char)c};
      tt_buf_append(b, esc, 2);
      i++;
    } else if (c < 0x20 || c == 0x7F) {
      switch (c) {
      case '\n': tt_buf_append(b, "\\n", 2); break;
      case '\t': tt_buf_append(b, "\\t", 2); break;
      case '\r': tt_buf_append(b, "\\r", 2); break;
      default: tt_buf_printf(b, "\\u%04x", c);
      }
      i++;
    } else {
      size_t len = tt_utf8_seq_len(s + i, n - i);
      if (len == 0) {
        tt_buf_append(b, "\\ufffd", 6);
        i++;
      } else {
        tt_buf_append(b, (const char *)s + i, len);
        i += len;
      }
    }
  }
  tt_buf_putc(b, '"');
}

int tt_decimal_to_int_scaled(const char *s, size_t n, int64_t scale, int64_t *out) {
  /* The digits become an exact integer mantissa with a decimal exponent,
   * multiplied by scale and rounded half away from zero: never a double,
   * since epoch microseconds at ns resolution exceed a double's precision. */
  size_t i = 0;
  int neg = 0;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  if (scale > 0) {
    /* Fast path for the usual timestamp or id (at most 18 digits, no
     * exponent): int64 arithmetic, the same result as the exact path below,
     * whose __int128 division is a library call. */
    static const int64_t pow10[19] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
                                      100000000, 1000000000, 10000000000, 100000000000,
                                      1000000000000, 10000000000000, 100000000000000,
                                      1000000000000000, 10000000000000000, 100000000000000000,
                                      1000000000000000000};
    uint64_t m = 0;
    int digits = 0, frac = 0, dot = 0;
    size_t j = i;
    for (; j < n; j++) {
      char c = s[j];
      if (c >= '0' && c <= '9') {
        if (++digits > 18) break;
        m = m * 10 + (uint64_t)(c - '0');
        frac += dot;
      } else if (c == '.' && !dot) {
        dot = 1;
      } else {
        break;
      }
    }
    int64_t v;
    if (j == n && digits > 0 && !__builtin_mul_overflow((int64_t)m, scale, &v)) {
      if (frac) {
        int64_t q = v / pow10[frac], r = v % pow10[frac];
        v = q + (2 * r >= pow10[frac]);
      }
      *out = neg ? -v : v;
      return 0;
    }
  }
  __int128 mant = 0;
  int exp10 = 0, sig = 0, seen_dot = 0, any_digit = 0;
  for (; i < n; i++) {
    char c = s[i];
    if (c >= '0' && c <= '9') {
      any_digit = 1;
      if (sig < 30) {
        mant = mant * 10 + (c - '0');
        if (mant != 0) sig++;
        if (seen_dot) exp10--;
      } else if (!seen_dot) {
        exp10++; /* digits past 30 significant ones only scale */
      }
    } else if (c == '.' && !seen_dot) {
      seen_dot = 1;
    } else {
      break;
    }
  }
  if (!any_digit) return -1;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    i++;
    int eneg = 0, e = 0, any = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) eneg = s[i++] == '-';
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
      any = 1;
      if (e < 100) e = e * 10 + (s[i] - '0');
    }
    if (!any) return -1;
    exp10 += eneg ? -e : e;
  }
  if (i != n) return -1;
  mant *= scale;
  for (; exp10 > 0; exp10--) {
    mant *= 10;
    if (mant > (__int128)INT64_MAX) return -1;
  }
  if (exp10 < 0) {
    if (exp10 < -38) {
      mant = 0;
    } else {
      __int128 div = 1;
      for (; exp10 < 0; exp10++) div *= 10;
      __int128 q = mant / div, r = mant % div;
      if (2 * r >= div) q++;
      mant = q;
    }
  }
  if (mant > (__int128)INT64_MAX) return -1;
  *out = neg ? -(int64_t)mant : (int64_t)mant;
  return 0;
}

int tt_glob_match(const char *pattern, const char *s) {
  return fnmatch(pattern, s, 0) == 0;
}
