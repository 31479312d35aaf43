#include "base/sqlite_setup.h"

#include <errno.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "base/vec.h"

static int setup_done, want_threads, threaded;

int tt_sqlite_threads(int n) {
  if (setup_done) return -1;
  want_threads = n >= 2;
  return 0;
}

int tt_sqlite_threaded(void) { return threaded; }

void tt_sqlite_setup(void) {
  if (setup_done) return;
  setup_done = 1;
  /* Both fail harmlessly (SQLITE_MISUSE) if SQLite was already initialized. */
  threaded = want_threads && sqlite3_threadsafe() &&
             sqlite3_config(SQLITE_CONFIG_MULTITHREAD) == SQLITE_OK;
  if (!threaded) sqlite3_config(SQLITE_CONFIG_SINGLETHREAD);
  /* Memory statistics stay on: SQLite enforces its heap limits (the hard
   * one on every input, the reader's soft one) only with them, and they
   * cost under 2% of an export's instructions once no mutex guards them. */
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
  /* No page-cache memory handed out up front: by default every pager (each
   * connection's main and TEMP database) allocates 20 pages in bulk at its
   * first read, ~90 KB per connection whether it needs them or not. */
  sqlite3_config(SQLITE_CONFIG_PAGECACHE, NULL, 0, 0);
}

/* Per thread: each reader tells it just before opening its inputs, and two
 * threads may open readers at once (a size split's planner). */
static _Thread_local size_t expected_inputs;

void tt_sqlite_expect_inputs(size_t n) { expected_inputs = n; }

/* With many inputs open at once, each connection's fixed memory is what
 * grows with them: no lookaside (120 KB each by default), and a small page
 * cache for the main and TEMP databases (a merge reads each page once;
 * lookups read along an index). Called right after open, before any SQL. */
static void small_connection(sqlite3 *c) {
  sqlite3_db_config(c, SQLITE_DBCONFIG_LOOKASIDE, NULL, 0, 0);
}

/* -shm files SQLite created beside inputs, removed at exit. */
static TT_VEC(char *) made_shm;
static pthread_mutex_t made_shm_lock = PTHREAD_MUTEX_INITIALIZER;

static void remove_made_shm(void) {
  for (size_t i = 0; i < made_shm.n; i++) {
    unlink(made_shm.v[i]);
    sqlite3_free(made_shm.v[i]);
  }
  tt_vec_free(&made_shm);
}

/* Bytes 18 and 19 of the header (write/read format versions) are 2 in WAL mode. */
static int is_wal_mode(const char *path) {
  unsigned char head[20];
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t n = fread(head, 1, sizeof head, f);
  fclose(f);
  return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0 &&
         (head[18] == 2 || head[19] == 2);
}

static void set_heap_limit(void) {
  static int done;
  if (done) return;
  done = 1;
  sqlite3_int64 limit = TT_SQLITE_HEAP_LIMIT;
  const char *env = getenv("TT_SQLITE_HEAP_LIMIT");
  if (env && *env) {
    char *end;
    long long v = strtoll(env, &end, 10);
    if (*end == '\0' && v > 0) limit = v;
  }
  sqlite3_hard_heap_limit64(limit);
}

char *tt_sqlite_input_uri(const char *path, int *refused) {
  *refused = 0;
  int wal = is_wal_mode(path);
  char *wal_path = sqlite3_mprintf("%s-wal", path);
  char *shm_path = sqlite3_mprintf("%s-shm", path);
  struct stat st;
  int wal_content = wal && wal_path && stat(wal_path, &st) == 0 && st.st_size > 0;
  int had_shm = shm_path && access(shm_path, F_OK) == 0;
  if (wal_content && !had_shm) {
    /* Reading through the -wal needs a -shm; SQLite can create one only
     * in a writable directory, and the one it creates is ours to remove. */
    char *dir = sqlite3_mprintf("%s", path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    int dir_ok = dir && access(slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".", W_OK) == 0;
    sqlite3_free(dir);
    if (!dir_ok) {
      tt_error("%s: WAL-mode database with a non-empty %s in a directory that cannot be "
               "written: SQLite cannot read it without creating %s; checkpoint it where it "
               "was written, or copy both files to a writable directory",
               path, wal_path, shm_path);
      *refused = 1;
    } else if (shm_path) {
      pthread_mutex_lock(&made_shm_lock); /* readers may open on two threads */
      if (!made_shm.v) atexit(remove_made_shm);
      tt_vec_push(&made_shm, shm_path);
      pthread_mutex_unlock(&made_shm_lock);
      shm_path = NULL;
    }
  }
  sqlite3_free(wal_path);
  sqlite3_free(shm_path);
  /* Every character but the unreserved ones is %-escaped so the path is
   * taken as it is. immutable: no locks and no -wal/-shm, right when
   * everything is in the main file (not WAL, or WAL checkpointed); a live
   * -wal must be read. */
  tt_buf uri = {0};
  tt_buf_puts(&uri, "file:");
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
        strchr("/-._~", *p))
      tt_buf_putc(&uri, (char)*p);
    else
      tt_buf_printf(&uri, "%%%02X", *p);
  }
  tt_buf_puts(&uri, wal && !wal_content ? "?immutable=1" : "?mode=ro");
  return uri.data;
}

int tt_sqlite_exec_temp(sqlite3 *db, const char *sql, char **err) {
  int query_only = 0;
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, "PRAGMA query_only", -1, &st, NULL) == SQLITE_OK) {
    if (sqlite3_step(st) == SQLITE_ROW) query_only = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
  }
  if (query_only) sqlite3_exec(db, "PRAGMA query_only=0;", NULL, NULL, NULL);
  int rc = sqlite3_exec(db, sql, NULL, NULL, err);
  if (query_only) sqlite3_exec(db, "PRAGMA query_only=1;", NULL, NULL, NULL);
  return rc;
}

int tt_sqlite_open_input(const char *path, sqlite3 **db) {
  tt_sqlite_setup();
  set_heap_limit();
  *db = NULL;
  int refused;
  char *uri = tt_sqlite_input_uri(path, &refused);
  /* refused: the message is printed; SQLite's own error follows the open */
  int rc = sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
                           NULL);
  free(uri);
  if (rc == SQLITE_OK) {
    sqlite3 *c = *db;
    sqlite3_db_config(c, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(c, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
    sqlite3_db_config(c, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
    sqlite3_db_config(c, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(c, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
    int many = expected_inputs >= TT_SQLITE_MANY_INPUTS;
    if (many) small_connection(c);
    rc = sqlite3_exec(c, "PRAGMA cell_size_check=ON; PRAGMA trusted_schema=OFF;", NULL, NULL, NULL);
    if (rc == SQLITE_OK && many) {
      /* One page-cache budget shared by every input (a merge reads each
       * page once; SQLite's default is 2 MB per connection). TEMP keeps a
       * fixed cap: the indexed link copies of a small hub stay in memory,
       * as a TEMP database spilled to a file costs one more descriptor. */
      long long kib = TT_SQLITE_CACHE_BUDGET / 1024 / (long long)expected_inputs;
      if (kib < TT_SQLITE_MIN_CACHE / 1024) kib = TT_SQLITE_MIN_CACHE / 1024;
      if (kib > 2000) kib = 2000; /* SQLite's default */
      char *sql = sqlite3_mprintf("PRAGMA main.cache_size=-%lld; PRAGMA temp.cache_size=-%lld;",
                                  kib, TT_SQLITE_TEMP_CACHE / 1024);
      rc = sqlite3_exec(c, sql, NULL, NULL, NULL);
      sqlite3_free(sql);
    }
  }
  return rc;
}
