/* Private to the hub writer's files (common/hub/hub_writer*.c): what
 * hub_writer.c lends the file that completes its hub. Not a public
 * contract: importers include hub_writer.h only. */
#ifndef TT_HUB_WRITER_INTERNAL_H
#define TT_HUB_WRITER_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>

#include "hub/hub_writer.h"
#include "hub/hub_writer_batch.h"

/* hub_writer.c: runs SQL with {{uuid}} expanded, on the writer's
 * connection once no staged INSERT is in flight; binds i64 parameters
 * ?1..?n (HUB_NULL as NULL). Returns the prepared statement for SELECTs
 * (caller finalizes), NULL after running anything else to completion. A
 * failure ends the program (hw_fail). */
sqlite3_stmt *hw_sql_run(hub_writer *w, int select, const char *tmpl, int n,
                         const int64_t *params);
/* hub_writer.c: runs statements (no parameters) with {{uuid}} expanded. */
void hw_sql_exec(hub_writer *w, const char *tmpl);

/* hub_writer_joins.c: the rows rocpd's views join on, completed once at
 * hub_writer_finish, every staged row flushed before and after. The flags
 * say what the importer left unsaid (a GPU work row without a thread, a
 * copy without an agent). */
void hw_complete_joins(hub_writer *w, hw_batches *bs, int gpu_rows_without_tid,
                       int copies_without_agent);

/* hub_writer_launch_flows.c: drops the recorded flow ends that repeat a
 * launch link (GPU work and its launching call sharing a correlation id),
 * so the reader draws those from the correlation, one arrow per GPU work.
 * Run at hub_writer_finish on a hub with recorded flows, staged rows
 * flushed; the caller tags the hub HUB_LAUNCH_ARROWS_TAG. */
void hw_fold_launch_flows(hub_writer *w);

#endif
