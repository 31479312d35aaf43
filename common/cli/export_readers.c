/* Every reader an export opens (export_readers.h). */
#include "cli/export_readers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "base/sqlite_setup.h"
#include "base/util.h"

int tt_readers_init(tt_readers *rd, tt_export_opts *o) {
  memset(rd, 0, sizeof *rd);
  rd->o = o;
  /* A whole size split on two cores: its balanced cuts planned on a
   * second thread. SQLite's threading is set before any connection
   * opens, and checked before a second thread may start. */
  rd->plan_ahead = o->max_part_size && o->split == TT_SPLIT_WINDOW && o->part < 0 &&
                   !o->count_parts && !o->list_categories && o->threads >= 2;
  tt_sqlite_threads(rd->plan_ahead ? 2 : 1);
  tt_sqlite_setup();
  if (rd->plan_ahead && !tt_sqlite_threaded()) {
    tt_info("SQLite here is not built for threads: the size split runs on one thread");
    rd->plan_ahead = 0;
  }
  /* The inputs, once, and --align's plan from them: every reader is
   * opened with the plan's maps (no reader plans). */
  int align = !o->list_categories && o->align.mode != HUB_ALIGN_NONE;
  rd->inputs = hub_input_set_open(o->inputs, o->ninputs, align);
  if (!rd->inputs) return -1;
  return align && tt_align_plan_inputs(&o->align, rd->inputs) != 0 ? -1 : 0;
}

hub_reader *tt_readers_open(tt_readers *rd, const hub_filter *f) {
  hub_input_set *in = rd->inputs;
  rd->inputs = NULL;
  return in ? hub_reader_open_set(in, f) : hub_reader_open(rd->o->inputs, rd->o->ninputs, f);
}

hub_reader *tt_readers_open_range(tt_readers *rd, hub_filter *f, int64_t t0, int64_t t1) {
  f->start = t0;
  f->end = t1;
  return tt_readers_open(rd, f);
}

hub_reader *tt_readers_open_replay(tt_readers *rd, hub_filter *f, int64_t t0, int64_t t1) {
  f->replay = hub_spool_usable(rd->spool) ? rd->spool : NULL;
  hub_reader *r = tt_readers_open_range(rd, f, t0, t1);
  f->replay = NULL;
  return r;
}

/* Whether the size split keeps its stream for the passes after the
 * fewest: not for the count alone; not for --part K, whose jobs run many
 * at once (scripts/convert-parallel.sh) and would each keep a copy of the
 * whole stream in TMPDIR to save one read of three; not under TT_SPOOL=0
 * (tests compare the two ways). */
static int want_spool(const tt_export_opts *o) {
  const char *env = getenv("TT_SPOOL");
  return !o->count_parts && o->part < 0 && !(env && strcmp(env, "0") == 0);
}

int tt_readers_spool(tt_readers *rd, hub_reader **r, hub_filter *f, int64_t t0, int64_t t1) {
  if (!want_spool(rd->o)) return 0;
  rd->spool = hub_spool_new();
  if (hub_reader_spool_into(*r, rd->spool) != 0 || !rd->plan_ahead ||
      hub_spool_fill(rd->spool, *r) != 0)
    return 0;
  *r = NULL; /* the spool's thread reads it */
  if (getenv("TT_SPLIT_TRACE")) fprintf(stderr, "split-spool: filled on a thread of its own\n");
  *r = tt_readers_open_replay(rd, f, t0, t1);
  return *r ? 0 : -1;
}

void tt_readers_free(tt_readers *rd) {
  hub_input_set_close(rd->inputs); /* when no reader took them */
  rd->inputs = NULL;
  hub_spool_free(rd->spool); /* after every reader replaying it */
  rd->spool = NULL;
}
