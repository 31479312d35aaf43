/* db2otf2: hub databases -> OTF2 archives. The command line around
 * db2otf2_exporter (db2otf2.h), which the fuzz harness runs too. */
#include "cli/export.h"
#include "db2otf2.h"

int main(int argc, char **argv) {
  return tt_export_main(argc, argv, db2otf2_exporter());
}
