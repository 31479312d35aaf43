/* The process-wide SQLite settings (common/base/sqlite_setup.c) take
 * effect in an exporter: its first SQLite call is the reader's open, and
 * a call that initializes SQLite before them makes every sqlite3_config
 * fail, leaving SQLite's mutexes on every call. The hub is written by a
 * child process, so that here the reader's open is the first call. The
 * heap limits hold: memory statistics, which SQLite needs to enforce
 * them, stay on. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/sqlite_setup.h"
#include "hub/hub_reader.h"
#include "hub/hub_writer.h"

#include "unit.h"

int main(void) {
  char dir[] = "/tmp/tt-unit-setup-XXXXXX";
  if (!mkdtemp(dir)) return 2;
  char path[256];
  snprintf(path, sizeof path, "%s/hub.db", dir);
  pid_t child = fork();
  if (child == 0) {
    hub_writer *w = hub_writer_create(path);
    hub_process_name(w, 7, "p");
    hub_region(w, 7, 7, 100, 200, "call", hub_event(w, "api", 1, NULL), NULL);
    hub_writer_finish(w);
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "a hub written by a child process");

  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  const char *paths[] = {path};
  hub_reader *r = hub_reader_open(paths, 1, &f);
  CHECK(r != NULL, "the reader opens it (SQLite's first use in this process)");
  hub_record ev;
  CHECK(r && hub_reader_next(r, &ev) == 1 && strcmp(ev.name, "call") == 0, "its one region read");

  sqlite3 *db = NULL;
  CHECK(tt_sqlite_open_input(path, &db) == SQLITE_OK, "opened again as an input");
  /* Single-thread mode: SQLite's mutexes do nothing, so a fast
   * (non-recursive) mutex is taken twice; a real one refuses the second. */
  sqlite3_mutex *m = sqlite3_mutex_alloc(SQLITE_MUTEX_FAST);
  int first = sqlite3_mutex_try(m), second = sqlite3_mutex_try(m);
  CHECK(m && first == SQLITE_OK && second == SQLITE_OK,
        "single-thread mode in effect: SQLite's mutexes are no-ops (second try: %s)",
        sqlite3_errstr(second));
  sqlite3_mutex_leave(m);
  if (second == SQLITE_OK) sqlite3_mutex_leave(m);
  sqlite3_mutex_free(m);
  CHECK(sqlite3_memory_used() > 0, "memory statistics on: %lld bytes in use",
        (long long)sqlite3_memory_used());
  CHECK(sqlite3_soft_heap_limit64(-1) == 4 << 20, "the reader's soft heap limit: %lld bytes",
        (long long)sqlite3_soft_heap_limit64(-1));
  CHECK(sqlite3_hard_heap_limit64(-1) == TT_SQLITE_HEAP_LIMIT, "hard heap limit %lld bytes",
        (long long)sqlite3_hard_heap_limit64(-1));
  /* Enforced: a 64 MB blob under a 16 MB limit fails as out of memory. */
  sqlite3_hard_heap_limit64(16 << 20);
  int rc = sqlite3_exec(db, "SELECT length(randomblob(64000000))", NULL, NULL, NULL);
  CHECK(rc == SQLITE_NOMEM, "a 64 MB allocation under a 16 MB hard heap limit: %s",
        sqlite3_errstr(rc));
  sqlite3_hard_heap_limit64(TT_SQLITE_HEAP_LIMIT);
  rc = sqlite3_exec(db, "SELECT length(randomblob(64000000))", NULL, NULL, NULL);
  CHECK(rc == SQLITE_OK, "and within the 1 GiB limit: %s", sqlite3_errstr(rc));
  sqlite3_close(db);
  hub_reader_close(r);
  unlink(path);
  rmdir(dir);
  return failures ? 1 : 0;
}
