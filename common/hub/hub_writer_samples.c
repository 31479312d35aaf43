/* Call-stack samples and backtraces in a hub, laid out as rocprof-sys's
 * sampler writes them into rocpd (projects/rocprofiler-systems/source/lib/
 * rocprof-sys/library/sampling.cpp): a sample is one event, region and
 * sample row per frame, outermost caller first, each event's call_stack
 * the frame's object. So a hub nsys2db writes and one rocprof-sys writes
 * read the same (the reader's hub_samples.h). */
#include <string.h>

#include "hub/hub_writer.h"

void hub_frame_json(tt_buf *b, const hub_frame *f) {
  const char *name = f->name ? f->name : "";
  const char *module = f->module ? f->module : "";
  tt_buf_puts(b, "{\"name\":");
  tt_json_string(b, name, strlen(name));
  if (f->pc != HUB_NULL) tt_buf_printf(b, ",\"pc\":\"0x%llx\"", (unsigned long long)f->pc);
  tt_buf_puts(b, ",\"file\":");
  tt_json_string(b, module, strlen(module));
  if (f->kernel) tt_buf_puts(b, ",\"kernel\":true");
  if (f->unresolved) tt_buf_puts(b, ",\"unresolved\":true");
  tt_buf_putc(b, '}');
}

void hub_call_stack_json(tt_buf *b, const hub_frame *frames, size_t n) {
  tt_buf_putc(b, '[');
  for (size_t i = 0; i < n; i++) {
    if (i) tt_buf_putc(b, ',');
    hub_frame_json(b, &frames[i]);
  }
  tt_buf_putc(b, ']');
}

void hub_stack_sample(hub_writer *w, int64_t pid, int64_t tid, int64_t ts, const char *category,
                    const hub_frame *frames, size_t n, const char *sample_extdata) {
  char track_name[48];
  snprintf(track_name, sizeof track_name, "Thread %lld (S)", (long long)tid);
  hub_touch_thread(w, pid, tid, ts, ts);
  int64_t track = hub_track(w, pid, tid, track_name, HUB_TRACK_CPU_SAMPLE);
  tt_buf frame = {0};
  for (size_t i = 0; i < n; i++) {
    tt_buf_clear(&frame);
    hub_frame_json(&frame, &frames[i]);
    int64_t ev = hub_event_call_stack(w, category, HUB_NULL, frame.data, NULL);
    hub_region(w, pid, tid, ts, ts, frames[i].name ? frames[i].name : "", ev, NULL);
    hub_sample(w, track, ts, ev, sample_extdata);
  }
  tt_buf_free(&frame);
}
