/* Process-wide SQLite settings, applied once before the first call that
 * initializes SQLite (any connection, and heap limit calls too: settings
 * made after it are refused): a single-threaded tool has no use for
 * SQLite's mutexes. And the one way inputs are
 * opened, so that nothing an input carries ever runs (the header check
 * done before a file is opened as SQLite is input_check.h's). */
#ifndef TT_SQLITE_SETUP_H
#define TT_SQLITE_SETUP_H
#include <sqlite3.h>
#include <stddef.h>

void tt_sqlite_setup(void);
/* A tool that runs SQLite on two threads (each connection on one thread
 * at a time) says so before the first tt_sqlite_setup: SQLite's global
 * state (allocator, page cache) then keeps its mutexes. Returns -1 when
 * setup was already done. */
int tt_sqlite_threads(int n);
/* Whether setup kept the mutexes (SQLite built thread-safe). */
int tt_sqlite_threaded(void);

/* SQLite's hard heap limit for the whole process (bytes), set by the first
 * tt_sqlite_open_input; TT_SQLITE_HEAP_LIMIT in the environment overrides it. */
#define TT_SQLITE_HEAP_LIMIT (1024LL * 1024 * 1024)

/* Opens an input database (a hub, a profiler's SQLite export) for reading,
 * with the same contract as sqlite3_open_v2: returns SQLITE_OK or an error
 * code, and *db is set even on error (pass it to sqlite3_close).
 * Nothing in the input runs: SQLITE_DBCONFIG_DEFENSIVE on, triggers and
 * views of the file disabled (TEMP ones the caller makes still work),
 * trusted_schema off, extension loading off, cell_size_check on, and a hard
 * heap limit. Nothing beside it changes: read-only; a WAL-mode file whose
 * -wal is absent or empty is opened immutable (no -wal/-shm is created,
 * even in a directory that cannot be written); a WAL-mode file with a
 * non-empty -wal is read through it, and a -shm SQLite has to create for
 * that is removed at exit. */
int tt_sqlite_open_input(const char *path, sqlite3 **db);

/* Runs sql, which writes TEMP tables only, on a connection of
 * tt_sqlite_open_input: query_only, which guards the input the rest of the
 * time, is lifted for it and put back as it was (the file is opened
 * read-only besides). Returns sqlite3_exec's code; err as its errmsg. */
int tt_sqlite_exec_temp(sqlite3 *db, const char *sql, char **err);

/* The URI tt_sqlite_open_input opens an input with (immutable=1 or
 * mode=ro, as above), for a caller that ATTACHes inputs (dbmerge): free()
 * it. *refused is set, after a message naming the file, when the input is
 * a WAL database with a non-empty -wal in a directory that cannot be
 * written; a -shm that reading it will create is removed at exit. */
char *tt_sqlite_input_uri(const char *path, int *refused);

/* How many inputs the caller is about to keep open at once (the hub
 * reader's k-way merge keeps every one). From TT_SQLITE_MANY_INPUTS on,
 * tt_sqlite_open_input makes each connection small: no lookaside, a main
 * page cache of TT_SQLITE_CACHE_BUDGET / n (at least TT_SQLITE_MIN_CACHE)
 * and a TEMP cache of at most TT_SQLITE_TEMP_CACHE, so memory per input
 * stays near 200 KB (measured in tests/tools/test_many.sh). */
void tt_sqlite_expect_inputs(size_t n);
#define TT_SQLITE_MANY_INPUTS 16
#define TT_SQLITE_CACHE_BUDGET (16LL * 1024 * 1024)
#define TT_SQLITE_MIN_CACHE (16LL * 1024)
#define TT_SQLITE_TEMP_CACHE (256LL * 1024)
#endif
