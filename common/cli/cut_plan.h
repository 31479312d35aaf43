/* The size split's planner (--max-part-size): where to cut a time-ordered
 * stream so that every part's output holds at most SIZE bytes, decided by
 * passes that write nothing.
 *
 * A planning pass reads the part's stream once and gives every event to
 * the real sink, whose output is /dev/null (a directory format writes no
 * file at all), as the real run will; before each new start time it asks
 * the sink how big the part would be if it ended there (tt_exporter
 * part_bytes, plus what clipping the events that cross the cut may add).
 * Parts are consecutive time windows, cut only between two distinct start
 * times. Two passes:
 *
 *   fewest    fills each part to SIZE: the fewest parts (n) and their
 *             bounds' total, known before anything is written (the count
 *             --count-parts prints and --max-parts refuses);
 *   balanced  n parts of about total/n each: part k ends at the first
 *             start time where it reaches its aim, (what is left)/(parts
 *             left), so every part is at least its aim, the aims never
 *             grow and the last part is at most total/n; never over SIZE.
 *
 * A part is over SIZE only when one instant alone (with what crosses into
 * it) is, which the plan records (noversize). The real run writes windows
 * with the balanced cuts, so a part alone (--part K) is the same bytes as
 * in the whole run. */
#ifndef TT_CUT_PLAN_H
#define TT_CUT_PLAN_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "cli/exporter.h"

typedef struct tt_cut_plan {
  int64_t *cuts;    /* part k covers [cuts[k], cuts[k + 1]) */
  uint64_t *bytes;  /* the planned bound of each part */
  size_t nparts;    /* cuts has nparts + 1 entries */
  size_t cap;       /* entries allocated in bytes (cuts: one more) */
  size_t noversize; /* parts over the size: one instant alone is larger */
  /* The largest bound one start time added, or a part's header with the
   * events carried across its cut: how far from its aim a balanced cut
   * may fall (see tt_plan_balances). */
  uint64_t step;
} tt_cut_plan;

/* What a planning pass plans: [t0, t1) of `ex`'s format with `o`'s
 * options, for parts of at most `max` bytes; `proto` gives the part's
 * process(es) (pid HUB_NULL: all). Everything must outlive the pass. */
typedef struct tt_plan_spec {
  const tt_exporter *ex;
  const tt_export_opts *o;
  const tt_part *proto;
  int64_t t0, t1;
  uint64_t max;
  uint64_t progress_total; /* rows the pass reads, for its progress (0: unknown) */
} tt_plan_spec;

/* A plan read by another thread while it is made (the planned-ahead cut
 * source): each part is published under `mu` and `changed` broadcast;
 * `stop` set by the reader ends the pass early (as failed). `frontier`:
 * the part being planned ends at or after it (the start time the pass
 * has reached), so a writer may write that
 * part's events up to it before its end is known; when it reaches `want`
 * (INT64_MAX: nobody waits) `changed` is broadcast too. */
typedef struct tt_plan_share {
  pthread_mutex_t mu;
  pthread_cond_t changed;
  atomic_int stop;
  _Atomic int64_t frontier, want;
} tt_plan_share;

/* The fewest plan, over every event of `r` (time-ordered, as the real run
 * reads them). 0 on success, -1 on a read or sink error (said). Always at
 * least one part. */
int tt_plan_fewest(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *plan);

/* Whether the balanced pass is sure to need no more parts than `fewest`:
 * more than one part, and room in the fewest plan's last part for a step
 * (tt_cut_plan.step) a part. Else the fewest plan is used as it is (its
 * last part is nearly full: its parts are about equal already). */
int tt_plan_balances(const tt_cut_plan *fewest, uint64_t max);

/* Whether the balanced pass may run ahead of the writer: sure to need no
 * more parts than `fewest`, as nothing can be taken back once parts are
 * written. Balanced cuts fall elsewhere than the fewest plan's, and each
 * adds up to a step (tt_cut_plan.step) that the fewest plan's cut did not
 * (arrows and events across it), all of which the last part takes: room
 * for (n - 1) steps in each part is room for them. Else the balanced plan
 * is made whole first and, when it would need more parts, the fewest plan
 * is used, on one CPU or two alike. */
int tt_plan_balances_ahead(const tt_cut_plan *fewest, uint64_t max);

/* The balanced plan of the same stream (a reader of its own) into `plan`,
 * whose arrays are allocated here before the pass, for fewest->nparts
 * parts: it never grows, so a reader on another thread (`share`, NULL
 * when none) never sees it move. 0; 1 when it would need more parts
 * than the fewest plan (not said: tt_plan_balances makes it unlikely);
 * -1 on a read or sink error (said). */
int tt_plan_balanced(hub_reader *r, const tt_plan_spec *s, const tt_cut_plan *fewest,
                     tt_cut_plan *plan, tt_plan_share *share);

/* Both passes: the fewest over `r` (closed here), the balanced (when
 * tt_plan_balances) over a reader of `inputs` with filter `f`; the
 * fewest plan when the balanced one would need more parts. */
int tt_plan_cuts(hub_reader *r, const char *const *inputs, size_t ninputs, const hub_filter *f,
                 const tt_plan_spec *s, tt_cut_plan *plan);

/* The sum of the plan's bounds. */
uint64_t tt_cut_plan_total(const tt_cut_plan *plan);
void tt_cut_plan_free(tt_cut_plan *plan);

#endif
