#include "sqlite_setup.h"

#include <sqlite3.h>

void tt_sqlite_setup(void) {
  static int done;
  if (done) return;
  done = 1;
  /* Both fail harmlessly (SQLITE_MISUSE) if SQLite was already initialized. */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
