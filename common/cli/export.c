/* The exporters' driver (export.h): the command line (export_options.h),
 * the readers (export_readers.h: the inputs opened once, --align planned,
 * the threads and the spool decided before anything opens), then the
 * parts, each written by the part writer (export_part.h), cut by one of:
 *   none     one output, the whole stream (or --start/--end's range);
 *   window   one pass writes every window (export_windows.h), asking a
 *            cut source (cut_source.h) where each ends; the count is known
 *            before the first part. Its policies:
 *              equal    --windows N, --window-size DUR (tt_cuts_equal);
 *              planned  --max-part-size planned before writing: one CPU,
 *                       or --part K (cut_plan.h; tt_cuts_planned);
 *              ahead    --max-part-size on two CPUs: the same cuts,
 *                       planned on a second thread while the writer
 *                       writes just behind it (tt_cuts_ahead);
 *   process  --split process: one reader per part (export_process.h).
 * A --max-part-size split reads its inputs once: the fewest pass keeps
 * the stream in a spool, which the balanced pass and the writer replay
 * (size_cuts). Each reader is held by one owner at a time: the run's
 * (ru->r), handed to a cut source or the process split, which close it. */
#include "cli/export.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "base/util.h"
#include "cli/cut_source.h"
#include "cli/export_options.h"
#include "cli/export_part.h"
#include "cli/export_process.h"
#include "cli/export_readers.h"
#include "cli/export_split.h"
#include "cli/export_windows.h"
#include "cli/part_samples.h"

typedef struct run {
  const tt_export_opts *o;
  tt_readers rd;
  tt_part_writer w;
  hub_reader *r;     /* the run's reader, while it holds one */
  tt_cut_source *src; /* the window split's cuts */
  uint64_t *bounds;   /* size split: each part's planned bound */
  int64_t range[2], span[2]; /* --start/--end resolved; the inputs' time span */
  int span_any;              /* the inputs hold an event */
} run;

static hub_filter base_filter(const tt_export_opts *o) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  f.categories = o->categories;
  f.ncategories = o->ncategories;
  f.exclude_categories = o->exclude_categories;
  f.nexclude = o->nexclude;
  f.names = o->names;
  f.nnames = o->nnames;
  f.gpu_only = o->gpu_only;
  f.min_duration = o->min_duration;
  tt_align_filter(&o->align, &f);
  return f;
}

static int has_event_filter(const tt_export_opts *o) {
  return o->ncategories || o->nexclude || o->nnames || o->gpu_only || o->min_duration;
}

static int list_categories(run *ru) {
  hub_category_count *cats = NULL;
  size_t n = 0;
  if (hub_reader_category_counts(ru->r, &cats, &n) != 0) return 1;
  tt_progress_stdout_begins();
  printf("%-32s %12s  %s\n", "category", "events", "kinds");
  for (size_t i = 0; i < n; i++)
    printf("%-32s %12lld  %s\n", cats[i].category[0] ? cats[i].category : "(none)",
           (long long)cats[i].count, cats[i].kinds);
  hub_category_counts_free(cats, n);
  return 0;
}

/* The run's reader closed and opened again on [t0, t1) only (pushed into
 * SQL; HUB_NULL: unbounded), replaying the size split's spool when there
 * is one (the same range: the planners' and the writer's reads are the
 * fewest pass's). */
static int reopen(run *ru, hub_filter *f, int64_t t0, int64_t t1, int replay) {
  hub_reader_close(ru->r);
  ru->r = replay ? tt_readers_open_replay(&ru->rd, f, t0, t1)
                 : tt_readers_open_range(&ru->rd, f, t0, t1);
  return ru->r ? 0 : -1;
}

/* The size split's cut source: the fewest plan first (the count, before
 * anything is written: --count-parts prints it, more than --max-parts is
 * refused), then, for more than one part, the balanced cuts: planned
 * whole, or on a second thread while the writer writes. Reads the stream
 * the writer reads (the whole hub, or the time range), so every run, with
 * --part K or not, cuts at the same times. `spec` must outlive the source. */
static tt_cut_source *size_cuts(run *ru, hub_filter *f, int bounded, int64_t t0, int64_t t1,
                                tt_plan_spec *spec, tt_part *proto, char *what, size_t nwhat) {
  const tt_export_opts *o = ru->o;
  *proto = (tt_part){.pid = HUB_NULL, .path = o->output ? o->output : "-"};
  *spec = (tt_plan_spec){.ex = ru->w.ex, .o = o, .proto = proto, .t0 = t0, .t1 = t1,
                         .max = o->max_part_size, .progress_total = ru->w.progress_total};
  char sz[32];
  snprintf(what, nwhat, "parts of at most %s", tt_size_text(o->max_part_size, sz, sizeof sz));
  if (bounded && reopen(ru, f, t0, t1, 0) != 0) return NULL;
  int64_t r0 = bounded ? t0 : HUB_NULL, r1 = bounded ? t1 : HUB_NULL;
  /* The fewest pass keeps what it reads; the balanced pass and the writer
   * replay it (else they read again: the same records). On two CPUs a
   * thread of its own reads the inputs into the spool, and the fewest
   * pass replays it just behind: SQLite's reading (most of a pass) beside
   * the planner's formatting. */
  if (tt_readers_spool(&ru->rd, &ru->r, f, r0, r1) != 0) return NULL;
  tt_cut_plan fewest;
  /* Each pass says what it does (the first two write nothing). */
  tt_progress_phase("planning");
  if (tt_plan_fewest(ru->r, spec, &fewest) != 0) return NULL;
  int64_t count = (int64_t)fewest.nparts;
  if (o->count_parts || !tt_plan_balances(&fewest, o->max_part_size))
    return tt_cuts_planned(&fewest);
  if (count > o->max_parts) {
    tt_cut_plan_free(&fewest);
    tt_parts_check_count(o, count, what); /* dies */
  }
  if (reopen(ru, f, r0, r1, 1) != 0) {
    tt_cut_plan_free(&fewest);
    return NULL;
  }
  /* The planner takes the reader; the writer opens its own. */
  int ahead = ru->rd.plan_ahead && tt_plan_balances_ahead(&fewest, o->max_part_size);
  if (!ahead) tt_progress_phase("balancing");
  tt_cut_source *src = tt_cuts_balanced(ru->r, spec, &fewest, ahead);
  ru->r = NULL;
  return src;
}

/* The window split: the cut source gives the count before anything is
 * written, then one pass writes every window (or --part K's). */
static int run_windows(run *ru, hub_filter *f, int bounded, int64_t t0, int64_t t1) {
  const tt_export_opts *o = ru->o;
  tt_part_writer *w = &ru->w;
  char what[96];
  tt_plan_spec spec;
  tt_part proto;
  if (o->max_part_size) {
    ru->src = size_cuts(ru, f, bounded, t0, t1, &spec, &proto, what, sizeof what);
    if (!ru->src) return 1;
  } else {
    int64_t span = t1 - t0, count, size;
    if (o->windows) {
      count = o->windows;
      size = (span + count - 1) / count;
    } else {
      size = o->window_size;
      count = (span + size - 1) / size;
    }
    if (size < 1) size = 1;
    if (count < 1) count = 1;
    ru->src = tt_cuts_equal(t0, size, count);
    snprintf(what, sizeof what, "windows of %lld ns", (long long)size);
  }
  int64_t count = ru->src->count;
  w->tag_width = tt_part_digits(count - 1) < 3 ? 3 : tt_part_digits(count - 1);
  if (o->count_parts) {
    tt_progress_stdout_begins();
    printf("%lld\n", (long long)count);
    return 0;
  }
  tt_parts_check_count(o, count, what);
  if (o->part >= count)
    tt_die(2, "--part %lld: the split has %lld windows (0..%lld)", (long long)o->part,
           (long long)count, (long long)count - 1);
  for (int64_t i = 0; i < count; i++) {
    if (o->part >= 0 && i != o->part) continue;
    char tag[48];
    tt_part_window_tag(w, i, tag, sizeof tag);
    char *p = tt_part_writer_path(w, count, tag);
    tt_parts_refuse_input(o, p, &ru->src);
    free(p);
  }
  if (o->part < 0) tt_parts_say_count(count, what);
  if (o->max_part_size) tt_progress_phase("writing");
  if (o->max_part_size) {
    ru->bounds = tt_calloc((size_t)count, sizeof *ru->bounds);
    w->part_sizes = tt_calloc((size_t)count, sizeof *w->part_sizes);
  }
  if (o->part >= 0) {
    int64_t start, end;
    uint64_t bound;
    if (tt_cut_range(ru->src, o->part, &start, &end, &bound) != 1) return 1;
    if (reopen(ru, f, start, end, 0) != 0) return 1;
    char tag[48];
    tt_part_window_tag(w, o->part, tag, sizeof tag);
    tt_part_name(w, o->part, count, start, end, HUB_NULL, tag);
    if (o->max_part_size && bound > o->max_part_size) tt_part_warn_oversize(o, o->part, bound, start);
    if (tt_part_stream(w, ru->r) != 0 || tt_part_end(w, ru->r) != 0) return 1;
    if (o->max_part_size) tt_part_check_size(o, o->part, bound, w->part_bytes, 0);
    return 0;
  }
  /* Every window of the whole span: the windows cover [min start, max
   * end + 1), so a time filter would drop no row; the reader that gave
   * the span streams them unfiltered, as one file would (no reopen, no
   * per-row range test, a row with a bad time said as without --split).
   * A size split's planning read it: the writer opens its own. */
  if (bounded || o->max_part_size) {
    int64_t last_end, unused;
    uint64_t bound;
    /* The range's end; for a size split it is t1 (its last cut) without
     * waiting for a planner. */
    if (o->max_part_size) last_end = t1;
    else if (tt_cut_range(ru->src, count - 1, &unused, &last_end, &bound) != 1) return 1;
    if (reopen(ru, f, bounded ? t0 : HUB_NULL, bounded ? last_end : HUB_NULL, 1) != 0) return 1;
  }
  if (tt_write_windows(w, ru->r, ru->src, ru->bounds) != 0) return 1;
  if (o->max_part_size)
    for (int64_t i = 0; i < count; i++)
      tt_part_check_size(o, i, ru->bounds[i], w->part_sizes[i],
                         i + 1 < count ? ru->bounds[i + 1] : 0);
  return 0;
}

/* The default time base: one for the whole run (every part, every input,
 * whatever the filters), so it is the same in every part of a split. */
static int resolve_time_base(run *ru, tt_export_opts *o) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  tt_align_filter(&o->align, &f);
  hub_reader *r = tt_readers_open(&ru->rd, &f);
  if (!r) return 1;
  int64_t lo = 0, hi = 0;
  if (!hub_reader_time_span(r, &lo, &hi)) lo = 0;
  hub_reader_close(r);
  int64_t us = lo / 1000 - (lo % 1000 < 0); /* floor, for a start before 1970 */
  o->time_base = us * 1000;
  return 0;
}

static int run_all(run *ru) {
  const tt_export_opts *o = ru->o;
  tt_part_writer *w = &ru->w;
  hub_filter f = base_filter(o);
  f.launch_times = w->ex->launch_times;
  ru->r = tt_readers_open(&ru->rd, &f);
  if (!ru->r) return 1;
  if (o->list_categories) return list_categories(ru);
  if (o->output) tt_parts_refuse_input(o, o->output, &ru->src);
  int bounded = o->start_text || o->end_text;
  if (tt_progress_enabled()) {
    w->progress_total = (uint64_t)hub_reader_row_count(ru->r);
    /* Every row is read unless filters or a range leave some out: then
     * the count is an upper bound, said "~". */
    tt_progress_estimate(has_event_filter(o) || bounded || o->part >= 0);
  }
  int64_t t0 = 0, t1 = 1;
  /* The time span (a scan of every table) only when a range or the
   * window split needs it. */
  if (bounded || o->split == TT_SPLIT_WINDOW) {
    int64_t lo = 0, hi = 0;
    int any = hub_reader_time_span(ru->r, &lo, &hi);
    hi += 1; /* ranges are half-open: keep events that end at the last ns */
    t0 = o->start_text ? tt_export_resolve_time("--start", o->start_text, lo, hi) : lo;
    t1 = o->end_text ? tt_export_resolve_time("--end", o->end_text, lo, hi) : hi;
    if (t1 <= t0)
      tt_die(2, "--start/--end: empty time range [%lld, %lld)", (long long)t0, (long long)t1);
    ru->range[0] = t0, ru->range[1] = t1, ru->span[0] = lo, ru->span[1] = hi - 1;
    ru->span_any = any;
    if (!any) t1 = t0 + 1;
  }

  if (o->split == TT_SPLIT_NONE) {
    if (bounded && reopen(ru, &f, t0, t1, 0) != 0) return 1;
    tt_part_name(w, 0, 1, bounded ? t0 : INT64_MIN, bounded ? t1 : INT64_MAX, HUB_NULL, "");
    if (tt_part_stream(w, ru->r) != 0) return 1;
    /* An empty trace is still a trace, unless filters or a time range
     * matched nothing (an error, said by the caller, nothing written). */
    if (!w->begun && !has_event_filter(o) && !bounded && tt_part_begin(w, ru->r) != 0) return 1;
    return tt_part_end(w, ru->r) ? 1 : 0;
  }

  if (o->split == TT_SPLIT_WINDOW) return run_windows(ru, &f, bounded, t0, t1);

  hub_reader *r = ru->r; /* the process split's, which closes it */
  ru->r = NULL;
  return tt_write_processes(w, &ru->rd, r, &f, bounded, t0, t1);
}

/* What the run wrote, on stderr; 1 when nothing matched what was asked. */
static int say_written(const run *ru, const tt_exporter *ex) {
  const tt_export_opts *o = ru->o;
  const tt_part_writer *w = &ru->w;
  tt_progress_finish("rows", w->records);
  int bounded = o->start_text || o->end_text;
  if (w->events == 0 && tt_part_samples_written() == 0 && has_event_filter(o) && !bounded &&
      o->part < 0) {
    /* Category names differ by importer: an empty result is almost
     * always a misspelt filter, not what the user wanted. */
    tt_error("no event matched the --category/--exclude-category/--name%s%s filters; "
             "--list-categories shows the categories in the inputs",
             o->gpu_only ? "/--gpu" : "", o->min_duration ? "/--min-duration" : "");
    return 1;
  }
  if (w->events == 0 && bounded && o->part < 0) {
    /* The same for a time range: nothing in it is a mistaken range. */
    if (ru->span_any)
      tt_error("no event%s in the time range [%lld, %lld) ns: the inputs span [%lld, %lld] ns",
               has_event_filter(o) ? " matched the filters" : "", (long long)ru->range[0],
               (long long)ru->range[1], (long long)ru->span[0], (long long)ru->span[1]);
    else
      tt_error("no event in the time range [%lld, %lld) ns: the inputs hold no event",
               (long long)ru->range[0], (long long)ru->range[1]);
    return 1;
  }
  if (w->parts_empty)
    tt_info("%lld empty part%s: no file written for %s", (long long)w->parts_empty,
            w->parts_empty == 1 ? "" : "s", w->parts_empty == 1 ? "it" : "them");
  if (w->bytes_unknown)
    tt_info("wrote %llu events in %lld part%s", (unsigned long long)w->events,
            (long long)w->parts_written, w->parts_written == 1 ? "" : "s");
  else
    tt_info("wrote %llu events in %lld part%s, %llu bytes", (unsigned long long)w->events,
            (long long)w->parts_written, w->parts_written == 1 ? "" : "s",
            (unsigned long long)w->bytes_written);
  if (o->split == TT_SPLIT_NONE && ex->auto_max_part_size && !w->bytes_unknown &&
      w->bytes_written > tt_export_auto_limit(ex)) {
    char sz[32], limit[32];
    tt_warn("%s holds %s, more than %s opens (%s): --max-part-size auto splits it into "
            "parts that open", o->output, tt_size_text(w->bytes_written, sz, sizeof sz),
            ex->viewer_limit, tt_size_text(tt_export_auto_limit(ex), limit, sizeof limit));
  }
  return 0;
}

int tt_export_main(int argc, char **argv, const tt_exporter *ex) {
  tt_set_progname(argv[0]);
  tt_export_opts o;
  tt_export_parse(argc, argv, ex, &o);
  run ru = {.o = &o, .w = {.ex = ex, .o = &o, .tag_width = 3}};
  int rc = tt_readers_init(&ru.rd, &o) != 0;
  /* --count-parts too: a size split's cuts depend on the bytes of each time. */
  if (rc == 0 && ex->relative_times && !o.time_base_given && !o.list_categories) {
    /* Parts share one base, found before the first is written; one whole
     * file takes its first event's (the stream is in start order). */
    if (o.split == TT_SPLIT_NONE && o.part < 0 && !o.count_parts)
      o.time_base = TT_TIME_BASE_FIRST_EVENT;
    else
      rc = resolve_time_base(&ru, &o);
  }
  if (rc == 0) rc = run_all(&ru);
  if (rc == 0 && !o.list_categories && !o.count_parts) rc = say_written(&ru, ex);
  /* The planner (still running if the writer failed) ends first. */
  tt_cut_source_free(ru.src);
  ru.src = NULL;
  /* A failed split removes the parts it finished (see tt_output_commit_part). */
  if (rc == 0) tt_output_keep_parts();
  tt_progress_done();
  if (rc != 0) tt_part_abort(&ru.w, ru.r);
  if (ru.w.out) tt_output_abort(ru.w.out);
  if (rc != 0) tt_output_abort_all();
  tt_part_writer_free(&ru.w);
  free(ru.bounds);
  hub_reader_close(ru.r);
  tt_readers_free(&ru.rd); /* after every reader replaying its spool */
  free(o.categories);
  free(o.exclude_categories);
  free(o.names);
  tt_align_free(&o.align);
  return rc;
}
