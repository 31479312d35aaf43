/* Text into an html report (db2summary's, db2diff's): the one escape of
 * trace text into html, and durations for people. */
#ifndef TT_HTML_TEXT_H
#define TT_HTML_TEXT_H
#include <stddef.h>
#include <stdio.h>

#include "base/util.h"

/* Writes s to fp as html text or as the inside of a quoted attribute:
 * & < > " ' as references, so text cannot close an element or an
 * attribute; control characters and invalid UTF-8 as spaces and U+FFFD,
 * which html and svg (xml) both accept. Cut after max characters with an
 * ellipsis (0: whole). scratch: any buffer, for the cleaned copy. */
void tt_html_escape(FILE *fp, const char *s, size_t max, tt_buf *scratch);

/* A duration for people: "1.25 s", "12.50 ms", "3.20 µs", "850 ns". */
const char *tt_human_duration(char *buf, size_t n, double ns);

#endif
