/* The size split's balanced cuts planned on a second thread
 * (tt_cuts_ahead, cut_source.h) when the planner runs out of memory: every allocation the planner's thread makes
 * (tt_malloc, tt_calloc, tt_realloc, wrapped at link time: see the
 * Makefile) is made to fail in turn, one run each, in a child process
 * with an alarm. Out of memory, tt_die ends the planner's thread; the
 * writer must then see the plan failed and end, never wait forever (the
 * planner once died holding the lock its cleanup takes). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "cli/cut_source.h"
#include "hub/hub_reader.h"
#include "hub/hub_writer.h"

#include "synthetic_kernel.h"
#include "unit.h"

/* --- the injected failure --------------------------------------------- */

void *__real_tt_malloc(size_t n);
void *__real_tt_calloc(size_t n, size_t size);
void *__real_tt_realloc(void *p, size_t n);

static _Thread_local int on_planner; /* set by the sink's dry part */
static long planner_allocs, fail_at;  /* fail the fail_at-th (1-based) */

static void maybe_fail(void) {
  if (on_planner && ++planner_allocs == fail_at) tt_die(3, "out of memory (injected)");
}
void *__wrap_tt_malloc(size_t n) {
  maybe_fail();
  return __real_tt_malloc(n);
}
void *__wrap_tt_calloc(size_t n, size_t size) {
  maybe_fail();
  return __real_tt_calloc(n, size);
}
void *__wrap_tt_realloc(void *p, size_t n) {
  maybe_fail();
  return __real_tt_realloc(p, n);
}

/* --- a sink whose part holds 100 bytes an event ------------------------ */

static void *sink_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p, tt_output *out) {
  (void)r, (void)o, (void)out;
  if (p->dry) on_planner = 1; /* the planner's thread: its allocations count */
  return calloc(1, sizeof(uint64_t));
}
static int sink_event(void *state, hub_reader *r, const hub_record *ev) {
  (void)r, (void)ev;
  *(uint64_t *)state += 100;
  return 0;
}
static int sink_end(void *state, hub_reader *r) {
  (void)r;
  free(state);
  return 0;
}
static uint64_t sink_bytes(void *state) { return *(uint64_t *)state; }

/* 200 kernels, one every 10 ns: at most 250 bytes a part is 2 kernels a
 * part, 100 parts, so the plan grows several times (16, 32, 64, 128). */
static void make_hub(const char *path) {
  hub_writer *w = hub_writer_create(path);
  hub_process_name(w, 7, "p");
  int64_t agent = hub_gpu_agent(w, 7, 0);
  int64_t stream = hub_stream(w, 7, "s", NULL);
  int64_t ksym = hub_kernel_symbol(w, 7, "k", "k()");
  for (int i = 0; i < 200; i++) synthetic_kernel(w, 7, agent, stream, ksym, i, 1000 + 10 * i, 1005 + 10 * i, HUB_NULL);
  hub_writer_finish(w);
}

/* In a child: plans with allocation `n` of the planner failing. Exits 0
 * when the plan completed (no n-th allocation), 10 when the writer saw it
 * fail, 1 on anything else; killed by the alarm if it hangs. */
static void child(const char *db, long n, size_t *nparts) {
  fail_at = 0;
  alarm(20);
  if (!freopen("/dev/null", "w", stderr)) _exit(1);
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  hub_reader *r = hub_reader_open(&db, 1, &f);
  if (!r) _exit(1);
  tt_exporter ex = {.begin_part = sink_begin, .event = sink_event, .end_part = sink_end,
                    .part_bytes = sink_bytes};
  tt_export_opts o = {.part = -1, .max_part_size = 250};
  tt_part proto = {.pid = HUB_NULL, .path = "-"};
  tt_plan_spec spec = {.ex = &ex, .o = &o, .proto = &proto, .t0 = 1000, .t1 = 3000, .max = 250};
  /* The fewest plan (the count) on this thread, before any failure. */
  tt_cut_plan fewest;
  if (tt_plan_fewest(r, &spec, &fewest) != 0) _exit(1);
  hub_reader_close(r);
  on_planner = 0;
  planner_allocs = 0;
  fail_at = n;
  r = hub_reader_open(&db, 1, &f);
  if (!r) _exit(1);
  tt_cut_source *a = tt_cuts_ahead(r, &spec, &fewest);
  if (!a) _exit(1);
  int rc;
  int64_t k = 0, end;
  uint64_t bytes;
  while ((rc = a->next(a, k, &end, &bytes)) == 1) k++;
  if (rc == 0 && a->finish(a) == 0) {
    *nparts = (size_t)k;
    tt_cut_source_free(a);
    return;
  }
  int64_t count = a->count;
  tt_cut_source_free(a);
  _exit(rc == -1 || k == count ? 10 : 1); /* said failed: while waiting, or at the end */
}

int main(void) {
  signal(SIGALRM, SIG_DFL);
  char dir[] = "/tmp/tt-unit-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char db[300];
  snprintf(db, sizeof db, "%s/h.db", dir);
  make_hub(db);

  /* Without a failure: the plan, 2 kernels a part. */
  pid_t pid = fork();
  if (pid == 0) {
    size_t nparts = 0;
    child(db, 0, &nparts);
    _exit(nparts == 100 ? 0 : 2);
  }
  int st;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "planned ahead: 100 parts of 2 kernels (status %d)", st);

  long hung = 0, failed_clean = 0, other = 0, n;
  for (n = 1; n <= 2000; n++) {
    pid = fork();
    if (pid == 0) {
      size_t nparts = 0;
      child(db, n, &nparts);
      _exit(0); /* completed: the planner made fewer than n allocations */
    }
    waitpid(pid, &st, 0);
    if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM) {
      hung++;
      printf("  allocation %ld failing: the writer waited forever\n", n);
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 10) {
      failed_clean++;
    } else if (WIFEXITED(st) && WEXITSTATUS(st) == 0) {
      break;
    } else {
      other++;
      printf("  allocation %ld failing: status %d\n", n, st);
    }
    if (hung >= 2) break; /* each hang costs the alarm's 20 s */
  }
  CHECK(n > 20 && failed_clean == n - 1, "every one of the planner's %ld allocations failing ends "
        "the plan as failed (%ld did)", n - 1, failed_clean);
  CHECK(hung == 0, "no failing allocation leaves the writer waiting (%ld did)", hung);
  CHECK(other == 0, "no failing allocation crashes (%ld did)", other);

  unlink(db);
  rmdir(dir);
  return failures ? 1 : 0;
}
