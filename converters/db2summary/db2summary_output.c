/* The summary as tables: text (aligned, the name last so long C++ names
 * need no column width), csv (one block per table, blank-line separated),
 * markdown, or one json document (the html report is db2summary_html.c).
 * Text and markdown show µs with three decimals (exact ns); csv and json
 * give ns. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_escape.h"
#include "db2summary.h"

/* --- writers --------------------------------------------------------- */

static void write_text(const sm_summary *s, const sm_table *t, FILE *fp) {
  fprintf(fp, "\n%s\n", t->title);
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
  for (size_t c = 0; c < t->ncols; c++) {
    const char *h = sm_col_title(s, t->cols[c]);
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

static void write_csv(const sm_summary *s, const sm_table *t, FILE *fp, int first, tt_buf *b) {
  if (!first) fputc('\n', fp);
  fputs("table", fp);
  for (size_t c = 0; c < t->ncols; c++) fprintf(fp, ",%s", sm_col_title(s, t->cols[c]));
  fputc('\n', fp);
  for (size_t i = 0; i < t->nrows; i++) {
    csv_field(fp, visible(t->id, b)); /* a category's table: trace text */
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

int sm_write(sm_summary *s, hub_reader *r, FILE *fp) {
  sm_table *tables = NULL;
  size_t n = sm_tables(s, r, &tables);
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
    if (s->events) fprintf(fp, " [%" PRId64 ", %" PRId64 ") ns", s->span_start, s->span_end);
    if (clocks.len) fprintf(fp, ", clock %s", clocks.data);
    fputc('\n', fp);
    for (size_t i = 0; i < n; i++) {
      if (s->opt->format == SM_TEXT) write_text(s, &tables[i], fp);
      else write_markdown(s, &tables[i], fp);
    }
    break;
  case SM_CSV:
    for (size_t i = 0; i < n; i++) write_csv(s, &tables[i], fp, i == 0, &b);
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
  return ferror(fp) ? -1 : 0;
}
