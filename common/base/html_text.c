/* html text (html_text.h). */
#include <math.h>

#include "base/html_text.h"

void tt_html_escape(FILE *fp, const char *s, size_t max, tt_buf *scratch) {
  char *c = tt_utf8_clean(s, scratch);
  size_t chars = 0;
  for (const unsigned char *p = (const unsigned char *)c; *p; p++) {
    if ((*p & 0xC0) != 0x80 && max && chars++ == max) {
      fputs("\xE2\x80\xA6", fp); /* … */
      return;
    }
    switch (*p) {
    case '&': fputs("&amp;", fp); break;
    case '<': fputs("&lt;", fp); break;
    case '>': fputs("&gt;", fp); break;
    case '"': fputs("&quot;", fp); break;
    case '\'': fputs("&#39;", fp); break;
    default: fputc(*p < 0x20 || *p == 0x7f ? ' ' : *p, fp);
    }
  }
}

const char *tt_human_duration(char *buf, size_t n, double ns) {
  double a = fabs(ns);
  if (a >= 1e9) snprintf(buf, n, "%.2f s", ns / 1e9);
  else if (a >= 1e6) snprintf(buf, n, "%.2f ms", ns / 1e6);
  else if (a >= 1e3) snprintf(buf, n, "%.2f \xC2\xB5s", ns / 1e3);
  else snprintf(buf, n, "%.0f ns", ns);
  return buf;
}
