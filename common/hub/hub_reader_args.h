/* Private to the hub reader's files: how a hub's rocpd_arg is read
 * (hub_reader_args.c), whatever reads it. */
#ifndef TT_HUB_READER_ARGS_H
#define TT_HUB_READER_ARGS_H

#include "hub/hub_reader_inputs.h"

/* A cursor's reading of an ordered rocpd_arg: per run, a few fingers,
 * each a scan in rowid order with the groups (an event's rows) it passed
 * last, for events read a little out of id order. A thread or queue whose
 * rows rocprofv3 wrote in a batch of their own gets a finger of its own
 * (the least recently used one moves there), so its events are stepped
 * to rather than searched for. Memory: HR_ARG_FINGERS x HR_ARG_RING
 * groups per run and cursor, whatever the events. */
#ifndef HR_ARG_RING /* -DHR_ARG_RING=2 in a test build: every path taken */
#define HR_ARG_RING 256
#endif
#define HR_ARG_FINGERS 8
#define HR_ARG_AHEAD 1024 /* rows a finger steps ahead for one event at most */
typedef struct hr_arg_group {
  int64_t ev, first; /* event id, rowid of its first arg */
} hr_arg_group;
typedef struct hr_arg_finger {
  sqlite3_stmt *st; /* rowid, event_id, position, name, type, value */
  int state;        /* 0 unused, 1 on a row, 2 past its run */
  int64_t row, ev;
  hr_arg_group grp; /* the group of the current row */
  int grp_open;
  hr_arg_group ring[HR_ARG_RING];
  size_t head, len;
  int64_t lost;  /* groups of events in [lost, ev) are all in the ring */
  uint64_t used; /* when last used (least recently used moves) */
} hr_arg_finger;
typedef struct hr_arg_scan {
  hr_arg_finger *f; /* nruns * HR_ARG_FINGERS */
  int nruns;
  uint64_t clock;
} hr_arg_scan;
void hr_arg_scan_free(hr_arg_scan *s);
/* Checks once whether d's rocpd_arg is ordered (sets args.ordered). */
void hr_args_prepare(hub_db *d);
/* What that check found on one connection (checked, ordered, the runs),
 * for a reader of the same input on another: it need not scan again. */
void hr_args_order_copy(hr_db_args *to, const hr_db_args *from);

const char *hr_args_lookup_source(hub_db *d); /* table args are looked up by event in */

#endif
