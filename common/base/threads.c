#include "base/threads.h"

#include <sched.h>
#include <string.h>
#include <unistd.h>

int tt_threads_cpus(void) {
  /* The CPUs this process may run on (taskset, a cgroup's cpuset, a batch
   * scheduler's allocation), as nproc(1) counts them; the online count
   * only where the affinity mask cannot be read. */
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

int tt_threads_default(int auto_max) {
  int n = tt_threads_cpus() >= 2 ? 2 : 1;
  return n < auto_max ? n : auto_max;
}

int tt_threads_parse(const char *s, int auto_max) {
  if (!s) return -1;
  if (strcmp(s, "auto") == 0) return tt_threads_default(auto_max);
  if (strcmp(s, "1") == 0) return 1;
  if (strcmp(s, "2") == 0) return 2;
  return -1;
}
