/* Where the parts of a window split end: the cut source behind the window
 * writer (export_windows.c). The writer asks for part k's end, k = 0, 1, ...; the
 * count is known before the first part is written (names, --max-parts and
 * --part are checked then), whatever the policy:
 *
 *   equal     --windows N, --window-size DUR: windows of one length from
 *             the range's start (tt_cuts_equal);
 *   planned   --max-part-size on one CPU, or --part K: the balanced plan
 *             (cut_plan.h), made whole before writing (tt_cuts_planned);
 *   ahead     --max-part-size on two CPUs: the same balanced plan, made on
 *             a second thread while the writer writes behind it, a part's
 *             events before its end is decided too (reach; tt_cuts_ahead);
 *   process   --split process --max-part-size: a process too big for one
 *             part is a planned source of its own (its windows, named
 *             FILE.pPID.wNNN, written one reader each by export_process.c).
 *
 * The writer's bytes do not depend on the policy that gave the same cuts:
 * planned and ahead are the same cuts, so the same parts. */
#ifndef TT_CUT_SOURCE_H
#define TT_CUT_SOURCE_H
#include <stdint.h>

#include "cli/cut_plan.h"

typedef struct tt_cut_source tt_cut_source;
struct tt_cut_source {
  int64_t start; /* where part 0 starts */
  int64_t count; /* the number of parts, known before the first is written */
  /* Part k's end (and its planned bound; 0 for equal windows): 1; 0 when
   * there is no part k (k >= count); -1 when planning failed (said). May
   * wait for a planner. */
  int (*next)(tt_cut_source *s, int64_t k, int64_t *end, uint64_t *bound);
  /* NULL when every end is known at once. Else (ahead) waits until part
   * k's end is known (1: next() gives it without waiting) or no cut of
   * part k falls before t any more (0: an event starting before t and
   * ending by t is part k's and unclipped, whatever the end); -1 when
   * planning failed (said). The writer writes behind the planner. */
  int (*reach)(tt_cut_source *s, int64_t k, int64_t t);
  /* After the last part: 0 when the plan ended well, -1 if not (said). */
  int (*finish)(tt_cut_source *s);
  void (*free)(tt_cut_source *s);
};

/* count windows of `size` ns from t0. */
tt_cut_source *tt_cuts_equal(int64_t t0, int64_t size, int64_t count);

/* The cuts of a plan made whole (moved in: *plan is emptied). */
tt_cut_source *tt_cuts_planned(tt_cut_plan *plan);

/* The balanced plan of `fewest` (moved in) made on a thread of its own,
 * reading `r` (closed by free; reading the hub twice at once: two CPUs).
 * `s` and what it points to must outlive the source. NULL if the thread
 * cannot start (said). Signals go to the caller's thread; a tt_die on the
 * planner's thread ends only that thread, and the plan counts as failed. */
tt_cut_source *tt_cuts_ahead(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *fewest);
/* (NULL: `r` is still the caller's.) */

/* The balanced cuts of `fewest` (moved in) over `r` (a reader of the same
 * stream, taken): ahead (on a second thread) or planned whole; planned
 * whole, the fewest plan's own cuts when balancing would need more parts.
 * NULL on an error (said). */
tt_cut_source *tt_cuts_balanced(hub_reader *r, const tt_plan_spec *s, tt_cut_plan *fewest,
                                int ahead);

/* Part k's range [*start, *end) and bound: next() of part k, the start
 * being part k - 1's end. 1, 0 or -1 as next(). */
int tt_cut_range(tt_cut_source *s, int64_t k, int64_t *start, int64_t *end, uint64_t *bound);

/* Stops a planner still running and frees everything; NULL is fine. */
void tt_cut_source_free(tt_cut_source *s);

#endif
