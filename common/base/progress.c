#include "base/progress.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/util.h"

static int enabled, quiet, verbose;
/* The totals are upper bounds (counted before filters): shown as "~N". */
static int estimate;
/* Standard output is on the terminal: nothing more is drawn there. */
static int held;
/* A progress line is on the terminal: the next message ends it first.
 * Messages may come from a second thread (a size split's planner or
 * spool), so it is taken atomically; `width` is its length, for clearing. */
static atomic_int drawn, width;
static double last, started;
static const char *phase = "";

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
  phase = "";
  estimate = held = 0;
}

int tt_progress_quiet(void) { return quiet; }
int tt_progress_enabled(void) { return enabled && !quiet; }

void tt_progress_phase(const char *name) {
  phase = name ? name : "";
  last = 0;
  started = now(); /* the rate counts this phase only */
}

void tt_progress_estimate(int on) { estimate = on; }

/* "12.3 MB" for bytes (powers of 1000, as the unit says), else the count. */
static void amount(char *buf, size_t n, const char *what, uint64_t v) {
  if (strcmp(what, "bytes") == 0)
    snprintf(buf, n, "%.1f MB", (double)v / 1e6);
  else
    snprintf(buf, n, "%llu", (unsigned long long)v);
}

static void line(const char *text) {
  int w = atomic_load(&width), len = (int)strlen(text);
  /* a shorter line than the last one blanks what is left of it */
  fprintf(stderr, "\r%s%*s", text, w > len ? w - len : 0, "");
  atomic_store(&width, len);
  atomic_store(&drawn, 1);
}

/* " rows" after a count, nothing after "12.3 MB" (its unit is in it). */
static const char *unit(const char *what) { return strcmp(what, "bytes") == 0 ? "" : what; }
static const char *space(const char *what) { return strcmp(what, "bytes") == 0 ? "" : " "; }

static void draw(const char *what, uint64_t done, uint64_t total, double t) {
  double secs = t - started;
  double rate = secs > 0 ? (double)done / secs : 0;
  char d[32], tot[32], r[32], text[320];
  amount(d, sizeof d, what, done);
  amount(r, sizeof r, what, (uint64_t)rate);
  if (total) {
    /* An estimate may be passed: never past 99% until the end says 100%. */
    double pct = 100.0 * (double)done / (double)total;
    if (pct > 99) pct = 99;
    amount(tot, sizeof tot, what, total);
    snprintf(text, sizeof text, "%s: %s%s%s of %s%s%s%s (%.0f%%), %s%s%s/s", tt_progname(),
             phase, phase[0] ? ": " : "", d, estimate ? "~" : "", tot, space(what), unit(what),
             pct, r, space(what), unit(what));
  } else {
    snprintf(text, sizeof text, "%s: %s%s%s%s%s, %s%s%s/s", tt_progname(), phase,
             phase[0] ? ": " : "", d, space(what), unit(what), r, space(what), unit(what));
  }
  line(text);
}

void tt_progress(const char *what, uint64_t done, uint64_t total) {
  if (!enabled || quiet || held) return;
  double t = now();
  if (t - last < 0.25) return;
  last = t;
  draw(what, done, total, t);
}

void tt_progress_finish(const char *what, uint64_t done) {
  if (!enabled || quiet || held) return;
  double t = now(), secs = t - started;
  char d[32], r[32], text[320];
  amount(d, sizeof d, what, done);
  amount(r, sizeof r, what, (uint64_t)(secs > 0 ? (double)done / secs : 0));
  snprintf(text, sizeof text, "%s: %s%s%s%s%s (100%%) in %.1f s, %s%s%s/s", tt_progname(), phase,
           phase[0] ? ": " : "", d, space(what), unit(what), secs, r, space(what), unit(what));
  line(text);
  tt_progress_done();
}

void tt_progress_done(void) {
  if (atomic_exchange(&drawn, 0)) fputc('\n', stderr);
  atomic_store(&width, 0);
}

/* Whether standard output and standard error are the same terminal. */
static int same_terminal(void) {
  struct stat o, e;
  return isatty(STDOUT_FILENO) && isatty(STDERR_FILENO) && fstat(STDOUT_FILENO, &o) == 0 &&
         fstat(STDERR_FILENO, &e) == 0 && o.st_rdev == e.st_rdev;
}

void tt_progress_stdout_begins(void) {
  if (!same_terminal()) return;
  held = 1;
  if (atomic_exchange(&drawn, 0)) /* blanked, not ended: the output starts where it was */
    fprintf(stderr, "\r%*s\r", atomic_load(&width), "");
  atomic_store(&width, 0);
  fflush(stderr);
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
