/* Private to the hub reader's files: the SQL of its reads
 * (hub_reader_sql.c), the one place that writes it. */
#ifndef TT_HUB_READER_SQL_H
#define TT_HUB_READER_SQL_H

#include "hub/hub_reader_inputs.h"

/* Columns every cursor query returns, in this order (hub_reader_sql.c
 * names each by these, hub_reader.c reads them). */
enum {
  C_ID, C_START, C_END, C_PID, C_TID, C_NAME, C_CAT, C_CORR, C_EVENT, C_AGENT, C_LANE,
  C_LANE_IS_QUEUE, C_SIZE, C_TRACK, C_VALUE, C_TRACK_KIND, C_PH, C_BP, C_LINK,
  C_MANGLED, /* only in the kernel query */
  /* only in the copy query: its source and destination agents */
  C_SRC_AGENT = C_MANGLED, C_DST_AGENT,
  C_NCOLS /* the most any query returns */
};

/* hub_reader_sql.c: the SQL of one cursor (a table of one hub, filtered),
 * and of its args: (start, end, id, name, type, value) in the cursor's
 * order (start, end descending, id), each event's args by position. */
char *hr_cursor_sql(const hub_db *d, table_id t, const hub_filter *f);
char *hr_args_sql(const hub_db *d, table_id t, const hub_filter *f);
/* The launches and the GPU work they link to (hub_reader_links.c). */
char *hr_links_sql(const hub_db *d, const hub_filter *f);

#endif
