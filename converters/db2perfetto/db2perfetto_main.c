/* db2perfetto: hub databases -> Perfetto protobuf traces. The command line around
 * db2perfetto_exporter (db2perfetto.h), which the fuzz harness runs too. */
#include "cli/export.h"
#include "db2perfetto.h"

int main(int argc, char **argv) {
  return tt_export_main(argc, argv, db2perfetto_exporter());
}
