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
/* done/total in the unit given ("events", "bytes"); total 0 if unknown.
 * Shows the percent and the rate per second since tt_progress_init. */
void tt_progress(const char *what, uint64_t done, uint64_t total);
/* The last progress line: done of done, 100%, with the mean rate. */
void tt_progress_finish(const char *what, uint64_t done);
/* Ends the progress line (if one was drawn). */
void tt_progress_done(void);
/* One informational line on stderr unless quiet. */
void tt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* -v/--verbose: a warning that sums things up ("8 tables not imported")
 * gives them one by one instead. Never when quiet. */
void tt_progress_verbose(int on);
int tt_verbose(void);

#endif
