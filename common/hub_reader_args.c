/* The args of the events the reader yields (rocpd_arg rows of an event,
 * in position order), read without a lookup per event.
 *
 * The usual hub (every importer's, rocprofv3's) writes an event's args
 * right after the event, so rocpd_arg in rowid order is sorted by
 * (event_id, position): checked in one pass over the two columns. Then
 * each cursor steps its own plain scan of rocpd_arg in rowid order along
 * with its events (whose ids grow with their start time in such a hub),
 * and an event read out of that order finds its rows among the groups the
 * scan passed last (a small ring), else by a binary search over rowids:
 * no index, no sort, no copy.
 *
 * Otherwise each cursor steps a query of its table joined to rocpd_arg in
 * the cursor's order, and an event read out of stream order is looked up
 * by id (hr_args_lookup_source: the input's index, or a TEMP copy). */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hub_reader_internal.h"
#include "util.h"

/* Prepares sql (its one %w: the table-name suffix) over d's rocpd_arg. */
static sqlite3_stmt *arg_prep(hub_db *d, const char *sql_fmt) {
  char *sql = sqlite3_mprintf(sql_fmt, d->suffix);
  sqlite3_stmt *st = hr_prep(d, sql);
  sqlite3_free(sql);
  return st;
}

/* rocpd_arg in rowid order from a rowid on: the ordered path's scan. */
#define ARGS_FROM_ROWID \
  "SELECT rowid, event_id, name, type, value FROM \"rocpd_arg%w\" WHERE rowid >= ?1 ORDER BY rowid"

/* An arg from the name, type and value columns of st starting at col. */
static int arg_at(hub_arg_view *a, sqlite3_stmt *st, int col) {
  a->name = hr_col_text(st, col);
  a->type = hr_col_text(st, col + 1);
  a->value = hr_col_text(st, col + 2);
  return 1;
}

/* --- is rocpd_arg in (event_id, position) order by rowid? ------------- */

static void check_order(hub_db *d) {
  d->args_ordered = 0;
  char *sql = sqlite3_mprintf("SELECT rowid, event_id, position FROM \"rocpd_arg%w\" ORDER BY "
                              "rowid",
                              d->suffix);
  sqlite3_stmt *st = NULL;
  int ok = sqlite3_prepare_v2(d->conn, sql, -1, &st, NULL) == SQLITE_OK;
  sqlite3_free(sql);
  int64_t pe = INT64_MIN, pp = INT64_MIN, lo = 0, hi = -1;
  int rc = SQLITE_DONE;
  while (ok && (rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
        sqlite3_column_type(st, 2) != SQLITE_INTEGER) {
      ok = 0;
      break;
    }
    int64_t id = sqlite3_column_int64(st, 0), e = sqlite3_column_int64(st, 1),
            p = sqlite3_column_int64(st, 2);
    if (e < pe || (e == pe && p < pp)) {
      ok = 0;
      break;
    }
    if (hi < lo) lo = id;
    hi = id;
    pe = e;
    pp = p;
  }
  sqlite3_finalize(st);
  if (ok && rc == SQLITE_DONE) {
    d->args_ordered = 1;
    d->args_lo = lo;
    d->args_hi = hi;
  }
}

void hr_args_prepare(hub_db *d) {
  if (!d->has_args || d->args_checked) return;
  d->args_checked = 1;
  check_order(d);
}

/* --- the ordered path --------------------------------------------------- */

static sqlite3_stmt *from_rowid_st(hub_db *d) {
  if (!d->args_from_st) d->args_from_st = arg_prep(d, ARGS_FROM_ROWID);
  return d->args_from_st;
}

/* Passes one group (an event's rows) into the ring of recent ones. */
static void ring_push(hr_arg_scan *s, hr_arg_group g) {
  if (s->len == HR_ARG_RING) {
    s->lost = s->ring[s->head].ev + 1; /* groups below this may be gone */
    s->head = (s->head + 1) % HR_ARG_RING;
    s->len--;
  }
  s->ring[(s->head + s->len++) % HR_ARG_RING] = g;
}

/* Steps the scan one row, keeping track of the group it is in. */
static void scan_step(hr_arg_scan *s) {
  if (sqlite3_step(s->st) != SQLITE_ROW) {
    if (s->grp_open) ring_push(s, s->grp);
    s->grp_open = 0;
    s->state = 2;
    return;
  }
  s->row = sqlite3_column_int64(s->st, 0);
  s->ev = sqlite3_column_int64(s->st, 1);
  if (!s->grp_open || s->grp.ev != s->ev) {
    if (s->grp_open) ring_push(s, s->grp);
    s->grp = (hr_arg_group){s->ev, s->row};
    s->grp_open = 1;
  }
}

/* (Re)starts a scan at `rowid`; groups of events below `lost` are not
 * in its ring. */
static void scan_restart(hr_arg_scan *s, int64_t rowid, int64_t lost) {
  sqlite3_reset(s->st);
  sqlite3_bind_int64(s->st, 1, rowid);
  s->head = s->len = 0;
  s->lost = lost;
  s->grp_open = 0;
  s->state = 1;
  scan_step(s);
}

static hr_arg_scan *scan_of(hub_reader *r, cursor *c) {
  if (c->scan) return c->scan;
  hub_db *d = &r->dbs[c->db];
  sqlite3_stmt *st = arg_prep(d, ARGS_FROM_ROWID);
  if (!st) return NULL;
  c->scan = tt_calloc(1, sizeof *c->scan);
  c->scan->st = st;
  scan_restart(c->scan, d->args_lo, INT64_MIN);
  return c->scan;
}

/* First rowid whose event id is e or more, by binary search over rowids
 * (the table is sorted by event id); -1 when there is none. *ev: its
 * event id. */
static int64_t search_rowid(hub_db *d, int64_t e, int64_t *ev_out) {
  if (!d->args_probe_st) {
    d->args_probe_st = arg_prep(d, "SELECT rowid, event_id FROM \"rocpd_arg%w\" WHERE rowid >= ?1 "
                                   "ORDER BY rowid LIMIT 1");
    if (!d->args_probe_st) return -1;
  }
  sqlite3_stmt *st = d->args_probe_st;
  int64_t lo = d->args_lo, hi = d->args_hi + 1, best = -1, best_ev = 0;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, mid);
    if (sqlite3_step(st) != SQLITE_ROW) {
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

/* Iterates event `e`'s rows from rowid `first` on. */
static void range_begin(hub_reader *r, hub_db *d, int64_t e, int64_t first) {
  sqlite3_stmt *st = from_rowid_st(d);
  if (!st) return;
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, first);
  r->args_mode = HR_ARGS_RANGE;
  r->args_iter = st;
  r->args_ev = e;
}

/* Event `e` of cursor c (NULL: an event read out of stream order). */
static void ordered_begin(hub_reader *r, hub_db *d, cursor *c, int64_t e) {
  hr_arg_scan *s = c ? scan_of(r, c) : NULL;
  int64_t ev;
  if (s) {
    /* A scan steps a little ahead for an event; one far ahead (an outer
     * call written after its inner ones) is searched for, so that the
     * scan stays where most events are; a second one in a row (another
     * range of ids) moves the scan there. */
    for (int k = 0; s->state == 1 && s->ev < e; k++) {
      if (k == HR_ARG_AHEAD) {
        int64_t first = search_rowid(d, e, &ev);
        if (++s->far < 2) {
          if (first >= 0 && ev == e) range_begin(r, d, e, first);
          return;
        }
        if (first < 0) {
          s->state = 2; /* nothing at or after e */
          s->head = s->len = 0;
          s->lost = e;
          s->grp_open = 0;
        } else {
          scan_restart(s, first, e);
        }
        break;
      }
      scan_step(s);
    }
    s->far = 0;
    if (s->state == 1 && s->ev == e) {
      if (s->row == s->grp.first) { /* at the group's first row */
        r->args_mode = HR_ARGS_SCAN;
        r->args_scan = s;
        r->args_ev = e;
        r->args_step = 0;
      } else {
        range_begin(r, d, e, s->grp.first); /* asked again mid-group */
      }
      return;
    }
    if (e >= s->lost) {
      /* Passed: in the ring (sorted by event id), or it has no args. */
      size_t lo = 0, hi = s->len;
      while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->ring[(s->head + mid) % HR_ARG_RING].ev < e)
          lo = mid + 1;
        else
          hi = mid;
      }
      if (lo < s->len && s->ring[(s->head + lo) % HR_ARG_RING].ev == e)
        range_begin(r, d, e, s->ring[(s->head + lo) % HR_ARG_RING].first);
      return;
    }
  }
  int64_t first = search_rowid(d, e, &ev);
  if (first >= 0 && ev == e) range_begin(r, d, e, first);
}

static int ordered_next(hub_reader *r, hub_arg_view *a) {
  sqlite3_stmt *st;
  if (r->args_mode == HR_ARGS_SCAN) {
    hr_arg_scan *s = r->args_scan;
    if (r->args_step) scan_step(s);
    r->args_step = 1;
    if (s->state != 1 || s->ev != r->args_ev) {
      r->args_mode = HR_ARGS_NONE;
      return 0;
    }
    st = s->st;
  } else {
    st = r->args_iter;
    if (sqlite3_step(st) != SQLITE_ROW || sqlite3_column_int64(st, 1) != r->args_ev) {
      sqlite3_reset(st);
      r->args_mode = HR_ARGS_NONE;
      r->args_iter = NULL;
      return 0;
    }
  }
  return arg_at(a, st, 2);
}

void hr_arg_scan_free(hr_arg_scan *s) {
  if (!s) return;
  sqlite3_finalize(s->st);
  free(s);
}

/* --- the unordered path ------------------------------------------------- */

/* Steps a cursor's args to its next row: 1 on a row, else 0 (done). */
static int args_advance(cursor *c) {
  if (sqlite3_step(c->args_st) != SQLITE_ROW) {
    c->args_state = 2;
    return 0;
  }
  c->a_start = sqlite3_column_int64(c->args_st, 0);
  c->a_end = sqlite3_column_int64(c->args_st, 1);
  c->a_row = sqlite3_column_int64(c->args_st, 2);
  return 1;
}

/* Whether the args row is of an event before the cursor's current row,
 * in the cursor's order (start, end descending, id). */
static int args_behind(const cursor *c) {
  if (c->a_start != c->start) return c->a_start < c->start;
  if (c->a_end != c->end) return c->a_end > c->end;
  return c->a_row < c->row_id;
}

static int args_on_current(const cursor *c) {
  return c->args_state == 1 && c->a_start == c->start && c->a_end == c->end &&
         c->a_row == c->row_id;
}

/* The args of the event just read, from its cursor's args in the same
 * order: 1 when positioned on them (or on the next event's), 0 when they
 * must be looked up by id instead. */
static int args_merged_begin(hub_reader *r, cursor *c) {
  if (c->args_state == 0) {
    hub_db *d = &r->dbs[c->db];
    char *sql = hr_args_sql(d, c->table, &r->filter);
    c->args_st = hr_prep(d, sql);
    free(sql);
    c->args_state = 3;
    if (!c->args_st) return 0;
    c->args_state = 1;
    args_advance(c);
  }
  while (c->args_state == 1 && args_behind(c)) args_advance(c);
  c->args_taken = 1;
  r->args_mode = HR_ARGS_MERGED;
  r->args_cur = c;
  r->args_step = 0;
  return 1;
}

/* --- the API -------------------------------------------------------------- */

void hub_args_begin(hub_reader *r, int db, int64_t event_id) {
  if (r->passes) {
    hr_passes_args_begin(r, db, event_id);
    return;
  }
  r->args_mode = HR_ARGS_NONE;
  r->args_cur = NULL;
  r->args_iter = NULL;
  hub_db *d = &r->dbs[db];
  if (event_id == HUB_NULL || !d->has_args) return;
  hr_args_prepare(d);
  /* The cursor the event was just read from, when it is this event. */
  cursor *c = r->to_advance;
  if (c && (c->db != db || hr_col_i64_or_null(c->st, C_EVENT) != event_id)) c = NULL;
  if (d->args_ordered) {
    if (d->args_hi >= d->args_lo) ordered_begin(r, d, c, event_id); /* else no args at all */
    return;
  }
  if (c && !c->args_taken && c->args_state != 3 && args_merged_begin(r, c)) return;
  if (!d->args_st) {
    char *sql = sqlite3_mprintf("SELECT name, type, value FROM %s WHERE event_id = ?1 ORDER BY "
                                "position, rowid",
                                hr_args_lookup_source(d));
    d->args_st = hr_prep(d, sql);
    sqlite3_free(sql);
  }
  r->args_iter = d->args_st;
  if (!r->args_iter) return;
  r->args_mode = HR_ARGS_LOOKUP;
  sqlite3_reset(r->args_iter);
  sqlite3_bind_int64(r->args_iter, 1, event_id);
}

int hub_args_next(hub_reader *r, hub_arg_view *a) {
  if (r->passes) return hr_passes_args_next(r, a);
  sqlite3_stmt *st;
  switch (r->args_mode) {
  case HR_ARGS_SCAN:
  case HR_ARGS_RANGE:
    return ordered_next(r, a);
  case HR_ARGS_MERGED: {
    cursor *c = r->args_cur;
    if (r->args_step) args_advance(c);
    r->args_step = 1;
    if (!args_on_current(c)) {
      r->args_cur = NULL;
      r->args_mode = HR_ARGS_NONE;
      return 0;
    }
    st = c->args_st;
    return arg_at(a, st, 3);
  }
  case HR_ARGS_LOOKUP:
    st = r->args_iter;
    if (sqlite3_step(st) != SQLITE_ROW) {
      sqlite3_reset(st);
      r->args_iter = NULL;
      r->args_mode = HR_ARGS_NONE;
      return 0;
    }
    return arg_at(a, st, 0);
  default:
    return 0;
  }
}
