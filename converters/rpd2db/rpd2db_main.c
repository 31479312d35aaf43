/* rpd2db: a rocmProfileData trace into a hub database. The command line
 * around rpd2db_import (rpd2db.h). */
#include <stddef.h>

#include "rpd2db.h"

int main(int argc, char **argv) {
  tt_import_opts opts;
  tt_import_parse(argc, argv, "Imports a rocmProfileData trace (.rpd, .rpd.gz)",
                  "the RPD file (rocmProfileData's SQLite trace,\n"
                  "                     schema 2 or 3; gzipped too)",
                  &opts);
  return tt_import_run(&opts, rpd2db_import, NULL);
}
