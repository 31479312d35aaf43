/* The hub's model shared by its readers and tools: what a record is, as
 * one classifier decides it once (hub_reader.c, from the hub table a row
 * comes from and its category), whatever name the importer gave the
 * category. Filters (--gpu) and tools' groupings use this class instead of
 * matching category names of their own. */
#ifndef TT_HUB_H
#define TT_HUB_H

typedef enum hub_class {
  HUB_CLS_OTHER,          /* none of the below */
  HUB_CLS_API,            /* a region on a CPU thread: API call, operator, range */
  HUB_CLS_MARKER,         /* a user's marker on a CPU thread (NVTX, roctx, annotation), an instant */
  HUB_CLS_KERNEL,         /* GPU: a kernel dispatch, whatever the source calls its GPU work */
  HUB_CLS_MEMCPY,         /* GPU: a memory copy */
  HUB_CLS_MEMSET,         /* GPU: a memset or fill (a dispatch, or an allocate row of that kind) */
  HUB_CLS_GPU_ANNOTATION, /* GPU: a range drawn on a GPU stream or queue */
  HUB_CLS_ALLOC,          /* a memory allocation or free */
  HUB_CLS_COUNTER,        /* a counter sample */
  HUB_CLS_FLOW,           /* a recorded end of a flow arrow */
  HUB_CLS_COUNT
} hub_class;

const char *hub_class_name(hub_class c);

/* The GPU side of a trace: kernels, copies, memsets, GPU annotations. */
static inline int hub_class_is_gpu(hub_class c) {
  return c == HUB_CLS_KERNEL || c == HUB_CLS_MEMCPY || c == HUB_CLS_MEMSET ||
         c == HUB_CLS_GPU_ANNOTATION;
}

#endif
