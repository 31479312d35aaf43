#include "sources/executorch_tax.h"

#include <string.h>

void tt_et_iteration_add(tt_et_iteration *it, const char *name, int64_t duration) {
  if (strstr(name, "Method::execute")) {
    if (!it->has_exec || duration > it->exec_max) it->exec_max = duration;
    it->has_exec = 1;
  }
  if (strstr(name, "native_call") || strstr(name, "delegate_execute")) {
    int64_t sum;
    it->kernel_sum = __builtin_add_overflow(it->kernel_sum, duration, &sum) ? INT64_MAX : sum;
  }
}

int tt_et_iteration_tax(const tt_et_iteration *it, double *tax) {
  if (!it->has_exec || it->exec_max <= 0) return 0;
  *tax = (double)(it->exec_max - it->kernel_sum) / (double)it->exec_max;
  return 1;
}
