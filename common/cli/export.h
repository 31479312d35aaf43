/* What every exporter (db2json, db2perfetto, db2otf2, db2summary) shares:
 * the command line, the filters, and the split into parts.
 *
 *   db2X [options] DB... -o OUTPUT
 *
 * An exporter is a sink: it gets begin_part / event / end_part calls. The
 * driver reads the stream once per process part, or once for all time
 * windows (events are time-ordered, so windows follow one another). An
 * event overlapping a window boundary is given to each window it overlaps,
 * clipped to it and marked (hub_record.clipped), so every part is complete
 * on its own. A part with no event writes no file (stated on stderr).
 * Outputs are written under a temporary name and renamed when the part is
 * complete; an output that names an input (or a split part that would) is
 * refused before anything is written. */
#ifndef TT_EXPORT_H
#define TT_EXPORT_H
#include "cli/export_options.h" /* tt_part_path, tt_parse_duration */
#include "cli/exporter.h"

/* Parses argv, runs every part, returns the exit status. */
int tt_export_main(int argc, char **argv, const tt_exporter *ex);

#endif
