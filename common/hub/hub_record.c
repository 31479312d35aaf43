/* What a record of the stream says beyond its fields (hub_reader.h):
 * its kind's name, its category, the ids of its arrows, and a copy held
 * past the next read. */
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "hub/hub_record.h"

const char *hub_kind_name(hub_kind k) {
  static const char *const names[] = {"region", "kernel", "copy", "alloc",
                                      "instant", "counter", "flow"};
  return k < HUB_KIND_COUNT ? names[k] : "?";
}

const char *hub_record_category(const hub_record *ev) {
  if (ev->category[0]) return ev->category;
  switch (ev->kind) {
  case HUB_KERNEL: return "kernel";
  case HUB_COPY: return "gpu_memcpy";
  case HUB_ALLOC: return "memory";
  default: return "";
  }
}

int64_t hub_arrow_id(int64_t link_id, int64_t k) {
  if (k == 0) return link_id;
  uint64_t h = (uint64_t)link_id ^ ((uint64_t)k * 0x9e3779b97f4a7c15ULL);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return (int64_t)(h & 0x7fffffffffffffffULL);
}

void hub_record_hold(hub_held_record *h, const hub_record *ev) {
  const char *src[4] = {ev->name, ev->category, ev->kernel_name, ev->link_starts};
  size_t len[4], total = 0;
  for (int i = 0; i < 4; i++) total += len[i] = strlen(src[i] ? src[i] : "") + 1;
  h->ev = *ev;
  h->strings = tt_malloc(total);
  const char *dst[4];
  char *p = h->strings;
  for (int i = 0; i < 4; i++) {
    memcpy(p, src[i] ? src[i] : "", len[i]);
    dst[i] = p;
    p += len[i];
  }
  h->ev.name = dst[0];
  h->ev.category = dst[1];
  h->ev.kernel_name = dst[2];
  h->ev.link_starts = dst[3];
}

void hub_record_release(hub_held_record *h) {
  free(h->strings);
  h->strings = NULL;
}

int64_t hub_record_links_before(const hub_record *ev, int64_t t) {
  if (ev->link_ts == HUB_NULL || ev->link_ts >= t) return 0;
  if (ev->link_count <= 1 || ev->link_last < t) return ev->link_count < 1 ? 1 : ev->link_count;
  int64_t n = 0;
  for (const char *p = ev->link_starts; *p;) {
    char *e;
    long long v = strtoll(p, &e, 10);
    if (e == p) break;
    n += v < t;
    p = *e == ',' ? e + 1 : e;
  }
  return n;
}
