/* nvvp2db: nvprof's SQLite output into a hub database. The command line
 * around nvvp2db_import (nvvp2db.h). */
#include <stddef.h>

#include "nvvp2db.h"

int main(int argc, char **argv) {
  tt_import_opts opts;
  tt_import_parse(argc, argv, "Imports an nvprof SQLite profile (.nvvp, .sql)",
                  "the nvprof database (nvprof -o FILE.nvvp\n"
                  "                     or --export-profile FILE.sql)", &opts);
  return tt_import_run(&opts, nvvp2db_import, NULL);
}
