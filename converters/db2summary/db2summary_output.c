/* The summary as tables: text (aligned, the name last, cut to fit the
 * line width), csv (one table per file: --table's, or each table in a file
 * of its own beside an index), markdown, or one json document (the html
 * report is db2summary_html.c).
 * Text and markdown show µs with three decimals (exact ns); csv and json
 * give ns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/atomic_output.h"
#include "base/text_escape.h"
#include "db2summary.h"
#include "sources/kernel_name.h"

/* --- writers --------------------------------------------------------- */

/* Characters of UTF-8 text (continuation bytes not counted). */
static size_t chars(const char *v) {
  size_t n = 0;
  for (; *v; v++) n += ((unsigned char)*v & 0xC0) != 0x80;
  return n;
}

/* v cut to at most max characters, "..." marking the cut; a kernel's name
 * is first shortened to its short name (kernel_name.h). Returns v itself
 * when it fits, else the cut in out. */
static const char *fit(const char *v, size_t max, int kernel, tt_buf *out) {
  if (chars(v) <= max) return v;
  if (max < 4) max = 4;
  tt_buf_clear(out);
  char *shortened = NULL;
  if (kernel) {
    tt_kernel_short_name(v, out);
    if (strcmp(out->data, v) != 0) {
      tt_buf_puts(out, "...");
      if (chars(out->data) <= max) return out->data;
      out->data[out->len - 3] = 0; /* still too long: cut the short name */
      v = shortened = tt_strdup(out->data);
    }
  }
  /* cut in the middle: names that differ at either end stay apart */
  tt_buf_clear(out);
  size_t keep = max - 3, head = keep - keep / 3, tail = keep / 3, total = chars(v), n = 0;
  const char *p = v, *t = NULL;
  for (; *p; p++) {
    if (((unsigned char)*p & 0xC0) == 0x80) continue;
    if (n == head) tt_buf_append(out, v, (size_t)(p - v));
    if (n == total - tail) t = p;
    n++;
  }
  tt_buf_puts(out, "...");
  if (t) tt_buf_puts(out, t);
  free(shortened);
  return out->data;
}

static void write_text(const sm_summary *s, const sm_table *t, FILE *fp, tt_buf *b) {
  size_t width = s->opt->width > 0 ? (size_t)s->opt->width : SIZE_MAX / 2;
  fprintf(fp, "\n%s\n", fit(t->title, width, 0, b));
  if (t->nrows == 0) {
    fputs("  (none)\n", fp);
    return;
  }
  size_t w[16] = {0};
  for (size_t c = 0; c < t->ncols; c++) {
    w[c] = strlen(sm_col_title(s, t->cols[c]));
    for (size_t i = 0; i < t->nrows; i++) {
      size_t n = strlen(t->cells[i * t->ncols + c]);
      if (n > w[c]) w[c] = n;
    }
  }
  /* the name (the last column) gets what the others leave of the line;
   * when that is under NAME_MIN, the spread columns give way, stddev first,
   * then the summed and idle times (their own columns in csv and json) */
  enum { NAME_MIN = 32 };
  static const char *const droppable[] = {"stddev", "min", "max", "avg", "summed_percent",
                                          "summed", "idle"};
  int hidden[16] = {0};
  size_t used = 0;
  for (size_t c = 0; c + 1 < t->ncols; c++) used += w[c] + 2;
  for (size_t d = 0; d < sizeof droppable / sizeof *droppable && used + NAME_MIN > width; d++)
    for (size_t c = 0; c + 1 < t->ncols; c++)
      if (!hidden[c] && strcmp(t->cols[c], droppable[d]) == 0) {
        hidden[c] = 1;
        used -= w[c] + 2;
      }
  size_t name_max = width > used + 16 ? width - used : 16;
  int kernel = t->kind == SEC_KERNEL && t->section >= 0;
  int first = 1;
  for (size_t c = 0; c < t->ncols; c++) {
    if (hidden[c]) continue;
    const char *h = sm_col_title(s, t->cols[c]);
    if (c + 1 == t->ncols) fprintf(fp, "  %s\n", h);
    else fprintf(fp, "%s%*s", first ? "" : "  ", (int)w[c], h);
    first = 0;
  }
  for (size_t i = 0; i < t->nrows; i++) {
    first = 1;
    for (size_t c = 0; c < t->ncols; c++) {
      if (hidden[c]) continue;
      const char *v = t->cells[i * t->ncols + c];
      if (c + 1 == t->ncols) fprintf(fp, "  %s\n", fit(v, name_max - 2, kernel, b));
      else fprintf(fp, "%s%*s", first ? "" : "  ", (int)w[c], v);
      first = 0;
    }
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

/* Text, csv and markdown are read in terminals: the trace text of their
 * titles and cells shows its control characters escaped (text_escape.h),
 * at this one place before any of them is written. Json keeps it exact
 * (its own quoting), html has its own escapes (db2summary_html.c). */
/* s itself when plain, else its escaped copy in scratch. */
static const char *visible(const char *s, tt_buf *scratch) {
  if (tt_text_is_plain(s)) return s;
  size_t n = strlen(s);
  tt_buf_clear(scratch);
  tt_buf_reserve(scratch, TT_TEXT_ESCAPED_MAX(n));
  scratch->len = tt_text_escape_into(scratch->data, s, n);
  return scratch->data;
}

static void make_visible_text(char **v, tt_buf *scratch) {
  if (tt_text_is_plain(*v)) return;
  char *shown = tt_strdup(visible(*v, scratch));
  free(*v);
  *v = shown;
}

static void make_visible(sm_table *t, size_t n, tt_buf *scratch) {
  for (size_t i = 0; i < n; i++) {
    make_visible_text(&t[i].title, scratch);
    for (size_t k = 0; k < t[i].nrows * t[i].ncols; k++) make_visible_text(&t[i].cells[k], scratch);
  }
}

/* One table per csv: every table of id `id` (one per process with
 * --by-process, all of the same columns) under one header line. */
static void write_csv(const sm_summary *s, const sm_table *t, size_t n, const char *id, FILE *fp) {
  int head = 0;
  for (size_t k = 0; k < n; k++) {
    if (strcmp(t[k].id, id) != 0) continue;
    if (!head) {
      for (size_t c = 0; c < t[k].ncols; c++)
        fprintf(fp, "%s%s", c ? "," : "", sm_col_title(s, t[k].cols[c]));
      fputc('\n', fp);
      head = 1;
    }
    for (size_t i = 0; i < t[k].nrows; i++) {
      for (size_t c = 0; c < t[k].ncols; c++) {
        if (c) fputc(',', fp);
        csv_field(fp, t[k].cells[i * t[k].ncols + c]);
      }
      fputc('\n', fp);
    }
  }
}

/* The first table of each id, in order. */
static int first_of_id(const sm_table *t, size_t k) {
  for (size_t j = 0; j < k; j++)
    if (strcmp(t[j].id, t[k].id) == 0) return 0;
  return 1;
}

static void list_ids(const sm_table *t, size_t n, tt_buf *out, tt_buf *scratch) {
  for (size_t k = 0; k < n; k++)
    if (first_of_id(t, k)) tt_buf_printf(out, "%s%s", out->len ? ", " : "", visible(t[k].id, scratch));
}

/* PREFIX.SLUG.csv beside `path` (PREFIX: path without its ".csv"). */
static void table_path(const char *path, const char *slug, tt_buf *out) {
  tt_buf_clear(out);
  size_t n = strlen(path);
  if (n > 4 && strcmp(path + n - 4, ".csv") == 0) n -= 4;
  tt_buf_append(out, path, n);
  tt_buf_putc(out, '.');
  for (const char *p = slug; *p; p++) tt_buf_putc(out, *p == ':' ? '_' : *p);
  tt_buf_puts(out, ".csv");
}

/* Without --table: each table in a file of its own, and `fp` (the -o
 * file) the index of them: table, title, rows, file. 0, or -1. */
static int write_csv_files(const sm_summary *s, const sm_table *t, size_t n, const char *path,
                           FILE *fp, tt_buf *b) {
  tt_buf file = {0};
  int rc = 0;
  fputs("table,title,rows,file\n", fp);
  for (size_t k = 0; k < n && rc == 0; k++) {
    if (!first_of_id(t, k)) continue;
    size_t rows = 0;
    for (size_t j = k; j < n; j++)
      if (strcmp(t[j].id, t[k].id) == 0) rows += t[j].nrows;
    table_path(path, t[k].slug, &file);
    tt_output *o = tt_output_begin(file.data);
    FILE *f = tt_output_fopen(o, "w");
    write_csv(s, t, n, t[k].id, f);
    if (ferror(f) || tt_output_commit(o)) {
      tt_error("%s: write failed", file.data);
      rc = -1;
    }
    const char *base = strrchr(file.data, '/');
    csv_field(fp, visible(t[k].id, b));
    fputc(',', fp);
    csv_field(fp, t[k].title);
    fprintf(fp, ",%zu,", rows);
    csv_field(fp, base ? base + 1 : file.data);
    fputc('\n', fp);
  }
  tt_buf_free(&file);
  return rc;
}

static void md_cell(FILE *fp, const char *v) {
  for (; *v; v++) {
    if (*v == '|' || *v == '\\' || *v == '*' || *v == '_' || *v == '<' || *v == '>' ||
        *v == '`')
      fputc('\\', fp);
    fputc(*v == '\n' ? ' ' : *v, fp);
  }
}

static void write_markdown(const sm_summary *s, const sm_table *t, FILE *fp) {
  fprintf(fp, "\n### ");
  md_cell(fp, t->title);
  fputs("\n\n", fp);
  if (t->nrows == 0) {
    fputs("(none)\n", fp);
    return;
  }
  for (size_t c = 0; c < t->ncols; c++) fprintf(fp, "| %s ", sm_col_title(s, t->cols[c]));
  fputs("|\n", fp);
  for (size_t c = 0; c < t->ncols; c++) fputs(sm_col_is_text(t->cols[c]) ? "|:--" : "|--:", fp);
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

static void write_json(const sm_summary *s, const sm_table *t, FILE *fp, int first, tt_buf *b) {
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
      json_str(fp, b, sm_col_title(s, t->cols[c]));
      fputc(':', fp);
      if (sm_col_is_text(t->cols[c])) json_str(fp, b, v);
      else if (sm_col_is_array(t->cols[c])) fputs(v, fp);
      else fputs(v[0] ? v : "null", fp);
    }
    fputc('}', fp);
  }
  fputs("]}", fp);
}

int sm_write(sm_summary *s, hub_reader *r, FILE *fp, const char *path) {
  sm_table *tables = NULL;
  size_t n = sm_tables(s, r, &tables);
  int rc = 0;
  if (s->opt->table) { /* --table: only its tables */
    size_t kept = 0;
    for (size_t i = 0; i < n; i++) {
      if (strcmp(tables[i].id, s->opt->table) == 0) tables[kept++] = tables[i];
      else sm_tables_free_one(&tables[i]);
    }
    if (kept == 0) {
      tt_buf ids = {0}, sc = {0};
      sm_table *all = NULL;
      size_t na = sm_tables(s, r, &all);
      list_ids(all, na, &ids, &sc);
      tt_error("--table %s: no such table here; the tables are: %s", s->opt->table,
               ids.data ? ids.data : "(none)");
      sm_tables_free(all, na);
      tt_buf_free(&ids);
      tt_buf_free(&sc);
      sm_tables_free(tables, 0);
      return -2;
    }
    n = kept;
  }
  int64_t span = s->span_end > s->span_start ? s->span_end - s->span_start : 0;
  tt_buf b = {0}, clocks = {0};
  sm_clocks(r, &clocks);
  if (s->opt->format == SM_TEXT || s->opt->format == SM_CSV || s->opt->format == SM_MARKDOWN)
    make_visible(tables, n, &b);
  switch (s->opt->format) {
  case SM_TEXT:
  case SM_MARKDOWN:
    fprintf(fp, "%s%" PRIu64 " events from %zu hub database(s), span %" PRId64 ".%03" PRId64
                " us",
            s->opt->format == SM_MARKDOWN ? "## Summary\n\n" : "Summary: ", s->events,
            hub_reader_ndbs(r), span / 1000, span % 1000);
    if (s->events) {
      /* the exact bounds on a line of their own in text, so both fit */
      fprintf(fp, "%s[%" PRId64 ", %" PRId64 ") ns", s->opt->format == SM_TEXT ? "\n  " : " ",
              s->span_start, s->span_end);
    }
    if (clocks.len) fprintf(fp, ", clock %s", clocks.data);
    fputc('\n', fp);
    for (size_t i = 0; i < n; i++) {
      if (s->opt->format == SM_TEXT) write_text(s, &tables[i], fp, &b);
      else write_markdown(s, &tables[i], fp);
    }
    break;
  case SM_CSV:
    if (s->opt->table) {
      write_csv(s, tables, n, s->opt->table, fp);
    } else if (!path) {
      tt_buf ids = {0};
      list_ids(tables, n, &ids, &b);
      tt_error("--format csv writes one table per file: pick one with --table NAME, or give -o "
               "FILE.csv for one file per table (FILE.NAME.csv) and their index in FILE.csv; "
               "the tables are: %s", ids.data ? ids.data : "(none)");
      tt_buf_free(&ids);
      rc = -2;
    } else {
      rc = write_csv_files(s, tables, n, path, fp, &b);
    }
    break;
  case SM_JSON:
    fprintf(fp, "{\"events\":%" PRIu64 ",\"databases\":%zu,\"span_start_ns\":%" PRId64
                ",\"span_end_ns\":%" PRId64 ",\"executorch\":%s,\"processes\":%zu,"
                "\"hosts\":%zu,\"devices\":%zu,\"bin_start_ns\":%" PRId64
                ",\"bin_ns\":%" PRId64 ",\"bins\":%d,\"clock\":\"%s\",\"tables\":[",
            s->events, hub_reader_ndbs(r), s->events ? s->span_start : 0,
            s->events ? s->span_end : 0, s->executorch ? "true" : "false", s->nprocs,
            sm_host_count(s, r), s->nagents, s->bins.start, s->bins.width, s->bins.n,
            clocks.len ? clocks.data : "");
    for (size_t i = 0; i < n; i++) write_json(s, &tables[i], fp, i == 0, &b);
    fputs("\n]}\n", fp);
    break;
  case SM_HTML:
    sm_write_html(s, r, tables, n, fp);
    break;
  }
  tt_buf_free(&b);
  tt_buf_free(&clocks);
  sm_tables_free(tables, n);
  return rc ? rc : ferror(fp) ? -1 : 0;
}
