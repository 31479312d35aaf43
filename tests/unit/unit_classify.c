/* Unit tests of the hub's model (hub.h): the words its enums store, and
 * the reader's one classifier of records, on rows written with the names
 * each source gives its categories (Kineto, nvvp/nsys, rocprofv3, rpd).
 * The expected class of each row is written beside it here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hub/hub_reader.h"
#include "hub/hub_writer.h"

#include "unit.h"

/* A region (or, is_kernel, a kernel) per (category, expected class), one
 * after another. */
static const struct {
  int is_kernel;
  const char *category;
  hub_class cls;
} rows[] = {
    {0, "cuda_runtime", HUB_CLS_API},      {0, "Runtime", HUB_CLS_API},
    {0, "CUDA_DRIVER_API", HUB_CLS_API},   {0, "HIP_RUNTIME_API_EXT", HUB_CLS_API},
    {0, "api", HUB_CLS_API},               {0, "HSA_CORE_API", HUB_CLS_API},
    {0, "RCCL_API", HUB_CLS_API},          {0, "NVTX", HUB_CLS_MARKER},
    {0, "MARKER_CORE_API", HUB_CLS_MARKER}, {0, "user_annotation", HUB_CLS_MARKER},
    {0, "UserMarker", HUB_CLS_MARKER},     {0, "CUDA_SYNC", HUB_CLS_SYNC},
    {0, "cpu_op", HUB_CLS_REGION},         {0, "Operator", HUB_CLS_REGION},
    {0, "PROFILER_OVERHEAD", HUB_CLS_REGION}, {0, "executorch", HUB_CLS_REGION},
    {0, "", HUB_CLS_REGION},               {1, "kernel", HUB_CLS_KERNEL},
    {1, "KERNEL_DISPATCH", HUB_CLS_KERNEL}, {1, "gpu_memset", HUB_CLS_MEMSET},
    {1, "CUDA_MEMSET", HUB_CLS_MEMSET},    {1, "FillBuffer", HUB_CLS_MEMSET},
    {1, "cuda_sync", HUB_CLS_SYNC},
};
#define NROWS (sizeof rows / sizeof *rows)
#define NKERNELS 6 /* the rows with is_kernel */

static void make_db(const char *path) {
  hub_writer *w = hub_writer_create(path);
  int64_t pid = 7, t = 1000;
  int64_t gpu = hub_gpu_agent(w, pid, 0);
  hub_agent_info cpu_info = {.pid = pid, .type = "CPU", .type_index = 0, .name = "cpu"};
  int64_t cpu = hub_agent(w, &cpu_info);
  int64_t stream = hub_stream(w, pid, "stream 7", NULL);
  int64_t ksym = hub_kernel_symbol(w, pid, "k", "k");
  for (size_t i = 0; i < NROWS; i++, t += 10) {
    int64_t ev = hub_event(w, rows[i].category, HUB_NULL, NULL);
    if (!rows[i].is_kernel) {
      hub_region(w, pid, pid, t, t + 5, rows[i].category, ev, NULL);
      continue;
    }
    hub_kernel_row k;
    hub_kernel_row_init(&k);
    k.pid = pid, k.agent_id = gpu, k.kernel_id = ksym, k.stream_id = stream;
    k.start = t, k.end = t + 5, k.event_id = ev;
    hub_kernel_dispatch(w, &k);
  }
  /* copies: host to device, device to host, device to device, and one
   * named as a host-to-device copy whose agents say device to host */
  const int64_t sides[][2] = {{cpu, gpu}, {gpu, cpu}, {gpu, gpu}, {gpu, cpu}};
  const char *names[] = {"MEMORY_COPY_HOST_TO_DEVICE", "CopyDeviceToHost", "Memcpy DtoD",
                         "Memcpy HtoD"};
  for (int i = 0; i < 4; i++, t += 10) {
    hub_copy_row c;
    hub_copy_row_init(&c);
    c.pid = pid;
    c.start = t;
    c.end = t + 5;
    c.name = names[i];
    c.src_agent_id = sides[i][0];
    c.dst_agent_id = sides[i][1];
    c.stream_id = stream;
    c.event_id = hub_event(w, "MEMORY_COPY", HUB_NULL, NULL);
    hub_memory_copy(w, &c);
  }
  hub_flow_end(w, pid, pid, t, 's', "ac2g", "flow", 1, 0);
  hub_counter_sample(w, hub_counter_track(w, pid, "power"), t, 1.5, "counter");
  hub_sample(w, hub_track(w, pid, pid, "NVTX", HUB_TRACK_NVTX), t, HUB_NULL, NULL);
  hub_writer_finish(w);
}

int main(void) {
  /* the stored words, each enum's in one table */
  CHECK(strcmp(hub_arg_type_name(HUB_ARG_BOOL), "bool") == 0 &&
            strcmp(hub_arg_type_name(HUB_ARG_NULL), "null") == 0,
        "arg types bool and null are named");
  int round_trip = 1;
  for (int t = 0; t < HUB_ARG_TYPE_COUNT; t++)
    if (hub_arg_type_of(hub_arg_type_name((hub_arg_type)t)) != (hub_arg_type)t) round_trip = 0;
  CHECK(round_trip, "every arg type reads back from its word");
  CHECK(hub_arg_type_of("int32_t") == HUB_ARG_OTHER && hub_arg_type_of("") == HUB_ARG_OTHER &&
            hub_arg_type_of("Int") == HUB_ARG_OTHER,
        "another tool's arg type is none of ours");
  CHECK(strcmp(hub_track_kind_name(HUB_TRACK_CUDA_EVENT), "cuda_event") == 0 &&
            strcmp(hub_thread_kind_name(HUB_THREAD_GPU_LANE), "gpu_lane") == 0,
        "track and thread kinds are named as the hub stores them");

  char dir[] = "/tmp/tt-unit-XXXXXX";
  if (!mkdtemp(dir)) return 1;
  char path[256];
  snprintf(path, sizeof path, "%s/classes.db", dir);
  make_db(path);
  const char *pp[1] = {path};
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  /* twice: the second read answers from the classifier's cache */
  for (int pass = 0; pass < 2; pass++) {
    hub_reader *r = hub_reader_open(pp, 1, &f);
    CHECK(r != NULL, "the hub opens");
    if (!r) return 1;
    hub_record ev;
    size_t ri = 0;
    int ci = 0, rows_ok = 1, flows = 0, counters = 0, markers = 0;
    hub_copy_dir dirs[4] = {HUB_COPY_UNKNOWN};
    while (hub_reader_next(r, &ev) > 0) {
      if ((ev.kind == HUB_REGION || ev.kind == HUB_KERNEL) && ri < NROWS &&
          ev.cls != rows[ri++].cls) {
        printf("# %s: %s\n", ev.category, hub_class_name(ev.cls));
        rows_ok = 0;
      }
      if (ev.kind == HUB_COPY && ci < 4)
        dirs[ci++] = ev.cls == HUB_CLS_MEMCPY ? ev.copy_dir : HUB_COPY_UNKNOWN;
      flows += ev.cls == HUB_CLS_FLOW;
      counters += ev.cls == HUB_CLS_COUNTER;
      markers += ev.kind == HUB_INSTANT && ev.cls == HUB_CLS_MARKER;
    }
    hub_reader_close(r);
    CHECK(rows_ok && ri == NROWS,
          "pass %d: each region's and kernel's class from its category's words", pass);
    CHECK(ci == 4 && dirs[0] == HUB_COPY_HTOD && dirs[1] == HUB_COPY_DTOH &&
              dirs[2] == HUB_COPY_DTOD && dirs[3] == HUB_COPY_DTOH,
          "pass %d: copy direction from the agents' types, not the name", pass);
    CHECK(flows == 1 && counters == 1 && markers == 1, "pass %d: flow end, counter sample, marker",
          pass);
  }
  /* --gpu keeps the GPU side: kernels, memsets, copies, the wait on a stream */
  f.gpu_only = 1;
  hub_reader *r = hub_reader_open(pp, 1, &f);
  hub_record ev;
  int n = 0, gpu = 1;
  while (r && hub_reader_next(r, &ev) > 0) {
    n++;
    if (!hub_record_is_gpu(&ev)) gpu = 0;
  }
  if (r) hub_reader_close(r);
  CHECK(n == (int)NKERNELS + 4 && gpu, "--gpu: %d == %d GPU records", n, (int)NKERNELS + 4);
  unlink(path);
  rmdir(dir);
  return failures != 0;
}
