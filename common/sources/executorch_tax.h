/* ExecuTorch's framework tax of one iteration, as its own tools compute it
 * (parse_profiler_results.py): E = the longest event whose name contains
 * "Method::execute", K = the summed durations of events whose names
 * contain "native_call" or "delegate_execute"; tax = (E - K) / E. Both
 * etprof2db --summary (one line per iteration) and db2summary (per block,
 * over its iterations) use it, so they count the same events. */
#ifndef TT_EXECUTORCH_TAX_H
#define TT_EXECUTORCH_TAX_H
#include <stdint.h>

typedef struct tt_et_iteration {
  int has_exec;       /* a Method::execute event was seen */
  int64_t exec_max;   /* E */
  int64_t kernel_sum; /* K, INT64_MAX when it does not fit */
} tt_et_iteration;

/* Adds one finished event of the iteration (duration >= 0). */
void tt_et_iteration_add(tt_et_iteration *it, const char *name, int64_t duration);

/* The tax of the iteration as a fraction, (E - K) / E: 1 with *tax set, 0
 * when it has none (no Method::execute event, or E = 0). */
int tt_et_iteration_tax(const tt_et_iteration *it, double *tax);

#endif
