/* db2json as a component: its exporter (the sink and its limits), which
 * db2json_main.c runs on the command line and fuzz/fuzz_db2json.c on the
 * hubs it builds, the same calls. */
#ifndef DB2JSON_H
#define DB2JSON_H
#include "cli/exporter.h"

/* The Chrome trace-event JSON exporter, for tt_export_main (cli/export.h). */
const tt_exporter *db2json_exporter(void);

#endif
