#include "threads.h"

#include <string.h>
#include <unistd.h>

int tt_threads_parse(const char *s) {
  if (!s) return -1;
  if (strcmp(s, "auto") == 0) return tt_threads_default();
  if (strcmp(s, "1") == 0) return 1;
  if (strcmp(s, "2") == 0) return 2;
  return -1;
}

int tt_threads_default(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 2 ? 2 : 1;
}
