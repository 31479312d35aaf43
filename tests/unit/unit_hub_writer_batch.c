/* The hub writer's batches (common/hub/hub_writer_batch.c): a failed
 * INSERT is reported, with SQLite's reason, even when no memory is left
 * to format its message (it once returned NULL then, which the caller
 * read as success). Allocation failures are injected into the project's
 * own code: its malloc calls are linked to __wrap_malloc below (the
 * Makefile's --wrap=malloc for this test; no .c file is included), and
 * SQLite's and libc's own allocations, inside their shared libraries, are
 * untouched. Each case runs in a child, as a failure dies (exit 1, the
 * message on stderr). */
#include <pthread.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/atomic_output.h"
#include "base/util.h"
#include "hub/hub_writer_batch.h"
#include "unit.h"

static int malloc_fails; /* set: every malloc of the project's code fails */
void *__real_malloc(size_t n);
void *__wrap_malloc(size_t n);
void *__wrap_malloc(size_t n) { return malloc_fails ? NULL : __real_malloc(n); }

/* Two rows with the same id: the INSERT fails on the primary key. */
static void duplicate_rows(int threaded) {
  sqlite3 *db;
  if (sqlite3_open(":memory:", &db) != SQLITE_OK) exit(3);
  if (sqlite3_exec(db, "CREATE TABLE t(id INTEGER PRIMARY KEY, x INTEGER)", NULL, NULL, NULL))
    exit(3);
  hw_batches bs;
  hw_init(&bs, db);
  hw_setup_table(&bs, ST_STRING, "t", "id,x", 2);
  if (threaded) hw_start_worker(&bs);
  for (int i = 0; i < 2; i++) {
    hw_row r = hw_row_begin(&bs, ST_STRING);
    hw_bind_i64(r, 1, 7, -1); /* the id */
    hw_bind_i64(r, 2, i, -1);
    hw_row_commit(&bs, r);
  }
  malloc_fails = 1;
  hw_flush_all(&bs);
  hw_sync(&bs);
  malloc_fails = 0;
  exit(0); /* the failure was lost */
}

/* Runs the case in a child: its exit status and stderr. */
static int run_child(int threaded, char *err, size_t cap) {
  char path[] = "/tmp/unit_hub_writer_batch.XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return -1;
  unlink(path);
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd, 2);
    duplicate_rows(threaded);
  }
  int status = -1;
  waitpid(pid, &status, 0);
  ssize_t n = pread(fd, err, cap - 1, 0);
  err[n > 0 ? n : 0] = '\0';
  close(fd);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void) {
  for (int threaded = 0; threaded < 2; threaded++) {
    const char *how = threaded ? "on the worker" : "on the caller's thread";
    char err[2048];
    int rc = run_child(threaded, err, sizeof err);
    CHECK(rc == 1, "failed INSERT %s, no memory for its message: exit 1 (got %d)", how, rc);
    CHECK(strstr(err, "writing hub database: UNIQUE constraint failed: t.id (in: INSERT INTO \"t\"") != NULL,
          "failed INSERT %s: SQLite's reason and the statement said [%.200s]", how, err);
  }
  return failures ? 1 : 0;
}
