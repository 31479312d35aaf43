/* nsys2db as a component: an Nsight Systems SQLite export (nsys export
 * -t sqlite) into an open hub writer. main (nsys2db_main.c) is the command
 * line around it; the fuzz harness calls it directly. */
#ifndef NSYS2DB_H
#define NSYS2DB_H
#include "hub/hub_writer.h"
#include "cli/import_cli.h"

/* Reads opts->input (opts->output is not used) and writes it through w;
 * ctx is unused. A tt_import_fn: 0 imported, 1 after a message naming
 * the file and the table or row at fault. */
int nsys2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx);

#endif
