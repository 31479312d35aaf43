/* A launch's GPU work (the arrows' far ends), found by a merge: the reader
 * reads launches in start order and asks for each one's (correlation,
 * process); the GPU work the filters keep comes grouped by that key, in
 * key order, from one SQLite statement (hr_links_sql). Correlation ids
 * are handed out as calls start, so both orders nearly agree: the stream
 * is stepped up to the key asked for, and the groups it passes on the way
 * (launches read a little later, or never: filtered out) wait in a window.
 * The window is bounded; when it is full its older half is dropped, and a
 * key at or below the largest one dropped is then looked up in an indexed
 * TEMP copy of the stream, made once, on a second connection (DDL on the
 * reading connection would abort its statements). A join of the grouped
 * work to the launches cost SQLite a materialized table and an automatic
 * index per hub: about a third of db2json's time on rocprofv3's shape. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "base/sqlite_setup.h"
#include "hub/hub_reader_links.h"
#include "hub/hub_reader_sql.h"

typedef struct link_entry {
  int64_t corr, pid, start, n, last;
  char *starts;  /* every start when n > 1, else NULL */
  uint64_t seq;  /* 0: empty slot; else the order it was read in */
} link_entry;

struct hr_links {
  sqlite3_stmt *st; /* the grouped stream */
  int state;        /* 0 not stepped yet, 1 on a row, 2 done */
  link_entry *win;  /* open addressing on (corr, pid); cap a power of two */
  size_t cap, count, max;
  uint64_t seq;
  int evicted;              /* some group was dropped from the window */
  int64_t ev_corr, ev_pid;  /* the largest key dropped */
  tt_buf found;             /* the starts handed out last */
  char *sql;                /* the stream's SQL, for the TEMP copy */
  sqlite3 *copy_conn;       /* the copy's connection and its lookup */
  sqlite3_stmt *copy_st;
  int copy_failed;          /* said once; every later lookup fails too */
};

static int key_cmp(int64_t c1, int64_t p1, int64_t c2, int64_t p2) {
  if (c1 != c2) return c1 < c2 ? -1 : 1;
  return p1 < p2 ? -1 : p1 > p2;
}

static size_t slot_of(const struct hr_links *l, int64_t corr, int64_t pid) {
  return tt_hash_mix(tt_hash_mix(0x9E3779B97F4A7C15ULL, (uint64_t)corr), (uint64_t)pid) &
         (l->cap - 1);
}

static void place(struct hr_links *l, const link_entry *e) {
  size_t i = slot_of(l, e->corr, e->pid);
  while (l->win[i].seq) i = (i + 1) & (l->cap - 1);
  l->win[i] = *e;
  l->count++;
}

/* The window anew at cap slots, with the entries read at or after
 * keep_from; the others are dropped (their largest key remembered). */
static void rebuild(struct hr_links *l, size_t cap, uint64_t keep_from) {
  link_entry *old = l->win;
  size_t old_cap = l->cap;
  l->win = tt_calloc(cap, sizeof *l->win);
  l->cap = cap;
  l->count = 0;
  for (size_t i = 0; i < old_cap; i++) {
    link_entry *e = &old[i];
    if (!e->seq) continue;
    if (e->seq >= keep_from) {
      place(l, e);
      continue;
    }
    if (!l->evicted || key_cmp(e->corr, e->pid, l->ev_corr, l->ev_pid) > 0) {
      l->ev_corr = e->corr;
      l->ev_pid = e->pid;
    }
    l->evicted = 1;
    free(e->starts);
  }
  free(old);
}

/* The stream's current row into the window. */
static void window_put(struct hr_links *l) {
  if ((l->count + 1) * 2 > l->cap) {
    if (l->cap / 2 < l->max)
      rebuild(l, l->cap ? 2 * l->cap : 64, 0);
    else
      rebuild(l, l->cap, l->seq - l->max / 2); /* the newer half stays */
  }
  link_entry e = {.corr = sqlite3_column_int64(l->st, 0),
                  .pid = sqlite3_column_int64(l->st, 1),
                  .start = sqlite3_column_int64(l->st, 2),
                  .n = sqlite3_column_int64(l->st, 3),
                  .last = sqlite3_column_int64(l->st, 4),
                  .seq = ++l->seq};
  if (sqlite3_column_type(l->st, 5) != SQLITE_NULL)
    e.starts = tt_strdup((const char *)sqlite3_column_text(l->st, 5));
  place(l, &e);
}

static link_entry *window_get(struct hr_links *l, int64_t corr, int64_t pid) {
  if (!l->count) return NULL;
  for (size_t i = slot_of(l, corr, pid); l->win[i].seq; i = (i + 1) & (l->cap - 1))
    if (l->win[i].corr == corr && l->win[i].pid == pid) return &l->win[i];
  return NULL;
}

/* Removes e, moving later entries of its probe run back into the gap
 * (linear probing keeps no tombstones). */
static void window_del(struct hr_links *l, link_entry *e) {
  size_t mask = l->cap - 1, gap = (size_t)(e - l->win);
  free(e->starts);
  l->win[gap].seq = 0;
  l->count--;
  for (size_t i = (gap + 1) & mask; l->win[i].seq; i = (i + 1) & mask) {
    size_t home = slot_of(l, l->win[i].corr, l->win[i].pid);
    /* i may move to gap when its home is not in (gap, i], cyclically */
    int stays = gap <= i ? (home > gap && home <= i) : (home > gap || home <= i);
    if (stays) continue;
    l->win[gap] = l->win[i];
    l->win[i].seq = 0;
    gap = i;
  }
}

/* starts (NULL for one GPU work, the common case) is copied: it comes
 * from a row or an entry about to go. */
static void give(struct hr_links *l, hr_link_info *out, int64_t start, int64_t n, int64_t last,
                 const char *starts) {
  out->start = start;
  out->n = n;
  out->last = last;
  out->starts = "";
  if (!starts) return;
  tt_buf_clear(&l->found);
  tt_buf_puts(&l->found, starts);
  out->starts = l->found.data;
}

int hr_links_open(hub_db *d, const hub_filter *f, size_t window) {
  /* Recorded flows are drawn as recorded (launches are then found only for
   * their start, hub_filter.launch_times); --gpu writes no launch. */
  if ((d->flows_are_launch_arrows && !f->launch_times) || f->gpu_only || !d->has_table[T_REGION] ||
      (!d->has_table[T_KERNEL] && !d->has_table[T_COPY]))
    return 0;
  struct hr_links *l = tt_calloc(1, sizeof *l);
  l->sql = hr_links_sql(d, f);
  l->max = window < 2 ? 2 : window;
  l->st = hr_prep(d, l->sql);
  d->links = l;
  return l->st ? 0 : -1;
}

static int step(hub_db *d, struct hr_links *l) {
  int rc = sqlite3_step(l->st);
  if (rc == SQLITE_ROW) {
    l->state = 1;
    return 0;
  }
  l->state = 2;
  if (rc == SQLITE_DONE) return 0;
  tt_error("%s: grouping the GPU work%s by correlation: %s", d->path, d->suffix,
           sqlite3_errmsg(d->conn));
  return -1;
}

/* Past the window: the stream's groups copied once into an indexed TEMP
 * table of a second connection, then looked up by key. */
static int copy_find(hub_db *d, struct hr_links *l, int64_t corr, int64_t pid,
                     hr_link_info *out) {
  if (l->copy_failed) return -1;
  if (!l->copy_st) {
    l->copy_failed = 1; /* until the copy is made */
    if (tt_sqlite_open_input(d->path, &l->copy_conn) != SQLITE_OK) {
      tt_error("%s: cannot open again to look launches up: %s", d->path,
               l->copy_conn ? sqlite3_errmsg(l->copy_conn) : "out of memory");
      return -1;
    }
    sqlite3_exec(l->copy_conn, "PRAGMA trusted_schema=OFF;", NULL, NULL, NULL);
    char *sql = sqlite3_mprintf("CREATE TEMP TABLE tt_links(corr INTEGER, pid INTEGER, start "
                                "INTEGER, n INTEGER, last INTEGER, starts TEXT, PRIMARY KEY "
                                "(corr, pid)) WITHOUT ROWID; INSERT INTO temp.tt_links %s;",
                                l->sql);
    char *err = NULL;
    int rc = tt_sqlite_exec_temp(l->copy_conn, sql, &err);
    sqlite3_free(sql);
    if (rc == SQLITE_OK)
      rc = sqlite3_prepare_v2(l->copy_conn,
                              "SELECT start, n, last, starts FROM temp.tt_links WHERE corr = ?1 "
                              "AND pid = ?2",
                              -1, &l->copy_st, NULL);
    if (rc != SQLITE_OK) {
      tt_error("%s: copying the GPU work%s grouped by correlation: %s", d->path, d->suffix,
               err ? err : sqlite3_errmsg(l->copy_conn));
      sqlite3_free(err);
      return -1;
    }
    l->copy_failed = 0;
  }
  sqlite3_bind_int64(l->copy_st, 1, corr);
  sqlite3_bind_int64(l->copy_st, 2, pid);
  int rc = sqlite3_step(l->copy_st), found = rc == SQLITE_ROW;
  if (found)
    give(l, out, sqlite3_column_int64(l->copy_st, 0), sqlite3_column_int64(l->copy_st, 1),
         sqlite3_column_int64(l->copy_st, 2), (const char *)sqlite3_column_text(l->copy_st, 3));
  sqlite3_reset(l->copy_st);
  if (found || rc == SQLITE_DONE) return found;
  tt_error("%s: looking a launch up: %s", d->path, sqlite3_errmsg(l->copy_conn));
  return -1;
}

int hr_links_find(hub_db *d, int64_t corr, int64_t pid, hr_link_info *out) {
  struct hr_links *l = d->links;
  if (!l) return 0;
  if (l->state == 0 && step(d, l) != 0) return -1;
  /* Step the stream up to the key; what it passes waits in the window. */
  while (l->state == 1) {
    int cmp = key_cmp(sqlite3_column_int64(l->st, 0), sqlite3_column_int64(l->st, 1), corr, pid);
    if (cmp > 0) break;
    if (cmp == 0) {
      give(l, out, sqlite3_column_int64(l->st, 2), sqlite3_column_int64(l->st, 3),
           sqlite3_column_int64(l->st, 4), (const char *)sqlite3_column_text(l->st, 5));
      return step(d, l) != 0 ? -1 : 1;
    }
    window_put(l);
    if (step(d, l) != 0) return -1;
  }
  link_entry *e = window_get(l, corr, pid);
  if (e) {
    give(l, out, e->start, e->n, e->last, e->starts);
    window_del(l, e);
    return 1;
  }
  if (l->evicted && key_cmp(corr, pid, l->ev_corr, l->ev_pid) <= 0)
    return copy_find(d, l, corr, pid, out);
  return 0;
}

void hr_links_free(struct hr_links *l) {
  if (!l) return;
  sqlite3_finalize(l->st);
  for (size_t i = 0; i < l->cap; i++)
    if (l->win[i].seq) free(l->win[i].starts);
  free(l->win);
  tt_buf_free(&l->found);
  free(l->sql);
  sqlite3_finalize(l->copy_st);
  sqlite3_close(l->copy_conn);
  free(l);
}
