/* --split process: one part per process that has events, or whole
 * processes packed into parts of --max-part-size, a process too big alone
 * cut into planned windows of its own (export_split.h). Each part is read
 * by a reader of its own, its processes pushed into SQL. Private to the
 * exporters' driver (export*.c). */
#ifndef TT_EXPORT_PROCESS_H
#define TT_EXPORT_PROCESS_H
#include <stdint.h>

#include "cli/export_part.h"
#include "cli/export_readers.h"

/* Writes the parts (or --part K's; --count-parts prints the count) of the
 * processes r has, under f (with [t0, t1) when bounded). r is taken
 * (closed). 0, or 1 (said). */
int tt_write_processes(tt_part_writer *w, tt_readers *rd, hub_reader *r, hub_filter *f,
                       int bounded, int64_t t0, int64_t t1);

#endif
