/* Progress lines on stderr for long runs: shown when stderr is a terminal
 * (or with --progress), never with --quiet; at most a few updates a second. */
#ifndef TT_PROGRESS_H
#define TT_PROGRESS_H
#include <stdint.h>

/* mode: -1 quiet, 0 auto (terminal only), 1 forced. */
void tt_progress_init(int mode);
int tt_progress_quiet(void);
/* done/total in the unit given ("events", "bytes"); total 0 if unknown. */
void tt_progress(const char *what, uint64_t done, uint64_t total);
/* Ends the progress line (if one was drawn). */
void tt_progress_done(void);
/* One informational line on stderr unless quiet. */
void tt_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
