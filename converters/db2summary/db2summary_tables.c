/* Every figure as tables of cells: the row sections (kernels, copies,
 * allocations, API and region categories), GPU busy, launch latency,
 * ExecuTorch tax, and for json and html the chart tables (event counts,
 * busy bins per device and per process, copies by direction, the launch
 * latency histogram and percentiles). Every writer reads these cells. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2summary.h"

/* --- cells ----------------------------------------------------------- */

/* A table: a title, column headers, rows of cells (strings). The last
 * column is the name in text output. */
typedef sm_table table;

void sm_table_add(table *t, char **row) {
  tt_grow(t->cells, (t->nrows + 1) * t->ncols, t->cap_cells);
  memcpy(t->cells + t->nrows * t->ncols, row, t->ncols * sizeof *row);
  t->nrows++;
}

static void table_free(table *t) {
  for (size_t i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
  free(t->cells);
  free(t->title);
}

static char *fmt(const char *f, ...) TT_PRINTF(1, 2);
static char *fmt(const char *f, ...) {
  tt_buf b = {0};
  va_list ap;
  va_start(ap, f);
  char tmp[64];
  int n = vsnprintf(tmp, sizeof tmp, f, ap);
  va_end(ap);
  if (n >= 0 && (size_t)n < sizeof tmp) return tt_strdup(tmp);
  va_start(ap, f);
  tt_buf_reserve(&b, (size_t)n + 1);
  vsnprintf(b.data, (size_t)n + 1, f, ap);
  va_end(ap);
  return b.data;
}

/* csv, json and html carry exact ns; text and markdown are read by people. */
static int machine(const sm_summary *s) {
  return s->opt->format == SM_CSV || s->opt->format == SM_JSON || s->opt->format == SM_HTML;
}

/* Durations: µs with 3 decimals (exact) for people, ns for machines. */
static char *dur_cell(const sm_summary *s, int64_t ns) {
  if (machine(s)) return fmt("%" PRId64, ns);
  const char *sign = ns < 0 ? "-" : "";
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  return fmt("%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

static char *real_cell(const sm_summary *s, double ns) {
  if (machine(s)) return fmt("%.3f", ns);
  return fmt("%.3f", ns / 1000.0);
}

static char *pct_cell(const sm_summary *s, double pct) {
  return fmt(machine(s) ? "%.6f" : "%.2f", pct);
}

static const char *unit(const sm_summary *s) {
  return machine(s) ? "ns" : "us";
}

/* --- the process a row belongs to ------------------------------------ */

const char *sm_process_name(hub_reader *r, int db, int64_t pid) {
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (p->pid == pid && (db < 0 || p->db == db)) return p->name;
  }
  return "";
}

/* The host the process ran on (its rocpd_info_node), "" if unknown. */
const char *sm_process_host(hub_reader *r, int db, int64_t pid) {
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (p->pid == pid && (db < 0 || p->db == db)) return p->hostname;
  }
  return "";
}

/* " from FILE" (the input's base name) when several inputs are read, so
 * two runs' processes are told apart by more than a pid. */
static const char *input_of(hub_reader *r, int db, char *buf, size_t cap) {
  buf[0] = 0;
  if (hub_reader_ndbs(r) < 2 || db < 0) return buf;
  const char *path = hub_reader_db_path(r, db);
  if (!path) return buf;
  const char *base = strrchr(path, '/');
  snprintf(buf, cap, " from %s", base ? base + 1 : path);
  return buf;
}

char *sm_scope_title(hub_reader *r, const char *title, int64_t pid, int db) {
  if (pid == HUB_NULL) return tt_strdup(title);
  char fbuf[512];
  const char *from = input_of(r, db, fbuf, sizeof fbuf);
  /* With a rank or host known, the process label every exporter uses. */
  const hub_process_info *p = hub_reader_find_process(r, db, pid);
  if (p && p->pid == pid && strcmp(p->label, p->name) != 0)
    return fmt("%s, %s%s", title, p->label, from);
  const char *name = sm_process_name(r, db, pid);
  const char *host = sm_process_host(r, db, pid);
  return fmt("%s, pid %lld%s%s%s%s%s%s", title, (long long)pid, name[0] ? " (" : "", name,
             name[0] ? ")" : "", host[0] ? " on " : "", host, from);
}

/* --- rows sorted: section, process, heaviest first ------------------- */

static const sm_summary *sort_ctx;

static int cmp_rows(const void *pa, const void *pb) {
  const sm_row *a = &sort_ctx->rows[*(const size_t *)pa], *b = &sort_ctx->rows[*(const size_t *)pb];
  const sm_section *sa = &sort_ctx->sections[a->section], *sb = &sort_ctx->sections[b->section];
  if (sa->order != sb->order) return sa->order < sb->order ? -1 : 1;
  int c = strcmp(sa->title, sb->title);
  if (c) return c;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  if (a->db != b->db) return a->db < b->db ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  if (a->calls != b->calls) return a->calls > b->calls ? -1 : 1;
  return strcmp(a->name, b->name);
}

static int same_group(const sm_row *a, const sm_row *b) {
  return a->section == b->section && a->pid == b->pid && a->db == b->db;
}

/* Row columns: pid and host first with --by-process, bytes for copies
 * and allocations, the name last. */
static const char *const row_cols[] = {"pid", "host", "calls", "total", "avg", "min", "max",
                                       "stddev", "percent", "bytes", "name"};

static void section_tables(sm_summary *s, hub_reader *r, table **out, size_t *nout, size_t *cap) {
  size_t *order = tt_malloc((s->nrows ? s->nrows : 1) * sizeof *order);
  for (size_t i = 0; i < s->nrows; i++) order[i] = i;
  sort_ctx = s;
  qsort(order, s->nrows, sizeof *order, cmp_rows);
  for (size_t i = 0; i < s->nrows;) {
    size_t j = i;
    int64_t group_total = 0;
    while (j < s->nrows && same_group(&s->rows[order[i]], &s->rows[order[j]]))
      group_total += s->rows[order[j++]].total;
    const sm_row *first = &s->rows[order[i]];
    const sm_section *sec = &s->sections[first->section];
    int bytes = sec->kind == SEC_COPY || sec->kind == SEC_ALLOC || sec->kind == SEC_MEMSET;
    int with_pid = first->pid != HUB_NULL;
    tt_grow(*out, *nout + 1, *cap);
    table *t = &(*out)[(*nout)++];
    /* the column list: a pid column only by process, bytes only for memory */
    static const char *const plain[] = {"calls", "total", "avg", "min", "max", "stddev",
                                        "percent", "name"};
    static const char *const plain_bytes[] = {"calls", "total", "avg", "min", "max",
                                              "stddev", "percent", "bytes", "name"};
    static const char *const pid_plain[] = {"pid", "host", "calls", "total", "avg", "min", "max",
                                            "stddev", "percent", "name"};
    const char *const *cols = with_pid ? (bytes ? row_cols : pid_plain)
                                       : (bytes ? plain_bytes : plain);
    *t = (table){.id = sec->key, .slug = sec->slug, .title = sm_scope_title(r, sec->title, first->pid, first->db),
                 .cols = cols, .ncols = 8u + (size_t)bytes + 2u * (size_t)with_pid,
                 .pid = first->pid, .db = first->db, .kind = sec->kind,
                 .section = first->section};
    /* --truncate-kernels: rows stay one per kernel name; names that
     * shorten alike are told apart by "[n of m]", heaviest first */
    tt_strmap shorts = {0}, seen = {0};
    for (size_t k = i; k < j; k++) {
      const char *sn = s->rows[order[k]].short_name;
      if (!sn) continue;
      int64_t *c = tt_strmap_get(&shorts, sn);
      if (c) (*c)++;
      else tt_strmap_put(&shorts, sn, 1);
    }
    for (size_t k = i; k < j; k++) {
      if (s->opt->top > 0 && (int64_t)(k - i) >= s->opt->top) break;
      const sm_row *w = &s->rows[order[k]];
      double avg = (double)w->total / (double)w->calls;
      double sd = sqrt(w->m2 / (double)w->calls);
      char *cells[11];
      size_t c = 0;
      if (with_pid) {
        cells[c++] = fmt("%lld", (long long)w->pid);
        cells[c++] = tt_strdup(sm_process_host(r, w->db, w->pid));
      }
      cells[c++] = fmt("%" PRIu64, w->calls);
      cells[c++] = dur_cell(s, w->total);
      cells[c++] = real_cell(s, avg);
      cells[c++] = dur_cell(s, w->min);
      cells[c++] = dur_cell(s, w->max);
      cells[c++] = real_cell(s, sd);
      cells[c++] = pct_cell(s, group_total ? 100.0 * (double)w->total / (double)group_total : 0.0);
      if (bytes) cells[c++] = fmt("%" PRId64, w->bytes);
      int64_t *same = w->short_name ? tt_strmap_get(&shorts, w->short_name) : NULL;
      if (!same) {
        cells[c++] = tt_strdup(w->name);
      } else if (*same == 1) {
        cells[c++] = tt_strdup(w->short_name);
      } else {
        int64_t *nth = tt_strmap_get(&seen, w->short_name);
        if (nth) (*nth)++;
        else tt_strmap_put(&seen, w->short_name, 1);
        cells[c++] = fmt("%s [%lld of %lld]", w->short_name, (long long)(nth ? *nth : 1),
                         (long long)*same);
      }
      sm_table_add(t, cells);
    }
    tt_strmap_free(&shorts);
    tt_strmap_free(&seen);
    i = j;
  }
  free(order);
}

/* --- GPU busy and launch latency ------------------------------------- */

static const char *const busy_cols[] = {"pid", "busy", "busy_percent", "idle", "summed",
                                        "summed_percent", "intervals", "agent"};

static int cmp_agents(const void *pa, const void *pb) {
  const sm_agent *a = pa, *b = pb;
  if (a->db != b->db) return a->db < b->db ? -1 : 1;
  return (a->agent_id > b->agent_id) - (a->agent_id < b->agent_id);
}

/* "GPU 0 NVIDIA A100 [rank 3] nodeA": the device, then the rank and host
 * of its process where the hub knows them, so two hosts' GPU 0 differ. */
static char *agent_label(hub_reader *r, const sm_agent *a) {
  const hub_agent_view *v = hub_reader_find_agent(r, a->db, a->agent_id);
  if (!v) return fmt("agent %lld", (long long)a->agent_id);
  const hub_process_info *p = hub_reader_find_process(r, a->db, v->pid);
  char rank[40] = "";
  if (p && p->rank != HUB_NULL) snprintf(rank, sizeof rank, " [rank %lld]", (long long)p->rank);
  const char *host = p ? p->hostname : "";
  return fmt("%s %lld%s%s%s%s%s", v->type, (long long)v->type_index, v->product_name[0] ? " " : "",
             v->product_name, rank, host[0] ? " " : "", host);
}

static table busy_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "gpu_busy", .title = tt_strdup("GPU busy (union of intervals over the span)"),
             .cols = busy_cols, .ncols = 8, .pid = HUB_NULL, .db = -1, .section = -1};
  if (s->nagents) qsort(s->agents, s->nagents, sizeof *s->agents, cmp_agents);
  int64_t span = s->span_end > s->span_start ? s->span_end - s->span_start : 0;
  for (size_t i = 0; i < s->nagents; i++) {
    const sm_agent *a = &s->agents[i];
    const hub_agent_view *v = hub_reader_find_agent(r, a->db, a->agent_id);
    char *label = agent_label(r, a);
    double den = span ? (double)span : 1.0;
    char *cells[8] = {v ? fmt("%lld", (long long)v->pid) : tt_strdup(""), dur_cell(s, a->u.busy),
                      pct_cell(s, 100.0 * (double)a->u.busy / den), dur_cell(s, span - a->u.busy),
                      dur_cell(s, a->summed), pct_cell(s, 100.0 * (double)a->summed / den),
                      fmt("%" PRIu64, a->intervals), label};
    sm_table_add(&t, cells);
  }
  return t;
}

static const char *const lat_cols[] = {"pid", "launches", "min", "avg", "p50", "p99", "max",
                                       "scope"};

static int cmp_lat(const void *pa, const void *pb) {
  const sm_latency *a = pa, *b = pb;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return (a->db > b->db) - (a->db < b->db);
}

static table latency_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "launch_latency",
             .title = tt_strdup("Launch latency (first GPU work start - launching call start, one per call)"),
             .cols = lat_cols, .ncols = 8, .pid = HUB_NULL, .db = -1, .section = -1};
  if (s->nlat) qsort(s->lat, s->nlat, sizeof *s->lat, cmp_lat);
  for (size_t i = 0; i < s->nlat; i++) {
    const sm_hist *h = &s->lat[i].hist;
    int64_t pid = s->lat[i].pid;
    /* A process by its label, as the by-process tables' titles: two hosts'
     * ranks of one command and pid are two rows that say which is which. */
    const hub_process_info *p =
        pid == HUB_NULL ? NULL : hub_reader_find_process(r, s->lat[i].db, pid);
    char *cells[8] = {pid == HUB_NULL ? tt_strdup("") : fmt("%lld", (long long)pid),
                      fmt("%" PRIu64, h->n), dur_cell(s, h->min),
                      real_cell(s, (double)h->sum / (double)h->n),
                      dur_cell(s, sm_hist_percentile(h, 50)), dur_cell(s, sm_hist_percentile(h, 99)),
                      dur_cell(s, h->max),
                      pid == HUB_NULL ? tt_strdup("all processes")
                      : p && p->label[0] ? tt_strdup(p->label)
                                         : tt_strdup(sm_process_name(r, s->lat[i].db, pid))};
    sm_table_add(&t, cells);
  }
  return t;
}

static const char *const et_cols[] = {"pid", "iterations", "tax_avg_percent",
                                      "tax_min_percent", "tax_max_percent", "execute",
                                      "kernels", "block"};

static table executorch_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "executorch_tax",
             .title = tt_strdup("ExecuTorch framework tax per iteration ((execute - kernels) / "
                                "execute)"),
             .cols = et_cols, .ncols = 8, .pid = HUB_NULL, .db = -1, .section = -1};
  for (size_t i = 0; i < s->net; i++) {
    const sm_et_block *b = &s->et[i];
    if (!b->iterations) continue;
    const hub_thread_info *th = hub_reader_find_thread(r, b->db, b->tid);
    char *cells[8] = {fmt("%lld", (long long)b->pid), fmt("%" PRIu64, b->iterations),
                      pct_cell(s, b->tax_sum / (double)b->iterations), pct_cell(s, b->tax_min),
                      pct_cell(s, b->tax_max), dur_cell(s, b->exec_total),
                      dur_cell(s, b->kernel_total),
                      th && th->name[0] ? tt_strdup(th->name) : fmt("tid %lld", (long long)b->tid)};
    sm_table_add(&t, cells);
  }
  return t;
}

/* --- chart tables (json and html) ------------------------------------ */

/* x as printf's "%.2f" writes it (round to nearest, ties to even, on x's
 * exact value), for 0 <= x < 1e15, without printf: the bins of a thousand
 * processes are 400k numbers. x * 100 is exact in long double (53 + 7
 * bits), so its fraction decides the rounding exactly. */
static void put_fixed2(tt_buf *b, double x) {
  long double X = (long double)x * 100;
  long double f = floorl(X);
  uint64_t c = (uint64_t)f;
  long double r = X - f;
  if (r > 0.5L || (r == 0.5L && (c & 1))) c++;
  char tmp[24];
  int n = 0;
  tmp[n++] = (char)('0' + c % 10);
  c /= 10;
  tmp[n++] = (char)('0' + c % 10);
  c /= 10;
  tmp[n++] = '.';
  do {
    tmp[n++] = (char)('0' + c % 10);
    c /= 10;
  } while (c);
  while (n) tt_buf_putc(b, tmp[--n]);
}

/* Busy percent of each bin, as a json array ("0" for an idle bin). */
static char *bins_cell(const sm_summary *s, const int64_t *bins) {
  tt_buf b = {0};
  tt_buf_reserve(&b, (size_t)s->bins.n * 2 + 2);
  tt_buf_putc(&b, '[');
  for (int i = 0; i < s->bins.n; i++) {
    if (i) tt_buf_putc(&b, ',');
    int64_t v = bins ? bins[i] : 0;
    if (v == 0) tt_buf_putc(&b, '0');
    else put_fixed2(&b, 100.0 * (double)v / (double)s->bins.width);
  }
  tt_buf_putc(&b, ']');
  return b.data;
}

static const char *const kinds_cols[] = {"events", "kind"};

static table event_counts_table(sm_summary *s) {
  table t = {.id = "event_counts", .title = tt_strdup("Events by kind"), .cols = kinds_cols,
             .ncols = 2, .pid = HUB_NULL, .db = -1, .section = -1};
  for (int k = 0; k < HUB_KIND_COUNT; k++) {
    if (s->kind_events[k]) {
      char *cells[2] = {fmt("%" PRIu64, s->kind_events[k]), tt_strdup(hub_kind_name((hub_kind)k))};
      sm_table_add(&t, cells);
    }
    if (k == HUB_KERNEL && s->memset_events) { /* counted apart from kernels */
      char *cells[2] = {fmt("%" PRIu64, s->memset_events), tt_strdup("memset")};
      sm_table_add(&t, cells);
    }
  }
  return t;
}

/* After busy_table: the agents in its order. */
static const char *const activity_cols[] = {"pid", "busy", "bins", "agent"};

static table activity_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "gpu_activity",
             .title = tt_strdup("GPU activity over time (busy percent per bin)"),
             .cols = activity_cols, .ncols = 4, .pid = HUB_NULL, .db = -1, .section = -1};
  for (size_t i = 0; i < s->nagents; i++) {
    const sm_agent *a = &s->agents[i];
    const hub_agent_view *v = hub_reader_find_agent(r, a->db, a->agent_id);
    char *cells[4] = {v ? fmt("%lld", (long long)v->pid) : tt_strdup(""), dur_cell(s, a->u.busy),
                      bins_cell(s, a->u.bins), agent_label(r, a)};
    sm_table_add(&t, cells);
  }
  return t;
}

static int cmp_procs(const void *pa, const void *pb) {
  const sm_proc *a = pa, *b = pb;
  /* ranks in rank order, before the processes without one */
  if (a->rank != b->rank) {
    if (a->rank == HUB_NULL || b->rank == HUB_NULL) return a->rank == HUB_NULL ? 1 : -1;
    return a->rank < b->rank ? -1 : 1;
  }
  if (a->kernels.busy != b->kernels.busy) return a->kernels.busy > b->kernels.busy ? -1 : 1;
  if (a->gpu.busy != b->gpu.busy) return a->gpu.busy > b->gpu.busy ? -1 : 1;
  if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
  return (a->db > b->db) - (a->db < b->db);
}

/* Per process, within its span: kernel busy (union of its kernels), copy
 * busy (its copies outside its kernels' union), idle (the rest); ranks in
 * rank order, then the heaviest kernel busy first. */
static const char *const proc_cols[] = {"pid",         "host",      "clock", "events",
                                        "start",       "end",       "span",  "kernel_busy",
                                        "copy_busy",   "idle",      "busy_percent",
                                        "bins",        "name"};

static table processes_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "processes",
             .title = tt_strdup("Processes side by side (kernel busy, copy busy and idle within "
                                "each one's span)"),
             .cols = proc_cols, .ncols = 13, .pid = HUB_NULL, .db = -1, .section = -1};
  for (size_t i = 0; i < s->nprocs; i++) {
    const hub_process_info *info = hub_reader_find_process(r, s->procs[i].db, s->procs[i].pid);
    s->procs[i].rank = info && info->pid == s->procs[i].pid ? info->rank : HUB_NULL;
  }
  if (s->nprocs) qsort(s->procs, s->nprocs, sizeof *s->procs, cmp_procs);
  /* the map's indexes are stale once sorted: nothing is added after */
  for (size_t i = 0; i < s->nprocs; i++) {
    const sm_proc *p = &s->procs[i];
    int64_t span = p->last - p->first;
    /* the name every exporter gives the process: with its rank and host */
    const hub_process_info *info = hub_reader_find_process(r, p->db, p->pid);
    const char *name = info && info->pid == p->pid ? info->label : sm_process_name(r, p->db, p->pid);
    char *cells[13] = {fmt("%lld", (long long)p->pid),
                       tt_strdup(sm_process_host(r, p->db, p->pid)),
                       tt_strdup(hub_clock_name(info && info->pid == p->pid ? info->clock : HUB_CLOCK_UNKNOWN)),
                       fmt("%" PRIu64, p->events),
                       dur_cell(s, p->first),
                       dur_cell(s, p->last),
                       dur_cell(s, span),
                       dur_cell(s, p->kernels.busy),
                       dur_cell(s, p->gpu.busy - p->kernels.busy),
                       dur_cell(s, span - p->gpu.busy),
                       pct_cell(s, span ? 100.0 * (double)p->gpu.busy / (double)span : 0.0),
                       bins_cell(s, p->gpu.bins),
                       name[0] ? tt_strdup(name) : fmt("pid %lld", (long long)p->pid)};
    sm_table_add(&t, cells);
  }
  return t;
}

/* Copies grouped by name (the direction, as the profilers name copies)
 * over every process; the bandwidth is bytes over the summed time. */
static const char *const dir_cols[] = {"calls", "bytes", "total", "gb_per_s", "name"};

typedef struct dir_acc {
  const char *name;
  uint64_t calls;
  int64_t bytes, total;
} dir_acc;

static int cmp_dirs(const void *pa, const void *pb) {
  const dir_acc *a = pa, *b = pb;
  if (a->bytes != b->bytes) return a->bytes > b->bytes ? -1 : 1;
  if (a->total != b->total) return a->total > b->total ? -1 : 1;
  return strcmp(a->name, b->name);
}

static table directions_table(sm_summary *s) {
  table t = {.id = "copies_by_direction", .title = tt_strdup("Memory copies by direction"),
             .cols = dir_cols, .ncols = 5, .pid = HUB_NULL, .db = -1, .section = -1};
  dir_acc *d = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < s->nrows; i++) {
    const sm_row *w = &s->rows[i];
    if (s->sections[w->section].kind != SEC_COPY) continue;
    size_t k = 0;
    while (k < n && strcmp(d[k].name, w->name) != 0) k++;
    if (k == n) {
      tt_grow(d, n + 1, cap);
      d[n++] = (dir_acc){.name = w->name};
    }
    d[k].calls += w->calls;
    d[k].bytes += w->bytes;
    d[k].total += w->total;
  }
  if (n) qsort(d, n, sizeof *d, cmp_dirs);
  for (size_t k = 0; k < n; k++) {
    char *cells[5] = {fmt("%" PRIu64, d[k].calls), fmt("%" PRId64, d[k].bytes),
                      dur_cell(s, d[k].total),
                      fmt("%.3f", d[k].total ? (double)d[k].bytes / (double)d[k].total : 0.0),
                      tt_strdup(d[k].name)};
    sm_table_add(&t, cells);
  }
  free(d);
  return t;
}

/* Launch latency histogram: quarter-octave bins ([4, 5), [5, 6) ... [8,
 * 10), [10, 12) ... ns), exact below 4 ns; each of the summary histogram's
 * buckets falls in one of them. A negative latency (clock skew) counts in
 * [0, 1), as in the percentiles. */
#define LAT_BINS 256

static int lat_bin(uint64_t v, int64_t *lo, int64_t *hi) {
  if (v >= (uint64_t)1 << 59) v = ((uint64_t)1 << 59) - 1; /* 18 years: the last bin */
  if (v < 4) {
    *lo = (int64_t)v;
    *hi = (int64_t)v + 1;
    return (int)v;
  }
  int e = 63 - __builtin_clzll(v);
  int q = (int)((v >> (e - 2)) & 3);
  *lo = (int64_t)(4 + q) << (e - 2);
  *hi = (int64_t)(5 + q) << (e - 2);
  return 4 + 4 * (e - 2) + q;
}

static const char *const hist_cols[] = {"pid", "lo", "hi", "launches", "scope"};

static table latency_hist_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "launch_latency_histogram",
             .title = tt_strdup("Launch latency histogram (quarter-octave bins)"),
             .cols = hist_cols, .ncols = 5, .pid = HUB_NULL, .db = -1, .section = -1};
  for (size_t i = 0; i < s->nlat; i++) {
    const sm_hist *h = &s->lat[i].hist;
    uint64_t count[LAT_BINS] = {0};
    int first = LAT_BINS, last = -1;
    for (int slot = 0; slot < SM_HIST_EXPS; slot++) {
      if (!h->bucket[slot]) continue;
      for (int sub = 0; sub < SM_HIST_SUB; sub++) {
        if (!h->bucket[slot][sub]) continue;
        uint64_t v = slot == 0 ? (uint64_t)sub : (uint64_t)(SM_HIST_SUB + sub) << (slot - 1);
        int64_t lo, hi;
        int b = lat_bin(v, &lo, &hi);
        count[b] += h->bucket[slot][sub];
        if (b < first) first = b;
        if (b > last) last = b;
      }
    }
    int64_t pid = s->lat[i].pid;
    /* a few empty bins each side: the shape reads even when one bin holds all */
    first = first > 4 ? first - 4 : 0;
    last = last + 4 < LAT_BINS - 1 ? last + 4 : LAT_BINS - 1;
    if (last > 4 + 4 * 56 + 3) last = 4 + 4 * 56 + 3; /* the last bin below 2^59 */
    for (int b = first; b <= last; b++) {
      /* the bounds of bin b: from its first value */
      uint64_t v = b < 4 ? (uint64_t)b : (uint64_t)(4 + (b - 4) % 4) << ((b - 4) / 4);
      int64_t lo, hi;
      lat_bin(v, &lo, &hi);
      char *cells[5] = {pid == HUB_NULL ? tt_strdup("") : fmt("%lld", (long long)pid),
                        dur_cell(s, lo), dur_cell(s, hi), fmt("%" PRIu64, count[b]),
                        pid == HUB_NULL ? tt_strdup("all processes")
                                        : tt_strdup(sm_process_name(r, s->lat[i].db, pid))};
      sm_table_add(&t, cells);
    }
  }
  return t;
}

static const char *const pctl_cols[] = {"pid", "launches", "p50", "p90", "p95", "p99", "p999",
                                        "scope"};

static table latency_pctl_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "launch_latency_percentiles",
             .title = tt_strdup("Launch latency percentiles"), .cols = pctl_cols, .ncols = 8,
             .pid = HUB_NULL, .db = -1, .section = -1};
  for (size_t i = 0; i < s->nlat; i++) {
    const sm_hist *h = &s->lat[i].hist;
    int64_t pid = s->lat[i].pid;
    /* A process by its label, as the by-process tables' titles: two hosts'
     * ranks of one command and pid are two rows that say which is which. */
    const hub_process_info *p =
        pid == HUB_NULL ? NULL : hub_reader_find_process(r, s->lat[i].db, pid);
    char *cells[8] = {pid == HUB_NULL ? tt_strdup("") : fmt("%lld", (long long)pid),
                      fmt("%" PRIu64, h->n),
                      dur_cell(s, sm_hist_percentile(h, 50)),
                      dur_cell(s, sm_hist_percentile(h, 90)),
                      dur_cell(s, sm_hist_percentile(h, 95)),
                      dur_cell(s, sm_hist_percentile(h, 99)),
                      dur_cell(s, sm_hist_percentile(h, 99.9)),
                      pid == HUB_NULL ? tt_strdup("all processes")
                      : p && p->label[0] ? tt_strdup(p->label)
                                         : tt_strdup(sm_process_name(r, s->lat[i].db, pid))};
    sm_table_add(&t, cells);
  }
  return t;
}

/* --- the whole set --------------------------------------------------- */

size_t sm_tables(sm_summary *s, hub_reader *r, table **out) {
  table *tables = NULL;
  size_t n = 0, cap = 0;
  section_tables(s, r, &tables, &n, &cap);
  sm_sample_tables(s, r, &tables, &n, &cap);
  tt_grow(tables, n + 10, cap);
  if (sm_clocks_table(s, &tables[n])) n++;
  tables[n++] = busy_table(s, r); /* sorts the agents */
  tables[n++] = latency_table(s, r); /* sorts the latency scopes */
  if (s->executorch) tables[n++] = executorch_table(s, r);
  if (s->charts) {
    tables[n++] = event_counts_table(s);
    tables[n++] = activity_table(s, r);
    tables[n++] = processes_table(s, r);
    tables[n++] = directions_table(s);
    tables[n++] = latency_hist_table(s, r);
    tables[n++] = latency_pctl_table(s, r);
  }
  /* the tables of fixed ids ("gpu_busy") are their own slugs */
  for (size_t i = 0; i < n; i++)
    if (!tables[i].slug) tables[i].slug = tables[i].id;
  *out = tables;
  return n;
}

void sm_tables_free_one(table *t) { table_free(t); }

void sm_tables_free(table *t, size_t n) {
  for (size_t i = 0; i < n; i++) table_free(&t[i]);
  free(t);
}

const char *sm_col_title(const sm_summary *s, const char *c) {
  static char buf[64];
  static const char *const timed[] = {"total", "avg",   "min",     "max",         "stddev",
                                      "p50",   "p90",   "p95",     "p99",         "p999",
                                      "busy",  "idle",  "summed",  "execute",     "kernels",
                                      "start", "end",   "span",    "kernel_busy", "copy_busy",
                                      "lo",    "hi"};
  for (size_t i = 0; i < sizeof timed / sizeof *timed; i++)
    if (strcmp(c, timed[i]) == 0) {
      snprintf(buf, sizeof buf, "%s_%s", c, unit(s));
      return buf;
    }
  return c;
}

int sm_col_is_text(const char *c) {
  static const char *const text[] = {"name", "host", "clock", "agent", "scope", "block", "kind",
                                     "method"};
  for (size_t i = 0; i < sizeof text / sizeof *text; i++)
    if (strcmp(c, text[i]) == 0) return 1;
  return 0;
}

int sm_col_is_array(const char *c) { return strcmp(c, "bins") == 0; }

const char *sm_cell(const table *t, size_t row, const char *col) {
  for (size_t c = 0; c < t->ncols; c++)
    if (strcmp(t->cols[c], col) == 0) return t->cells[row * t->ncols + c];
  return NULL;
}

void sm_clocks(hub_reader *r, tt_buf *out) {
  int seen[HUB_CLOCK_COUNT] = {0};
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) seen[hub_reader_process(r, i)->clock] = 1;
  for (int c = 0; c < HUB_CLOCK_COUNT; c++)
    if (seen[c]) tt_buf_printf(out, "%s%s", out->len ? ", " : "", hub_clock_name((hub_clock)c));
}

size_t sm_host_count(const sm_summary *s, hub_reader *r) {
  tt_strmap seen = {0};
  size_t n = 0;
  for (size_t i = 0; i < s->nprocs; i++) {
    const char *h = sm_process_host(r, s->procs[i].db, s->procs[i].pid);
    if (!h[0] || tt_strmap_get(&seen, h)) continue;
    tt_strmap_put(&seen, h, 1);
    n++;
  }
  tt_strmap_free(&seen);
  return n;
}
