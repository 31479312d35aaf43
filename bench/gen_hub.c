/* Writes a synthetic hub database of N launch+kernel pairs through the
 * real writer: the input of the memory test and of `make bench`.
 *   gen_hub OUT.db N [THREADS [PATTERN [PID]]]
 * PATTERN "even" (default): a pair every 1 us. "bursty": 90% of the pairs
 * in the first tenth of the time (a pair every 1 us, then every 81 us),
 * the trace a split into equal windows makes lopsided. PID: 4242. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_writer.h"
#include "base/util.h"

#include "../tests/unit/synthetic_kernel.h"

int main(int argc, char **argv) {
  tt_set_progname(argv[0]);
  if (argc < 3) {
    fprintf(stderr, "usage: gen_hub OUT.db N [THREADS [even|bursty [PID]]]\n");
    return 2;
  }
  long long n = atoll(argv[2]);
  int threads = argc > 3 ? atoi(argv[3]) : 4;
  if (threads < 1) threads = 1;
  int bursty = argc > 4 && strcmp(argv[4], "bursty") == 0;
  if (argc > 4 && !bursty && strcmp(argv[4], "even") != 0) {
    fprintf(stderr, "gen_hub: pattern '%s': expected even or bursty\n", argv[4]);
    return 2;
  }
  const int64_t pid = argc > 5 ? atoll(argv[5]) : 4242;
  long long dense = bursty ? n * 9 / 10 : n;
  hub_writer *w = hub_writer_create(argv[1]);
  hub_process_name(w, pid, "bench");
  int64_t agent = hub_gpu_agent(w, pid, 0);
  int64_t stream = hub_stream(w, pid, "stream 7", NULL);
  char name[64];
  for (long long i = 0; i < n; i++) {
    int64_t tid = pid + i % threads;
    int64_t t = 1000000000LL + (i < dense ? i : dense) * 1000 + (i < dense ? 0 : (i - dense) * 81000);
    int64_t ev = hub_event(w, "cuda_runtime", i + 1, NULL);
    hub_arg_int(w, ev, 0, "correlation", i + 1);
    hub_region(w, pid, tid, t, t + 400, "cudaLaunchKernel", ev, NULL);
    snprintf(name, sizeof name, "kernel_%lld", i % 64);
    synthetic_kernel(w, pid, agent, stream, hub_kernel_symbol(w, pid, name, name), i, t + 500,
                     t + 900, i + 1);
  }
  hub_writer_finish(w);
  return 0;
}
