/* Private to the hub reader's files: launches linked to their GPU work
 * (hub_reader_links.c). */
#ifndef TT_HUB_READER_LINKS_H
#define TT_HUB_READER_LINKS_H

#include "hub/hub_reader_inputs.h"

/* hub_reader_links.c: a launch's GPU work, found by merging the launches
 * (read in start order) with the GPU work grouped by (correlation,
 * process) in that order (hr_links_sql): correlation ids grow with time,
 * so the two orders nearly agree; what the grouped stream passes before
 * its launch is read waits in a bounded window, and past that bound a
 * lookup goes to an indexed TEMP copy on a second connection. No join
 * SQLite would materialize and index per hub, no index in the input. */
typedef struct hr_link_info {
  int64_t start, n, last; /* first and last GPU start, how many */
  const char *starts;     /* every start when n > 1, else ""; valid until
                           * the next hr_links_find on this hub */
} hr_link_info;
/* Sets d->links when launches can be linked under f (no recorded flows,
 * not --gpu). window: entries the window may hold. 0 ok, -1 error (said). */
int hr_links_open(hub_db *d, const hub_filter *f, size_t window);
/* The GPU work of the launch (corr, pid): 1 found (*out set), 0 none,
 * -1 error (said). A group found in the stream or the window is handed
 * out once: a second launch with the same key finds none (the reader
 * links one launch per correlation anyway). */
int hr_links_find(hub_db *d, int64_t corr, int64_t pid, hr_link_info *out);
void hr_links_free(struct hr_links *l);

#endif
