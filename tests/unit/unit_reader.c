/* Unit tests of the hub writer + streaming reader: several databases read
 * as one stream in global time order, filters, args, info tables. The
 * expected values are the ones this test writes, computed here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hub/hub_reader.h"
#include "hub/hub_writer.h"
#include "base/util.h"

#include "synthetic_kernel.h"
#include "unit.h"

/* Database d holds pid 100+d: regions at d, d+3, d+6, ... (so the three
 * databases interleave), one kernel per region with the same correlation,
 * and args on every region. */
static void make_db(const char *path, int d, int n) {
  hub_writer *w = hub_writer_create(path);
  int64_t pid = 100 + d;
  hub_process_name(w, pid, d == 0 ? "first" : "other");
  /* Each its clock: boot with an anchor, wall, and none said. */
  if (d == 0) hub_writer_clock(w, HUB_CLOCK_BOOT, 1700000000123456789LL);
  if (d == 1) hub_writer_clock(w, HUB_CLOCK_WALL, 0);
  hub_thread_name(w, pid, pid, "main");
  int64_t agent = hub_gpu_agent(w, pid, 0);
  int64_t stream = hub_stream(w, pid, "stream 7", NULL);
  int64_t ksym = hub_kernel_symbol(w, pid, "_Z6kernelv", "kernel()");
  for (int i = 0; i < n; i++) {
    int64_t t = 1000 + (int64_t)(3 * i + d) * 10;
    int64_t ev = hub_event(w, "cuda_runtime", i + 1, NULL);
    hub_arg_int(w, ev, 0, "index", i);
    hub_arg(w, ev, 1, HUB_ARG_STRING, "label", "a\"b\\c\n");
    hub_region(w, pid, pid, t, t + 5, "cudaLaunchKernel", ev, NULL);
    synthetic_kernel(w, pid, agent, stream, ksym, i, t + 7, t + 9, i + 1);
  }
  hub_writer_finish(w);
}

int main(void) {
  char dir[] = "/tmp/tt-unit-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char paths[3][256];
  const char *pp[3];
  for (int d = 0; d < 3; d++) {
    snprintf(paths[d], sizeof paths[d], "%s/db%d.db", dir, d);
    make_db(paths[d], d, 50);
    pp[d] = paths[d];
  }
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  hub_reader *r = hub_reader_open(pp, 3, &f);
  CHECK(r != NULL, "three databases open as one reader");
  if (!r) return 1;
  hub_record ev;
  int n = 0, regions = 0, kernels = 0, ordered = 1, linked = 0, names_ok = 1, lanes_ok = 1;
  int64_t last = INT64_MIN;
  while (hub_reader_next(r, &ev) > 0) {
    n++;
    if (ev.start < last) ordered = 0;
    last = ev.start;
    if (ev.kind == HUB_REGION) {
      regions++;
      if (strcmp(ev.name, "cudaLaunchKernel") != 0) names_ok = 0;
      if (ev.link_ts == ev.start + 7) linked++;
    }
    if (ev.kind == HUB_KERNEL) {
      kernels++;
      if (strcmp(ev.name, "kernel()") != 0) names_ok = 0;
      if (ev.link_ts == ev.start - 7) linked++;
      const hub_lane_info *l = hub_reader_find_lane(r, ev.db, ev.lane_id, ev.lane_is_queue);
      /* on its stream, with the thread of the call that launched it */
      if (!l || l->is_queue || strcmp(l->name, "stream 7") != 0 || ev.tid != ev.pid) lanes_ok = 0;
    }
  }
  CHECK(n == 300, "all rows of all databases: %d == 300", n);
  CHECK(regions == 150 && kernels == 150, "regions %d == 150, kernels %d == 150", regions, kernels);
  CHECK(ordered, "global start-time order across databases");
  CHECK(names_ok, "names resolved (demangled display name for _Z kernels)");
  CHECK(linked == 300, "every launch and kernel linked by correlation: %d == 300", linked);
  CHECK(hub_reader_nprocesses(r) == 3, "three processes");
  int clocks_ok = hub_reader_nprocesses(r) == 3;
  for (size_t i = 0; clocks_ok && i < 3; i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    static const hub_clock want[3] = {HUB_CLOCK_BOOT, HUB_CLOCK_WALL, HUB_CLOCK_UNKNOWN};
    static const int64_t want_wall[3] = {1700000000123456789LL, 0, HUB_NULL};
    clocks_ok = p->pid >= 100 && p->pid < 103 && p->clock == want[p->pid - 100] &&
                p->to_wall_ns == want_wall[p->pid - 100];
  }
  CHECK(clocks_ok, "each process's clock and wall anchor as its writer stated them");
  /* Per database: its stream, and the queue the writer adds for the
   * stream's kernels (rocpd's kernels view reaches the process through a
   * queue), named after it. */
  int streams = 0, queues = 0;
  for (size_t i = 0; i < hub_reader_nlanes(r); i++) {
    const hub_lane_info *l = hub_reader_lane(r, i);
    if (strcmp(l->name, l->is_queue ? "GPU 0 stream 7" : "stream 7") == 0)
      l->is_queue ? queues++ : streams++;
  }
  CHECK(hub_reader_nlanes(r) == 6 && streams == 3 && queues == 3,
        "streams loaded, and one queue per stream: %zu lanes, %d streams, %d queues",
        hub_reader_nlanes(r), streams, queues);
  CHECK(lanes_ok, "kernels stay on their stream's lane, with their launching call's thread");
  hub_reader_close(r);

  /* Filters: time range, category, name, pid. */
  f.start = 1000 + 30 * 10; /* from the 30th slot */
  f.end = 1000 + 60 * 10;
  r = hub_reader_open(pp, 3, &f);
  n = 0;
  while (hub_reader_next(r, &ev) > 0) n++;
  /* slots 30..59 start in range (30 regions + 30 kernels), plus the
   * kernel of slot 29 (starts 1297, ends 1299 < 1300: out) -> 60. */
  CHECK(n == 60, "time range [1300,1600): %d == 60", n);
  hub_reader_close(r);

  const char *cats[] = {"kern*"};
  hub_filter f2 = {.start = HUB_NULL, .end = HUB_NULL, .pid = 101, .categories = cats,
                   .ncategories = 1};
  r = hub_reader_open(pp, 3, &f2);
  n = 0;
  int pid_ok = 1;
  while (hub_reader_next(r, &ev) > 0) {
    n++;
    if (ev.pid != 101 || ev.kind != HUB_KERNEL) pid_ok = 0;
  }
  CHECK(n == 50 && pid_ok, "pid 101 + category kern*: %d == 50 kernels", n);
  hub_reader_close(r);

  const char *names[] = {"cuda*"};
  hub_filter f3 = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL, .names = names,
                   .nnames = 1};
  r = hub_reader_open(pp, 3, &f3);
  n = 0;
  int args_ok = 0;
  while (hub_reader_next(r, &ev) > 0) {
    n++;
    if (n == 1) {
      hub_arg_view a;
      int k = 0;
      hub_args_begin(r, ev.db, ev.event_id);
      while (hub_args_next(r, &a)) {
        if (k == 0 && strcmp(a.name, "index") == 0 && strcmp(a.value, "0") == 0) args_ok++;
        if (k == 1 && strcmp(a.value, "a\"b\\c\n") == 0) args_ok++;
        k++;
      }
    }
  }
  CHECK(n == 150, "name glob cuda*: %d == 150", n);
  CHECK(args_ok == 2, "args in position order with exact values");
  hub_reader_close(r);

  /* Not a hub: a text file, and a SQLite file without rocpd tables. */
  char bad[300];
  snprintf(bad, sizeof bad, "%s/bad.db", dir);
  unit_write_file(bad, "hello");
  const char *bp[1] = {bad};
  CHECK(hub_reader_open(bp, 1, &f) == NULL, "a text file is refused");

  for (int d = 0; d < 3; d++) unlink(paths[d]);
  unlink(bad);
  rmdir(dir);
  return failures ? 1 : 0;
}
