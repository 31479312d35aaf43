/* text_escape.h: what a terminal is shown of trace text, each expected
 * value written out by hand from the rules in the header. */
#include <string.h>

#include "../common/base/text_escape.h"
#include "unit.h"

static void shown(const char *desc, const char *in, size_t n, const char *want) {
  char out[TT_TEXT_ESCAPED_MAX(64)];
  size_t len = tt_text_escape_into(out, in, n);
  CHECK(strcmp(out, want) == 0 && len == strlen(want), "%s: got [%s], want [%s]", desc, out, want);
}

int main(void) {
  shown("plain ASCII unchanged", "hipLaunchKernel", 15, "hipLaunchKernel");
  shown("empty", "", 0, "");
  shown("OSC title and SGR colour", "\x1b]0;pwned\x07\x1b[31m", 15,
        "\\x1b]0;pwned\\x07\\x1b[31m");
  shown("tab, CR, LF and DEL", "a\tb\r\nc\x7f", 7, "a\\x09b\\x0d\\x0ac\\x7f");
  shown("a NUL inside the length", "a\0b", 3, "a\\x00b");
  shown("valid UTF-8 kept (µ, €, 😀)", "\xc2\xb5 \xe2\x82\xac \xf0\x9f\x98\x80", 11,
        "\xc2\xb5 \xe2\x82\xac \xf0\x9f\x98\x80");
  shown("C1 control U+009B (CSI) as its two bytes", "x\xc2\x9by", 4, "x\\xc2\\x9by");
  shown("a raw 8-bit CSI byte", "x\x9by", 3, "x\\x9by");
  shown("overlong '/' (C0 AF)", "\xc0\xaf", 2, "\\xc0\\xaf");
  shown("a surrogate (ED A0 80)", "\xed\xa0\x80", 3, "\\xed\\xa0\\x80");
  shown("a sequence cut short", "\xe2\x82", 2, "\\xe2\\x82");
  shown("past U+10FFFF (F4 90 80 80)", "\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80");
  shown("a backslash left as it is", "a\\x1b", 5, "a\\x1b");
  CHECK(tt_text_is_plain("void gemm<float>(float*) \xc2\xb5s"), "plain text is plain");
  CHECK(!tt_text_is_plain("a\x1b"), "ESC is not plain");
  char big[TT_TEXT_ESCAPED_MAX(3)];
  CHECK(tt_text_escape_into(big, "\x1b\x1b\x1b", 3) == 12 && strcmp(big, "\\x1b\\x1b\\x1b") == 0,
        "all escapes fill the room TT_TEXT_ESCAPED_MAX gives");
  return failures ? 1 : 0;
}
