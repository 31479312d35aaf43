/* Time maps: how the reader moves one input's times onto a shared
 * timeline (--align, issue 38). A host h whose clock reads
 *   t_h = t_ref + offset_ns + drift_ppm * 1e-6 * (t_ref - anchor_ns)
 * for the reference timeline's t_ref has its times mapped back to t_ref.
 * The map is monotone (never reorders one input's rows); with drift, two
 * times 1 ns apart may map to one. The reader applies the map of an
 * input's path to every time it hands out and to the filters' times. */
#ifndef TT_HUB_TIME_MAP_H
#define TT_HUB_TIME_MAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct hub_time_map {
  int64_t offset_ns; /* the host's clock ahead of the timeline at anchor_ns */
  double drift_ppm;  /* its rate error: ns per ms ahead, per 1000 */
  int64_t anchor_ns; /* where offset_ns holds, in timeline time */
} hub_time_map;

/* The largest drift a map may have (FILE's bound too; fits are held to
 * less, hub_clock_fit.h): 1 + drift stays positive, so every map applied
 * is increasing. hub_time_maps_set refuses any other (a bug, not input). */
#define HUB_TIME_MAP_MAX_DRIFT_PPM 1000.0
static inline int hub_time_map_valid(const hub_time_map *m) {
  return m->drift_ppm >= -HUB_TIME_MAP_MAX_DRIFT_PPM && m->drift_ppm <= HUB_TIME_MAP_MAX_DRIFT_PPM;
}

/* A host time onto the timeline, and back (the smallest host time whose
 * timeline time is >= t: a filter's bound; a few steps of correction at
 * most, whatever the map). */
int64_t hub_time_map_apply(const hub_time_map *m, int64_t t_host);
int64_t hub_time_map_invert(const hub_time_map *m, int64_t t_ref);
static inline int hub_time_map_is_identity(const hub_time_map *m) {
  return m->offset_ns == 0 && m->drift_ppm == 0;
}

/* The maps of a run, by input path (as given on the command line). */
typedef struct hub_time_maps {
  struct hub_time_map_entry *v; /* sorted by path once sealed */
  size_t n, cap;
  int sorted;
} hub_time_maps;
void hub_time_maps_set(hub_time_maps *ms, const char *path, const hub_time_map *m);
/* Sorts the maps by path, once all are set: find needs it. */
void hub_time_maps_seal(hub_time_maps *ms);
/* The map of path (NULL: its times stay as they are). O(log n). */
const hub_time_map *hub_time_maps_find(const hub_time_maps *ms, const char *path);
void hub_time_maps_free(hub_time_maps *ms);

#endif
