#include "cli/option_hint.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"

/* Optimal string alignment distance between a[0..n) and b[0..m). */
static size_t distance(const char *a, size_t n, const char *b, size_t m) {
  if (n > 64 || m > 64) return (size_t)-1; /* no option is that long */
  size_t d[65][65];
  for (size_t i = 0; i <= n; i++) d[i][0] = i;
  for (size_t j = 0; j <= m; j++) d[0][j] = j;
  for (size_t i = 1; i <= n; i++)
    for (size_t j = 1; j <= m; j++) {
      size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

static size_t name_len(const char *given) {
  const char *eq = strchr(given, '=');
  return eq ? (size_t)(eq - given) : strlen(given);
}

const char *tt_option_nearest(const char *given, const struct option *longopts) {
  size_t n = name_len(given), limit = n / 3;
  if (limit < 1) limit = 1;
  if (limit > 3) limit = 3;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (const struct option *o = longopts; o && o->name; o++) {
    size_t d = distance(given, n, o->name, strlen(o->name));
    if (d < best_d) best_d = d, best = o->name;
  }
  return best;
}

/* The long options `given` abbreviates: how many, and the list in buf. */
static int prefixes(const char *given, const struct option *longopts, tt_buf *buf) {
  size_t n = name_len(given);
  int k = 0;
  for (const struct option *o = longopts; o && o->name; o++)
    if (n && strncmp(o->name, given, n) == 0) {
      tt_buf_printf(buf, "%s--%s", k ? ", " : "", o->name);
      k++;
    }
  return k;
}

void tt_option_error(const char *arg, int kind, int shortopt, const struct option *longopts) {
  const char *prog = tt_progname();
  if (shortopt && !(arg && strncmp(arg, "--", 2) == 0)) {
    if (kind == ':') tt_error("option '-%c' requires an argument (see %s --help)", shortopt, prog);
    else tt_error("unknown option '-%c' (see %s --help)", shortopt, prog);
    exit(2);
  }
  const char *name = arg && strncmp(arg, "--", 2) == 0 ? arg + 2 : arg ? arg : "";
  int len = (int)name_len(name);
  if (kind == ':') {
    tt_error("option '--%.*s' requires an argument (see %s --help)", len, name, prog);
    exit(2);
  }
  int exact = 0;
  for (const struct option *o = longopts; o && o->name; o++)
    if (strlen(o->name) == (size_t)len && strncmp(o->name, name, (size_t)len) == 0) exact = 1;
  tt_buf alts = {0};
  int k = prefixes(name, longopts, &alts);
  if ((exact || k == 1) && name[len] == '=') /* the option is known: it takes no value */
    tt_error("option '--%.*s' takes no value (see %s --help)", len, name, prog);
  else if (k > 1)
    tt_error("option '--%.*s' is ambiguous: %s (see %s --help)", len, name, alts.data, prog);
  else {
    const char *near = tt_option_nearest(name, longopts);
    if (near)
      tt_error("unknown option '--%.*s': did you mean --%s? (see %s --help)", len, name, near, prog);
    else
      tt_error("unknown option '--%.*s' (see %s --help)", len, name, prog);
  }
  tt_buf_free(&alts);
  exit(2);
}
