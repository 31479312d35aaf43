/* Trace text made safe for a terminal or a CSV/text file: names come from
 * the traces a user is given, and an ESC or BEL in a kernel name would
 * otherwise retitle, recolour or rewrite the terminal that prints it.
 *
 * Shown as the four characters \xHH:
 * - every C0 control byte (0x00-0x1f, including TAB, CR and LF: a line of
 *   a table or a message stays one line) and DEL (0x7f);
 * - the C1 controls U+0080-U+009F (their UTF-8 pairs C2 80-C2 9F: some
 *   terminals take U+009B for CSI), as the two bytes' escapes;
 * - each byte that is not part of valid UTF-8 (a raw 0x9b is CSI to an
 *   8-bit terminal).
 * Everything else, valid UTF-8 included, is copied. A backslash is not
 * doubled, so text without control characters is unchanged (the outputs
 * of every real trace stay byte-identical); the escape is for people
 * reading, not to be decoded.
 * JSON and the hub keep the exact text: they have their own quoting. */
#ifndef TT_TEXT_ESCAPE_H
#define TT_TEXT_ESCAPE_H
#include <stddef.h>
#include <stdio.h>

/* Below util.h (its messages use it): no tt_buf here. */

/* Writes s (n bytes) into out, escaped as above, and a NUL; out has room
 * for TT_TEXT_ESCAPED_MAX(n) bytes. Returns the length written. */
#define TT_TEXT_ESCAPED_MAX(n) (4 * (n) + 1)
size_t tt_text_escape_into(char *out, const char *s, size_t n);
/* Writes s (n bytes) to fp, escaped as above, allocating nothing (the
 * error messages use it, out of memory too). */
void tt_text_escape_file(FILE *fp, const char *s, size_t n);
/* The length (1-4) of the valid UTF-8 sequence at s, of n bytes left; 0
 * when it is not one (overlong, a surrogate, past U+10FFFF, cut short).
 * The one UTF-8 check of the project (util.c's cleaning uses it too). */
size_t tt_utf8_seq_len(const unsigned char *s, size_t n);
/* Whether s (NUL-terminated) needs no escape. */
int tt_text_is_plain(const char *s);

#endif
