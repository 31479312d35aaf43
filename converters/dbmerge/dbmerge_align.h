/* dbmerge --align (issue 38): each input's times rewritten onto the run's
 * timeline as its rows are copied, and every merged hub marked aligned
 * (HUB_ALIGNED_TAG) so no reader aligns it again. */
#ifndef TT_DBMERGE_ALIGN_H
#define TT_DBMERGE_ALIGN_H
#include <sqlite3.h>

#include "hub/hub_time_map.h"

/* Defines the SQL function the updates use, once, on the output. */
int dbm_align_register(sqlite3 *out);
/* Maps the time columns of table `name` (its base `base`, "rocpd_region")
 * in the output by m. 0, or -1 after saying why. */
int dbm_align_table(sqlite3 *out, const char *path, const char *name, const char *base,
                    const hub_time_map *m);
/* Records in the output's rocpd_metadata<suffix> that its times are on
 * the run's timeline, by `method`. 0 or -1. */
int dbm_align_mark(sqlite3 *out, const char *path, const char *suffix, const char *method);

#endif
