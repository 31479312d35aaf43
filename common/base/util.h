/* Small helpers every tool uses: error reporting with the program name,
 * checked allocation, a growable string buffer. */
#ifndef TT_UTIL_H
#define TT_UTIL_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TT_VERSION "0.1.0"

#if defined(__GNUC__)
#define TT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define TT_NORETURN __attribute__((noreturn))
#else
#define TT_PRINTF(a, b)
#define TT_NORETURN
#endif

/* Set once from argv[0]; prefixes every message. */
void tt_set_progname(const char *argv0);
const char *tt_progname(void);

/* "prog: message\n" on stderr. Warnings are silenced by tt_set_quiet(1)
 * (-q); errors never are. */
void tt_error(const char *fmt, ...) TT_PRINTF(1, 2);
void tt_warn(const char *fmt, ...) TT_PRINTF(1, 2);
void tt_set_quiet(int quiet);
/* Prints "prog: <kind><message>\n" as they do, the message's control
 * characters shown escaped (text_escape.h): names from a trace cannot
 * drive the terminal. For other one-line messages (progress.c's tt_info). */
void tt_vmessage(const char *kind, const char *fmt, va_list ap);
/* Called before each of those lines is printed: progress.c ends a
 * progress line there, so a message never lands on one. */
void tt_set_message_hook(void (*hook)(void));
/* Errors in library code (common/), one policy:
 * - A fault of an input (a file the user gave: malformed, truncated, a
 *   bad value) is returned: the function prints one message naming the
 *   file and the place (tt_error) and returns -1 (or NULL); the tool
 *   chooses the exit status. The hub reader, the input checks and the
 *   source-database helpers work so.
 * - A fault of the run's own resources (out of memory, an output that
 *   cannot be created or written, a hub write that fails) ends the run:
 *   tt_die prints, removes every pending output (atomic_output.h) and
 *   exits. The hub writer and atomic_output work so; their calls return
 *   no error to check, and their headers say so.
 * tt_error, then run the exit hooks (temp-file cleanup) and exit(code). */
TT_NORETURN void tt_die(int code, const char *fmt, ...) TT_PRINTF(2, 3);
/* The exit hook tt_die runs before exit: atomic_output.c sets it at its
 * first output (removing every pending one), so util needs no part of it. */
void tt_set_die_hook(void (*hook)(void));
/* On a helper thread (the size split's planner): its tt_die prints and
 * ends that thread only (pthread_exit, running its cleanup handlers), so
 * the thread that owns the outputs fails and removes them itself. */
void tt_die_ends_thread(void);

void *tt_malloc(size_t n);
void *tt_calloc(size_t n, size_t size);
void *tt_realloc(void *p, size_t n);
char *tt_strdup(const char *s);
char *tt_strndup(const char *s, size_t n);

/* Growable NUL-terminated byte buffer. */
typedef struct tt_buf {
  char *data;
  size_t len, cap;
} tt_buf;
void tt_buf_reserve(tt_buf *b, size_t extra);
/* Inline: every parsed token and staged text cell goes through it, and a
 * call with its capacity check was 4% of kineto2db's instructions. */
static inline void tt_buf_append(tt_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) tt_buf_reserve(b, n);
  memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}
void tt_buf_puts(tt_buf *b, const char *s);
void tt_buf_putc(tt_buf *b, char c);
void tt_buf_printf(tt_buf *b, const char *fmt, ...) TT_PRINTF(2, 3);
void tt_buf_put_i64(tt_buf *b, int64_t v);
/* Writes v in decimal at p, which has room for TT_I64_CHARS; returns the
 * end (no NUL). For hot paths that reserve once and write in place. */
#define TT_I64_CHARS 20
char *tt_format_i64(char *p, int64_t v);
void tt_buf_clear(tt_buf *b);
void tt_buf_free(tt_buf *b);

/* Appends s as a JSON string literal (with quotes): control characters as
 * \u00XX, invalid UTF-8 bytes replaced by U+FFFD, so output always parses. */
void tt_json_string(tt_buf *b, const char *s, size_t n);

/* Appends s (n bytes) with each invalid UTF-8 byte replaced by U+FFFD:
 * text for outputs whose strings must be UTF-8 (protobuf string fields). */
void tt_buf_put_utf8(tt_buf *b, const char *s, size_t n);
/* s when it is valid UTF-8 (or NULL), else a cleaned copy held in scratch. */
char *tt_utf8_clean(const char *s, tt_buf *scratch);

/* Parses a decimal number text ("12", "-3.25", "1e3") in the unit `scale`
 * (1000 for microseconds to ns) into an exact integer, rounding half away
 * from zero past the available digits. Returns 0 on success. */
int tt_decimal_to_int_scaled(const char *s, size_t n, int64_t scale, int64_t *out);

/* Whole-string glob match ('*', '?', '[...]'), as fnmatch without flags. */
int tt_glob_match(const char *pattern, const char *s);

#endif
