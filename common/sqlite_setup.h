/* Process-wide SQLite settings, applied once before the first connection:
 * every tool is single-threaded, so SQLite's mutexes and memory statistics
 * are pure overhead on the per-row hot paths. */
#ifndef TT_SQLITE_SETUP_H
#define TT_SQLITE_SETUP_H
void tt_sqlite_setup(void);
#endif
