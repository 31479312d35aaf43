/* The hub reader beyond its descriptor and memory budget: more inputs than
 * can be open at once are read in groups, each group merged as usual into
 * a temporary record stream (every field of each record, its args and its
 * track name), and those streams merged by the same order as the cursors.
 * The records come out as a direct merge would give them, so exporters
 * write the same bytes. Temporary files are unlinked as soon as they are
 * made: nothing is left behind, on success, error or crash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "hub/hub_reader_internal.h"
#include "hub/hub_reader_records.h"
#include "base/util.h"
#include "base/vec.h"

/* A temporary stream of records (hub_reader_records.c's format), and
 * the record it is on. */
typedef struct stream {
  FILE *f;
  hr_disk_rec rec;
  tt_buf payload;
} stream;

/* A group: paths path0.. (npaths of them), or a slice of one file's uuids
 * (count > 0: first..first+count-1). */
typedef struct group {
  size_t path0, npaths, first, count;
} group;

struct hr_passes {
  const char **paths;
  size_t npaths;
  group *groups;
  size_t ngroups;
  stream **open; /* streams written and not yet merged away */
  size_t nopen;
  stream **heap;
  size_t heap_len;
  stream *current;
  hr_rec_args args; /* of the current record */
  int failed;
  int span_any; /* time span of all inputs, taken while each group is open */
  int64_t span_lo, span_hi;
};

/* Descriptors the reader may hold: the soft limit less room for the
 * tool's own files (outputs, one per window of a split). */
static size_t fd_budget(void) {
  struct rlimit rl;
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1u << 20;
  size_t n = (size_t)rl.rlim_cur, reserve = 16 + n / 8;
  return n > reserve + 2 ? n - reserve : 2;
}

size_t hr_passes_group(size_t npaths) {
  size_t budget = fd_budget();
  if (npaths <= budget && npaths <= HR_MAX_OPEN_INPUTS) return 0;
  size_t g = budget / 2; /* the rest for the streams written so far */
  if (g > HR_PASS_GROUP_MAX) g = HR_PASS_GROUP_MAX;
  if (g < 1) g = 1;
  size_t ngroups = (npaths + g - 1) / g;
  return (npaths + ngroups - 1) / ngroups; /* groups of even size */
}

static FILE *temp_stream(void) {
  FILE *f = hr_temp_file();
  if (!f)
    tt_error("%s: cannot make a temporary file for merging in passes: %s", hr_temp_dir(),
             strerror(errno));
  return f;
}

/* 1 record read, 0 at the end, -1 on error. */
static int stream_step(stream *s) { return hr_rec_read(s->f, &s->rec, &s->payload); }

/* The cursors' order, on the records. */
static int rec_less(const stream *a, const stream *b) {
  return hr_merge_less(&a->rec.key, &b->rec.key);
}

static void sift_down(stream **h, size_t len, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, rr = l + 1, m = i;
    if (l < len && rec_less(h[l], h[m])) m = l;
    if (rr < len && rec_less(h[rr], h[m])) m = rr;
    if (m == i) return;
    stream *t = h[i];
    h[i] = h[m];
    h[m] = t;
    i = m;
  }
}

static void stream_free(stream *s) {
  if (!s) return;
  if (s->f) fclose(s->f);
  tt_buf_free(&s->payload);
  free(s);
}

/* Rewinds streams and makes a heap of those with a record. */
static int heap_init(stream **in, size_t n, stream **heap, size_t *len) {
  *len = 0;
  for (size_t i = 0; i < n; i++) {
    if (fflush(in[i]->f) != 0 || fseek(in[i]->f, 0, SEEK_SET) != 0) return -1;
    int rc = stream_step(in[i]);
    if (rc < 0) return -1;
    if (rc) heap[(*len)++] = in[i];
  }
  for (size_t i = *len / 2; i-- > 0;) sift_down(heap, *len, i);
  return 0;
}

/* Merges every open stream into one (when the next group would not fit). */
static int merge_open(struct hr_passes *p) {
  stream *out = tt_calloc(1, sizeof *out);
  out->f = temp_stream();
  stream **heap = tt_calloc(p->nopen, sizeof *heap);
  size_t len = 0;
  int ok = out->f && heap_init(p->open, p->nopen, heap, &len) == 0;
  while (ok && len) {
    stream *top = heap[0];
    ok = hr_rec_write(out->f, &top->rec, &top->payload);
    int rc = ok ? stream_step(top) : -1;
    if (rc < 0) ok = 0;
    else if (rc == 0) heap[0] = heap[--len];
    if (len) sift_down(heap, len, 0);
  }
  free(heap);
  for (size_t i = 0; i < p->nopen; i++) stream_free(p->open[i]);
  p->nopen = 0;
  if (!ok) {
    tt_error("merging in passes: cannot write a temporary stream: %s", strerror(errno));
    stream_free(out);
    return -1;
  }
  p->open[p->nopen++] = out;
  return 0;
}

/* Copies the info tables and the inputs' names of a group's reader into
 * r, its db indexes moved by base, in the order a direct open reads them. */
static void take_info(hub_reader *r, hub_reader *g, int base) {
  for (size_t i = 0; i < g->in.ndbs; i++) {
    tt_grow(r->in.dbs, r->in.ndbs + 1, r->in.cap_dbs);
    hub_db *d = &r->in.dbs[r->in.ndbs++];
    memset(d, 0, sizeof *d);
    d->path = tt_strdup(g->in.dbs[i].path);
    d->suffix = tt_strdup(g->in.dbs[i].suffix);
    memcpy(d->has_table, g->in.dbs[i].has_table, sizeof d->has_table);
    hr_keep_metadata(d, &g->in, (int)i);
  }
  for (size_t i = 0; i < g->in.nprocesses; i++) {
    tt_grow(r->in.processes, r->in.nprocesses + 1, r->in.cap_processes);
    hub_process_info *p = &r->in.processes[r->in.nprocesses++];
    *p = g->in.processes[i];
    p->db += base;
    p->name = tt_strdup(p->name);
    p->labels = tt_strdup(p->labels);
    p->hostname = tt_strdup(p->hostname);
    p->label = NULL; /* hr_name_processes, once all are in */
    if (!tt_i64map_get(&r->in.process_any_ix, p->pid))
      tt_i64map_put(&r->in.process_any_ix, p->pid, (int64_t)r->in.nprocesses - 1);
    if (!tt_i64map_get(&r->in.process_ix, hr_key_db_id(p->db, p->pid, 0)))
      tt_i64map_put(&r->in.process_ix, hr_key_db_id(p->db, p->pid, 0), (int64_t)r->in.nprocesses - 1);
  }
  /* The group's tables, their input numbers moved past the ones before. */
  for (size_t i = 0; i < g->in.nthreads; i++) {
    hub_thread_info t = g->in.threads[i];
    t.db += base;
    hr_add_thread(&r->in, &t);
  }
  for (size_t i = 0; i < g->in.nagents; i++) {
    hub_agent_view a = g->in.agents[i];
    a.db += base;
    hr_add_agent(&r->in, &a);
  }
  for (size_t i = 0; i < g->in.nlanes; i++) {
    hub_lane_info l = g->in.lanes[i];
    l.db += base;
    hr_add_lane(&r->in, &l);
  }
  r->in.has_lane_threads |= g->in.has_lane_threads;
}

static hub_reader *group_reader(hub_reader *r, size_t i) {
  struct hr_passes *p = r->passes;
  const group *gr = &p->groups[i];
  const char *const *paths = (const char *const *)p->paths + gr->path0;
  /* A replay in passes reads its records from the spool: its groups are
   * opened for their info only, and never replay themselves. */
  hub_filter f = r->filter;
  if (f.replay) f.info_only = HUB_INFO_ALL;
  f.replay = NULL;
  if (gr->count) return hr_open_direct(paths, 1, &f, gr->first, gr->count);
  return hub_reader_open(paths, gr->npaths, &f);
}

/* The merge key of the record g returned last (the reader of a group may
 * itself read in passes, for a file of many uuids among many files), its
 * db moved by base. */
static hr_merge_key last_key(const hub_reader *g, int base) {
  hr_merge_key k = g->passes ? g->passes->current->rec.key : g->merge.to_advance->key;
  k.db += base;
  return k;
}

/* Reads one group through a reader of its own into a new stream. */
static int write_group(hub_reader *r, size_t gi) {
  struct hr_passes *p = r->passes;
  hub_reader *g = group_reader(r, gi);
  if (!g) return -1;
  int base = (int)r->in.ndbs;
  take_info(r, g, base);
  int64_t lo, hi;
  if (hub_reader_time_span(g, &lo, &hi)) {
    if (!p->span_any || lo < p->span_lo) p->span_lo = lo;
    if (!p->span_any || hi > p->span_hi) p->span_hi = hi;
    p->span_any = 1;
  }
  stream *s = tt_calloc(1, sizeof *s);
  s->f = temp_stream();
  p->open[p->nopen++] = s;
  int rc = s->f ? 1 : -1;
  hub_record ev;
  tt_buf pay = {0};
  while (rc > 0 && (rc = hub_reader_next(g, &ev)) > 0) {
    hr_disk_rec d;
    hr_rec_pack(g->src, &ev, &d, &pay);
    d.key = last_key(g, base);
    d.ev.db += base;
    /* The arrow's id hashes its input's index: the index in all inputs. */
    if (ev.link_id && ev.link_ts != HUB_NULL && ev.correlation_id != HUB_NULL)
      d.ev.link_id = hr_link_id(d.ev.db, ev.kind == HUB_FLOW ? ev.category : "", ev.correlation_id);
    if (!hr_rec_write(s->f, &d, &pay)) {
      tt_error("merging in passes: cannot write a temporary stream: %s", strerror(errno));
      rc = -1;
    }
  }
  tt_buf_free(&pay);
  hub_reader_close(g);
  return rc;
}

/* A path, its order key and its uuid count, sorted as the direct reader
 * orders its inputs (hr_db_order), so the groups are read in that order:
 * by a file's smallest uuid. (Files of several uuids whose uuids
 * interleave, merged files given together, keep each file's uuids
 * together here, where a direct read interleaves them.) */
typedef struct ordered_path {
  const char *path;
  char *key;
  size_t hubs, arg;
} ordered_path;

static int cmp_ordered_path(const void *pa, const void *pb) {
  const ordered_path *a = pa, *b = pb;
  /* A copy of a hub (the same uuid) after it, as given: it is the one
   * refused. */
  if (a->key[0] && strcmp(a->key, b->key) == 0) return (a->arg > b->arg) - (a->arg < b->arg);
  return hr_db_order(a->key, a->path, b->key, b->path);
}

hub_reader *hr_passes_open(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t group_size, const size_t *hubs_in, char **keys) {
  hub_reader *r = tt_calloc(1, sizeof *r);
  r->src = hr_passes_source(r);
  r->query = &hr_passes_queries;
  r->filter = *f;
  struct hr_passes *p = r->passes = tt_calloc(1, sizeof *p);
  p->paths = tt_calloc(npaths, sizeof *p->paths);
  ordered_path *op = tt_calloc(npaths ? npaths : 1, sizeof *op);
  /* Each file's order: given (the inputs' survey opened each alone), or
   * read here. */
  for (size_t i = 0; i < npaths; i++)
    op[i] = (ordered_path){paths[i], keys ? keys[i] : hr_file_order_key(paths[i]),
                           hubs_in ? hubs_in[i] : 1, i};
  free(keys);
  qsort(op, npaths, sizeof *op, cmp_ordered_path);
  size_t *hubs = hubs_in ? tt_calloc(npaths, sizeof *hubs) : NULL;
  for (size_t i = 0; i < npaths; i++) {
    p->paths[i] = tt_strdup(op[i].path);
    if (hubs) hubs[i] = op[i].hubs;
    free(op[i].key);
  }
  free(op);
  p->npaths = npaths;
  /* Whole files in groups of group_size; a file of many uuids in slices. */
  size_t cap = 0, widest = 1;
  for (size_t i = 0; i < npaths;) {
    tt_grow(p->groups, p->ngroups + 1, cap);
    size_t h = hubs ? hubs[i] : 1;
    if (h > HR_MAX_HUBS_PER_CONN) {
      for (size_t first = 0; first < h; first += HR_MAX_HUBS_PER_CONN) {
        tt_grow(p->groups, p->ngroups + 1, cap);
        size_t n = h - first < HR_MAX_HUBS_PER_CONN ? h - first : HR_MAX_HUBS_PER_CONN;
        p->groups[p->ngroups++] = (group){i, 1, first, n};
      }
      i++;
      continue;
    }
    size_t n = 0;
    while (i + n < npaths && n < group_size && (!hubs || hubs[i + n] <= HR_MAX_HUBS_PER_CONN)) n++;
    p->groups[p->ngroups++] = (group){i, n, 0, 0};
    if (n > widest) widest = n;
    i += n;
  }
  size_t budget = fd_budget();
  size_t max_open = budget > widest + 2 ? budget - widest : 2; /* streams beside a group's inputs */
  p->open = tt_calloc(p->ngroups + 1, sizeof *p->open);
  int ok = hr_refuse_duplicates(&r->in, paths, npaths) == 0;
  for (size_t i = 0; ok && i < p->ngroups; i++) {
    if (p->nopen >= max_open && merge_open(p) != 0) ok = 0;
    if (ok && write_group(r, i) < 0) ok = 0;
  }
  ok = ok && hr_refuse_duplicates(&r->in, paths, npaths) == 0;
  free(hubs);
  if (ok) hr_name_processes(&r->in, r->filter.host);
  if (ok) {
    p->heap = tt_calloc(p->nopen, sizeof *p->heap);
    if (heap_init(p->open, p->nopen, p->heap, &p->heap_len) != 0) {
      tt_error("merging in passes: cannot read a temporary stream: %s", strerror(errno));
      ok = 0;
    }
  }
  if (ok && r->filter.replay && hr_replay_start(r) != 0) ok = 0;
  if (!ok) {
    hub_reader_close(r);
    return NULL;
  }
  return r;
}

size_t *hr_crowded_hubs(const hub_reader *r, const char *const *paths, size_t npaths) {
  size_t *hubs = tt_calloc(npaths ? npaths : 1, sizeof *hubs);
  size_t d = 0;
  for (size_t i = 0; i < npaths; i++)
    while (d < r->in.ndbs && strcmp(r->in.dbs[d].path, paths[i]) == 0) {
      hubs[i]++;
      d++;
    }
  return hubs;
}

hub_reader *hr_passes_crowded(hub_reader *r, const char *const *paths, size_t npaths) {
  size_t *hubs = hr_crowded_hubs(r, paths, npaths);
  hub_filter f = r->filter;
  hub_reader_close(r);
  hub_reader *p = hr_passes_open(paths, npaths, &f, npaths, hubs, NULL);
  free(hubs);
  return p;
}

static int passes_next(hr_source *src, hub_record *ev) {
  hub_reader *r = src->r;
  struct hr_passes *p = r->passes;
  if (p->failed) return -1;
  p->args.left = 0;
  if (p->current) {
    stream *s = p->current;
    p->current = NULL;
    int rc = stream_step(s);
    if (rc < 0) {
      tt_error("merging in passes: cannot read a temporary stream: %s", strerror(errno));
      p->failed = 1;
      return -1;
    }
    if (rc == 0) p->heap[0] = p->heap[--p->heap_len];
    if (p->heap_len) sift_down(p->heap, p->heap_len, 0);
  }
  if (!p->heap_len) return 0;
  stream *s = p->current = p->heap[0];
  hr_rec_view(&s->rec, s->payload.data, ev);
  return 1;
}

static void passes_args_begin(hr_source *src, int db, int64_t event_id) {
  hub_reader *r = src->r;
  struct hr_passes *p = r->passes;
  p->args.left = 0;
  const stream *s = p->current;
  /* Args travel with their record: those of the record read last. */
  if (!s || s->rec.ev.db != db || s->rec.ev.event_id != event_id || event_id == HUB_NULL) return;
  hr_rec_args_begin(&p->args, &s->rec, s->payload.data);
}

static int passes_args_next(hr_source *src, hub_arg_view *a) {
  hub_reader *r = src->r;
  return hr_rec_args_next(&r->passes->args, a);
}

static const char *passes_track_name(hr_source *src, int db, int64_t track_id) {
  hub_reader *r = src->r;
  const stream *s = r->passes->current;
  if (!s || s->rec.ev.db != db || s->rec.ev.track_id != track_id) return "";
  return hr_rec_str(s->payload.data, 3);
}

/* The questions about all inputs, asked group by group. */
static int passes_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  struct hr_passes *p = r->passes;
  if (p->span_any) {
    *min_start = p->span_lo;
    *max_end = p->span_hi;
  }
  return p->span_any;
}

/* Any host's pid (the groups' readers are opened per question). */
static int passes_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  (void)host;
  int found = 0;
  for (size_t i = 0; !found && i < r->passes->ngroups; i++) {
    hub_reader *g = group_reader(r, i);
    found = g && hr_process_has_events(g, NULL, pid);
    hub_reader_close(g);
  }
  return found;
}

static int64_t passes_row_count(hub_reader *r) {
  int64_t total = 0;
  for (size_t i = 0; i < r->passes->ngroups; i++) {
    hub_reader *g = group_reader(r, i);
    if (g) total += hub_reader_row_count(g);
    hub_reader_close(g);
  }
  return total;
}

static int cmp_category(const void *a, const void *b) {
  return strcmp(((const hub_category_count *)a)->category,
                ((const hub_category_count *)b)->category);
}

/* Sums the groups' counts; a category's kinds in the order first seen, as
 * a direct read lists them. */
static int passes_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  *out = NULL;
  *n = 0;
  size_t cap = 0;
  tt_strmap ix = {0};
  for (size_t i = 0; i < r->passes->ngroups; i++) {
    hub_reader *g = group_reader(r, i);
    hub_category_count *c = NULL;
    size_t nc = 0;
    if (!g || hub_reader_category_counts(g, &c, &nc) != 0) {
      hub_reader_close(g);
      tt_strmap_free(&ix);
      return -1;
    }
    hub_reader_close(g);
    for (size_t k = 0; k < nc; k++) {
      int64_t *at = tt_strmap_get(&ix, c[k].category);
      if (!at) {
        tt_grow(*out, *n + 1, cap);
        (*out)[*n] = (hub_category_count){tt_strdup(c[k].category), 0, tt_strdup("")};
        tt_strmap_put(&ix, c[k].category, (int64_t)*n);
        at = tt_strmap_get(&ix, c[k].category);
        (*n)++;
      }
      hub_category_count *t = &(*out)[*at];
      t->count += c[k].count;
      char *kinds = tt_strdup(c[k].kinds);
      for (char *kind = strtok(kinds, ", "); kind; kind = strtok(NULL, ", ")) {
        if (strstr(t->kinds, kind)) continue;
        tt_buf b = {0};
        tt_buf_printf(&b, "%s%s%s", t->kinds, t->kinds[0] ? ", " : "", kind);
        free(t->kinds);
        t->kinds = b.data;
      }
      free(kinds);
    }
    hub_category_counts_free(c, nc);
  }
  tt_strmap_free(&ix);
  if (*n) qsort(*out, *n, sizeof **out, cmp_category);
  return 0;
}

/* The merge in passes as a source (its state is the reader's passes). */
static const hr_source_ops passes_source_ops = {passes_next, passes_args_begin, passes_args_next,
                                                passes_track_name, hr_source_free};

hr_source *hr_passes_source(hub_reader *r) { return hr_source_new(r, &passes_source_ops); }

/* In hr_query_ops's order (no two slots have one type: the compiler checks it). */
const hr_query_ops hr_passes_queries = {passes_time_span, passes_process_has_events,
                                        passes_row_count, passes_category_counts};

void hr_passes_free(hub_reader *r) {
  struct hr_passes *p = r->passes;
  if (!p) return;
  for (size_t i = 0; i < p->nopen; i++) stream_free(p->open[i]);
  for (size_t i = 0; i < p->npaths; i++) free((char *)p->paths[i]);
  free(p->paths);
  free(p->groups);
  free(p->open);
  free(p->heap);
  free(p);
  r->passes = NULL;
}
