/* libFuzzer harness: db2summary's html report (and its text output) on a
 * hub whose every text field comes from the fuzzer's bytes: categories
 * (each one a table of its own, its id in attributes), region and kernel
 * names, process, thread and host names, arg keys and values, with quotes,
 * angle brackets, ampersands, control bytes and invalid UTF-8. Besides
 * crashes and leaks it checks the report's shape (issue 34): every tag is
 * one the writer writes, no attribute is an event handler (on...), and no
 * raw control byte but newline is in the html or the text. The stream of
 * fuzz_stream.h has five-byte names and fixed categories, too short for
 * markup, so this harness builds its own hub. */
#include <ctype.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/export.h"
#include "hub/hub_writer.h"
#include "../converters/db2summary/db2summary.h"
#include "../tests/unit/synthetic_kernel.h"

/* The next text: a length byte (0-31), then that many bytes; the bytes of
 * a few markup words are mixed in so the fuzzer reaches them sooner. */
static const char *next_text(const uint8_t **p, size_t *n, char *buf) {
  static const char *const words[] = {"\"><img src=x onerror=alert(1)>", "'", "&amp;", "\x1b]0;t\x07",
                                      "</svg><script>", "\xc2\x9b", ",\r\n"};
  size_t len = *n ? **p % 32 : 0, k = 0;
  if (*n) (*p)++, (*n)--;
  for (size_t i = 0; i < len && *n; i++, (*p)++, (*n)--) {
    uint8_t c = **p;
    if (c >= 0xf8 && c - 0xf8 < (int)(sizeof words / sizeof *words)) {
      const char *w = words[c - 0xf8];
      size_t wl = strlen(w);
      if (k + wl < 255) memcpy(buf + k, w, wl), k += wl;
    } else if (k < 254) {
      buf[k++] = c ? (char)c : '0';
    }
  }
  buf[k] = '\0';
  return buf;
}

static void build_hub(const char *path, const uint8_t *data, size_t size) {
  hub_writer *w = hub_writer_create(path);
  const uint8_t *p = data;
  size_t n = size;
  char a[256], b[256];
  hub_writer_hostname(w, next_text(&p, &n, a));
  int64_t t = 1000000, agent = HUB_NULL, stream = HUB_NULL, sym = HUB_NULL;
  while (n >= 2) {
    int kind = p[0] % 4;
    int64_t pid = 100 + p[1] % 3, tid = pid + p[1] / 3 % 2;
    p += 2, n -= 2;
    t += 1000;
    if (kind == 0) {
      int64_t ev = hub_event(w, next_text(&p, &n, a), HUB_NULL, NULL);
      hub_arg(w, ev, 0, HUB_ARG_STRING, next_text(&p, &n, b), next_text(&p, &n, a));
      hub_region(w, pid, tid, t, t + 500, next_text(&p, &n, b), ev, NULL);
    } else if (kind == 1) {
      if (agent == HUB_NULL) {
        agent = hub_gpu_agent(w, pid, 0);
        stream = hub_stream(w, pid, "stream 7", NULL);
        sym = hub_kernel_symbol(w, pid, next_text(&p, &n, a), next_text(&p, &n, b));
      }
      synthetic_kernel(w, pid, agent, stream, sym, 0, t, t + 300, HUB_NULL);
    } else if (kind == 2) {
      hub_process_name(w, pid, next_text(&p, &n, a));
      hub_thread_name(w, pid, tid, next_text(&p, &n, b));
    } else {
      int64_t ev = hub_event(w, "cuda_runtime", HUB_NULL, NULL);
      hub_region(w, pid, tid, t, t + 100, next_text(&p, &n, a), ev, NULL);
    }
  }
  hub_writer_finish(w);
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  tt_buf b = {0};
  char chunk[65536];
  size_t got;
  while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) tt_buf_append(&b, chunk, got);
  fclose(f);
  *len = b.len;
  return b.data;
}

static void no_controls(const char *s, size_t n, const char *what) {
  for (size_t i = 0; i < n; i++)
    if (((unsigned char)s[i] < 0x20 && s[i] != '\n') || s[i] == 0x7f) {
      fprintf(stderr, "%s: raw control byte 0x%02x at %zu\n", what, (unsigned char)s[i], i);
      abort();
    }
}

/* Every tag is one the writer writes; no attribute name starts with "on". */
static void html_shape(const char *s, size_t n) {
  static const char *const tags[] = {
      "!DOCTYPE", "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3",
      "p", "nav", "a", "main", "section", "div", "b", "span", "table", "thead", "tbody", "tr",
      "th", "td", "svg", "g", "text", "rect", "path", "line", "details", "summary", "footer",
      "script", "code"};
  for (size_t i = 0; i < n; i++) {
    if (s[i] != '<') continue;
    size_t j = i + 1;
    if (j < n && s[j] == '/') j++;
    size_t k = j;
    while (k < n && (isalnum((unsigned char)s[k]) || s[k] == '!')) k++;
    int known = 0;
    for (size_t t = 0; t < sizeof tags / sizeof *tags; t++)
      if (strlen(tags[t]) == k - j && strncmp(tags[t], s + j, k - j) == 0) known = 1;
    if (!known) {
      fprintf(stderr, "html: a tag the writer does not write at %zu: %.40s\n", i, s + i);
      abort();
    }
    /* its attributes, up to the '>' outside quotes */
    char quote = 0;
    for (; k < n && (quote || s[k] != '>'); k++) {
      if (quote) {
        if (s[k] == quote) quote = 0;
      } else if (s[k] == '"' || s[k] == '\'') {
        quote = s[k];
      } else if (isspace((unsigned char)s[k]) && k + 2 < n && tolower((unsigned char)s[k + 1]) == 'o' &&
                 tolower((unsigned char)s[k + 2]) == 'n') {
        fprintf(stderr, "html: an on... attribute at %zu: %.40s\n", k, s + k);
        abort();
      }
    }
    if (quote) {
      fprintf(stderr, "html: an attribute left open at %zu\n", i);
      abort();
    }
    i = k;
  }
}

static int run(const char *hub, const char *out, const char *format) {
  char *argv[] = {"db2summary", "-q", "--format", (char *)format, (char *)hub, "-o", (char *)out, NULL};
  optind = 0; /* glibc: a full getopt restart for each run */
  return tt_export_main(7, argv, db2summary_exporter());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char hub[64], out[64];
  if (!hub[0]) { /* in /dev/shm when there is one: no disk writes per run */
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(hub, sizeof hub, "%s/fuzz-db2summary-%ld.db", dir, (long)getpid());
    snprintf(out, sizeof out, "%s/fuzz-db2summary-%ld.out", dir, (long)getpid());
  }
  tt_set_progname("db2summary");
  build_hub(hub, data, size);
  static const char *const formats[] = {"html", "text", "csv"};
  for (size_t f = 0; f < 3; f++) {
    if (run(hub, out, formats[f]) != 0) continue; /* a hub it refuses: no output */
    size_t len = 0;
    char *s = slurp(out, &len);
    if (s) {
      no_controls(s, len, formats[f]);
      if (f == 0) html_shape(s, len);
    }
    free(s);
    unlink(out);
  }
  unlink(hub);
  return 0;
}
