/* Process-wide SQLite settings, applied once before the first connection
 * (and the header check done before opening a file as SQLite):
 * every tool is single-threaded, so SQLite's mutexes and memory statistics
 * are pure overhead on the per-row hot paths. */
#ifndef TT_SQLITE_SETUP_H
#define TT_SQLITE_SETUP_H
void tt_sqlite_setup(void);

/* Reads a file's first 16 bytes: a clear message ("PATH: not a SQLite
 * database (byte 0: no SQLite header)", or why it cannot be opened) for a
 * file that is not SQLite at all, before SQLite's generic "file is not a
 * database". Returns 0 when the header is SQLite's, else -1. */
int tt_sqlite_check_header(const char *path);
#endif
