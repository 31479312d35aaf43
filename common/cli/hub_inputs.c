/* An operand naming a run's hubs (hub_inputs.h). */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/util.h"
#include "base/vec.h"
#include "cli/hub_inputs.h"

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), k = strlen(tail);
  return n > k && strcmp(s + n - k, tail) == 0;
}

static int expand_dir(const char *dir, tt_hub_inputs *out) {
  DIR *d = opendir(dir);
  if (!d) {
    tt_error("%s: cannot read: %s", dir, strerror(errno));
    return -1;
  }
  TT_VEC(char *) found = {0};
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!ends_with(e->d_name, ".db")) continue;
    size_t n = strlen(dir) + strlen(e->d_name) + 2;
    char *path = tt_malloc(n);
    snprintf(path, n, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) tt_vec_push(&found, path);
    else free(path);
  }
  closedir(d);
  if (!found.n) {
    tt_error("%s: no hub (*.db) in this directory", dir);
    tt_vec_free(&found);
    return -1;
  }
  qsort(found.v, found.n, sizeof *found.v, by_name);
  out->paths = found.v;
  out->n = found.n;
  return 0;
}

int tt_hub_inputs_expand(const char *operand, tt_hub_inputs *out) {
  out->paths = NULL;
  out->n = 0;
  struct stat st;
  if (stat(operand, &st) == 0 && S_ISDIR(st.st_mode)) return expand_dir(operand, out);
  if (stat(operand, &st) != 0 && strchr(operand, ',')) {
    TT_VEC(char *) parts = {0};
    for (const char *p = operand;;) {
      const char *comma = strchr(p, ',');
      size_t n = comma ? (size_t)(comma - p) : strlen(p);
      if (n == 0) {
        tt_error("%s: an empty name in the list of hubs", operand);
        for (size_t i = 0; i < parts.n; i++) free(parts.v[i]);
        tt_vec_free(&parts);
        return -1;
      }
      tt_vec_push(&parts, tt_strndup(p, n));
      if (!comma) break;
      p = comma + 1;
    }
    out->paths = parts.v;
    out->n = parts.n;
    return 0;
  }
  out->paths = tt_malloc(sizeof *out->paths);
  out->paths[0] = tt_strdup(operand);
  out->n = 1;
  return 0;
}

void tt_hub_inputs_free(tt_hub_inputs *in) {
  for (size_t i = 0; i < in->n; i++) free(in->paths[i]);
  free(in->paths);
  in->paths = NULL;
  in->n = 0;
}
