/* nsys2db: an Nsight Systems SQLite export into a hub database. The
 * command line around nsys2db_import (nsys2db.h). */
#include <stddef.h>

#include "nsys2db.h"

int main(int argc, char **argv) {
  tt_import_opts opts;
  tt_import_parse(argc, argv, "Imports an Nsight Systems SQLite export",
                  "the export (nsys export --type sqlite REPORT.nsys-rep)", &opts);
  return tt_import_run(&opts, nsys2db_import, NULL);
}
