/* Kernel short names (kernel_name.h): one pass over the name at template
 * and parenthesis depth, keeping the qualified name before the parameter
 * list, then dropping the return type. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "sources/demangle.h"
#include "sources/kernel_name.h"

static const char anon[] = "(anonymous namespace)";

/* A '(' that opens a parameter list: right after a name or a template
 * argument list ("f(", "f<int>("), not after a space ("Memset (Device)")
 * and not "(anonymous namespace)". */
static int opens_params(const char *name, const char *p) {
  if (p == name || strncmp(p, anon, sizeof anon - 1) == 0) return 0;
  unsigned char c = (unsigned char)p[-1];
  return isalnum(c) || c == '_' || c == '>' || c == ']';
}

/* The name without template arguments, up to its parameter list; 0 when
 * it has no parameter list and no template arguments (not a signature). */
static int strip(const char *name, tt_buf *out) {
  int depth = 0, templated = 0;
  for (const char *p = name; *p; p++) {
    if (depth == 0 && strncmp(p, anon, sizeof anon - 1) == 0) {
      tt_buf_append(out, p, sizeof anon - 1);
      p += sizeof anon - 2;
      continue;
    }
    if (*p == '<' && depth == 0 && p >= name + 8 && strncmp(p - 8, "operator", 8) == 0) {
      while (*p == '<' || *p == '=') tt_buf_putc(out, *p++); /* "operator<<" is a name */
      p--;
      continue;
    }
    if (*p == '<') {
      depth++;
      templated = 1;
    } else if (*p == '>' && depth > 0) {
      depth--;
    } else if (depth == 0 && *p == '(' && opens_params(name, p)) {
      return 1;
    } else if (depth == 0) {
      tt_buf_putc(out, *p);
    }
  }
  return templated && depth == 0;
}

void tt_kernel_short_name(const char *name, tt_buf *out) {
  tt_buf_clear(out);
  char *demangled = strncmp(name, "_Z", 2) == 0 ? tt_demangle(name) : NULL;
  const char *n = demangled ? demangled : name;
  if (!strip(n, out)) {
    tt_buf_clear(out);
    tt_buf_puts(out, n);
    free(demangled);
    return;
  }
  /* The return type ("void ", "at::Tensor "): all before the last space
   * outside "(anonymous namespace)". */
  const char *s = out->data ? out->data : "";
  const char *cut = NULL;
  for (const char *p = s; *p; p++) {
    if (strncmp(p, anon, sizeof anon - 1) == 0) {
      p += sizeof anon - 2;
      continue;
    }
    if (*p == ' ') cut = p + 1;
  }
  /* trailing spaces of the name itself ("f <int>" is rare): keep it whole */
  if (cut && *cut) {
    size_t len = strlen(cut);
    memmove(out->data, cut, len + 1);
    out->len = len;
  }
  if (out->len == 0) {
    tt_buf_clear(out);
    tt_buf_puts(out, n);
  }
  free(demangled);
}
