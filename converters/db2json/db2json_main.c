/* db2json: hub databases -> Chrome trace-event JSON. The command line around
 * db2json_exporter (db2json.h), which the fuzz harness runs too. */
#include "cli/export.h"
#include "db2json.h"

int main(int argc, char **argv) {
  return tt_export_main(argc, argv, db2json_exporter());
}
