/* Where db2json draws an event, as Perfetto's JSON importer will read it:
 * its (pid, tid) from tt_track_of, except that a complete event which
 * overlaps an open one on its thread without nesting goes to an overlap
 * lane of that thread (a tid of our own, named "<thread> (overlap N)"),
 * as db2perfetto's overflow tracks; Perfetto would otherwise move it to a
 * track of its own with an error (slice_spill_overlapping_complete_event).
 * Also says when a process or thread is drawn for the first time in the
 * part, so its names are written once and only for tracks with events.
 * Memory: one entry per track and the nesting's open intervals. */
#ifndef DB2JSON_TRACKS_H
#define DB2JSON_TRACKS_H
#include <stdint.h>

#include "base/util.h"
#include "cli/tracks.h"

/* Overlap lanes' tids: above any OS tid (pid_max is at most 2^22) and
 * below the hub's own synthetic ids (0x7d000000 and up). */
#define JSON_OVERLAP_TID_BASE 0x7c000000LL

typedef struct json_place {
  tt_track_ref t;     /* t.lane is the tid to write (an overlap lane's) */
  int new_group;      /* first event of this pid in the part */
  int new_lane;       /* first event of this (pid, tid) in the part */
  int overlap;        /* 0, or the overlap lane's number */
  const char *lane_label; /* the name for thread_name (valid until next call) */
} json_place;

typedef struct json_tracks json_tracks;
json_tracks *json_tracks_new(void);
void json_tracks_free(json_tracks *jt);

/* Places ev (records in start order). Complete events (intervals) are
 * placed in the nesting; instants, counters and flow ends on their lane. */
void json_tracks_place(json_tracks *jt, hub_reader *r, const hub_record *ev, json_place *out);

#endif
