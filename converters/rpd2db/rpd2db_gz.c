/* .rpd.gz: SQLite opens files only, so a gzipped RPD is unpacked (zlib) to
 * a temporary file first; the caller removes it. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "rpd2db_parts.h"

int rpd_gunzip(const char *path, const char *out) {
  gzFile in = gzopen(path, "rb");
  if (!in) {
    tt_error("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  FILE *f = fopen(out, "wb");
  if (!f) {
    tt_error("%s: cannot create the temporary copy %s: %s", path, out, strerror(errno));
    gzclose(in);
    return -1;
  }
  static char buf[1 << 16];
  long long total = 0;
  int n, rc = 0;
  while ((n = gzread(in, buf, sizeof buf)) > 0) {
    if (fwrite(buf, 1, (size_t)n, f) != (size_t)n) {
      tt_error("%s: writing the temporary copy %s: %s", path, out, strerror(errno));
      rc = -1;
      break;
    }
    total += n;
  }
  if (!rc) {
    int err = Z_OK;
    const char *msg = gzerror(in, &err);
    if (n < 0 || (err != Z_OK && err != Z_STREAM_END)) {
      tt_error("%s: gzip data corrupt or truncated at compressed byte %lld "
               "(%lld bytes unpacked): %s",
               path, (long long)gzoffset(in), total, msg ? msg : "?");
      rc = -1;
    }
  }
  if (fclose(f) != 0 && !rc) {
    tt_error("%s: writing the temporary copy %s: %s", path, out, strerror(errno));
    rc = -1;
  }
  gzclose(in);
  return rc;
}
