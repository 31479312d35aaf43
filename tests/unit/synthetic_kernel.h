/* One kernel dispatch as the synthetic hubs write it (tests/unit, the
 * fuzz stream hub, bench/gen_hub): a kernel on a stream of its agent, with
 * a "kernel" event of its own carrying the launch's correlation id. */
#ifndef TT_SYNTHETIC_KERNEL_H
#define TT_SYNTHETIC_KERNEL_H

#include <stdint.h>

#include "hub/hub_writer.h"

static inline void synthetic_kernel(hub_writer *w, int64_t pid, int64_t agent, int64_t stream,
                                    int64_t kernel_id, int64_t dispatch_id, int64_t start,
                                    int64_t end, int64_t correlation_id) {
  hub_kernel_row k;
  hub_kernel_row_init(&k);
  k.pid = pid;
  k.agent_id = agent;
  k.stream_id = stream;
  k.kernel_id = kernel_id;
  k.dispatch_id = dispatch_id;
  k.start = start;
  k.end = end;
  k.event_id = hub_event(w, "kernel", correlation_id, NULL);
  hub_kernel_dispatch(w, &k);
}

#endif
