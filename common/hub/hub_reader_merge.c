/* The direct reader: its inputs opened (hub_reader_inputs.c) and every
 * cursor of every input merged in one heap, read in global start order,
 * launches linked to their GPU work on the way; and the lookups exporters
 * make while reading (track names here, args in hub_reader_args.c). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hub/hub_reader_internal.h"
#include "hub/hub_reader_args.h"
#include "hub/hub_writer.h"
#include "base/sqlite_setup.h"
#include "base/util.h"

const char *const hr_table_names[T_COUNT] = {
    "rocpd_region", "rocpd_kernel_dispatch", "rocpd_memory_copy", "rocpd_memory_allocate",
    "rocpd_sample"};

static int cursor_less(const cursor *a, const cursor *b) {
  return hr_merge_less(&a->key, &b->key);
}

static void heap_sift_down(hub_reader *r, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, rr = l + 1, m = i;
    if (l < r->merge.heap_len && cursor_less(r->merge.heap[l], r->merge.heap[m])) m = l;
    if (rr < r->merge.heap_len && cursor_less(r->merge.heap[rr], r->merge.heap[m])) m = rr;
    if (m == i) return;
    cursor *t = r->merge.heap[i];
    r->merge.heap[i] = r->merge.heap[m];
    r->merge.heap[m] = t;
    i = m;
  }
}

static void heap_sift_up(hub_reader *r, size_t i) {
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!cursor_less(r->merge.heap[i], r->merge.heap[p])) return;
    cursor *t = r->merge.heap[i];
    r->merge.heap[i] = r->merge.heap[p];
    r->merge.heap[p] = t;
    i = p;
  }
}

/* A time the exporters can do arithmetic on: an integer (not text, a
 * float or a blob) within +-HUB_TIME_LIMIT (hub_writer.h). */
static int bad_time(sqlite3_stmt *st, int col) {
  if (sqlite3_column_type(st, col) != SQLITE_INTEGER) return 1;
  int64_t v = sqlite3_column_int64(st, col);
  return v > HUB_TIME_LIMIT || v < -HUB_TIME_LIMIT;
}

/* Steps a cursor: 1 row ready, 0 exhausted, -1 error. */
static int cursor_step(hub_reader *r, cursor *c) {
  int rc = sqlite3_step(c->st);
  hub_db *d = &r->in.dbs[c->db];
  c->args_taken = 0;
  if (rc == SQLITE_ROW) {
    c->row_id = sqlite3_column_int64(c->st, C_ID);
    c->raw_start = c->start = sqlite3_column_int64(c->st, C_START);
    c->raw_end = c->end = sqlite3_column_int64(c->st, C_END);
    if (bad_time(c->st, C_START) || bad_time(c->st, C_END)) {
      int col = bad_time(c->st, C_START) ? C_START : C_END;
      tt_error("%s: %s%s row id %lld: %s '%.40s' is not an integer time in ns within +-2^62",
               d->path, hr_table_names[c->table], d->suffix, (long long)c->row_id,
               col == C_START ? "start" : "end", (const char *)sqlite3_column_text(c->st, col));
      return -1;
    }
    if (d->tmap) {
      c->start = hub_time_map_apply(d->tmap, c->start);
      c->end = hub_time_map_apply(d->tmap, c->end);
    }
    return 1;
  }
  if (rc == SQLITE_DONE) return 0;
  tt_error("%s: reading %s%s: %s", d->path, hr_table_names[c->table], d->suffix,
           sqlite3_errmsg(d->conn));
  return -1;
}

/* Launch groups the links' window holds per hub (hub_reader_links.c): a
 * share of HR_LINK_WINDOW, at least HR_LINK_WINDOW_MIN. On rocprofv3's
 * and the importers' hubs it holds only the few launches read out of
 * correlation order; TT_LINK_WINDOW sets it for tests (a small window
 * takes the TEMP copy's path). */
#define HR_LINK_WINDOW 65536
#define HR_LINK_WINDOW_MIN 256
static size_t link_window(size_t ndbs) {
  const char *env = getenv("TT_LINK_WINDOW");
  if (env && atol(env) > 0) return (size_t)atol(env);
  size_t w = HR_LINK_WINDOW / (ndbs ? ndbs : 1);
  return w < HR_LINK_WINDOW_MIN ? HR_LINK_WINDOW_MIN : w;
}

hub_reader *hr_direct_inputs(const char *const *paths, size_t npaths, const hub_filter *f,
                             size_t slice_first, size_t slice_count) {
  /* The sorts of index-less tables fill SQLite's caches (2 MB each) as
   * inputs grow: a soft limit keeps the reader's memory flat. */
  tt_sqlite_setup(); /* before the limit: that call initializes SQLite */
  sqlite3_soft_heap_limit64(4 << 20);
  hub_reader *r = tt_calloc(1, sizeof *r);
  r->src = hr_merge_source(r);
  r->query = &hr_direct_queries;
  r->filter = *f;
  r->in.slice_first = slice_first;
  r->in.slice_count = slice_count;
  tt_sqlite_expect_inputs(npaths);
  if (hr_refuse_duplicates(&r->in, paths, npaths) != 0) {
    hub_reader_close(r);
    return NULL;
  }
  for (size_t i = 0; i < npaths; i++) {
    if (hr_open_file(&r->in, paths[i]) != 0) {
      hub_reader_close(r);
      return NULL;
    }
  }
  if (hr_refuse_duplicates(&r->in, paths, npaths) != 0) {
    hub_reader_close(r);
    return NULL;
  }
  if (r->in.crowded) return r;
  hr_order_dbs(&r->in);
  hr_load_info(&r->in, f->info_only, f->host);
  /* An info-only reader's time span is on the run's timeline too. */
  for (size_t d = 0; d < r->in.ndbs; d++) hr_db_map_times(&r->in.dbs[d], f->time_maps);
  return r;
}

void hr_direct_stream(hub_reader *r, const hub_filter *f) {
  /* Its info was named for no (host, pid) part: a part names it again
   * (view pids and device owners are the part's own). */
  int renamed = f->host && !r->filter.host;
  r->filter = *f;
  r->filter.info_only = 0;
  if (renamed) hr_name_processes(&r->in, f->host);
  hr_exclude_hosts(&r->in, f);
  for (size_t d = 0; d < r->in.ndbs; d++) hr_db_map_times(&r->in.dbs[d], f->time_maps);
}

int hr_direct_prepare(hub_reader *r) {
  const hub_filter *f = &r->filter;
  r->merge.cursors = tt_calloc(r->in.ndbs * T_COUNT, sizeof *r->merge.cursors);
  r->merge.heap = tt_calloc(r->in.ndbs * T_COUNT, sizeof *r->merge.heap);
  for (size_t d = 0; d < r->in.ndbs; d++) {
    for (int t = 0; t < T_COUNT; t++) {
      if (!r->in.dbs[d].has_table[t] || r->in.dbs[d].excluded) continue;
      if (f->gpu_only && t == T_SAMPLE) continue; /* flows, counters, instants: no GPU work */
      hub_filter df = hr_db_filter(&r->in.dbs[d], f);
      char *sql = hr_cursor_sql(&r->in.dbs[d], (table_id)t, &df);
      cursor *c = &r->merge.cursors[r->merge.ncursors];
      c->db = (int32_t)d;
      c->table = t;
      c->st = hr_prep(&r->in.dbs[d], sql);
      free(sql);
      if (!c->st) return -1;
      r->merge.ncursors++;
    }
  }
  size_t window = link_window(r->in.ndbs);
  for (size_t d = 0; d < r->in.ndbs; d++) {
    hub_filter df = hr_db_filter(&r->in.dbs[d], f);
    if (!r->in.dbs[d].excluded && hr_links_open(&r->in.dbs[d], &df, window) != 0) return -1;
  }
  return 0;
}

/* The first row of every cursor, read at the first hub_reader_next: a
 * cursor's first step sorts (or groups) what SQLite must, and a reader
 * opened only for its info or time span never pays for it. */
static int prime_cursors(hub_reader *r) {
  r->merge.primed = 1;
  /* Args read out of stream order (db2perfetto holds events; carried
   * windows) need a lookup by id: an index-less input's TEMP copy is made
   * here, before any statement runs (DDL mid-stream aborts them). */
  for (size_t i = 0; i < r->in.ndbs; i++) {
    hub_db *d = &r->in.dbs[i];
    if (d->args.present && !d->args.indexed) {
      hr_args_prepare(d); /* an ordered rocpd_arg needs no copy */
      if (!d->args.ordered) hr_args_lookup_source(d);
    }
  }
  for (size_t i = 0; i < r->merge.ncursors; i++) {
    cursor *c = &r->merge.cursors[i];
    int rc = cursor_step(r, c);
    if (rc < 0) return -1;
    if (rc > 0) {
      r->merge.heap[r->merge.heap_len] = c;
      heap_sift_up(r, r->merge.heap_len++);
    }
  }
  return 0;
}

int64_t hr_link_id(int db, const char *cat, int64_t id) {
  uint64_t h = tt_hash_bytes(cat, strlen(cat));
  h ^= (uint64_t)id + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= (uint64_t)db * 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return (int64_t)(h & 0x7fffffffffffffffULL);
}

static int64_t launch_key(const hub_record *ev) {
  int64_t k[3] = {ev->db, ev->pid, ev->correlation_id};
  return (int64_t)tt_hash_bytes(k, sizeof k);
}

/* Forgets launches whose GPU work the stream has passed (it was filtered
 * out, or already matched): the maps have no delete, so rebuild them. */
static void sweep_launches(hub_reader *r, int64_t now) {
  tt_i64map keep_l = {0}, keep_g = {0}, keep_n = {0}, keep_t = {0};
  for (size_t i = 0; i < r->pending.gpu.cap; i++) {
    if (!r->pending.gpu.used[i] || r->pending.gpu.vals[i] < now) continue;
    int64_t key = r->pending.gpu.keys[i];
    int64_t *launch = tt_i64map_get(&r->pending.launch, key);
    if (!launch || *launch == HUB_NULL) continue;
    tt_i64map_put(&keep_l, key, *launch);
    tt_i64map_put(&keep_g, key, r->pending.gpu.vals[i]);
    tt_i64map_put(&keep_n, key, *tt_i64map_get(&r->pending.n, key));
    tt_i64map_put(&keep_t, key, *tt_i64map_get(&r->pending.taken, key));
  }
  tt_i64map_free(&r->pending.launch);
  tt_i64map_free(&r->pending.gpu);
  tt_i64map_free(&r->pending.n);
  tt_i64map_free(&r->pending.taken);
  r->pending.launch = keep_l;
  r->pending.gpu = keep_g;
  r->pending.n = keep_n;
  r->pending.taken = keep_t;
}

static void remember_launch(hub_reader *r, const hub_record *ev) {
  if (++r->pending.since_sweep >= 4096 && r->pending.gpu.count >= 4096) {
    sweep_launches(r, ev->start);
    r->pending.since_sweep = 0;
  }
  int64_t key = launch_key(ev);
  tt_i64map_put(&r->pending.launch, key, ev->start);
  tt_i64map_put(&r->pending.gpu, key, ev->link_last);
  tt_i64map_put(&r->pending.n, key, ev->link_count);
  tt_i64map_put(&r->pending.taken, key, 0);
}

/* The launch of this GPU work, when it was read and has an arrow left
 * (one per GPU work it launched, in stream order): its start, and the
 * arrow's number in *index; else HUB_NULL. */
static int64_t take_launch(hub_reader *r, const hub_record *ev, int64_t *index) {
  int64_t key = launch_key(ev);
  int64_t *launch = tt_i64map_get(&r->pending.launch, key);
  int64_t *n = tt_i64map_get(&r->pending.n, key);
  int64_t *taken = tt_i64map_get(&r->pending.taken, key);
  if (!launch || *launch == HUB_NULL || !n || !taken || *taken >= *n) return HUB_NULL;
  int64_t ts = *launch;
  *index = (*taken)++;
  if (*taken == *n) *launch = HUB_NULL; /* every arrow drawn */
  return ts;
}

/* Whether `s` holds `word`, ASCII case ignored. */
static int has_word(const char *s, const char *word) {
  size_t n = strlen(word);
  char lo = word[0], up = (char)(lo - 'a' + 'A'); /* word is lower-case */
  for (; *s; s++)
    if ((*s == lo || *s == up) && strncasecmp(s, word, n) == 0) return 1;
  return 0;
}

/* Whether the category holds any of the words. */
static int has_any(const char *category, const char *const *words) {
  for (; *words; words++)
    if (has_word(category, *words)) return 1;
  return 0;
}

/* The one classifier of records: from the table a row comes from (its
 * kind), where it is drawn (a region on a GPU lane's thread) and, within
 * a table, the words its category holds, whatever case or form the source
 * gave it (NVTX, roctx, MARKER_CORE_API, Kineto's user_annotation;
 * CUDA_SYNC, Kineto's cuda_sync; CUDA_RUNTIME_API, cuda_driver, Runtime,
 * HIP_RUNTIME_API_EXT, rpd's api). Memsets are dispatches or allocate
 * rows of that kind. */
static hub_class classify_by_category(hub_kind kind, const char *category) {
  static const char *const memset_words[] = {"memset", "fillbuffer", NULL};
  static const char *const marker_words[] = {"marker", "nvtx", "roctx", "annotation", NULL};
  static const char *const api_words[] = {"api", "runtime", "driver", NULL};
  if (kind == HUB_KERNEL) {
    if (has_any(category, memset_words)) return HUB_CLS_MEMSET;
    return has_word(category, "sync") ? HUB_CLS_SYNC : HUB_CLS_KERNEL;
  }
  if (has_any(category, marker_words)) return HUB_CLS_MARKER;
  if (has_word(category, "sync")) return HUB_CLS_SYNC;
  return has_any(category, api_words) ? HUB_CLS_API : HUB_CLS_REGION;
}

/* A trace has a handful of categories: the class of each of the last few
 * per table (kernels, regions), per thread (exporters' parts may read on
 * several). */
#define CLASS_CACHE 8
static hub_class class_of_category(hub_kind kind, const char *category) {
  static _Thread_local struct {
    char category[48];
    hub_class cls;
  } cache[2][CLASS_CACHE];
  static _Thread_local unsigned next[2];
  int k = kind == HUB_KERNEL;
  for (int i = 0; i < CLASS_CACHE && cache[k][i].category[0]; i++)
    if (strcmp(cache[k][i].category, category) == 0) return cache[k][i].cls;
  hub_class cls = classify_by_category(kind, category);
  if (category[0] && strlen(category) < sizeof cache[k][0].category) {
    unsigned i = next[k]++ % CLASS_CACHE;
    strcpy(cache[k][i].category, category);
    cache[k][i].cls = cls;
  }
  return cls;
}

static hub_class classify(const hub_record *ev) {
  switch (ev->kind) {
  case HUB_KERNEL: return class_of_category(HUB_KERNEL, ev->category);
  case HUB_COPY: return HUB_CLS_MEMCPY;
  case HUB_ALLOC: return has_word(ev->name, "memset") ? HUB_CLS_MEMSET : HUB_CLS_ALLOC;
  case HUB_REGION:
    if (ev->lane_id != HUB_NULL) return HUB_CLS_GPU_ANNOTATION;
    return class_of_category(HUB_REGION, ev->category);
  case HUB_INSTANT: return HUB_CLS_MARKER;
  case HUB_COUNTER: return HUB_CLS_COUNTER;
  case HUB_FLOW: return HUB_CLS_FLOW;
  default: return HUB_CLS_OTHER;
  }
}

/* A copy's direction from its agents' types (the reader's agent table). */
static hub_copy_dir copy_direction(const hub_reader *r, int db, int64_t src, int64_t dst) {
  const hub_agent_view *s = src == HUB_NULL ? NULL : hr_inputs_find_agent(&r->in, db, src);
  const hub_agent_view *d = dst == HUB_NULL ? NULL : hr_inputs_find_agent(&r->in, db, dst);
  if (!s || !d) return HUB_COPY_UNKNOWN;
  int sg = strcmp(s->type, "GPU") == 0, dg = strcmp(d->type, "GPU") == 0;
  if (!sg && strcmp(s->type, "CPU") != 0) return HUB_COPY_UNKNOWN;
  if (!dg && strcmp(d->type, "CPU") != 0) return HUB_COPY_UNKNOWN;
  return sg ? (dg ? HUB_COPY_DTOD : HUB_COPY_DTOH) : (dg ? HUB_COPY_HTOD : HUB_COPY_HTOH);
}

/* A region written on a GPU lane's thread (Kineto's GPU annotations) is
 * drawn on that lane. */
static void region_on_lane(const hub_reader *r, hub_record *ev) {
  const hub_thread_info *th = hr_inputs_find_thread(&r->in, ev->db, ev->tid);
  if (!th || th->agent_id == HUB_NULL) return;
  ev->agent_id = th->agent_id;
  ev->lane_id = th->lane_id;
}

/* "t1,t2,..." with each time mapped (--align), in d's buffer. */
static const char *map_starts(hub_db *d, const char *starts) {
  d->link_starts.len = 0;
  for (const char *p = starts; *p;) {
    char *e;
    long long t = strtoll(p, &e, 10);
    if (e == p) break;
    tt_buf_printf(&d->link_starts, "%s%lld", d->link_starts.len ? "," : "",
                  (long long)hub_time_map_apply(d->tmap, t));
    p = *e == ',' ? e + 1 : e;
  }
  return d->link_starts.len ? d->link_starts.data : "";
}

/* A launch's GPU work (hub_reader_links.c): its arrows' far ends. 0 or
 * -1 on error (said). */
static int link_launch(hub_reader *r, const cursor *c, hub_record *ev) {
  sqlite3_stmt *st = c->st;
  /* Correlation and process as integers: the grouped stream's keys are. */
  if (sqlite3_column_type(st, C_CORR) != SQLITE_INTEGER ||
      sqlite3_column_type(st, C_PID) != SQLITE_INTEGER)
    return 0;
  hr_link_info li;
  int rc = hr_links_find(&r->in.dbs[c->db], ev->correlation_id, ev->pid, &li);
  if (rc > 0) {
    hub_db *d = &r->in.dbs[c->db];
    ev->link_ts = hr_map_time(d, li.start);
    ev->link_count = li.n;
    ev->link_last = hr_map_time(d, li.last);
    ev->link_starts = d->tmap && li.starts[0] ? map_starts(d, li.starts) : li.starts;
  }
  return rc < 0 ? -1 : 0;
}

/* 0, or -1 on an error (said). */
static int fill_event(hub_reader *r, const cursor *c, hub_record *ev) {
  sqlite3_stmt *st = c->st;
  memset(ev, 0, sizeof *ev);
  ev->db = c->db;
  ev->row_id = c->row_id;
  ev->start = c->start;
  ev->end = c->end < c->start ? c->start : c->end;
  ev->pid = hr_col_i64_or_null(st, C_PID);
  ev->tid = hr_col_i64_or_null(st, C_TID);
  ev->name = hr_col_text(st, C_NAME);
  ev->category = hr_col_text(st, C_CAT);
  ev->correlation_id = hr_col_i64_or_null(st, C_CORR);
  ev->event_id = hr_col_i64_or_null(st, C_EVENT);
  ev->agent_id = hr_col_i64_or_null(st, C_AGENT);
  ev->lane_id = hr_col_i64_or_null(st, C_LANE);
  ev->lane_is_queue = sqlite3_column_int(st, C_LANE_IS_QUEUE);
  ev->size = hr_col_i64_or_null(st, C_SIZE);
  ev->track_id = hr_col_i64_or_null(st, C_TRACK);
  ev->link_ts = hr_map_time(&r->in.dbs[c->db], hr_col_i64_or_null(st, C_LINK));
  ev->kernel_name = c->table == T_KERNEL ? hr_col_text(st, C_MANGLED) : "";
  ev->link_starts = "";
  switch (c->table) {
  case T_REGION:
    ev->kind = HUB_REGION;
    if (link_launch(r, c, ev) != 0) return -1;
    if (r->in.has_lane_threads && ev->tid != HUB_NULL) region_on_lane(r, ev);
    break;
  case T_KERNEL: ev->kind = HUB_KERNEL; break;
  case T_COPY:
    ev->kind = HUB_COPY;
    ev->copy_dir = copy_direction(r, ev->db, hr_col_i64_or_null(st, C_SRC_AGENT),
                                  hr_col_i64_or_null(st, C_DST_AGENT));
    break;
  case T_ALLOC: ev->kind = HUB_ALLOC; break;
  default: {
    const char *k = hr_col_text(st, C_TRACK_KIND);
    if (strcmp(k, HUB_WORD_FLOW) == 0) {
      ev->kind = HUB_FLOW;
      const char *ph = hr_col_text(st, C_PH);
      ev->flow_phase = ph[0] ? ph[0] : 's';
      ev->flow_bind_enclosing = strcmp(hr_col_text(st, C_BP), "e") == 0;
    } else if (strcmp(k, HUB_WORD_COUNTER) == 0) {
      ev->kind = HUB_COUNTER;
      ev->value = sqlite3_column_double(st, C_VALUE);
    } else {
      ev->kind = HUB_INSTANT;
    }
  }
  }
  ev->cls = classify(ev);
  ev->launch_ts = HUB_NULL;
  /* An input whose recorded flows are its launch arrows draws those: its
   * launches are found for their start alone (hub_filter.launch_times). */
  int flows = r->in.dbs[c->db].flows_are_launch_arrows;
  if ((ev->kind == HUB_KERNEL || ev->kind == HUB_COPY) && ev->correlation_id != HUB_NULL &&
      r->pending.launch.count) {
    int64_t index = 0;
    ev->launch_ts = take_launch(r, ev, &index);
    if (ev->launch_ts != HUB_NULL) ev->link_index = index;
    if (!flows) ev->link_ts = ev->launch_ts;
  } else if (ev->kind == HUB_REGION && ev->link_ts != HUB_NULL) {
    /* One launch per (process, correlation): a second launch with the same
     * id (duplicate ids, merged profiles) or GPU work already read would
     * leave an arrow without its other end. */
    if (ev->link_ts < ev->start || tt_i64map_get(&r->pending.launch, launch_key(ev))) {
      ev->link_ts = HUB_NULL;
      ev->link_count = 0;
      ev->link_starts = "";
    } else {
      remember_launch(r, ev);
    }
    if (flows) {
      ev->link_ts = HUB_NULL;
      ev->link_count = ev->link_last = 0;
      ev->link_starts = "";
    }
  }
  if (ev->link_ts != HUB_NULL && ev->correlation_id != HUB_NULL)
    ev->link_id = hr_link_id(ev->db, ev->kind == HUB_FLOW ? ev->category : "", ev->correlation_id);
  return 0;
}

static int next_direct(hub_reader *r, hub_record *ev);

int hr_direct_next(hr_source *src, hub_record *ev) {
  hub_reader *r = src->r;
  int rc;
  /* --gpu: the cursors' SQL keeps GPU rows only; the classifier is the
   * rule, a row it puts elsewhere is stepped over. */
  while ((rc = next_direct(r, ev)) > 0 && r->filter.gpu_only && !hub_record_is_gpu(ev)) {
  }
  return rc;
}

static int next_direct(hub_reader *r, hub_record *ev) {
  if (r->failed) return -1;
  if (!r->merge.primed && prime_cursors(r) != 0) {
    r->failed = 1;
    return -1;
  }
  if (r->merge.to_advance) {
    cursor *c = r->merge.to_advance;
    r->merge.to_advance = NULL;
    int rc = cursor_step(r, c);
    if (rc < 0) {
      r->failed = 1;
      return -1;
    }
    if (rc == 0) {
      r->merge.heap[0] = r->merge.heap[--r->merge.heap_len];
    }
    if (r->merge.heap_len) heap_sift_down(r, 0);
  }
  if (r->merge.heap_len == 0) return 0;
  cursor *top = r->merge.heap[0];
  r->merge.to_advance = top; /* keep its row (and strings) until the next call */
  if (fill_event(r, top, ev) != 0) {
    r->failed = 1;
    return -1;
  }
  return 1;
}

/* The span of one table: min(start), max(start) and max(end), each an
 * aggregate of its own (a bare column beside two aggregates would come
 * from an arbitrary row, missing an event that starts early and ends
 * last). With an index on start and no pid, the first two are each one
 * index seek and only max(end) reads the table; else one scan does all. */
static char *span_sql(const hub_db *d, table_id t, int64_t pid) {
  const char *start = t == T_SAMPLE ? "timestamp" : "start";
  const char *end = t == T_SAMPLE ? "timestamp" : "\"end\"";
  char *table = sqlite3_mprintf("%s%s", hr_table_names[t], d->suffix);
  char *sql;
  if (pid == HUB_NULL && hr_schema_has_index_on(d->schema, table, start))
    sql = sqlite3_mprintf("SELECT (SELECT min(%s) FROM \"%w\"), (SELECT max(%s) FROM \"%w\"), "
                          "(SELECT max(%s) FROM \"%w\")",
                          start, table, start, table, end, table);
  else if (pid == HUB_NULL)
    sql = sqlite3_mprintf("SELECT min(%s), max(%s), max(%s) FROM \"%w\"", start, start, end, table);
  else if (t == T_SAMPLE)
    sql = sqlite3_mprintf("SELECT min(timestamp), max(timestamp), max(timestamp) FROM \"%w\" WHERE "
                          "track_id IN (SELECT id FROM \"rocpd_track%w\" WHERE pid = %lld)",
                          table, d->suffix, (long long)pid);
  else
    sql = sqlite3_mprintf("SELECT min(start), max(start), max(\"end\") FROM \"%w\" WHERE pid = %lld",
                          table, (long long)pid);
  sqlite3_free(table);
  return sql;
}

static int direct_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  int any = 0;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (size_t i = 0; i < r->in.ndbs; i++) {
    hub_db *d = &r->in.dbs[i];
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t] || d->excluded) continue;
      char *sql = span_sql(d, (table_id)t, r->filter.pid);
      sqlite3_stmt *st = hr_prep(d, sql);
      sqlite3_free(sql);
      if (!st) return 0;
      if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
        /* A bad time is left out here; reading its row reports it. */
        int64_t a = sqlite3_column_int64(st, 0), b = sqlite3_column_int64(st, 1),
                c = sqlite3_column_int64(st, 2);
        a = hr_map_time(d, a), b = hr_map_time(d, b), c = hr_map_time(d, c);
        if (!bad_time(st, 0) && a < lo) lo = a;
        if (!bad_time(st, 1) && b > hi) hi = b;
        if (!bad_time(st, 2) && c > hi) hi = c;
        any |= !bad_time(st, 0) && !bad_time(st, 1) && !bad_time(st, 2);
      }
      sqlite3_finalize(st);
    }
  }
  if (any) {
    *min_start = lo;
    *max_end = hi;
  }
  return any;
}


static int direct_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  for (size_t i = 0; i < r->in.ndbs; i++) {
    hub_db *d = &r->in.dbs[i];
    if (host && strcmp(hr_inputs_host(&r->in, (int)i, pid), host) != 0) continue;
    for (int t = 0; t < T_COUNT; t++) {
      if (!d->has_table[t]) continue;
      char *sql = t == T_SAMPLE
                      ? sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM \"rocpd_sample%w\" s JOIN "
                                        "\"rocpd_track%w\" k ON k.id = s.track_id WHERE k.pid = "
                                        "%lld)",
                                        d->suffix, d->suffix, (long long)pid)
                      : sqlite3_mprintf("SELECT EXISTS(SELECT 1 FROM \"%w%w\" WHERE pid = %lld)",
                                        hr_table_names[t], d->suffix, (long long)pid);
      sqlite3_stmt *st = hr_prep(d, sql);
      sqlite3_free(sql);
      int found = st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0);
      sqlite3_finalize(st);
      if (found) return 1;
    }
  }
  return 0;
}

static const char *direct_track_name(hr_source *src, int db, int64_t track_id) {
  hub_reader *r = src->r;
  hub_db *d = &r->in.dbs[db];
  if (!d->track_st) {
    char *sql = sqlite3_mprintf("SELECT s.string FROM \"rocpd_track%w\" t JOIN \"rocpd_string%w\" "
                                "s ON s.id = t.name_id WHERE t.id = ?1",
                                d->suffix, d->suffix);
    d->track_st = hr_prep(d, sql);
    sqlite3_free(sql);
    if (!d->track_st) return "";
  }
  sqlite3_reset(d->track_st);
  sqlite3_bind_int64(d->track_st, 1, track_id);
  if (sqlite3_step(d->track_st) != SQLITE_ROW) return "";
  return hr_col_text(d->track_st, 0);
}

static int64_t direct_row_count(hub_reader *r) { return hr_direct_row_count(&r->in); }

static int direct_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  return hr_direct_category_counts(&r->in, out, n);
}

/* The merge as a source: its reader's cursors (the state is the
 * reader's merge part, freed by hr_merge_free). */
static const hr_source_ops merge_ops = {hr_direct_next, hr_direct_args_begin, hr_direct_args_next,
                                        direct_track_name, hr_source_free};

hr_source *hr_merge_source(hub_reader *r) { return hr_source_new(r, &merge_ops); }

/* In hr_query_ops's order (no two slots have one type: the compiler checks it). */
const hr_query_ops hr_direct_queries = {direct_time_span, direct_process_has_events,
                                        direct_row_count, direct_category_counts};

void hr_merge_free(hub_reader *r) {
  for (size_t i = 0; i < r->in.ndbs; i++) {
    hub_db *d = &r->in.dbs[i];
    sqlite3_finalize(d->args.st);
    sqlite3_finalize(d->args.from_st);
    sqlite3_finalize(d->args.probe_st);
    sqlite3_finalize(d->track_st);
    hr_arg_scan_free(d->args.orphans);
    hr_links_free(d->links);
    sqlite3_free(d->args.src);
    tt_buf_free(&d->link_starts);
    d->args.st = d->args.from_st = d->args.probe_st = d->track_st = NULL;
    d->args.orphans = NULL;
    d->links = NULL;
    d->args.src = NULL;
  }
  for (size_t i = 0; i < r->merge.ncursors; i++) {
    sqlite3_finalize(r->merge.cursors[i].st);
    sqlite3_finalize(r->merge.cursors[i].args_st);
    hr_arg_scan_free(r->merge.cursors[i].scan);
  }
  free(r->merge.cursors);
  free(r->merge.heap);
  free(r->args.rows);
  tt_buf_free(&r->args.text);
  tt_i64map_free(&r->pending.launch);
  tt_i64map_free(&r->pending.gpu);
  tt_i64map_free(&r->pending.n);
  tt_i64map_free(&r->pending.taken);
  memset(&r->merge, 0, sizeof r->merge);
}
