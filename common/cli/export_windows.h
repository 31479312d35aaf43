/* Every window of a window split in one pass over one time-ordered stream
 * (export.h): a cut source (cut_source.h) says where each window ends,
 * the part writer (export_part.h) writes each. An event crossing a
 * window's end is given to each window it overlaps, clipped to it; one
 * whose window's end is not planned yet (the size split's planner runs
 * ahead on a second thread) waits only as long as its bytes depend on
 * that end. Private to the exporters' driver (export*.c). */
#ifndef TT_EXPORT_WINDOWS_H
#define TT_EXPORT_WINDOWS_H
#include <stdint.h>

#include "cli/cut_source.h"
#include "cli/export_part.h"

/* Writes windows 0 .. src->count - 1 from r (read to its end; the last
 * window ends after every event). bounds (size split; else NULL): each
 * window's planned bound, filled in as it is learnt. 0, or -1 (said). */
int tt_write_windows(tt_part_writer *w, hub_reader *r, tt_cut_source *src, uint64_t *bounds);

#endif
