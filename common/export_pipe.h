/* Reading ahead on a second thread (--threads 2): a reader thread steps
 * the hub reader (SQLite, the merge) and copies each record with its
 * strings into batches; the caller's thread takes the records from them
 * in the same order and hands them to a sink.
 *
 * Memory: PIPE_SLOTS batches of at most PIPE_BATCH records (or about
 * PIPE_ARENA bytes of strings): the reader runs at most PIPE_SLOTS - 1
 * batches ahead of the one being read.
 *
 * While a pipe runs, its reader belongs to the reader thread: the caller
 * uses only tt_pipe_view (for the sink), whose lookups give what the
 * reader itself would give. A direct reader's args and track names are
 * looked up by id on the caller's thread, through a second reader of the
 * same inputs (its own SQLite connections, opened at the first lookup:
 * the args statement runs beside the event cursors, on the other core);
 * a reader merging in passes gives them for the record read last only,
 * so there they are copied with each record. Messages the reader prints
 * are printed by tt_pipe_next before the record (or the end) they came
 * with, as a single-threaded run would. SQLite must be in multi-thread
 * mode (tt_pipe_sqlite_mode, before the first connection). */
#ifndef TT_EXPORT_PIPE_H
#define TT_EXPORT_PIPE_H

#include "hub_reader.h"

#define PIPE_SLOTS 4
#define PIPE_BATCH 4096
#define PIPE_ARENA (1u << 20)

typedef struct tt_pipe tt_pipe;

/* Sets SQLite's multi-thread mode (connections used by one thread at a
 * time, each on its own): call before any SQLite connection is opened. */
void tt_pipe_sqlite_mode(void);

/* Starts the reader thread on r (opened from paths with filter f, not yet
 * read; paths must outlive the pipe). NULL if no thread could be started
 * (the caller reads on its own thread). */
tt_pipe *tt_pipe_start(hub_reader *r, const char *const *paths, size_t npaths,
                       const hub_filter *f);

/* As hub_reader_next: 1 with *ev filled (valid until the next call),
 * 0 at the end, -1 after a read error (its message printed). */
int tt_pipe_next(tt_pipe *p, hub_record *ev);

/* The reader as the sink must see it while the pipe runs. */
hub_reader *tt_pipe_view(tt_pipe *p);

/* Stops and joins the reader thread; frees the pipe and its view (the
 * reader stays open, usable again by the caller). NULL is ignored. */
void tt_pipe_stop(tt_pipe *p);

#endif
