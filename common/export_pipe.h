/* Reading ahead on a second thread (--threads 2): a reader thread steps
 * the hub reader (SQLite, the merge) and copies each record, with its
 * strings and args, into batches; the caller's thread takes the records
 * from them in the same order and hands them to a sink.
 *
 * Memory: PIPE_SLOTS batches of at most PIPE_BATCH records (or about
 * PIPE_ARENA bytes of strings): the reader runs at most two batches ahead
 * of the one being read, and the one before it is kept for lookups.
 *
 * While a pipe runs, its reader belongs to the reader thread: the caller
 * uses only tt_pipe_view (for the sink), whose args and track-name
 * lookups give what the reader itself would give at that point of the
 * stream: the record taken last, any record of the kept batches, or a
 * lookup by id done by the reader thread on request. Messages the reader
 * prints are printed by tt_pipe_next before the record (or the end) they
 * came with, as a single-threaded run would. */
#ifndef TT_EXPORT_PIPE_H
#define TT_EXPORT_PIPE_H

#include "hub_reader.h"

#define PIPE_SLOTS 4
#define PIPE_BATCH 4096
#define PIPE_ARENA (1u << 20)

typedef struct tt_pipe tt_pipe;

/* Starts the reader thread on r (opened, not yet read). no_args: the sink
 * never asks for args (--no-args), so none are copied (a request still
 * works where the reader looks args up by id). NULL if no thread could be
 * started (the caller reads on its own thread). */
tt_pipe *tt_pipe_start(hub_reader *r, int no_args);

/* As hub_reader_next: 1 with *ev filled (valid until the next call),
 * 0 at the end, -1 after a read error (its message printed). */
int tt_pipe_next(tt_pipe *p, hub_record *ev);

/* The reader as the sink must see it while the pipe runs. */
hub_reader *tt_pipe_view(tt_pipe *p);

/* Stops and joins the reader thread; frees the pipe and its view (the
 * reader stays open, usable again by the caller). NULL is ignored. */
void tt_pipe_stop(tt_pipe *p);

#endif
