/* Private to hub_align*.c: what the plan knows of each input, and its
 * methods' parts. */
#ifndef TT_HUB_ALIGN_INTERNAL_H
#define TT_HUB_ALIGN_INTERNAL_H
#include "hub/hub_align.h"

typedef struct ha_input {
  const char *path;
  size_t host;        /* index into hub_alignment.hosts */
  int64_t rank;       /* its lowest rank, HUB_NULL */
  int64_t to_wall_ns; /* its processes' anchor when they agree, else HUB_NULL */
  int mixed;          /* its processes are of several hosts (a merged hub) */
  int aligned;        /* dbmerge --align wrote it: left as it is */
} ha_input;

/* hub_align_fit.c: collectives. quiet_fail (auto): a host without enough
 * collectives sets a->mixed and warns, else it is an error. */
int ha_plan_collectives(hub_alignment *a, const ha_input *in, size_t n, int quiet_fail);
/* hub_align_file.c: FILE's offsets. */
int ha_plan_file(hub_alignment *a, const ha_input *in, size_t n, const char *file);

#endif
