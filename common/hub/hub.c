/* The hub's words: each enum of hub.h names its stored strings here, once,
 * for the writer that stores them and the readers that match them. */
#include "hub/hub.h"

#include <string.h>

const char *hub_track_kind_name(hub_track_kind k) {
  static const char *const words[HUB_TRACK_KIND_COUNT] = {
      HUB_WORD_COUNTER, HUB_WORD_INSTANT,    HUB_WORD_MARKER,
      HUB_WORD_NVTX,    HUB_WORD_CUDA_EVENT, HUB_WORD_FLOW, HUB_WORD_CPU_SAMPLE};
  return (unsigned)k < HUB_TRACK_KIND_COUNT ? words[k] : "";
}

const char *hub_thread_kind_name(hub_thread_kind k) {
  static const char *const words[HUB_THREAD_KIND_COUNT] = {HUB_WORD_GPU_LANE,
                                                           HUB_WORD_PROCESS_TRACKS};
  return (unsigned)k < HUB_THREAD_KIND_COUNT ? words[k] : "";
}

static const char *const clock_words[HUB_CLOCK_COUNT] = {"unknown", "boot", "monotonic", "wall"};

const char *hub_clock_name(hub_clock c) {
  return (unsigned)c < HUB_CLOCK_COUNT ? clock_words[c] : clock_words[HUB_CLOCK_UNKNOWN];
}

hub_clock hub_clock_of(const char *word) {
  for (int c = 0; c < HUB_CLOCK_COUNT; c++)
    if (word && strcmp(word, clock_words[c]) == 0) return (hub_clock)c;
  return HUB_CLOCK_UNKNOWN;
}

static const char *const arg_words[HUB_ARG_TYPE_COUNT] = {"int",  "double", "string",
                                                          "json", "bool",   "null"};

const char *hub_arg_type_name(hub_arg_type t) {
  return (unsigned)t < HUB_ARG_TYPE_COUNT ? arg_words[t] : "";
}

hub_arg_type hub_arg_type_of(const char *word) {
  /* Every arg of every event asks: one comparison, by the first letter. */
  hub_arg_type t;
  switch (word[0]) {
  case 'i': t = HUB_ARG_INT; break;
  case 'd': t = HUB_ARG_DOUBLE; break;
  case 's': t = HUB_ARG_STRING; break;
  case 'j': t = HUB_ARG_JSON; break;
  case 'b': t = HUB_ARG_BOOL; break;
  case 'n': t = HUB_ARG_NULL; break;
  default: return HUB_ARG_OTHER;
  }
  return strcmp(word, arg_words[t]) == 0 ? t : HUB_ARG_OTHER;
}

const char *hub_class_name(hub_class c) {
  static const char *const names[HUB_CLS_COUNT] = {
      "other",  "api",    "marker",         "region", "sync",    "kernel",
      "memcpy", "memset", "gpu_annotation", "alloc",  "counter", "flow"};
  return (unsigned)c < HUB_CLS_COUNT ? names[c] : "?";
}
