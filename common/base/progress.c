#include "base/progress.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

static int enabled, quiet, verbose;
/* A progress line is on the terminal: the next message ends it first.
 * Messages may come from a second thread (a size split's planner or
 * spool), so it is taken atomically. */
static atomic_int drawn;
static double last, started;

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void tt_progress_init(int mode) {
  quiet = mode < 0;
  enabled = mode > 0 || (mode == 0 && isatty(STDERR_FILENO));
  tt_set_quiet(quiet);
  tt_set_message_hook(tt_progress_done);
  last = 0;
  started = now();
}

int tt_progress_quiet(void) { return quiet; }
int tt_progress_enabled(void) { return enabled && !quiet; }

static void draw(const char *what, uint64_t done, uint64_t total, double t) {
  double secs = t - started;
  double rate = secs > 0 ? (double)done / secs : 0;
  if (total) {
    /* Totals are counted before filters and windows: never past 99%
     * until the end says 100%. */
    double pct = 100.0 * (double)done / (double)total;
    if (pct > 99) pct = 99;
    fprintf(stderr, "\r%s: %llu of %llu %s (%.0f%%), %.0f %s/s   ", tt_progname(),
            (unsigned long long)done, (unsigned long long)total, what, pct, rate, what);
  } else {
    fprintf(stderr, "\r%s: %llu %s, %.0f %s/s   ", tt_progname(), (unsigned long long)done, what,
            rate, what);
  }
  atomic_store(&drawn, 1);
}

void tt_progress(const char *what, uint64_t done, uint64_t total) {
  if (!enabled || quiet) return;
  double t = now();
  if (t - last < 0.25) return;
  last = t;
  draw(what, done, total, t);
}

void tt_progress_finish(const char *what, uint64_t done) {
  if (!enabled || quiet) return;
  double t = now(), secs = t - started;
  fprintf(stderr, "\r%s: %llu %s (100%%) in %.1f s, %.0f %s/s   ", tt_progname(),
          (unsigned long long)done, what, secs, secs > 0 ? (double)done / secs : 0, what);
  atomic_store(&drawn, 1);
  tt_progress_done();
}

void tt_progress_done(void) {
  if (atomic_exchange(&drawn, 0)) fputc('\n', stderr);
}

void tt_info(const char *fmt, ...) {
  if (quiet) return;
  va_list ap;
  va_start(ap, fmt);
  tt_vmessage("", fmt, ap); /* ends the progress line first */
  va_end(ap);
}

void tt_progress_verbose(int on) { verbose = on; }
int tt_verbose(void) { return verbose && !quiet; }

