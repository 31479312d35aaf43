/* A test's witness of how many rows a tool reads from SQLite (LD_PRELOAD):
 * every sqlite3_step that returns a row is counted, and at exit the count
 * is appended, one line, to the file named by STEP_LOG. test_split_spool
 * checks that a size split reads its rows once, independent of the tool's
 * own code, which knows nothing of it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static atomic_ullong rows;

int sqlite3_step(sqlite3_stmt *st) {
  static int (*real)(sqlite3_stmt *);
  if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_step");
  int rc = real(st);
  if (rc == SQLITE_ROW) atomic_fetch_add(&rows, 1);
  return rc;
}

__attribute__((destructor)) static void report(void) {
  const char *log = getenv("STEP_LOG");
  if (!log) return;
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[32];
  int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)atomic_load(&rows));
  if (n > 0 && write(fd, line, (size_t)n) < 0) n = 0;
  close(fd);
}
