/* Progress lines on stderr for long runs: shown when stderr is a terminal
 * (or with --progress), never with --quiet; at most a few updates a second. */
#ifndef TT_PROGRESS_H
#define TT_PROGRESS_H
#include <stdint.h>

/* mode: -1 quiet (also silences warnings), 0 auto (terminal only),
 * 1 forced. */
void tt_progress_init(int mode);
int tt_progress_quiet(void);
/* Whether progress lines are drawn (worth counting a total for). */
int tt_progress_enabled(void);
/* done/total in the unit given ("rows", "bytes": shown as MB); total 0
 * if unknown. Shows the phase, the percent and the rate per second since
 * tt_progress_init or the phase's start:
 *   "db2json: writing: 8192 of ~49890 rows (16%), 41000 rows/s"
 *   "kineto2db: 12.3 MB of 45.6 MB (27%), 20.1 MB/s" */
void tt_progress(const char *what, uint64_t done, uint64_t total);
/* The last progress line: done, 100%, the phase's time and mean rate. */
void tt_progress_finish(const char *what, uint64_t done);
/* A run in passes names each ("planning", "writing"): shown before the
 * counts; the rate restarts with it. NULL or "": no name. */
void tt_progress_phase(const char *name);
/* Non-zero: the totals given are upper bounds (counted before filters or
 * a time range), shown "~N". */
void tt_progress_estimate(int on);
/* Output to standard output starts: when it is the terminal standard
 * error is on, the progress line is blanked and no more is drawn, so no
 * progress text lands in the output. */
void tt_progress_stdout_begins(void);
/* Ends the progress line (if one was drawn). */
void tt_progress_done(void);
/* One informational line on stderr unless quiet. */
void tt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v/--verbose: a warning that sums things up ("8 tables not imported")
 * gives them one by one instead. Never when quiet. */
void tt_progress_verbose(int on);
int tt_verbose(void);

#endif
