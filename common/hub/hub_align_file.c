/* --align FILE (hub_align.h): offsets the user gives. One line each:
 *   HOST_OR_RANK OFFSET_NS [DRIFT_PPM]     # a comment
 * a hostname, or a rank (digits only), whose clock reads OFFSET_NS ahead
 * of the timeline (and runs DRIFT_PPM fast, from the host's first time
 * on); '#' starts a comment; blank lines are skipped. A rank's line wins
 * over its host's. Inputs named by no line stay as recorded. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "base/vec.h"
#include "hub_align_internal.h"

typedef struct file_line {
  char *who;
  int is_rank;
  int64_t rank;
  hub_time_map map;
  int line, used;
} file_line;
typedef TT_VEC(file_line) file_lines;

static int is_digits(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* One line's fields; 0, or -1 after "FILE:LINE: why". */
static int parse_line(const char *file, int ln, char *s, file_lines *out) {
  char *hash = strchr(s, '#');
  if (hash) *hash = '\0';
  char *field[4];
  int nf = 0;
  for (char *t = strtok(s, " \t\r\n"); t; t = strtok(NULL, " \t\r\n")) {
    if (nf == 3) {
      tt_error("%s:%d: expected HOST_OR_RANK OFFSET_NS [DRIFT_PPM], found a fourth field '%.40s'",
               file, ln, t);
      return -1;
    }
    field[nf++] = t;
  }
  if (nf == 0) return 0;
  if (nf == 1) {
    tt_error("%s:%d: '%.40s' has no offset: expected HOST_OR_RANK OFFSET_NS [DRIFT_PPM]", file,
             ln, field[0]);
    return -1;
  }
  char *end;
  errno = 0;
  long long off = strtoll(field[1], &end, 10);
  if (*end || end == field[1] || errno || off > HUB_TIME_LIMIT || off < -HUB_TIME_LIMIT) {
    tt_error("%s:%d: offset '%.40s' is not an integer number of ns within +-2^62", file, ln,
             field[1]);
    return -1;
  }
  double ppm = 0;
  if (nf == 3) {
    errno = 0;
    ppm = strtod(field[2], &end);
    if (*end || end == field[2] || errno || !isfinite(ppm) || fabs(ppm) > HUB_TIME_MAP_MAX_DRIFT_PPM) {
      tt_error("%s:%d: drift '%.40s' is not a number of ppm within +-1000", file, ln, field[2]);
      return -1;
    }
  }
  for (size_t i = 0; i < out->n; i++)
    if (strcmp(out->v[i].who, field[0]) == 0) {
      tt_error("%s:%d: '%.40s' was given already on line %d", file, ln, field[0], out->v[i].line);
      return -1;
    }
  file_line *l = tt_vec_add(out);
  l->who = tt_strdup(field[0]);
  l->is_rank = is_digits(field[0]);
  l->rank = l->is_rank ? strtoll(field[0], NULL, 10) : HUB_NULL;
  l->map = (hub_time_map){.offset_ns = off, .drift_ppm = ppm};
  l->line = ln;
  return 0;
}

static int read_file(const char *file, file_lines *out) {
  FILE *f = fopen(file, "r");
  if (!f) {
    tt_error("%s: cannot open: %s", file, strerror(errno));
    return -1;
  }
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  int ln = 0, rc = 0;
  while (rc == 0 && (len = getline(&buf, &cap, f)) >= 0) {
    ln++;
    if (len > 4096) {
      tt_error("%s:%d: line of %zd bytes: more than 4096", file, ln, len);
      rc = -1;
    } else if (strlen(buf) != (size_t)len) {
      tt_error("%s:%d: holds a NUL byte: not a text file", file, ln);
      rc = -1;
    } else {
      rc = parse_line(file, ln, buf, out);
    }
  }
  if (rc == 0 && ferror(f)) {
    tt_error("%s: read error", file);
    rc = -1;
  }
  free(buf);
  fclose(f);
  return rc;
}

/* The line of input in: its rank's, else its host's; NULL when none. */
static file_line *line_of(file_lines *ls, const ha_input *in, const char *host) {
  file_line *by_host = NULL;
  for (size_t i = 0; i < ls->n; i++) {
    file_line *l = &ls->v[i];
    if (l->is_rank && in->rank != HUB_NULL && l->rank == in->rank) return l;
    if (!l->is_rank && host[0] && strcmp(l->who, host) == 0) by_host = l;
  }
  return by_host;
}

/* A drifting host's anchor: its inputs' first time, on the timeline. */
static int first_time(const ha_input *in, size_t n, size_t host, int64_t *t) {
  int any = 0;
  for (size_t i = 0; i < n; i++) {
    if (in[i].host != host) continue;
    hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
    hub_reader *r = hub_reader_open(&in[i].path, 1, &f);
    if (!r) return -1;
    int64_t lo, hi;
    if (hub_reader_time_span(r, &lo, &hi) && (!any || lo < *t)) *t = lo, any = 1;
    hub_reader_close(r);
  }
  if (!any) *t = 0;
  return 0;
}

int ha_plan_file(hub_alignment *a, const ha_input *in, size_t n, const char *file) {
  file_lines ls = {0};
  int rc = read_file(file, &ls);
  int *seen = tt_calloc(a->nhosts + 1, sizeof *seen);
  for (size_t i = 0; i < n && rc == 0; i++) {
    if (in[i].aligned) continue;
    hub_align_host *h = &a->hosts[in[i].host];
    file_line *l = line_of(&ls, &in[i], h->host);
    if (!l) continue;
    l->used = 1;
    if (l->map.drift_ppm != 0 && l->map.anchor_ns == 0) {
      int64_t t0;
      if (first_time(in, n, in[i].host, &t0) != 0) {
        rc = -1;
        break;
      }
      l->map.anchor_ns = t0 - l->map.offset_ns;
    }
    hub_time_maps_set(&a->maps, in[i].path, &l->map);
    if (!seen[in[i].host]++) h->map = l->map;
  }
  for (size_t i = 0; i < ls.n && rc == 0; i++)
    if (!ls.v[i].used)
      tt_warn("%s:%d: %s %s is in none of the inputs", file, ls.v[i].line,
              ls.v[i].is_rank ? "rank" : "host", ls.v[i].who);
  for (size_t i = 0; i < ls.n; i++) free(ls.v[i].who);
  tt_vec_free(&ls);
  free(seen);
  return rc;
}
