/* kineto2db: a PyTorch profiler (Kineto) JSON trace, plain or gzipped, into
 * a rocpd hub database. The file is streamed: zlib (which reads plain files
 * too) feeds fixed-size buffers to yajl, whose callbacks build one event at
 * a time (kineto2db_parse.c) and map it to hub rows (kineto2db_event.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "import_cli.h"
#include "kineto2db.h"
#include "progress.h"

#define GZ_BUFFER (256 * 1024)
#define READ_SIZE (64 * 1024) /* small enough that error offsets are close */

/* yajl's message without its trailing newline. */
static void parse_error(kineto *k, yajl_handle h, unsigned long long offset) {
  if (k->err[0]) {
    tt_error("%s: parse error at byte %llu (event %llu): %s", k->path, offset,
             (unsigned long long)k->nevents, k->err);
    return;
  }
  unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
  const char *text = (const char *)msg;
  if (strncmp(text, "parse error: ", 13) == 0) text += 13;
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
  tt_error("%s: parse error at byte %llu (event %llu): %.*s", k->path, offset,
           (unsigned long long)k->nevents, (int)n, text);
  yajl_free_error(h, msg);
}

static int import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  (void)ctx;
  kineto k;
  memset(&k, 0, sizeof k);
  k.w = w;
  k.path = opts->input;
  k.last_ts = INT64_MIN;
  k.rank = HUB_NULL;
  tt_buf_append(&k.key, "", 0);

  struct stat st;
  uint64_t total = stat(opts->input, &st) == 0 ? (uint64_t)st.st_size : 0;
  gzFile gz = gzopen(opts->input, "rb");
  if (!gz) {
    tt_error("%s: cannot open: %s", opts->input, errno ? strerror(errno) : "out of memory");
    tt_buf_free(&k.key);
    return 1;
  }
  gzbuffer(gz, GZ_BUFFER);
  yajl_handle h = yajl_alloc(kineto_callbacks(), NULL, &k);
  /* Names with invalid UTF-8 occur in real traces; they are repaired
   * (kj_clean_utf8) rather than rejected. */
  yajl_config(h, yajl_dont_validate_strings, 1);
  unsigned char *buf = tt_malloc(READ_SIZE);
  unsigned long long before = 0; /* decompressed bytes parsed so far */
  int rc = 0;
  for (;;) {
    int n = gzread(gz, buf, READ_SIZE);
    if (n <= 0) {
      int zerr = Z_OK;
      const char *msg = gzerror(gz, &zerr);
      if (n < 0 || zerr != Z_OK) {
        /* zlib prefixes its message with the path, which we print anyway. */
        size_t plen = strlen(opts->input);
        if (msg && strncmp(msg, opts->input, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
          msg += plen + 2;
        tt_error("%s: gzip error at byte %llu of the decompressed data, byte %lld of the "
                 "file (event %llu): %s",
                 opts->input, before, (long long)gzoffset(gz), (unsigned long long)k.nevents,
                 msg && *msg ? msg : "read error");
        rc = 1;
      }
      break;
    }
    if (yajl_parse(h, buf, (size_t)n) != yajl_status_ok) {
      parse_error(&k, h, before + yajl_get_bytes_consumed(h));
      rc = 1;
      break;
    }
    before += (unsigned long long)n;
    tt_progress("bytes", (uint64_t)gzoffset(gz), total);
  }
  if (!rc && yajl_complete_parse(h) != yajl_status_ok) {
    parse_error(&k, h, before);
    rc = 1;
  }
  if (!rc) {
    kineto_finish(&k);
    tt_progress_finish("bytes", total);
  }
  free(buf);
  yajl_free(h);
  gzclose(gz);
  kineto_parse_free(&k);
  kineto_event_free(&k);
  return rc;
}

int main(int argc, char **argv) {
  tt_import_opts opts;
  tt_import_parse(argc, argv, "Imports a PyTorch profiler (Kineto) trace",
                  "a .json or .json.gz trace", &opts);
  return tt_import_run(&opts, import, NULL);
}
