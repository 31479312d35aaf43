/* db2summary: hub databases -> the flat profile. The command line around
 * db2summary_exporter (db2summary.h), which the fuzz harness runs too. */
#include "cli/export.h"
#include "db2summary.h"

int main(int argc, char **argv) {
  return tt_export_main(argc, argv, db2summary_exporter());
}
