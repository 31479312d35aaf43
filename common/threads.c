#include "threads.h"

#include <string.h>
#include <unistd.h>

int tt_threads_default(int auto_max) {
  int n = sysconf(_SC_NPROCESSORS_ONLN) >= 2 ? 2 : 1;
  return n < auto_max ? n : auto_max;
}

int tt_threads_parse(const char *s, int auto_max) {
  if (!s) return -1;
  if (strcmp(s, "auto") == 0) return tt_threads_default(auto_max);
  if (strcmp(s, "1") == 0) return 1;
  if (strcmp(s, "2") == 0) return 2;
  return -1;
}
