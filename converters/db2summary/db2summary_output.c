/* The summary as tables: text (aligned, the name last so long C++ names
 * need no column width), csv (one block per table, blank-line separated),
 * markdown, or one json document. Text and markdown show µs with three
 * decimals (exact ns); csv and json give ns. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "db2summary.h"

/* --- cells ----------------------------------------------------------- */

/* A table: a title, column headers, rows of cells (strings). The last
 * column is the name in text output. */
typedef struct table {
  const char *id; /* csv/json table id: "kernels", "gpu_busy" ... */
  char *title;
  const char *const *cols;
  size_t ncols;
  char **cells; /* nrows * ncols */
  size_t nrows;
  int64_t pid;
  int db;
} table;

static void table_add(table *t, char **row) {
  t->cells = tt_realloc(t->cells, (t->nrows + 1) * t->ncols * sizeof *t->cells);
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

/* Durations: µs with 3 decimals (exact) for people, ns for machines. */
static char *dur_cell(const sm_summary *s, int64_t ns) {
  if (s->opt->format == SM_CSV || s->opt->format == SM_JSON) return fmt("%" PRId64, ns);
  const char *sign = ns < 0 ? "-" : "";
  uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  return fmt("%s%" PRIu64 ".%03" PRIu64, sign, a / 1000, a % 1000);
}

static char *real_cell(const sm_summary *s, double ns) {
  if (s->opt->format == SM_CSV || s->opt->format == SM_JSON) return fmt("%.3f", ns);
  return fmt("%.3f", ns / 1000.0);
}

static char *pct_cell(const sm_summary *s, double pct) {
  return fmt(s->opt->format == SM_CSV || s->opt->format == SM_JSON ? "%.6f" : "%.2f", pct);
}

static const char *unit(const sm_summary *s) {
  return s->opt->format == SM_CSV || s->opt->format == SM_JSON ? "ns" : "us";
}

/* --- the process a row belongs to ------------------------------------ */

static const char *process_name(hub_reader *r, int db, int64_t pid) {
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (p->pid == pid && (db < 0 || p->db == db)) return p->name;
  }
  return "";
}

/* The host the process ran on (its rocpd_info_node), "" if unknown. */
static const char *process_host(hub_reader *r, int db, int64_t pid) {
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (p->pid == pid && (db < 0 || p->db == db)) return p->hostname;
  }
  return "";
}

static char *scope_title(hub_reader *r, const char *title, int64_t pid, int db) {
  if (pid == HUB_NULL) return tt_strdup(title);
  /* With a rank or host known, the process label every exporter uses. */
  const hub_process_info *p = hub_reader_find_process(r, db, pid);
  if (p && p->pid == pid && strcmp(p->label, p->name) != 0) return fmt("%s, %s", title, p->label);
  const char *name = process_name(r, db, pid);
  const char *host = process_host(r, db, pid);
  return fmt("%s, pid %lld%s%s%s%s%s", title, (long long)pid, name[0] ? " (" : "", name,
             name[0] ? ")" : "", host[0] ? " on " : "", host);
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

static void section_tables(sm_summary *s, hub_reader *r, table **out, size_t *nout) {
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
    int bytes = sec->kind == SEC_COPY || sec->kind == SEC_ALLOC;
    int with_pid = first->pid != HUB_NULL;
    *out = tt_realloc(*out, (*nout + 1) * sizeof **out);
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
    *t = (table){.id = sec->key, .title = scope_title(r, sec->title, first->pid, first->db),
                 .cols = cols, .ncols = 8u + (size_t)bytes + 2u * (size_t)with_pid,
                 .pid = first->pid, .db = first->db};
    for (size_t k = i; k < j; k++) {
      if (s->opt->top > 0 && (int64_t)(k - i) >= s->opt->top) break;
      const sm_row *w = &s->rows[order[k]];
      double avg = (double)w->total / (double)w->calls;
      double sd = sqrt(w->m2 / (double)w->calls);
      char *cells[11];
      size_t c = 0;
      if (with_pid) {
        cells[c++] = fmt("%lld", (long long)w->pid);
        cells[c++] = tt_strdup(process_host(r, w->db, w->pid));
      }
      cells[c++] = fmt("%" PRIu64, w->calls);
      cells[c++] = dur_cell(s, w->total);
      cells[c++] = real_cell(s, avg);
      cells[c++] = dur_cell(s, w->min);
      cells[c++] = dur_cell(s, w->max);
      cells[c++] = real_cell(s, sd);
      cells[c++] = pct_cell(s, group_total ? 100.0 * (double)w->total / (double)group_total : 0.0);
      if (bytes) cells[c++] = fmt("%" PRId64, w->bytes);
      cells[c++] = tt_strdup(w->name);
      table_add(t, cells);
    }
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

static table busy_table(sm_summary *s, hub_reader *r) {
  table t = {.id = "gpu_busy", .title = tt_strdup("GPU busy (union of intervals over the span)"),
             .cols = busy_cols, .ncols = 8, .pid = HUB_NULL, .db = -1};
  if (s->nagents) qsort(s->agents, s->nagents, sizeof *s->agents, cmp_agents);
  int64_t span = s->span_end > s->span_start ? s->span_end - s->span_start : 0;
  for (size_t i = 0; i < s->nagents; i++) {
    const sm_agent *a = &s->agents[i];
    const hub_agent_view *v = hub_reader_find_agent(r, a->db, a->agent_id);
    char *label = v ? fmt("%s %lld%s%s", v->type, (long long)v->type_index,
                          v->product_name[0] ? " " : "", v->product_name)
                    : fmt("agent %lld", (long long)a->agent_id);
    double den = span ? (double)span : 1.0;
    char *cells[8] = {v ? fmt("%lld", (long long)v->pid) : tt_strdup(""), dur_cell(s, a->busy),
                      pct_cell(s, 100.0 * (double)a->busy / den), dur_cell(s, span - a->busy),
                      dur_cell(s, a->summed), pct_cell(s, 100.0 * (double)a->summed / den),
                      fmt("%" PRIu64, a->intervals), label};
    table_add(&t, cells);
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
             .title = tt_strdup("Launch latency (kernel start - launching call start)"),
             .cols = lat_cols, .ncols = 8, .pid = HUB_NULL, .db = -1};
  if (s->nlat) qsort(s->lat, s->nlat, sizeof *s->lat, cmp_lat);
  for (size_t i = 0; i < s->nlat; i++) {
    const sm_hist *h = &s->lat[i].hist;
    int64_t pid = s->lat[i].pid;
    char *cells[8] = {pid == HUB_NULL ? tt_strdup("") : fmt("%lld", (long long)pid),
                      fmt("%" PRIu64, h->n), dur_cell(s, h->min),
                      real_cell(s, (double)h->sum / (double)h->n),
                      dur_cell(s, sm_hist_percentile(h, 50)), dur_cell(s, sm_hist_percentile(h, 99)),
                      dur_cell(s, h->max),
                      pid == HUB_NULL ? tt_strdup("all processes")
                                      : tt_strdup(process_name(r, s->lat[i].db, pid))};
    table_add(&t, cells);
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
             .cols = et_cols, .ncols = 8, .pid = HUB_NULL, .db = -1};
  for (size_t i = 0; i < s->net; i++) {
    const sm_et_block *b = &s->et[i];
    if (!b->iterations) continue;
    const hub_thread_info *th = hub_reader_find_thread(r, b->db, b->tid);
    char *cells[8] = {fmt("%lld", (long long)b->pid), fmt("%" PRIu64, b->iterations),
                      pct_cell(s, b->tax_sum / (double)b->iterations), pct_cell(s, b->tax_min),
                      pct_cell(s, b->tax_max), dur_cell(s, b->exec_total),
                      dur_cell(s, b->kernel_total),
                      th && th->name[0] ? tt_strdup(th->name) : fmt("tid %lld", (long long)b->tid)};
    table_add(&t, cells);
  }
  return t;
}

/* --- writers --------------------------------------------------------- */

static const char *col_title(const sm_summary *s, const char *c) {
  static char buf[64];
  static const char *const timed[] = {"total", "avg", "min", "max", "stddev", "p50", "p99",
                                      "busy", "idle", "summed", "execute", "kernels"};
  for (size_t i = 0; i < sizeof timed / sizeof *timed; i++)
    if (strcmp(c, timed[i]) == 0) {
      snprintf(buf, sizeof buf, "%s_%s", c, unit(s));
      return buf;
    }
  return c;
}

static int is_text_col(const char *c) {
  return strcmp(c, "name") == 0 || strcmp(c, "host") == 0 || strcmp(c, "agent") == 0 || strcmp(c, "scope") == 0 ||
         strcmp(c, "block") == 0;
}

static void write_text(const sm_summary *s, const table *t, FILE *fp) {
  fprintf(fp, "\n%s\n", t->title);
  if (t->nrows == 0) {
    fputs("  (none)\n", fp);
    return;
  }
  size_t w[16] = {0};
  for (size_t c = 0; c < t->ncols; c++) {
    w[c] = strlen(col_title(s, t->cols[c]));
    for (size_t i = 0; i < t->nrows; i++) {
      size_t n = strlen(t->cells[i * t->ncols + c]);
      if (n > w[c]) w[c] = n;
    }
  }
  for (size_t c = 0; c < t->ncols; c++) {
    const char *h = col_title(s, t->cols[c]);
    if (c + 1 == t->ncols) fprintf(fp, "  %s\n", h);
    else fprintf(fp, "%s%*s", c ? "  " : "", (int)w[c], h);
  }
  for (size_t i = 0; i < t->nrows; i++)
    for (size_t c = 0; c < t->ncols; c++) {
      const char *v = t->cells[i * t->ncols + c];
      if (c + 1 == t->ncols) fprintf(fp, "  %s\n", v);
      else fprintf(fp, "%s%*s", c ? "  " : "", (int)w[c], v);
    }
}

static void csv_field(FILE *fp, const char *v) {
  if (!strpbrk(v, ",\"\n\r")) {
    fputs(v, fp);
    return;
  }
  fputc('"', fp);
  for (; *v; v++) {
    if (*v == '"') fputc('"', fp);
    fputc(*v, fp);
  }
  fputc('"', fp);
}

static void write_csv(const sm_summary *s, const table *t, FILE *fp, int first) {
  if (!first) fputc('\n', fp);
  fputs("table", fp);
  for (size_t c = 0; c < t->ncols; c++) fprintf(fp, ",%s", col_title(s, t->cols[c]));
  fputc('\n', fp);
  for (size_t i = 0; i < t->nrows; i++) {
    csv_field(fp, t->id);
    for (size_t c = 0; c < t->ncols; c++) {
      fputc(',', fp);
      csv_field(fp, t->cells[i * t->ncols + c]);
    }
    fputc('\n', fp);
  }
}

static void md_cell(FILE *fp, const char *v) {
  for (; *v; v++) {
    if (*v == '|' || *v == '\\' || *v == '*' || *v == '_' || *v == '<' || *v == '>' ||
        *v == '`')
      fputc('\\', fp);
    fputc(*v == '\n' ? ' ' : *v, fp);
  }
}

static void write_markdown(const sm_summary *s, const table *t, FILE *fp) {
  fprintf(fp, "\n### ");
  md_cell(fp, t->title);
  fputs("\n\n", fp);
  if (t->nrows == 0) {
    fputs("(none)\n", fp);
    return;
  }
  for (size_t c = 0; c < t->ncols; c++) fprintf(fp, "| %s ", col_title(s, t->cols[c]));
  fputs("|\n", fp);
  for (size_t c = 0; c < t->ncols; c++) fputs(is_text_col(t->cols[c]) ? "|:--" : "|--:", fp);
  fputs("|\n", fp);
  for (size_t i = 0; i < t->nrows; i++) {
    for (size_t c = 0; c < t->ncols; c++) {
      fputs("| ", fp);
      md_cell(fp, t->cells[i * t->ncols + c]);
      fputc(' ', fp);
    }
    fputs("|\n", fp);
  }
}

static void json_str(FILE *fp, tt_buf *b, const char *v) {
  tt_buf_clear(b);
  tt_json_string(b, v, strlen(v));
  fwrite(b->data, 1, b->len, fp);
}

static void write_json(const sm_summary *s, const table *t, FILE *fp, int first, tt_buf *b) {
  fprintf(fp, "%s\n  {\"table\":", first ? "" : ",");
  json_str(fp, b, t->id);
  fputs(",\"title\":", fp);
  json_str(fp, b, t->title);
  if (t->pid != HUB_NULL) fprintf(fp, ",\"pid\":%lld", (long long)t->pid);
  fputs(",\"rows\":[", fp);
  for (size_t i = 0; i < t->nrows; i++) {
    fputs(i ? ",\n    {" : "\n    {", fp);
    for (size_t c = 0; c < t->ncols; c++) {
      const char *v = t->cells[i * t->ncols + c];
      if (c) fputc(',', fp);
      json_str(fp, b, col_title(s, t->cols[c]));
      fputc(':', fp);
      if (is_text_col(t->cols[c])) json_str(fp, b, v);
      else fputs(v[0] ? v : "null", fp);
    }
    fputc('}', fp);
  }
  fputs("]}", fp);
}

int sm_write(sm_summary *s, hub_reader *r, FILE *fp) {
  table *tables = NULL;
  size_t n = 0;
  section_tables(s, r, &tables, &n);
  tables = tt_realloc(tables, (n + 3) * sizeof *tables);
  tables[n++] = busy_table(s, r);
  tables[n++] = latency_table(s, r);
  if (s->executorch) tables[n++] = executorch_table(s, r);
  int64_t span = s->span_end > s->span_start ? s->span_end - s->span_start : 0;
  tt_buf b = {0};
  switch (s->opt->format) {
  case SM_TEXT:
  case SM_MARKDOWN:
    fprintf(fp, "%s%" PRIu64 " events from %zu hub database(s), span %" PRId64 ".%03" PRId64
                " us",
            s->opt->format == SM_MARKDOWN ? "## Summary\n\n" : "Summary: ", s->events,
            hub_reader_ndbs(r), span / 1000, span % 1000);
    if (s->events) fprintf(fp, " [%" PRId64 ", %" PRId64 ") ns", s->span_start, s->span_end);
    fputc('\n', fp);
    for (size_t i = 0; i < n; i++) {
      if (s->opt->format == SM_TEXT) write_text(s, &tables[i], fp);
      else write_markdown(s, &tables[i], fp);
    }
    break;
  case SM_CSV:
    for (size_t i = 0; i < n; i++) write_csv(s, &tables[i], fp, i == 0);
    break;
  case SM_JSON:
    fprintf(fp, "{\"events\":%" PRIu64 ",\"databases\":%zu,\"span_start_ns\":%" PRId64
                ",\"span_end_ns\":%" PRId64 ",\"executorch\":%s,\"tables\":[",
            s->events, hub_reader_ndbs(r), s->events ? s->span_start : 0,
            s->events ? s->span_end : 0, s->executorch ? "true" : "false");
    for (size_t i = 0; i < n; i++) write_json(s, &tables[i], fp, i == 0, &b);
    fputs("\n]}\n", fp);
    break;
  }
  tt_buf_free(&b);
  for (size_t i = 0; i < n; i++) table_free(&tables[i]);
  free(tables);
  return ferror(fp) ? -1 : 0;
}
