#include "base/gzip_file.h"

#include <errno.h>
#include <string.h>
#include <zlib.h>

/* Level 6 (zlib's default) halves nothing worth the time on traces:
 * level 1 keeps most of the gain at several times the speed. */
#define TT_GZIP_LEVEL "wb1"

static ssize_t gz_write_cb(void *cookie, const char *buf, size_t n) {
  size_t done = 0;
  while (done < n) {
    unsigned chunk = n - done > (1u << 30) ? 1u << 30 : (unsigned)(n - done);
    int w = gzwrite((gzFile)cookie, buf + done, chunk);
    if (w <= 0) {
      errno = EIO;
      return done ? (ssize_t)done : -1;
    }
    done += (size_t)w;
  }
  return (ssize_t)n;
}

static int gz_close_cb(void *cookie) {
  if (gzclose((gzFile)cookie) != Z_OK) {
    errno = EIO;
    return -1;
  }
  return 0;
}

FILE *tt_gzip_fopen(const char *path) {
  gzFile gz = gzopen(path, TT_GZIP_LEVEL);
  if (!gz) {
    if (!errno) errno = ENOMEM;
    return NULL;
  }
  gzbuffer(gz, 1 << 20);
  cookie_io_functions_t io = {.read = NULL, .write = gz_write_cb, .seek = NULL,
                              .close = gz_close_cb};
  FILE *f = fopencookie(gz, "w", io);
  if (!f) gzclose(gz);
  return f;
}

int tt_path_is_gz(const char *path) {
  size_t n = strlen(path);
  return n > 3 && strcmp(path + n - 3, ".gz") == 0;
}
