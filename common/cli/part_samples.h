/* The CPU samples of the part an exporter is writing (hub_samples.h),
 * handed out in time order beside its events: a sink asks for the samples
 * before each event's time and for the rest at the end of its part. A part
 * holds the samples in its time range [start, end) and of its processes
 * (tt_part_has_pid, its host); --gpu leaves none, --category and
 * --exclude-category apply to their category ("timer_sampling"), --name
 * and --min-duration do not (they select slices). Times are mapped as the
 * reader's under --align. */
#ifndef TT_PART_SAMPLES_H
#define TT_PART_SAMPLES_H
#include "cli/exporter.h"
#include "hub/hub_samples.h"

typedef struct tt_part_samples {
  hub_sample_reader *sr; /* NULL: the part has no samples to give */
  hub_filter f;
  const tt_export_opts *o;
  const tt_part *part;
  hub_cpu_sample next;
  int have;     /* `next` is read and not yet handed out */
  int64_t count; /* handed out so far */
  tt_buf category;
} tt_part_samples;

/* 0, or -1 when the samples cannot be read (said). */
int tt_part_samples_open(tt_part_samples *ps, hub_reader *r, const tt_export_opts *o,
                         const tt_part *p);
/* The part's stacks (hub_samples_callsite, hub_samples_frame): NULL when
 * it has no samples. */
static inline hub_sample_reader *tt_part_samples_stacks(const tt_part_samples *ps) { return ps->sr; }
/* 1 with *s the next sample of the part before time t (INT64_MAX: any,
 * up to the part's end), 0 when there is none before t, -1 on a read
 * error (said). *s's strings are valid until the next call. */
int tt_part_samples_before(tt_part_samples *ps, int64_t t, hub_cpu_sample *s);
void tt_part_samples_close(tt_part_samples *ps);
/* Whether the open part has a sample still to give: 1 (read ahead, handed
 * out by the next tt_part_samples_before), 0, or -1 (said). An exporter
 * that opens the part's samples anyway asks this rather than
 * tt_part_samples_any, which opens (and sorts) them once more. */
int tt_part_samples_peek(tt_part_samples *ps);
/* Whether part p has a sample to give: 1, 0, or -1 (said). */
int tt_part_samples_any(hub_reader *r, const tt_export_opts *o, const tt_part *p);
/* Samples handed out to parts that are written (not a size plan's dry
 * pass), in this process: the driver's "no event matched" counts them. */
int64_t tt_part_samples_written(void);
/* The backtrace of region ev of the part's stream (hub_samples_region_stack):
 * its leaf's callsite, -1 when none, -2 on a read error (said). */
static inline int64_t tt_part_region_stack(tt_part_samples *ps, const hub_record *ev) {
  return ps->sr ? hub_samples_region_stack(ps->sr, ev) : -1;
}

#endif
