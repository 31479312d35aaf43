/* db2diff: two runs compared op by op. The command line is db2diff_main
 * (db2diff.c), which the fuzz harness runs too. */
#include "db2diff.h"

int main(int argc, char **argv) { return db2diff_main(argc, argv); }
