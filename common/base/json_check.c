#include "base/json_check.h"

#include <string.h>
#include <yajl/yajl_parse.h>

int tt_json_valid(const char *text, size_t len) {
  yajl_handle h = yajl_alloc(NULL, NULL, NULL);
  if (!h) return 0;
  int ok = yajl_parse(h, (const unsigned char *)text, len) == yajl_status_ok &&
           yajl_complete_parse(h) == yajl_status_ok;
  yajl_free(h);
  return ok;
}

int tt_json_is_number(const char *s) {
  /* JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
  const char *p = s;
  if (*p == '-') p++;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
  else return 0;
  if (*p == '.') {
    p++;
    if (!(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-') p++;
    if (!(*p >= '0' && *p <= '9')) return 0;
    while (*p >= '0' && *p <= '9') p++;
  }
  return *p == '\0';
}
