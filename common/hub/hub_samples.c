/* The CPU-sample stream (hub_samples.h): one cursor per input hub over its
 * frame rows in (time, track, id) order, a sample assembled from each run
 * of rows of one (time, track), and the inputs' samples merged by time. */
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/sqlite_setup.h"
#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_samples.h"
#include "hub/hub_time_map.h"

#define JX(col, path) "(CASE WHEN json_valid(" col ") THEN json_extract(" col ",'" path "') END)"

enum { C_TS, C_TRACK, C_PID, C_TID, C_CPU, C_STATE, C_WEIGHT, C_CAT, C_NAME, C_PC, C_FILE,
       C_KERNEL, C_UNRESOLVED };

typedef struct cursor {
  sqlite3 *conn;  /* in use: shared by the hubs of one file (a merged file's) */
  sqlite3 *own;   /* the connection this cursor opened, closed with it */
  sqlite3_stmt *st;
  const char *path;
  const hub_time_map *map;
  int on_row;  /* st is on a row not yet taken into a sample */
  int ready;   /* `s` holds this input's next sample */
  hub_cpu_sample s;
  tt_buf category;
  sqlite3_stmt *stack_st; /* hub_samples_event_stack's lookup */
  /* hub_samples_region_stack's walk: the input's regions with a backtrace,
   * in the reader's region order, on the row it is at. */
  sqlite3_stmt *walk_st;
  int walk_state; /* 0 not started, 1 on a row, 2 at its end */
  int64_t walk_start, walk_end, walk_id, walk_event;
} cursor;

struct hub_sample_reader {
  hub_reader *r;
  const hub_filter *f;
  cursor *c;
  size_t nc;
  TT_VEC(hub_frame) frames;
  TT_VEC(hub_callsite) sites;
  tt_strmap frame_ids, site_ids;
  tt_buf key;      /* a frame's interning key */
  tt_buf category; /* the category of the sample handed out last */
  tt_strmap conn_of; /* path -> the cursor whose connection it has open */
};

static int64_t int_or_null(sqlite3_stmt *st, int col) {
  return sqlite3_column_type(st, col) == SQLITE_NULL ? HUB_NULL : sqlite3_column_int64(st, col);
}

static const char *text_or_empty(sqlite3_stmt *st, int col) {
  const char *t = (const char *)sqlite3_column_text(st, col);
  return t ? t : "";
}

static int64_t frame_id(hub_sample_reader *sr, const hub_frame *f) {
  tt_buf_clear(&sr->key);
  tt_buf_printf(&sr->key, "%lld\1%d\1%d\1%s\1%s", (long long)f->pc, f->kernel, f->unresolved,
                f->module, f->name);
  int added;
  int64_t *id = tt_strmap_add(&sr->frame_ids, sr->key.data, (int64_t)sr->frames.n, &added);
  if (added) {
    hub_frame *n = tt_vec_add(&sr->frames);
    *n = *f;
    n->name = tt_strdup(f->name);
    n->module = tt_strdup(f->module);
  }
  return *id;
}

static int64_t callsite_id(hub_sample_reader *sr, int64_t parent, int64_t frame) {
  char key[48];
  snprintf(key, sizeof key, "%lld/%lld", (long long)parent, (long long)frame);
  int added;
  int64_t *id = tt_strmap_add(&sr->site_ids, key, (int64_t)sr->sites.n, &added);
  if (added) {
    hub_callsite *n = tt_vec_add(&sr->sites);
    n->parent = parent;
    n->frame = frame;
    n->depth = parent < 0 ? 0 : sr->sites.v[parent].depth + 1;
  }
  return *id;
}

/* The frame of the row st is on (columns C_NAME..). */
static void row_frame(sqlite3_stmt *st, hub_frame *f) {
  f->name = text_or_empty(st, C_NAME);
  f->module = text_or_empty(st, C_FILE);
  const char *pc = (const char *)sqlite3_column_text(st, C_PC);
  f->pc = pc && *pc ? (int64_t)strtoull(pc, NULL, 0) : HUB_NULL;
  f->kernel = sqlite3_column_int(st, C_KERNEL) != 0;
  f->unresolved = sqlite3_column_int(st, C_UNRESOLVED) != 0;
}

static int step(cursor *c) {
  int rc = sqlite3_step(c->st);
  if (rc == SQLITE_ROW) return c->on_row = 1;
  c->on_row = 0;
  if (rc == SQLITE_DONE) return 0;
  tt_error("%s: reading its CPU samples: %s", c->path, sqlite3_errmsg(c->conn));
  return -1;
}

/* Assembles c's next sample from its run of rows: 1, 0 at its end, -1. */
static int assemble(hub_sample_reader *sr, cursor *c, int db) {
  c->ready = 0;
  if (!c->on_row) return 0;
  sqlite3_stmt *st = c->st;
  int64_t ts = sqlite3_column_int64(st, C_TS), track = sqlite3_column_int64(st, C_TRACK);
  hub_cpu_sample *s = &c->s;
  s->db = db;
  s->ts = c->map ? hub_time_map_apply(c->map, ts) : ts;
  s->pid = int_or_null(st, C_PID);
  s->tid = int_or_null(st, C_TID);
  s->cpu = int_or_null(st, C_CPU);
  s->thread_state = int_or_null(st, C_STATE);
  s->weight = int_or_null(st, C_WEIGHT);
  tt_buf_clear(&c->category);
  tt_buf_puts(&c->category, text_or_empty(st, C_CAT));
  int64_t site = -1;
  int rc;
  do {
    hub_frame f;
    row_frame(st, &f);
    site = callsite_id(sr, site, frame_id(sr, &f));
  } while ((rc = step(c)) == 1 && sqlite3_column_int64(st, C_TS) == ts &&
           sqlite3_column_int64(st, C_TRACK) == track);
  if (rc < 0) return -1;
  s->callsite = site;
  s->category = c->category.data ? c->category.data : "";
  c->ready = 1;
  return 1;
}

static int in_filter_host(hub_sample_reader *sr, const hub_cpu_sample *s) {
  if (!sr->f || !sr->f->host) return 1;
  return strcmp(hub_reader_host(sr->r, s->db, s->pid), sr->f->host) == 0;
}


static char *cursor_sql(const char *sfx, const hub_filter *f, const hub_time_map *map) {
  tt_buf b = {0};
  tt_buf_printf(&b,
                "SELECT s.timestamp, s.track_id, t.pid, t.tid, " JX("s.extdata", "$.cpu")
                ", " JX("s.extdata", "$.thread_state") ", " JX("s.extdata", "$.weight")
                ", COALESCE(c.string, ''), json_extract(e.call_stack, '$.name'), "
                "json_extract(e.call_stack, '$.pc'), json_extract(e.call_stack, '$.file'), "
                "json_extract(e.call_stack, '$.kernel'), json_extract(e.call_stack, '$.unresolved') "
                "FROM \"rocpd_sample%s\" s JOIN \"rocpd_event%s\" e ON e.id = s.event_id JOIN "
                "\"rocpd_track%s\" t ON t.id = s.track_id LEFT JOIN \"rocpd_string%s\" c ON c.id = "
                "e.category_id WHERE " HUB_SQL_IS_FRAME("e"),
                sfx, sfx, sfx, sfx);
  if (f) {
    if (f->start != HUB_NULL)
      tt_buf_printf(&b, " AND s.timestamp >= %lld",
                    (long long)(map ? hub_time_map_invert(map, f->start) : f->start));
    if (f->end != HUB_NULL)
      tt_buf_printf(&b, " AND s.timestamp < %lld",
                    (long long)(map ? hub_time_map_invert(map, f->end) : f->end));
    hub_filter_pid_sql(&b, "t.pid", f);
  }
  tt_buf_puts(&b, " ORDER BY s.timestamp, s.track_id, s.id");
  return b.data;
}

/* Whether an event of the input matches `cond` (on alias e): 1, 0, -1. */
static int has_event(cursor *c, const char *sfx, const char *cond) {
  char *sql = sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM \"rocpd_event%w\" e WHERE %s)", sfx, cond);
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(c->conn, sql, -1, &st, NULL);
  sqlite3_free(sql);
  int found = -1;
  if (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) found = sqlite3_column_int(st, 0);
  else tt_error("%s: reading its call stacks: %s", c->path, sqlite3_errmsg(c->conn));
  sqlite3_finalize(st);
  return found;
}

/* What each hub holds (HAS_FRAMES, HAS_CALLS), found once per process:
 * a split opens a sample stream per part, and two scans of rocpd_event
 * per part made a 2223-part split of a 20k-event hub take 56 s, not 0.8.
 * Keyed by path and uuid suffix; parts may open on the planner's thread. */
enum { HAS_FRAMES = 1, HAS_CALLS = 2, HAS_KNOWN = 4 };
static tt_strmap holdings;
static pthread_mutex_t holdings_lock = PTHREAD_MUTEX_INITIALIZER;

static int holdings_of(const char *path, const char *sfx) {
  tt_buf key = {0};
  tt_buf_printf(&key, "%s\x1f%s", path, sfx);
  pthread_mutex_lock(&holdings_lock);
  int64_t *v = tt_strmap_get(&holdings, key.data);
  int h = v ? (int)*v : 0;
  pthread_mutex_unlock(&holdings_lock);
  tt_buf_free(&key);
  return h;
}

static void holdings_set(const char *path, const char *sfx, int h) {
  tt_buf key = {0};
  tt_buf_printf(&key, "%s\x1f%s", path, sfx);
  pthread_mutex_lock(&holdings_lock);
  tt_strmap_put(&holdings, key.data, h | HAS_KNOWN);
  pthread_mutex_unlock(&holdings_lock);
  tt_buf_free(&key);
}

hub_sample_reader *hub_samples_open(hub_reader *r, const hub_filter *f) {
  hub_sample_reader *sr = tt_calloc(1, sizeof *sr);
  sr->r = r;
  sr->f = f;
  sr->nc = hub_reader_ndbs(r);
  sr->c = tt_calloc(sr->nc ? sr->nc : 1, sizeof *sr->c);
  const hub_time_maps *maps = f ? f->time_maps : NULL;
  for (size_t i = 0; i < sr->nc; i++) {
    cursor *c = &sr->c[i];
    c->path = hub_reader_db_path(r, (int)i);
    c->map = maps ? hub_time_maps_find(maps, c->path) : NULL;
    const char *sfx = hub_reader_db_suffix(r, (int)i);
    int held = holdings_of(c->path, sfx);
    if ((held & HAS_KNOWN) && !(held & (HAS_FRAMES | HAS_CALLS))) {
      c->walk_state = 2; /* known to hold none: not even opened */
      continue;
    }
    /* One connection a file: each would load the schema of a merged
     * file's every hub (200 hubs: 12 s of a 13 s db2json). */
    int64_t *owner = tt_strmap_get(&sr->conn_of, c->path);
    if (owner && *owner >= 0) {
      c->conn = sr->c[*owner].own;
    } else {
      int orc = tt_sqlite_open_input(c->path, &c->own);
      c->conn = c->own;
      if (orc != SQLITE_OK) {
        tt_error("%s: %s", c->path, sqlite3_errmsg(c->conn));
        hub_samples_close(sr);
        return NULL;
      }
      tt_strmap_put(&sr->conn_of, c->path, (int64_t)i);
    }
    /* Most hubs have no call stacks: one scan of rocpd_event (no join, no
     * sort), once per hub, spares them the samples' and the backtraces'
     * cursors. */
    int frames = held & HAS_FRAMES, calls = held & HAS_CALLS;
    if (!(held & HAS_KNOWN)) {
      frames = has_event(c, sfx, HUB_SQL_IS_FRAME("e"));
      calls = has_event(c, sfx, "e.call_stack GLOB '[[]?*'");
      if (frames < 0 || calls < 0) {
        hub_samples_close(sr);
        return NULL;
      }
      holdings_set(c->path, sfx, (frames ? HAS_FRAMES : 0) | (calls ? HAS_CALLS : 0));
    }
    if (!calls) c->walk_state = 2;
    if (!frames && !calls) {
      /* nothing to read here: its descriptor back (a run of many inputs
       * read in passes has few to spare), unless the next input is a hub
       * of the same file (a merged file's hubs come one after another) */
      int next_same = i + 1 < sr->nc && strcmp(hub_reader_db_path(r, (int)i + 1), c->path) == 0;
      if (c->own && !next_same) {
        sqlite3_close(c->own);
        tt_strmap_put(&sr->conn_of, c->path, -1);
        c->own = NULL;
      }
      c->conn = NULL;
      continue;
    }
    if (!frames) continue;
    char *sql = cursor_sql(sfx, f, c->map);
    int rc = sqlite3_prepare_v2(c->conn, sql, -1, &c->st, NULL);
    free(sql);
    if (rc != SQLITE_OK) {
      tt_error("%s: reading its CPU samples: %s", c->path, sqlite3_errmsg(c->conn));
      hub_samples_close(sr);
      return NULL;
    }
    if (step(c) < 0 || assemble(sr, c, (int)i) < 0) {
      hub_samples_close(sr);
      return NULL;
    }
  }
  return sr;
}

int hub_samples_next(hub_sample_reader *sr, hub_cpu_sample *s) {
  for (;;) {
    /* The earliest of the inputs' next samples (few inputs carry samples;
     * a linear pick costs less than a heap's upkeep there). */
    cursor *best = NULL;
    size_t bi = 0;
    for (size_t i = 0; i < sr->nc; i++)
      if (sr->c[i].ready && (!best || sr->c[i].s.ts < best->s.ts)) best = &sr->c[i], bi = i;
    if (!best) return 0;
    *s = best->s;
    /* the category text moves to a buffer that lives until the next call */
    tt_buf_clear(&sr->category);
    tt_buf_puts(&sr->category, best->s.category);
    s->category = sr->category.data ? sr->category.data : "";
    if (assemble(sr, best, (int)bi) < 0) return -1;
    if (in_filter_host(sr, s)) return 1;
  }
}

int64_t hub_samples_event_stack(hub_sample_reader *sr, int db, int64_t event_id) {
  if (db < 0 || (size_t)db >= sr->nc || event_id == HUB_NULL) return -1;
  cursor *c = &sr->c[db];
  if (!c->conn) return -1; /* the input has no call stacks */
  if (!c->stack_st) {
    const char *sfx = hub_reader_db_suffix(sr->r, db);
    char *sql = sqlite3_mprintf(
        "SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, json_extract(j.value, '$.name'), "
        "json_extract(j.value, '$.pc'), json_extract(j.value, '$.file'), json_extract(j.value, "
        "'$.kernel'), json_extract(j.value, '$.unresolved') FROM \"rocpd_event%w\" e, "
        "json_each(CASE WHEN json_valid(e.call_stack) AND json_type(e.call_stack) = 'array' THEN "
        "e.call_stack ELSE '[]' END) j WHERE e.id = ?1 ORDER BY j.key",
        sfx);
    int rc = sqlite3_prepare_v2(c->conn, sql, -1, &c->stack_st, NULL);
    sqlite3_free(sql);
    if (rc != SQLITE_OK) {
      tt_error("%s: reading call stacks: %s", c->path, sqlite3_errmsg(c->conn));
      return -2;
    }
  }
  sqlite3_reset(c->stack_st);
  sqlite3_bind_int64(c->stack_st, 1, event_id);
  int64_t site = -1;
  int rc;
  while ((rc = sqlite3_step(c->stack_st)) == SQLITE_ROW) {
    hub_frame f;
    row_frame(c->stack_st, &f);
    site = callsite_id(sr, site, frame_id(sr, &f));
  }
  if (rc != SQLITE_DONE) {
    tt_error("%s: reading call stacks: %s", c->path, sqlite3_errmsg(c->conn));
    return -2;
  }
  return site;
}

/* The walk's next row: 1, 0 at its end, -1 (said). */
static int walk_step(cursor *c) {
  int rc = sqlite3_step(c->walk_st);
  if (rc == SQLITE_ROW) {
    int64_t st = sqlite3_column_int64(c->walk_st, 0), en = sqlite3_column_int64(c->walk_st, 1);
    c->walk_start = c->map ? hub_time_map_apply(c->map, st) : st;
    c->walk_end = c->map ? hub_time_map_apply(c->map, en) : en;
    c->walk_id = sqlite3_column_int64(c->walk_st, 2);
    c->walk_event = sqlite3_column_int64(c->walk_st, 3);
    c->walk_state = 1;
    return 1;
  }
  c->walk_state = 2;
  if (rc == SQLITE_DONE) return 0;
  tt_error("%s: reading call stacks: %s", c->path, sqlite3_errmsg(c->conn));
  return -1;
}

static int walk_open(hub_sample_reader *sr, cursor *c, int db) {
  const char *sfx = hub_reader_db_suffix(sr->r, db);
  tt_buf b = {0};
  tt_buf_printf(&b,
                "SELECT r.start, r.\"end\", r.id, e.id FROM \"rocpd_region%s\" r JOIN "
                "\"rocpd_event%s\" e ON e.id = r.event_id WHERE e.call_stack GLOB '[[]?*' AND "
                "json_valid(e.call_stack) AND json_type(e.call_stack) = 'array'",
                sfx, sfx);
  const hub_filter *f = sr->f;
  if (f && f->start != HUB_NULL)
    tt_buf_printf(&b, " AND r.start >= %lld",
                  (long long)(c->map ? hub_time_map_invert(c->map, f->start) : f->start));
  if (f) hub_filter_pid_sql(&b, "r.pid", f);
  tt_buf_puts(&b, " ORDER BY r.start, r.\"end\" DESC, r.id");
  int rc = sqlite3_prepare_v2(c->conn, b.data, -1, &c->walk_st, NULL);
  tt_buf_free(&b);
  if (rc != SQLITE_OK) {
    tt_error("%s: reading call stacks: %s", c->path, sqlite3_errmsg(c->conn));
    return -1;
  }
  return walk_step(c) < 0 ? -1 : 0;
}

/* Whether (start, end, id) comes before ev in the reader's region order. */
static int walk_before(const cursor *c, const hub_record *ev) {
  if (c->walk_start != ev->start) return c->walk_start < ev->start;
  if (c->walk_end != ev->end) return c->walk_end > ev->end;
  return c->walk_id < ev->row_id;
}

int64_t hub_samples_region_stack(hub_sample_reader *sr, const hub_record *ev) {
  if (ev->kind != HUB_REGION || ev->db < 0 || (size_t)ev->db >= sr->nc) return -1;
  if (sr->c[ev->db].walk_state == 2 && !sr->c[ev->db].walk_st) return -1; /* none in this input */
  /* A region its part clips (carried in at its start, or cut at its end)
   * has times out of the walk's key: looked up by its event (a few per
   * part: those crossing its edges); the walk steps past its row later. */
  if (ev->clipped) return hub_samples_event_stack(sr, ev->db, ev->event_id);
  cursor *c = &sr->c[ev->db];
  if (!c->walk_state && walk_open(sr, c, ev->db) != 0) return -2;
  while (c->walk_state == 1 && walk_before(c, ev))
    if (walk_step(c) < 0) return -2;
  if (c->walk_state != 1 || c->walk_id != ev->row_id) return -1;
  return hub_samples_event_stack(sr, ev->db, c->walk_event);
}

void hub_samples_close(hub_sample_reader *sr) {
  if (!sr) return;
  for (size_t i = 0; i < sr->nc; i++) {
    sqlite3_finalize(sr->c[i].st);
    sqlite3_finalize(sr->c[i].stack_st);
    sqlite3_finalize(sr->c[i].walk_st);
    tt_buf_free(&sr->c[i].category);
  }
  /* After every statement of a shared connection is finalized. */
  for (size_t i = 0; i < sr->nc; i++)
    if (sr->c[i].own) sqlite3_close(sr->c[i].own);
  tt_strmap_free(&sr->conn_of);
  free(sr->c);
  for (size_t i = 0; i < sr->frames.n; i++) {
    free((char *)sr->frames.v[i].name);
    free((char *)sr->frames.v[i].module);
  }
  tt_vec_free(&sr->frames);
  tt_vec_free(&sr->sites);
  tt_strmap_free(&sr->frame_ids);
  tt_strmap_free(&sr->site_ids);
  tt_buf_free(&sr->key);
  tt_buf_free(&sr->category);
  free(sr);
}

size_t hub_samples_nframes(const hub_sample_reader *sr) { return sr->frames.n; }
const hub_frame *hub_samples_frame(const hub_sample_reader *sr, int64_t id) {
  return id >= 0 && (size_t)id < sr->frames.n ? &sr->frames.v[id] : NULL;
}
size_t hub_samples_ncallsites(const hub_sample_reader *sr) { return sr->sites.n; }
const hub_callsite *hub_samples_callsite(const hub_sample_reader *sr, int64_t id) {
  return id >= 0 && (size_t)id < sr->sites.n ? &sr->sites.v[id] : NULL;
}
