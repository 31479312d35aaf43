/* The streaming reader: the one place that knows the hub's SQL.
 *
 * Opens any number of hub databases read-only, finds their physical
 * rocpd_* tables itself (views and triggers in an input are never trusted),
 * and yields the rows of every table of every database as ONE stream in
 * global start-time order: a k-way merge (binary heap) over one cursor per
 * (database, table). Memory holds one row per cursor plus the small info
 * tables (processes, threads, agents, streams), never the events. */
#ifndef TT_HUB_READER_H
#define TT_HUB_READER_H
#include <stddef.h>
#include <stdint.h>

#include "base/util.h" /* tt_buf */
#include "hub/hub_record.h" /* the records, the filter, the info tables */

/* f's processes as SQL on column col: " AND col = PID", " AND col IN
 * (...)" for a set, "" for any (appended to b). For readers of the hub
 * beside this one that keep to the same filter (hub_samples.h). */
void hub_filter_pid_sql(tt_buf *b, const char *col, const hub_filter *f);

typedef struct hub_reader hub_reader;

/* A stream read once and read again: a reader tapped into a spool writes
 * every record it reads (with its args and track name, as the merge in
 * passes keeps them) to an unlinked file in TMPDIR; readers opened with
 * hub_filter.replay then read those records, on any thread, instead of
 * reading SQLite again (about 70% of a pass: the size split reads its
 * stream three times). Exporters see the same records, so write the same
 * bytes. Disk, not memory, holds it: about 230 bytes a record and its
 * strings. A spool given up (the disk filled) is emptied at once; its
 * replays go on reading their inputs, from where they were. */
typedef struct hub_spool hub_spool;
hub_spool *hub_spool_new(void);
/* From its first record on, r writes every record it reads into s. 0, or
 * -1 when it cannot (r has read already; too little room in TMPDIR for
 * 4x the inputs' bytes, or no file: said as a note); r reads on as before
 * either way. A reader in passes is spooled too; its replays open their
 * groups for their info only. */
int hub_reader_spool_into(hub_reader *r, hub_spool *s);
/* Reads r (tapped into s) to its end on a thread of its own, r taken
 * (closed by hub_spool_free); replays opened meanwhile wait for what is
 * not written yet. SQLite must be in its multi-thread mode
 * (tt_sqlite_threads). 0, or -1 with r still the caller's: a reader in
 * passes (it read its inputs when it opened; its replays could not go
 * back to them were the spool given up), or no thread. */
int hub_spool_fill(hub_spool *s, hub_reader *r);
/* Whether a replay of s may be opened: complete (its reader read to the
 * end and every record was written), or being filled. */
int hub_spool_usable(hub_spool *s);
/* Stops a filling thread, then frees s: after its readers are closed;
 * NULL is fine. */
void hub_spool_free(hub_spool *s);

/* Opens every path read-only. On failure prints "PATH: reason" and
 * returns NULL (a non-SQLite file, a SQLite file that is not a rocpd hub). */
hub_reader *hub_reader_open(const char *const *paths, size_t npaths, const hub_filter *f);
void hub_reader_close(hub_reader *r);

/* One input opened for its processes and metadata only (hub_filter
 * info_only): a look at its hosts and clocks. NULL as hub_reader_open. */
hub_reader *hub_reader_open_info(const char *path);

/* Next event in global time order: 1 with *ev filled, 0 at the end, -1 on
 * a read error (message printed, naming the file and table). */
int hub_reader_next(hub_reader *r, hub_record *ev);

/* Time span [min start, max end] of everything that passes the filter's
 * pid (not its time range): max end is the latest start or end of any
 * row, whichever row it is. Returns 0 if there are no events. */
int hub_reader_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end);

/* The processes that have events, one per (hostname, pid), sorted by
 * (hostname, pid): what --split process makes a part of. *out is
 * malloc'ed (caller frees it; hosts point into the reader's info). */
typedef struct hub_process_key {
  const char *host; /* hub_process_info.hostname */
  int64_t pid;
  int ambiguous;    /* another host has this pid too */
} hub_process_key;
size_t hub_reader_process_keys(hub_reader *r, hub_process_key **out);

/* Args of an event (hub_arg_view), in position order: begin, then next
 * until 0. One iteration at a time. Strings valid until the next call. */
void hub_args_begin(hub_reader *r, int db, int64_t event_id);
int hub_args_next(hub_reader *r, hub_arg_view *a);

/* The small info tables (hub_record.h), loaded at open. */
size_t hub_reader_nprocesses(const hub_reader *r);
const hub_process_info *hub_reader_process(const hub_reader *r, size_t i);
size_t hub_reader_nthreads(const hub_reader *r);
const hub_thread_info *hub_reader_thread(const hub_reader *r, size_t i);
size_t hub_reader_nagents(const hub_reader *r);
const hub_agent_view *hub_reader_agent(const hub_reader *r, size_t i);
size_t hub_reader_nlanes(const hub_reader *r);
const hub_lane_info *hub_reader_lane(const hub_reader *r, size_t i);

/* Lookups by id (NULL when absent). */
/* The process of pid in input db (else of pid in any input). */
const hub_process_info *hub_reader_find_process(const hub_reader *r, int db, int64_t pid);
/* The host of pid's rows in input db: its process's hostname, else (GPU
 * rows under a device's pid) that of the input's first process, else "". */
const char *hub_reader_host(const hub_reader *r, int db, int64_t pid);
const hub_thread_info *hub_reader_find_thread(const hub_reader *r, int db, int64_t thread_id);
const hub_agent_view *hub_reader_find_agent(const hub_reader *r, int db, int64_t agent_id);
const hub_lane_info *hub_reader_find_lane(const hub_reader *r, int db, int64_t lane_id,
                                          int is_queue);
const char *hub_reader_track_name(hub_reader *r, int db, int64_t track_id);

/* Each category in the inputs with its number of events (intervals and
 * samples; flow ends left out; a CPU sample once, as kind "cpu sample",
 * its frames' rows not) and the kinds that carry it ("region, kernel"),
 * sorted by category; filters are not applied. 0 on success. */
int hub_reader_category_counts(hub_reader *r, hub_category_count **out, size_t *n);
void hub_category_counts_free(hub_category_count *c, size_t n);

/* Rows in every event table of every input, before filters: the total a
 * progress line measures against. */
int64_t hub_reader_row_count(hub_reader *r);

/* The value of input db's rocpd_metadata row `tag` ("kineto.distributedInfo"),
 * NULL when there is none; valid until the next call. */
const char *hub_reader_metadata(hub_reader *r, int db, const char *tag);

size_t hub_reader_ndbs(const hub_reader *r);
const char *hub_reader_db_path(const hub_reader *r, int db);
/* Its hub's table suffix in that file ("_<uuid>" or "", hub_catalog.h). */
const char *hub_reader_db_suffix(const hub_reader *r, int db);

#endif
