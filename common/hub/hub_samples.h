/* CPU call-stack samples of a reader's hubs: a stream of their own beside
 * hub_reader_next's, in time order, with their stacks interned.
 *
 * A hub holds a sample as rocprof-sys writes one (hub_writer.h,
 * hub_stack_sample): one rocpd_sample row per frame on the thread's track,
 * all at the sample's time, outermost caller first, each row's event's
 * call_stack the frame object (HUB_SQL_IS_FRAME). hub_reader_next leaves
 * those rows (and their regions) out; this stream puts each sample's rows
 * back together: the rows of one (time, track) are one sample.
 *
 * Why a stream of its own and not a record kind of hub_reader_next: a
 * sample is many rows made one, with a stack no hub_record field can hold,
 * and the reader's internals (spool, passes) move records of a fixed shape;
 * this one is additive, and opened by the exporters that draw samples with
 * the same filter as their reader (a split's part, --start/--end,
 * --process), so each part holds the samples in it.
 *
 * Stacks: every distinct frame and every distinct callsite (a frame under
 * its caller's callsite) gets an id once, so a sample is a time, a thread
 * and one callsite id. Memory holds the distinct frames and callsites
 * (what the program's code has, not how many samples), one sample's rows
 * per input, never the samples. */
#ifndef TT_HUB_SAMPLES_H
#define TT_HUB_SAMPLES_H
#include <stddef.h>
#include <stdint.h>

#include "hub/hub.h"
#include "hub/hub_reader.h"

typedef struct hub_sample_reader hub_sample_reader;

/* A callsite: `frame` called from callsite `parent` (-1: the outermost
 * frame), at depth 0 for the outermost. Ids count from 0 in the order
 * they are first met. */
typedef struct hub_callsite {
  int64_t parent, frame;
  int depth;
} hub_callsite;

typedef struct hub_cpu_sample {
  int db;               /* the input, as hub_record.db */
  int64_t ts;           /* ns, as hub_record.start (mapped under --align) */
  int64_t pid, tid;     /* tid: the thread's row id, as hub_record.tid */
  int64_t cpu;          /* the CPU it ran on, HUB_NULL when not recorded */
  int64_t thread_state; /* the source's number (nsys's threadState), or HUB_NULL */
  int64_t weight;       /* what it counts (nsys's cpuCycles), HUB_NULL: 1 */
  int64_t callsite;     /* the leaf's callsite */
  const char *category; /* its events' ("timer_sampling"); valid until the next call */
} hub_cpu_sample;

/* The samples of every input of r that pass f's time range and processes
 * (start, end, pid, pids, host; time_maps), whatever
 * f's names, categories and durations say (they select slices). NULL on
 * error (said, naming the file). r stays open while this is. */
hub_sample_reader *hub_samples_open(hub_reader *r, const hub_filter *f);
/* 1 with *s set, 0 at the end, -1 on a read error (said). */
int hub_samples_next(hub_sample_reader *sr, hub_cpu_sample *s);
void hub_samples_close(hub_sample_reader *sr);

/* Frames and callsites met so far, by id (0 .. n-1); valid while sr is
 * open. */
size_t hub_samples_nframes(const hub_sample_reader *sr);
const hub_frame *hub_samples_frame(const hub_sample_reader *sr, int64_t id);
size_t hub_samples_ncallsites(const hub_sample_reader *sr);
const hub_callsite *hub_samples_callsite(const hub_sample_reader *sr, int64_t id);

/* The backtrace of a call (an event whose call_stack is an array of frame
 * objects, hub_writer.h's hub_call_stack_json) interned as a callsite:
 * its leaf's id, or -1 when the event records none. One lookup by event
 * id in input db. -2 on a read error (said). */
int64_t hub_samples_event_stack(hub_sample_reader *sr, int db, int64_t event_id);

/* The backtrace of region ev, as the reader gave it (hub_reader_next, in
 * its order; ev->row_id its rocpd_region id), interned as a callsite: its
 * leaf's id, or -1 when it has none. The regions with a backtrace are
 * walked beside the reader's stream, once (a region its part clips is
 * looked up by its event); -2 on a read error (said). */
int64_t hub_samples_region_stack(hub_sample_reader *sr, const hub_record *ev);

#endif
