/* kineto2db: a PyTorch profiler (Kineto) JSON trace, plain or gzipped, into
 * a rocpd hub database. The file is streamed: zlib (which reads plain files
 * too) feeds fixed-size buffers to yajl, whose callbacks build one event at
 * a time (kineto2db_parse.c) and map it to hub rows (kineto2db_event.c). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "cli/import_cli.h"
#include "kineto2db.h"
#include "base/progress.h"

#define GZ_BUFFER (256 * 1024)
#define READ_SIZE (64 * 1024) /* small enough that error offsets are close */

/* yajl's message without "parse error: " and its trailing newline. */
static void yajl_message(yajl_handle h, char *out, size_t size) {
  unsigned char *msg = yajl_get_error(h, 0, NULL, 0);
  const char *text = (const char *)msg;
  if (strncmp(text, "parse error: ", 13) == 0) text += 13;
  size_t n = strlen(text);
  while (n && (text[n - 1] == '\n' || text[n - 1] == ' ')) n--;
  snprintf(out, size, "%.*s", (int)n, text);
  yajl_free_error(h, msg);
}

static void parse_error(kineto *k, yajl_handle h, const char *why) {
  char msg[256];
  if (k->err[0])
    snprintf(msg, sizeof msg, "%s", k->err);
  else
    yajl_message(h, msg, sizeof msg);
  tt_error("%s: parse error at byte %llu (event %llu): %s%s", k->path,
           (unsigned long long)kineto_error_offset(k, h), (unsigned long long)k->nevents, msg,
           why ? why : "");
}

/* What a trace cut short says without --lenient. */
static const char *cut_hint(const kineto *k, char *out, size_t size) {
  snprintf(out, size, "; the trace is cut short: --lenient imports the %llu complete events "
                      "before the cut",
           (unsigned long long)k->nevents);
  return out;
}

void kineto_begin(kineto *k, hub_writer *w, const char *path, int lenient) {
  memset(k, 0, sizeof *k);
  k->w = w;
  k->path = path;
  k->lenient = lenient;
  k->last_ts = INT64_MIN;
  k->rank = HUB_NULL; /* no distributedInfo: not rank 0 */
  tt_buf_append(&k->key, "", 0);
  k->parser = yajl_alloc(kineto_callbacks(), NULL, k);
  /* The repair stage leaves strings valid UTF-8 (kineto2db_parse.c
   * repairs what escapes decode to): yajl need not check them again. */
  yajl_config(k->parser, yajl_dont_validate_strings, 1);
}

int kineto_feed(kineto *k, const unsigned char *buf, size_t n) {
  if (kineto_parse_bytes(k, k->parser, buf, n, k->fed) != yajl_status_ok) {
    parse_error(k, k->parser, NULL);
    return 1;
  }
  k->fed += n;
  return 0;
}

void kineto_cut(kineto *k) {
  k->cut = 1;
  k->cut_at = k->fed;
}

int kineto_end(kineto *k) {
  if (!k->cut && kineto_parse_end(k, k->parser, k->fed) != yajl_status_ok) {
    char msg[256], hint[160];
    yajl_message(k->parser, msg, sizeof msg);
    /* Only a document cut short ends before its end; the events before the
     * cut were all written as each closed. */
    int cut = k->repair.ended && k->seen_root && !k->err[0] && strstr(msg, "premature EOF");
    if (cut && k->lenient) {
      kineto_cut(k);
    } else {
      parse_error(k, k->parser, cut ? cut_hint(k, hint, sizeof hint) : NULL);
      return 1;
    }
  }
  kineto_finish(k);
  return 0;
}

void kineto_free(kineto *k) {
  if (k->parser) yajl_free(k->parser);
  k->parser = NULL;
  kineto_parse_free(k);
  kineto_event_free(k);
}

int kineto2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx) {
  struct stat st;
  uint64_t total = stat(opts->input, &st) == 0 ? (uint64_t)st.st_size : 0;
  gzFile gz = gzopen(opts->input, "rb");
  if (!gz) {
    tt_error("%s: cannot open: %s", opts->input, errno ? strerror(errno) : "out of memory");
    return 1;
  }
  gzbuffer(gz, GZ_BUFFER);
  kineto k;
  kineto_begin(&k, w, opts->input, ((const kineto2db_opts *)ctx)->lenient);
  unsigned char *buf = tt_malloc(READ_SIZE);
  char hint[160];
  int rc = 0;
  for (;;) {
    int n = gzread(gz, buf, READ_SIZE);
    if (n <= 0) {
      int zerr = Z_OK;
      const char *msg = gzerror(gz, &zerr);
      if (n < 0 || zerr != Z_OK) {
        /* A gzip stream that ends early: the writer was killed. */
        int cut = zerr == Z_BUF_ERROR && k.seen_root;
        if (cut && k.lenient) {
          kineto_cut(&k);
          break;
        }
        /* zlib prefixes its message with the path, which we print anyway. */
        size_t plen = strlen(opts->input);
        if (msg && strncmp(msg, opts->input, plen) == 0 && strncmp(msg + plen, ": ", 2) == 0)
          msg += plen + 2;
        tt_error("%s: gzip error at byte %llu of the decompressed data, byte %lld of the "
                 "file (event %llu): %s%s",
                 opts->input, (unsigned long long)k.fed, (long long)gzoffset(gz),
                 (unsigned long long)k.nevents, msg && *msg ? msg : "read error",
                 cut ? cut_hint(&k, hint, sizeof hint) : "");
        rc = 1;
      }
      break;
    }
    if (kineto_feed(&k, buf, (size_t)n)) {
      rc = 1;
      break;
    }
    tt_progress("bytes", (uint64_t)gzoffset(gz), total);
  }
  if (!rc) rc = kineto_end(&k);
  if (!rc) tt_progress_finish("bytes", total);
  free(buf);
  gzclose(gz);
  kineto_free(&k);
  return rc;
}
