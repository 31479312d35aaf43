/* Whether a text is one complete JSON value (yajl, no callbacks): used
 * before copying JSON from a database verbatim into JSON output. */
#ifndef TT_JSON_CHECK_H
#define TT_JSON_CHECK_H
#include <stddef.h>
int tt_json_valid(const char *text, size_t len);
/* Whether a text is a JSON number (as an "int"/"double" arg must be). */
int tt_json_is_number(const char *text);
#endif
