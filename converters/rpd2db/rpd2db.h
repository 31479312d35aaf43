/* rpd2db as a component: a rocmProfileData trace (.rpd, .rpd.gz) into an
 * open hub writer. main (rpd2db_main.c) is the command line around it; the
 * fuzz harness calls it directly. */
#ifndef RPD2DB_H
#define RPD2DB_H
#include "hub/hub_writer.h"
#include "cli/import_cli.h"

/* Reads opts->input and writes it through w; ctx is unused. A .rpd.gz is
 * unpacked beside opts->output (a temporary name, always removed). A
 * tt_import_fn: 0 imported, 1 after a message naming the file and the
 * table or row at fault. */
int rpd2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx);

#endif
