/* Unit test of tt_sqlite_open_input (common/base/sqlite_setup.c): the settings
 * SQLite enforces on every input connection. The database is built here
 * with a table, a trigger that would write and a view; through the input
 * connection the view cannot be read, the trigger cannot fire, nothing can
 * be written, and the safety switches read back as set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "base/sqlite_setup.h"

#include "unit.h"

static int exec_ok(sqlite3 *db, const char *sql, char *msg, size_t n) {
  char *err = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &err);
  snprintf(msg, n, "%s", err ? err : "");
  sqlite3_free(err);
  return rc == SQLITE_OK;
}

static int db_flag(sqlite3 *db, int op) {
  int v = -1;
  sqlite3_db_config(db, op, -1, &v);
  return v;
}

static long long one_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  long long v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) return -2;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

int main(void) {
  char dir[] = "/tmp/tt-unit-input.XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[256], msg[512];
  snprintf(path, sizeof path, "%s/in put%%.db", dir); /* a space and '%': the URI escapes them */

  sqlite3 *w;
  if (sqlite3_open(path, &w) != SQLITE_OK) return 2;
  CHECK(exec_ok(w,
                "CREATE TABLE t(a INTEGER);"
                "CREATE TABLE log(msg TEXT);"
                "INSERT INTO t VALUES (1), (2), (3);"
                "CREATE TRIGGER t_ins AFTER INSERT ON t BEGIN INSERT INTO log VALUES ('fired'); END;"
                "CREATE VIEW v AS SELECT a * 10 AS b FROM t;",
                msg, sizeof msg),
        "hostile database built %s", msg);
  sqlite3_close(w);

  sqlite3 *db = NULL;
  CHECK(tt_sqlite_open_input(path, &db) == SQLITE_OK, "opened as input: %s", path);
  CHECK(one_int(db, "SELECT sum(a) FROM t") == 6, "its tables read");
  CHECK(db_flag(db, SQLITE_DBCONFIG_DEFENSIVE) == 1, "SQLITE_DBCONFIG_DEFENSIVE on");
  CHECK(db_flag(db, SQLITE_DBCONFIG_ENABLE_TRIGGER) == 0, "triggers disabled");
  CHECK(db_flag(db, SQLITE_DBCONFIG_ENABLE_VIEW) == 0, "views disabled");
  CHECK(db_flag(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA) == 0, "trusted_schema off");
  CHECK(db_flag(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION) == 0, "extension loading off");
  CHECK(one_int(db, "PRAGMA cell_size_check") == 1, "cell_size_check on");
  CHECK(sqlite3_hard_heap_limit64(-1) == TT_SQLITE_HEAP_LIMIT, "hard heap limit %lld bytes",
        (long long)sqlite3_hard_heap_limit64(-1));
  CHECK(!exec_ok(db, "SELECT * FROM v", msg, sizeof msg) && strstr(msg, "prohibited"),
        "the input's view cannot be used (%s)", msg);
  CHECK(!exec_ok(db, "INSERT INTO t VALUES (4)", msg, sizeof msg),
        "the input cannot be written (%s)", msg);
  CHECK(!exec_ok(db, "PRAGMA writable_schema=ON; DELETE FROM sqlite_master", msg, sizeof msg),
        "its schema cannot be changed (%s)", msg);
  /* What the reader makes for itself still works. */
  CHECK(exec_ok(db,
                "CREATE TEMP TABLE link(x); INSERT INTO link SELECT a FROM t;"
                "CREATE TEMP VIEW tv AS SELECT count(*) FROM link;",
                msg, sizeof msg),
        "TEMP tables and views of the reader's own still work %s", msg);
  CHECK(one_int(db, "SELECT * FROM tv") == 3, "its TEMP view reads");
  sqlite3_close(db);

  /* Read back with a plain connection: the trigger never fired. */
  sqlite3_open(path, &w);
  CHECK(one_int(w, "SELECT count(*) FROM log") == 0, "the trigger never fired");
  CHECK(one_int(w, "SELECT count(*) FROM t") == 3, "the table is unchanged");
  sqlite3_close(w);

  /* A file that is not a database fails at the first read, not at open. */
  char junk[300];
  snprintf(junk, sizeof junk, "%s/junk.db", dir);
  unit_write_file(junk, "SQLite format 3 but not really, just text padding the header out\n");
  CHECK(tt_sqlite_open_input(junk, &db) == SQLITE_OK &&
            !exec_ok(db, "SELECT count(*) FROM sqlite_master", msg, sizeof msg),
        "a corrupt file is refused at the first read (%s)", msg);
  sqlite3_close(db);

  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) return 2;
  return failures ? 1 : 0;
}
