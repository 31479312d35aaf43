#include "sqlite_setup.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void tt_sqlite_setup(void) {
  static int done;
  if (done) return;
  done = 1;
  /* Both fail harmlessly (SQLITE_MISUSE) if SQLite was already initialized. */
  sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int tt_sqlite_check_header(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    tt_error("%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  char head[16] = {0};
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  if (n < 16 || memcmp(head, "SQLite format 3", 16) != 0) {
    tt_error("%s: not a SQLite database (byte 0: no SQLite header)", path);
    return -1;
  }
  return 0;
}
