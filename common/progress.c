#include "progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static int enabled, quiet, drawn;
static double last;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tt_progress_init(int mode) {
  quiet = mode < 0;
  enabled = mode > 0 || (mode == 0 && isatty(STDERR_FILENO));
  last = 0;
}

int tt_progress_quiet(void) { return quiet; }

void tt_progress(const char *what, uint64_t done, uint64_t total) {
  if (!enabled || quiet) return;
  double t = now();
  if (t - last < 0.25) return;
  last = t;
  if (total)
    fprintf(stderr, "\r%s: %llu / %llu %s (%.0f%%)   ", tt_progname(),
            (unsigned long long)done, (unsigned long long)total, what,
            100.0 * (double)done / (double)total);
  else
    fprintf(stderr, "\r%s: %llu %s   ", tt_progname(), (unsigned long long)done, what);
  drawn = 1;
}

void tt_progress_done(void) {
  if (drawn) fputc('\n', stderr);
  drawn = 0;
}

void tt_info(const char *fmt, ...) {
  if (quiet) return;
  tt_progress_done();
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: ", tt_progname());
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
