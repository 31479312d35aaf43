/* The args of the events the reader yields (rocpd_arg rows of an event,
 * in position order), read without a lookup per event.
 *
 * The usual hub (every importer's, rocprofv3's) writes an event's args
 * right after the event, so rocpd_arg in rowid order is sorted by
 * (event_id, position); written position-major (every first arg, then
 * every second) it is a few runs so sorted, one after the other. One pass
 * over the two columns finds the runs. Then each cursor reads each run
 * with a few fingers: scans in rowid order that step along with its
 * events. rocprofv3 gives ids in the order its per-thread (per-queue)
 * buffers were written out, so a cursor's events in start order walk a
 * few id ranges at once (the main thread's, each other thread's batch):
 * each gets a finger, the least recently used one moving to an event
 * found nowhere near by a binary search over rowids. An event a finger
 * passed lately is among the groups it keeps (a ring): one rowid seek. No
 * index, no sort, no copy of the table; memory is HR_ARG_FINGERS x
 * HR_ARG_RING groups per run and cursor, bounded whatever the disorder
 * (which only costs searches).
 *
 * Otherwise (more runs than HR_ARG_MAX_RUNS) each cursor steps a query of
 * its table joined to rocpd_arg in the cursor's order, and an event read
 * out of stream order is looked up by id (hr_args_lookup_source: the
 * input's index, or a TEMP copy). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_reader_internal.h"
#include "hub/hub_reader_args.h"
#include "base/util.h"
#include "base/vec.h"

/* One arg of the event being read, its strings in r->args.text. */
typedef struct hr_arg_row {
  int64_t pos, rowid;
  size_t name, type, value;
} hr_arg_row;

/* Prepares sql (its one %w: the table-name suffix) over d's rocpd_arg. */
static sqlite3_stmt *arg_prep(hub_db *d, const char *sql_fmt) {
  char *sql = sqlite3_mprintf(sql_fmt, d->suffix);
  sqlite3_stmt *st = hr_prep(d, sql);
  sqlite3_free(sql);
  return st;
}

/* rocpd_arg in rowid order from a rowid on: a finger's scan, a range. */
#define ARGS_FROM_ROWID                                                                       \
  "SELECT rowid, event_id, position, name, type, value FROM \"rocpd_arg%w\" WHERE rowid >= ?1 " \
  "ORDER BY rowid"

/* An arg from the name, type and value columns of st starting at col. */
static int arg_at(hub_arg_view *a, sqlite3_stmt *st, int col) {
  a->name = hr_col_text(st, col);
  a->type = hr_col_text(st, col + 1);
  a->value = hr_col_text(st, col + 2);
  return 1;
}

/* --- runs of rocpd_arg in (event_id, position) order ------------------- */

static void check_order(hub_db *d) {
  d->args.ordered = 0;
  d->args.nruns = 0;
  char *sql = sqlite3_mprintf("SELECT rowid, event_id, position FROM \"rocpd_arg%w\" ORDER BY "
                              "rowid",
                              d->suffix);
  sqlite3_stmt *st = NULL;
  int ok = sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK;
  sqlite3_free(sql);
  int64_t pe = INT64_MIN, pp = INT64_MIN, lo_ev = INT64_MAX, hi_ev = INT64_MIN;
  int n = 0;
  int rc = SQLITE_DONE;
  while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
        sqlite3_column_type(st, 2) != SQLITE_INTEGER) {
      ok = 0;
      break;
    }
    int64_t id = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1),
            p = sqlite3_column_int64(st, 2);
    if (n == 0 || e < pe || (e == pe && p < pp)) { /* a new run */
      if (n == HR_ARG_MAX_RUNS) {
        ok = 0;
        break;
      }
      d->args.run_lo[n++] = id;
    }
    d->args.run_hi[n - 1] = id;
    if (e < lo_ev) lo_ev = e;
    if (e > hi_ev) hi_ev = e;
    pe = e;
    pp = p;
  }
  sqlite3_finalize(st);
  if (ok && rc == SQLITE_DONE) {
    d->args.ordered = 1;
    d->args.nruns = n;
    d->args.min_ev = lo_ev;
    d->args.max_ev = hi_ev;
  }
}

void hr_args_prepare(hub_db *d) {
  if (!d->args.present || d->args.checked) return;
  d->args.checked = 1;
  check_order(d);
}

void hr_args_order_copy(hr_db_args *to, const hr_db_args *from) {
  to->checked = from->checked;
  to->ordered = from->ordered;
  to->nruns = from->nruns;
  memcpy(to->run_lo, from->run_lo, sizeof to->run_lo);
  memcpy(to->run_hi, from->run_hi, sizeof to->run_hi);
  to->min_ev = from->min_ev;
  to->max_ev = from->max_ev;
}

/* --- the event's rows, copied ------------------------------------------- */

static void copy_row(hub_reader *r, sqlite3_stmt *st) {
  tt_grow(r->args.rows, r->args.nrows + 1, r->args.caprows);
  hr_arg_row *a = &r->args.rows[r->args.nrows++];
  a->rowid = sqlite3_column_int64(st, 0);
  a->pos = sqlite3_column_int64(st, 2);
  size_t at[3];
  for (int i = 0; i < 3; i++) {
    const char *t = hr_col_text(st, 3 + i);
    at[i] = r->args.text.len;
    tt_buf_append(&r->args.text, t, strlen(t) + 1);
  }
  a->name = at[0];
  a->type = at[1];
  a->value = at[2];
}

/* Rows from several runs in (position, rowid) order: a handful, so an
 * insertion sort. */
static void sort_rows(hub_reader *r) {
  for (size_t i = 1; i < r->args.nrows; i++) {
    hr_arg_row x = r->args.rows[i];
    size_t j = i;
    while (j > 0 && (r->args.rows[j - 1].pos > x.pos ||
                     (r->args.rows[j - 1].pos == x.pos && r->args.rows[j - 1].rowid > x.rowid))) {
      r->args.rows[j] = r->args.rows[j - 1];
      j--;
    }
    r->args.rows[j] = x;
  }
}

/* --- fingers ------------------------------------------------------------- */

/* Passes one group (an event's rows) into the finger's ring. */
static void ring_push(hr_arg_finger *f, hr_arg_group g) {
  if (f->len == HR_ARG_RING) {
    f->lost = f->ring[f->head].ev + 1; /* groups below this may be gone */
    f->head = (f->head + 1) % HR_ARG_RING;
    f->len--;
  }
  f->ring[(f->head + f->len++) % HR_ARG_RING] = g;
}

/* Steps a finger one row (within its run, hi the run's last rowid),
 * keeping track of the group it is in. */
static void finger_step(hr_arg_finger *f, int64_t hi) {
  if (sqlite3_step(f->st) != SQLITE_ROW || sqlite3_column_int64(f->st, 0) > hi) {
    if (f->grp_open) ring_push(f, f->grp);
    f->grp_open = 0;
    f->state = 2;
    f->ev = INT64_MAX;
    sqlite3_reset(f->st);
    return;
  }
  f->row = sqlite3_column_int64(f->st, 0);
  f->ev = sqlite3_column_int64(f->st, 1);
  if (!f->grp_open || f->grp.ev != f->ev) {
    if (f->grp_open) ring_push(f, f->grp);
    f->grp = (hr_arg_group){f->ev, f->row};
    f->grp_open = 1;
  }
}

/* (Re)starts a finger at `rowid`; it holds no group of an event below
 * `lost`. */
static int finger_restart(hub_db *d, hr_arg_finger *f, int64_t rowid, int64_t hi, int64_t lost) {
  if (!f->st && !(f->st = arg_prep(d, ARGS_FROM_ROWID))) return -1;
  sqlite3_reset(f->st);
  sqlite3_bind_int64(f->st, 1, rowid);
  f->head = f->len = 0;
  f->lost = lost;
  f->grp_open = 0;
  f->state = 1;
  finger_step(f, hi);
  return 0;
}

/* First rowid of run k whose event id is e or more, by binary search over
 * rowids (the run is sorted by event id); -1 when there is none. *ev_out:
 * its event id. */
static int64_t search_rowid(hub_db *d, int k, int64_t e, int64_t *ev_out) {
  if (!d->args.probe_st) {
    d->args.probe_st = arg_prep(d, "SELECT rowid, event_id FROM \"rocpd_arg%w\" WHERE rowid >= ?1 "
                                   "ORDER BY rowid LIMIT 1");
    if (!d->args.probe_st) return -1;
  }
  sqlite3_stmt *st = d->args.probe_st;
  int64_t lo = d->args.run_lo[k], hi = d->args.run_hi[k] + 1, best = -1, best_ev = 0;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, mid);
    if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 0) > d->args.run_hi[k]) {
      hi = mid;
      continue;
    }
    int64_t row = sqlite3_column_int64(st, 0), ev = sqlite3_column_int64(st, 1);
    if (ev >= e) {
      best = row;
      best_ev = ev;
      hi = mid;
    } else {
      lo = row + 1;
    }
  }
  sqlite3_reset(st);
  *ev_out = best_ev;
  return best;
}

/* Copies event e's rows of run k from rowid `first` on. */
static void copy_range(hub_reader *r, hub_db *d, int k, int64_t e, int64_t first) {
  if (!d->args.from_st && !(d->args.from_st = arg_prep(d, ARGS_FROM_ROWID))) return;
  sqlite3_stmt *st = d->args.from_st;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, first);
  while (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) <= d->args.run_hi[k] &&
         sqlite3_column_int64(st, 1) == e)
    copy_row(r, st);
  sqlite3_reset(st);
}

/* Copies event e's rows by stepping finger f over them (it is on their
 * first). */
static void copy_stepping(hub_reader *r, hub_db *d, int k, hr_arg_finger *f, int64_t e) {
  while (f->state == 1 && f->ev == e) {
    copy_row(r, f->st);
    finger_step(f, d->args.run_hi[k]);
  }
}

/* Event e's rows in run k, read with the fingers fs (of that run). */
static void run_rows(hub_reader *r, hub_db *d, hr_arg_scan *s, hr_arg_finger *fs, int k,
                     int64_t e) {
  int64_t hi = d->args.run_hi[k];
  hr_arg_finger *below = NULL, *lru = &fs[0];
  for (int i = 0; i < HR_ARG_FINGERS; i++) {
    hr_arg_finger *f = &fs[i];
    if (f->state == 0) {
      if (lru->state != 0) lru = f;
      continue;
    }
    if (lru->state != 0 && f->used < lru->used) lru = f;
    if (f->state == 1 && f->ev == e) { /* on its group */
      f->used = ++s->clock;
      if (f->row == f->grp.first)
        copy_stepping(r, d, k, f, e);
      else /* left mid-group by a step ahead that went no further */
        copy_range(r, d, k, e, f->grp.first);
      return;
    }
    if (e >= f->lost && e < f->ev) {
      /* Passed: in the ring (sorted by event id), or it has no args. */
      f->used = ++s->clock;
      size_t lo = 0, n = f->len;
      while (lo < n) {
        size_t mid = (lo + n) / 2;
        if (f->ring[(f->head + mid) % HR_ARG_RING].ev < e)
          lo = mid + 1;
        else
          n = mid;
      }
      if (lo < f->len && f->ring[(f->head + lo) % HR_ARG_RING].ev == e)
        copy_range(r, d, k, e, f->ring[(f->head + lo) % HR_ARG_RING].first);
      return;
    }
    if (f->state == 1 && f->ev < e && (!below || f->ev > below->ev)) below = f;
  }
  if (below) { /* step the nearest finger below a little ahead */
    below->used = ++s->clock;
    for (int n = 0; below->state == 1 && below->ev < e && n < HR_ARG_AHEAD; n++)
      finger_step(below, hi);
    if (below->ev == e) {
      copy_stepping(r, d, k, below, e);
      return;
    }
    if (below->ev > e) return; /* passed it: it has none */
  }
  /* Far from every finger: the least recently used one moves there. */
  int64_t ev;
  int64_t first = search_rowid(d, k, e, &ev);
  if (first < 0) return; /* nothing at or after e in this run */
  if (finger_restart(d, lru, first, hi, e) != 0) return;
  lru->used = ++s->clock;
  if (ev == e) copy_stepping(r, d, k, lru, e);
}

static hr_arg_scan *scan_new(const hub_db *d) {
  hr_arg_scan *s = tt_calloc(1, sizeof *s);
  s->nruns = d->args.nruns;
  s->f = tt_calloc((size_t)s->nruns * HR_ARG_FINGERS, sizeof *s->f);
  return s;
}

/* Event e's args (c: the cursor it was just read from, NULL when read out
 * of stream order) into r->args.rows. */
static void ordered_rows(hub_reader *r, hub_db *d, cursor *c, int64_t e) {
  hr_arg_scan **sp = c ? &c->scan : &d->args.orphans;
  if (!*sp) *sp = scan_new(d);
  hr_arg_scan *s = *sp;
  tt_buf_clear(&r->args.text);
  r->args.nrows = r->args.next = 0;
  for (int k = 0; k < s->nruns; k++) run_rows(r, d, s, &s->f[k * HR_ARG_FINGERS], k, e);
  if (s->nruns > 1) sort_rows(r);
  r->args.mode = HR_ARGS_COPIED;
}

void hr_arg_scan_free(hr_arg_scan *s) {
  if (!s) return;
  for (int i = 0; i < s->nruns * HR_ARG_FINGERS; i++) sqlite3_finalize(s->f[i].st);
  free(s->f);
  free(s);
}

/* --- the unordered path ------------------------------------------------- */

/* Steps a cursor's args to its next row: 1 on a row, else 0 (done). */
static int args_advance(cursor *c) {
  if (sqlite3_step(c->args_st) != SQLITE_ROW) {
    c->args_state = 2;
    return 0;
  }
  c->a_key.start = sqlite3_column_int64(c->args_st, 0);
  c->a_key.end = sqlite3_column_int64(c->args_st, 1);
  c->a_key.row_id = sqlite3_column_int64(c->args_st, 2);
  return 1;
}

/* Whether the args row is of an event before the cursor's current row,
 * in the cursor's order (the merge's, within one table of one input). */
static int args_behind(const cursor *c) {
  hr_merge_key raw = c->key; /* both as recorded: --align may tie mapped times */
  raw.start = c->raw_start;
  raw.end = c->raw_end;
  return hr_merge_less(&c->a_key, &raw);
}

static int args_on_current(const cursor *c) {
  return c->args_state == 1 && c->a_key.start == c->raw_start && c->a_key.end == c->raw_end &&
         c->a_key.row_id == c->row_id;
}

/* The args of the event just read, from its cursor's args in the same
 * order: 1 when positioned on them (or on the next event's), 0 when they
 * must be looked up by id instead. */
static int args_merged_begin(hub_reader *r, cursor *c) {
  if (c->args_state == 0) {
    hub_db *d = &r->in.dbs[c->db];
    hub_filter df = hr_db_filter(d, &r->filter);
    char *sql = hr_args_sql(d, c->table, &df);
    c->args_st = hr_prep(d, sql);
    free(sql);
    c->args_state = 3;
    if (!c->args_st) return 0;
    c->a_key.table = c->table;
    c->a_key.db = c->db;
    c->args_state = 1;
    args_advance(c);
  }
  while (c->args_state == 1 && args_behind(c)) args_advance(c);
  c->args_taken = 1;
  r->args.mode = HR_ARGS_MERGED;
  r->args.cur = c;
  r->args.step = 0;
  return 1;
}

/* --- the API -------------------------------------------------------------- */

void hub_args_begin(hub_reader *r, int db, int64_t event_id) {
  r->src->ops->args_begin(r->src, db, event_id);
}

int hub_args_next(hub_reader *r, hub_arg_view *a) { return r->src->ops->args_next(r->src, a); }

void hr_direct_args_begin(hr_source *src, int db, int64_t event_id) {
  hub_reader *r = src->r;
  r->args.mode = HR_ARGS_NONE;
  r->args.cur = NULL;
  r->args.iter = NULL;
  hub_db *d = &r->in.dbs[db];
  if (event_id == HUB_NULL || !d->args.present) return;
  hr_args_prepare(d);
  /* The cursor the event was just read from, when it is this event. */
  cursor *c = r->merge.to_advance;
  if (c && (c->db != db || hr_col_i64_or_null(c->st, C_EVENT) != event_id)) c = NULL;
  if (d->args.ordered) {
    if (d->args.nruns && event_id >= d->args.min_ev && event_id <= d->args.max_ev)
      ordered_rows(r, d, c, event_id);
    return;
  }
  if (c && !c->args_taken && c->args_state != 3 && args_merged_begin(r, c)) return;
  if (!d->args.st) {
    char *sql = sqlite3_mprintf("SELECT name, type, value FROM %s WHERE event_id = ?1 ORDER BY "
                                "position, rowid",
                                hr_args_lookup_source(d));
    d->args.st = hr_prep(d, sql);
    sqlite3_free(sql);
  }
  r->args.iter = d->args.st;
  if (!r->args.iter) return;
  r->args.mode = HR_ARGS_LOOKUP;
  sqlite3_reset(r->args.iter);
  sqlite3_bind_int64(r->args.iter, 1, event_id);
}

int hr_direct_args_next(hr_source *src, hub_arg_view *a) {
  hub_reader *r = src->r;
  sqlite3_stmt *st;
  switch (r->args.mode) {
  case HR_ARGS_COPIED: {
    if (r->args.next == r->args.nrows) {
      r->args.mode = HR_ARGS_NONE;
      return 0;
    }
    const hr_arg_row *x = &r->args.rows[r->args.next++];
    a->name = r->args.text.data + x->name;
    a->type = r->args.text.data + x->type;
    a->value = r->args.text.data + x->value;
    return 1;
  }
  case HR_ARGS_MERGED: {
    cursor *c = r->args.cur;
    if (r->args.step) args_advance(c);
    r->args.step = 1;
    if (!args_on_current(c)) {
      r->args.cur = NULL;
      r->args.mode = HR_ARGS_NONE;
      return 0;
    }
    st = c->args_st;
    return arg_at(a, st, 3);
  }
  case HR_ARGS_LOOKUP:
    st = r->args.iter;
    if (sqlite3_step(st) != SQLITE_ROW) {
      sqlite3_reset(st);
      r->args.iter = NULL;
      r->args.mode = HR_ARGS_NONE;
      return 0;
    }
    return arg_at(a, st, 0);
  default:
    return 0;
  }
}
