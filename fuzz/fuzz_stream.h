/* The event stream the writer harnesses feed the exporters: a hub built
 * from the fuzzer's bytes, each record a few bytes (kind, process, thread,
 * start delta, duration that may be negative, correlation, a name of raw
 * bytes that may be invalid UTF-8), then the exporter run on it by
 * tt_export_main, as the tool's main runs it (<tool>_exporter, <tool>.h). Included by fuzz/fuzz_db2json.c, fuzz_db2perfetto.c and fuzz_db2otf2.c,
 * and by fuzz/stream_hub.c, which writes the hub of a saved input for
 * scripts/fuzz-to-case.sh. */
#include <ftw.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/export.h"
#include "hub/hub_writer.h"
#include "base/progress.h"
#include "base/util.h"

#include "../tests/unit/synthetic_kernel.h"

static size_t take(const uint8_t **p, size_t *n, size_t k, uint8_t *out) {
  size_t got = *n < k ? *n : k;
  memset(out, 0, k);
  memcpy(out, *p, got);
  *p += got;
  *n -= got;
  return got;
}

/* Builds the hub at path from data; returns 0 when it was written. */
static int fuzz_hub(const char *path, const uint8_t *data, size_t size) {
  hub_writer *w = hub_writer_create(path);
  int64_t t = 1000000;
  int64_t agent = HUB_NULL, stream = HUB_NULL, sym = HUB_NULL;
  const uint8_t *p = data;
  size_t n = size;
  uint8_t r[12];
  char name[9];
  while (n >= 4) {
    take(&p, &n, sizeof r, r);
    int kind = r[0] % 4;
    int64_t pid = 100 + r[1] % 3, tid = pid + r[2] % 4;
    t += r[3] * 37;
    int64_t dur = (int16_t)(r[4] | r[5] << 8);
    int64_t corr = r[6] % 16;
    memcpy(name, r + 7, 5);
    name[5] = '\0';
    if (kind == 0) {
      int64_t ev = hub_event(w, "cpu_op", corr ? corr : HUB_NULL, NULL);
      if (r[11] & 1) hub_arg(w, ev, 0, HUB_ARG_STRING, name, name);
      hub_region(w, pid, tid, t, t + dur, name, ev, NULL);
    } else if (kind == 1) {
      if (agent == HUB_NULL) {
        agent = hub_gpu_agent(w, pid, 0);
        stream = hub_stream(w, pid, "stream 7", NULL);
        sym = hub_kernel_symbol(w, pid, name, name);
      }
      synthetic_kernel(w, pid, agent, stream, sym, 0, t, t + dur, corr ? corr : HUB_NULL);
    } else if (kind == 2) {
      hub_process_name(w, pid, name);
      hub_thread_name(w, pid, tid, name);
    } else {
      int64_t ev = hub_event(w, "cuda_runtime", corr ? corr : HUB_NULL, NULL);
      hub_region(w, pid, tid, t, t + (dur < 0 ? -dur : dur), "cudaLaunchKernel", ev, NULL);
    }
  }
  hub_writer_finish(w);
  return 0;
}

/* Runs the tool's exporter on the hub as its main does; returns its status. */
__attribute__((unused)) static int fuzz_export(const tt_exporter *ex, const char *tool,
                                               const char *hub, const char *out) {
  char *argv[] = {(char *)tool, "-q", (char *)hub, "-o", (char *)out, NULL};
  optind = 0; /* glibc: a full getopt restart for each run */
  return tt_export_main(5, argv, ex);
}

static int fuzz_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  remove(path);
  return 0;
}

/* The output, a file or a directory (an OTF2 archive), removed whole. */
__attribute__((unused)) static void fuzz_remove(const char *path) {
  nftw(path, fuzz_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#define FUZZ_EXPORTER(tool, exporter_fn)                                            \
  int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {                    \
    static char hub[64], out[64];                                                   \
    if (!hub[0]) { /* in /dev/shm when there is one: no disk writes per run */      \
      const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";        \
      snprintf(hub, sizeof hub, "%s/fuzz-" tool "-%ld.db", dir, (long)getpid());    \
      snprintf(out, sizeof out, "%s/fuzz-" tool "-%ld.out", dir, (long)getpid());   \
    }                                                                               \
    tt_set_progname(tool);                                                          \
    if (fuzz_hub(hub, data, size) == 0) fuzz_export(exporter_fn(), tool, hub, out); \
    unlink(hub);                                                                    \
    fuzz_remove(out);                                                               \
    return 0;                                                                       \
  }
