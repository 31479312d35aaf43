/* The summary as one self-contained html report: inline CSS and SVG, no
 * network, readable without script (a few lines sort the tables on a click).
 * Every figure is read from the same table cells json writes (each table
 * carries its id, each cell its exact value in data-v), so the report and
 * --format json agree by construction. Sizes are bounded by what is shown:
 * top-N rows, 400 bins per strip, and past a few strips, heat rows whose
 * runs of one colour level are one path segment. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/html_text.h"
#include "db2summary.h"
#include "sources/kernel_name.h"

#define NAME_CHARS 160  /* a name in a table cell, then an ellipsis */
#define LABEL_CHARS 30  /* a name on a chart: fits its 244 px left of the bars */
#define BAR_STRIPS 8    /* up to this many strips: bars with a title per bin */
#define PROC_BARS 64    /* up to this many processes: stacked bars */
#define HEAT_LEVELS 10  /* heat colour steps of 10% */

static const char *const heat_fill[HEAT_LEVELS + 1] = {
    "none",    "#dbe8fb", "#c1d7f7", "#a5c4f2", "#88afec", "#6b9ae5",
    "#4f84dc", "#3a70cf", "#2b5cb8", "#1f4a9c", "#143a80"};

typedef struct hw {
  FILE *fp;
  const sm_summary *s;
  hub_reader *r;
  const sm_table *t;
  size_t n;
  char *shown; /* per table: written already */
  tt_buf tmp, label;
} hw;

/* --- text ------------------------------------------------------------ */

/* Every piece of trace text (names, categories, hosts, paths, table ids)
 * reaches the report through html_escape (base/html_text.h), never through
 * a bare print: in text and in quoted attribute values. */
static void html_escape(hw *w, const char *s, size_t max) { tt_html_escape(w->fp, s, max, &w->tmp); }

/* s as an element's text, cut after max characters with an ellipsis (0:
 * whole). */
static void html_text(hw *w, const char *s, size_t max) { html_escape(w, s, max); }

/* Characters (UTF-8 sequences) in s. */
static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) n += (*p & 0xC0) != 0x80;
  return n;
}

/* out = s cut to at most max characters in the middle ("head…tail"):
 * names that differ at their end (GEMM variants) stay apart. */
static void mid_cut(const char *s, size_t max, tt_buf *out) {
  tt_buf_clear(out);
  size_t n = utf8_chars(s);
  if (n <= max || max < 8) {
    tt_buf_puts(out, s);
    return;
  }
  size_t tail = (max - 1) / 3, head = max - 1 - tail, i = 0;
  const char *cut = s, *rest = "";
  for (const char *p = s; *p; p++) {
    if (((unsigned char)*p & 0xC0) == 0x80) continue;
    if (i == head) cut = p;
    if (i == n - tail) rest = p;
    i++;
  }
  tt_buf_append(out, s, (size_t)(cut - s));
  tt_buf_puts(out, "\xe2\x80\xa6"); /* … */
  tt_buf_puts(out, rest);
}

/* The chart labels of a table's rows (NULL for a process label, which
 * html_label cuts): a kernel by its short name, any name cut in the
 * middle, and labels that still read alike told apart by their row's
 * place in the table ("#3"). */
static char **chart_labels(const sm_table *t, const char *col) {
  char **l = tt_calloc(t->nrows ? t->nrows : 1, sizeof *l);
  int kernel = t->kind == SEC_KERNEL && t->section >= 0;
  tt_buf sn = {0}, b = {0};
  for (size_t i = 0; i < t->nrows; i++) {
    const char *name = sm_cell(t, i, col);
    if (strstr(name, " [rank ")) continue;
    if (kernel) tt_kernel_short_name(name, &sn);
    mid_cut(kernel ? sn.data : name, LABEL_CHARS, &b);
    l[i] = tt_strdup(b.data);
  }
  char *dup = tt_calloc(t->nrows ? t->nrows : 1, 1);
  for (size_t i = 0; i < t->nrows; i++)
    for (size_t j = i + 1; l[i] && j < t->nrows; j++)
      if (l[j] && strcmp(l[i], l[j]) == 0) dup[i] = dup[j] = 1;
  for (size_t i = 0; i < t->nrows; i++) {
    if (!dup[i]) continue;
    char num[24];
    snprintf(num, sizeof num, " #%zu", i + 1);
    mid_cut(kernel ? (tt_kernel_short_name(sm_cell(t, i, col), &sn), sn.data) : sm_cell(t, i, col),
            LABEL_CHARS - strlen(num), &b);
    tt_buf_puts(&b, num);
    free(l[i]);
    l[i] = tt_strdup(b.data);
  }
  free(dup);
  tt_buf_free(&sn);
  tt_buf_free(&b);
  return l;
}

/* A process label ("python3 [rank 3] nid008553 (pid 1234)") as text of at
 * most max characters: what is cut is the command (to no fewer than 6
 * characters), then the pid, so the rank and host that tell processes
 * apart stay; any other text as html_text. */
static void html_label(hw *w, const char *s, size_t max) {
  const char *rank = strstr(s, " [rank ");
  if (!rank || utf8_chars(s) <= max || max < 16) {
    html_text(w, s, max);
    return;
  }
  const char *pid = strstr(rank, " (pid ");
  size_t all = utf8_chars(rank), pid_chars = pid ? utf8_chars(pid) : 0;
  int keep_pid = 6 + 1 + all <= max;
  size_t rank_host = all - pid_chars;
  size_t head_max = keep_pid ? max - all - 1 : (max > rank_host + 7 ? max - rank_host - 1 : 6);
  tt_buf part = {0};
  tt_buf_append(&part, s, (size_t)(rank - s));
  html_text(w, part.data, head_max); /* the command, with its ellipsis */
  tt_buf_clear(&part);
  tt_buf_append(&part, rank, keep_pid || !pid ? strlen(rank) : (size_t)(pid - rank));
  html_text(w, part.data, max - head_max - 1);
  tt_buf_free(&part);
}

/* s as the value of an attribute written in double quotes: name="...". */
static void html_attr(hw *w, const char *name, const char *s) {
  fprintf(w->fp, " %s=\"", name);
  html_escape(w, s, 0);
  fputc('"', w->fp);
}

static void hdur(FILE *fp, double ns) {
  char b[48];
  fputs(tt_human_duration(b, sizeof b, ns), fp);
}

static void hbytes(FILE *fp, double b) {
  static const char *const u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (b >= 1024 && i < 4) b /= 1024, i++;
  if (i == 0) fprintf(fp, "%.0f B", b);
  else fprintf(fp, "%.1f %s", b, u[i]);
}

/* 1234567 -> "1,234,567" */
static void hcount(FILE *fp, const char *v) {
  size_t n = strlen(v), lead = v[0] == '-';
  for (size_t i = 0; i < n; i++) {
    fputc(v[i], fp);
    size_t left = n - i - 1;
    if (i >= lead && left && left % 3 == 0) fputc(',', fp);
  }
}

static double num(const char *v) { return v && v[0] ? strtod(v, NULL) : 0.0; }

/* A bins cell "[12.50,0,...]" (percent with two decimals, as the tables
 * write it) into hundredths of a percent, exact; missing ones 0. */
static void parse_bins(const char *v, int64_t *out, int n) {
  for (int i = 0; i < n; i++) out[i] = 0;
  if (!v || *v != '[') return;
  const char *p = v + 1;
  for (int i = 0; i < n && *p && *p != ']'; i++) {
    int64_t whole = 0, frac = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9'; p++) whole = whole * 10 + (*p - '0');
    if (*p == '.')
      for (p++; *p >= '0' && *p <= '9'; p++)
        if (digits < 2) frac = frac * 10 + (*p - '0'), digits++;
    for (; digits < 2; digits++) frac *= 10;
    int64_t c = whole * 100 + frac;
    out[i] = c;
    if (*p == ',') p++;
  }
}

/* --- tables ---------------------------------------------------------- */

static int ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a >= b && strcmp(s + a - b, tail) == 0;
}

static const char *col_label(const char *c) {
  static const struct {
    const char *col, *label;
  } l[] = {{"busy_percent", "busy %"},     {"summed_percent", "summed %"},
           {"percent", "%"},               {"kernel_busy", "kernel busy"},
           {"copy_busy", "copy busy"},     {"gb_per_s", "GB/s"},
           {"tax_avg_percent", "tax avg %"}, {"tax_min_percent", "tax min %"},
           {"tax_max_percent", "tax max %"}, {"p999", "p99.9"},
           {"lo", "from"},                 {"hi", "to"}};
  for (size_t i = 0; i < sizeof l / sizeof *l; i++)
    if (strcmp(c, l[i].col) == 0) return l[i].label;
  return c;
}

/* One cell: the exact value in data-v (json's), a readable one shown. */
static void cell(hw *w, const char *col, const char *v) {
  FILE *fp = w->fp;
  if (sm_col_is_text(col)) {
    /* one line, cut with an ellipsis; the whole name in the title. A
     * process label is cut here, keeping its rank and host, not by the
     * column's width (class l). */
    int label = strstr(v, " [rank ") != NULL;
    fprintf(fp, "<td class=\"%s\"", label ? "t l" : "t");
    if (utf8_chars(v) > (label ? LABEL_CHARS : 40)) html_attr(w, "title", v);
    fputc('>', fp);
    if (label) html_label(w, v, LABEL_CHARS);
    else html_text(w, v, NAME_CHARS);
    fputs("</td>", fp);
    return;
  }
  fputs("<td", fp);
  html_attr(w, "data-v", v);
  fputc('>', fp);
  const char *title = sm_col_title(w->s, col);
  if (!v[0]) {
  } else if (strcmp(col, "start") == 0 || strcmp(col, "end") == 0) {
    /* a time on the profilers' clock: shown from the start of the span */
    fputc('+', fp);
    hdur(fp, num(v) - (double)(w->s->events ? w->s->span_start : 0));
  } else if (ends_with(title, "_ns")) {
    hdur(fp, num(v));
  } else if (strstr(col, "percent")) {
    fprintf(fp, "%.2f%%", num(v));
  } else if (strcmp(col, "bytes") == 0) {
    hbytes(fp, num(v));
  } else if (strcmp(col, "pid") == 0 || strchr(v, '.')) {
    html_text(w, v, 0);
  } else {
    hcount(fp, v);
  }
  fputs("</td>", fp);
}

/* Table ti as html, array columns left to the charts; rows past `max`
 * (0: all) behind a "more" fold. */
static void data_table(hw *w, size_t ti) {
  const sm_table *t = &w->t[ti];
  FILE *fp = w->fp;
  w->shown[ti] = 1;
  fputs("<div class=\"tw\"><table class=\"data\"", fp);
  html_attr(w, "data-table", t->id);
  if (t->pid != HUB_NULL) fprintf(fp, " data-pid=\"%lld\"", (long long)t->pid);
  fputs("><thead><tr>", fp);
  /* the columns in reading order: the last (the name) first, arrays out */
  size_t order[16], nc = 0;
  order[nc++] = t->ncols - 1;
  for (size_t c = 0; c + 1 < t->ncols && nc < 16; c++)
    if (!sm_col_is_array(t->cols[c])) order[nc++] = c;
  for (size_t k = 0; k < nc; k++) {
    const char *c = t->cols[order[k]];
    fprintf(fp, "<th data-col=\"%s\"%s>%s</th>", sm_col_title(w->s, c),
            sm_col_is_text(c) ? " class=\"t\"" : "", col_label(c));
  }
  fputs("</tr></thead><tbody>\n", fp);
  for (size_t i = 0; i < t->nrows; i++) {
    fputs("<tr>", fp);
    for (size_t k = 0; k < nc; k++)
      cell(w, t->cols[order[k]], t->cells[i * t->ncols + order[k]]);
    fputs("</tr>\n", fp);
  }
  if (t->nrows == 0) fprintf(fp, "<tr><td colspan=\"%zu\" class=\"none\">none</td></tr>", t->ncols);
  fputs("</tbody></table></div>\n", fp);
}

/* id: a slug (sm_section) or a fixed word. */
static void heading(hw *w, const char *tag, const char *id, const char *text) {
  fprintf(w->fp, "<%s", tag);
  html_attr(w, "id", id);
  fputc('>', w->fp);
  html_text(w, text, 0);
  fprintf(w->fp, "</%s>\n", tag);
}

/* --- charts ---------------------------------------------------------- */

/* Horizontal bars of column `col` for each row, labelled by `label`. */
static void bar_chart(hw *w, const sm_table *t, const char *col, const char *label,
                      const char *color, const char *what) {
  FILE *fp = w->fp;
  size_t n = t->nrows;
  double max = 0, sum = 0;
  for (size_t i = 0; i < n; i++) {
    double v = num(sm_cell(t, i, col));
    sum += v;
    if (v > max) max = v;
  }
  const int lw = 250, bw = 300, row = 20;
  fprintf(fp, "<svg class=\"chart\" viewBox=\"0 0 640 %zu\" role=\"img\"", n * row + 6);
  html_attr(w, "data-chart", t->id);
  fprintf(fp, " data-col=\"%s\"><title>", sm_col_title(w->s, col));
  html_text(w, what, 0);
  fputs("</title>\n", fp);
  int time = ends_with(sm_col_title(w->s, col), "_ns");
  char **labels = chart_labels(t, label);
  for (size_t i = 0; i < n; i++) {
    const char *v = sm_cell(t, i, col), *name = sm_cell(t, i, label);
    double x = num(v), len = max > 0 ? x / max * bw : 0;
    double y = (double)(i * row) + 3;
    fputs("<g><title>", fp);
    html_text(w, name, 0);
    fputs("\n", fp);
    html_text(w, what, 0);
    fputs(": ", fp);
    if (time) hdur(fp, x);
    else if (strcmp(col, "bytes") == 0) hbytes(fp, x);
    else html_text(w, v, 0);
    if (sum > 0) fprintf(fp, " (%.1f%% of the rows shown)", 100.0 * x / sum);
    const char *calls = sm_cell(t, i, "calls");
    if (calls) fprintf(fp, ", %s calls", calls);
    fprintf(fp, "</title><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", lw - 6, y + 13);
    if (labels[i]) html_text(w, labels[i], 0);
    else html_label(w, name, LABEL_CHARS);
    fprintf(fp, "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"%s\"",
            lw, y + 2, len < 0.5 && x > 0 ? 0.5 : len, row - 5, color);
    html_attr(w, "data-v", v);
    fprintf(fp, "/><text x=\"%.1f\" y=\"%.1f\" class=\"v\">", lw + len + 4, y + 13);
    if (time) hdur(fp, x);
    else if (strcmp(col, "bytes") == 0) hbytes(fp, x);
    else html_text(w, v, 0);
    fputs("</text></g>\n", fp);
  }
  fputs("</svg>\n", fp);
  for (size_t i = 0; i < n; i++) free(labels[i]);
  free(labels);
}

/* Ticks along a time axis of `span` ns drawn over [x0, x0 + width]. */
static void time_axis(hw *w, double x0, double width, double y, double span) {
  FILE *fp = w->fp;
  if (span <= 0) return;
  double raw = span / 8, mag = pow(10, floor(log10(raw))), step = mag;
  static const double m[] = {1, 2, 5, 10};
  for (int i = 0; i < 4; i++)
    if (m[i] * mag >= raw) {
      step = m[i] * mag;
      break;
    }
  fprintf(fp, "<g class=\"axis\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>", x0, y,
          x0 + width, y);
  for (double t = 0; t <= span * 1.0001; t += step) {
    double x = x0 + t / span * width;
    fprintf(fp, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/><text x=\"%.1f\" y=\"%.1f\" "
                "text-anchor=\"middle\">",
            x, y, x, y + 4, x, y + 15);
    if (t == 0) fputs("0", fp);
    else {
      fputc('+', fp);
      hdur(fp, t);
    }
    fputs("</text>", fp);
  }
  fputs("</g>\n", fp);
}

/* A row's label: devices of several processes say whose. */
static const char *strip_label(hw *w, const sm_table *t, size_t i, const char *label) {
  const char *name = sm_cell(t, i, label), *pid = sm_cell(t, i, "pid");
  if (!pid || strcmp(t->id, "gpu_activity") != 0 || w->s->nprocs <= 1) return name;
  tt_buf_clear(&w->label);
  tt_buf_printf(&w->label, "pid %s %s", pid, name);
  return w->label.data;
}

/* ceil(percent / 10) of a percent in hundredths */
static int heat_level(int64_t c) {
  int64_t l = (c + 999) / 1000;
  return l < 0 ? 0 : l > HEAT_LEVELS ? HEAT_LEVELS : (int)l;
}

/* Busy percent per bin, one strip per row of table t (its `bins`
 * column), labelled by `label`. Few rows: bars as tall as the bin is busy,
 * a title on each. Many: heat rows, drawn level by level: a run of bins of
 * one colour level is one stroke "M<bin> <row>h<bins>" of one path per
 * level, so 1000 rows stay small; a title per row. */
static void activity_chart(hw *w, const sm_table *t, const char *label, const char *what) {
  FILE *fp = w->fp;
  const sm_bins *bn = &w->s->bins;
  int nb = bn->n;
  size_t n = t->nrows;
  if (!n || !nb) {
    fputs("<p class=\"none\">No GPU work in this range.</p>\n", fp);
    return;
  }
  int bars = n <= BAR_STRIPS;
  double rowh = bars ? 40 : n <= 200 ? 8 : n <= 600 ? 4 : 2.5;
  double gap = bars ? 6 : rowh >= 8 ? 1 : 0, pitch = rowh + gap;
  const double x0 = 190, width = 780, cw = width / nb;
  double h = (double)n * pitch;
  int64_t *v = tt_malloc((size_t)nb * sizeof *v);
  fprintf(fp, "<svg class=\"chart wide\" viewBox=\"0 0 1000 %.0f\" role=\"img\"", h + 26);
  html_attr(w, "data-chart", t->id);
  fprintf(fp, " data-mode=\"%s\"><title>", bars ? "bars" : "heat");
  html_text(w, what, 0);
  fputs("</title>\n", fp);
  double span = (double)bn->width * nb;
  unsigned char *lv = bars ? NULL : tt_malloc(n * (size_t)nb);
  if (!bars)
    fprintf(fp, "<rect class=\"bg\" x=\"%.0f\" y=\"0\" width=\"%.0f\" height=\"%.1f\"/>\n", x0,
            width, h);
  for (size_t i = 0; i < n; i++) {
    const char *name = strip_label(w, t, i, label);
    double y = (double)i * pitch;
    parse_bins(sm_cell(t, i, "bins"), v, nb);
    int64_t sum = 0;
    for (int b = 0; b < nb; b++) sum += v[b];
    double avg = (double)sum / 100.0 / nb;
    if (bars) {
      fprintf(fp, "<g class=\"strip\" data-row=\"%zu\"><title>", i);
      html_text(w, name, 0);
      fprintf(fp, ": %.2f%% busy on average</title>", avg);
      fprintf(fp, "<rect class=\"bg\" x=\"%.0f\" y=\"%.1f\" width=\"%.0f\" height=\"%.1f\"/>", x0,
              y, width, rowh);
    } else {
      /* the row's hover target and title; its colours come below */
      fprintf(fp, "<rect class=\"row\" x=\"%.0f\" y=\"%g\" width=\"%.0f\" height=\"%g\"><title>",
              x0, y, width, pitch);
      html_text(w, name, 0);
      fprintf(fp, ": %.2f%% busy on average</title></rect>", avg);
      for (int b = 0; b < nb; b++) lv[i * (size_t)nb + (size_t)b] = (unsigned char)heat_level(v[b]);
    }
    if (bars || rowh >= 8 || i % (size_t)(12 / rowh + 1) == 0) {
      fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\"%s>", x0 - 6,
              y + rowh / 2 + (rowh >= 8 ? 4 : 3), rowh < 8 ? " class=\"small\"" : "");
      html_text(w, name, 22); /* fits the 184 px left of the strips */
      fputs("</text>", fp);
    }
    if (bars) {
      for (int b = 0; b < nb; b++) {
        if (v[b] <= 0) continue;
        double bh = (double)v[b] / 10000 * rowh;
        if (bh < 2) bh = 2; /* a little work still shows */
        long long c = (long long)v[b];
        fprintf(fp,
                "<rect class=\"k\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                "data-i=\"%d\" data-v=\"%lld.%02lld\"><title>+",
                x0 + b * cw, y + rowh - bh, cw, bh, b, c / 100, c % 100);
        hdur(fp, (double)bn->width * b);
        fputs(" \xE2\x80\x93 +", fp);
        hdur(fp, (double)bn->width * (b + 1));
        fprintf(fp, ": %lld.%02lld%% busy</title></rect>", c / 100, c % 100);
      }
      fputs("</g>", fp);
    }
    fputc('\n', fp);
  }
  if (!bars) {
    /* units: x = bin, y = row; strokes as thick as a row, through its middle */
    fprintf(fp, "<g class=\"heat\" transform=\"translate(%.0f %.3f) scale(%.4f %.3f)\" "
                "stroke-width=\"%.4f\">\n",
            x0, rowh / 2, cw, pitch, rowh / pitch);
    for (int l = 1; l <= HEAT_LEVELS; l++) {
      int any = 0;
      for (size_t i = 0; i < n; i++) {
        const unsigned char *r = lv + i * (size_t)nb;
        for (int b = 0; b < nb;) {
          int e = b + 1;
          while (e < nb && r[e] == r[b]) e++;
          if (r[b] == l) {
            if (!any) fprintf(fp, "<path class=\"h%d\" d=\"", l);
            any = 1;
            fprintf(fp, "M%d %zuh%d", b, i, e - b);
          }
          b = e;
        }
      }
      if (any) fputs("\"/>\n", fp);
    }
    fputs("</g>\n", fp);
  }
  time_axis(w, x0, width, h + 4, span);
  fputs("</svg>\n", fp);
  free(v);
  free(lv);
  if (!bars) {
    fputs("<div class=\"legend\">busy per bin: ", fp);
    for (int l = 1; l <= HEAT_LEVELS; l++)
      fprintf(fp, "<span class=\"sw\" style=\"background:%s\"></span>%s", heat_fill[l],
              l == 1 ? "&gt;0% " : l == HEAT_LEVELS ? " 100%" : "");
    fputs("</div>\n", fp);
  }
}

/* Per process: kernel busy, copy busy and idle as one bar of its span. */
static void process_bars(hw *w, const sm_table *t) {
  FILE *fp = w->fp;
  const int lw = 250, bw = 300, row = 20;
  fprintf(fp,
          "<svg class=\"chart\" viewBox=\"0 0 640 %zu\" role=\"img\" data-chart=\"process_bars\">"
          "<title>Kernel busy, copy busy and idle within each process's span</title>\n",
          t->nrows * row + 6);
  for (size_t i = 0; i < t->nrows; i++) {
    double span = num(sm_cell(t, i, "span")), k = num(sm_cell(t, i, "kernel_busy")),
           c = num(sm_cell(t, i, "copy_busy")), idle = num(sm_cell(t, i, "idle"));
    const char *name = sm_cell(t, i, "name");
    double y = (double)(i * row) + 3, x = lw;
    fputs("<g><title>", fp);
    html_text(w, name, 0);
    fputs("\nspan ", fp);
    hdur(fp, span);
    fputs(": kernels ", fp);
    hdur(fp, k);
    fputs(", copies ", fp);
    hdur(fp, c);
    fputs(", idle ", fp);
    hdur(fp, idle);
    fprintf(fp, " (busy %.2f%%)</title><text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">",
            num(sm_cell(t, i, "busy_percent")), lw - 6, y + 13);
    html_label(w, name, LABEL_CHARS);
    fputs("</text>", fp);
    static const char *const part[] = {"kernel_busy", "copy_busy", "idle"};
    static const char *const fill[] = {"#2f6fdf", "#f28e2b", "#dfe3e8"};
    double val[] = {k, c, idle};
    for (int p = 0; p < 3; p++) {
      double len = span > 0 ? val[p] / span * bw : 0;
      if (len <= 0) continue;
      fprintf(fp,
              "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
              "data-part=\"%s\"/>",
              x, y + 2, len, row - 5, fill[p], part[p]);
      x += len;
    }
    fprintf(fp, "<text x=\"%d\" y=\"%.1f\" class=\"v\">%.1f%% busy</text></g>\n", lw + bw + 6,
            y + 13, num(sm_cell(t, i, "busy_percent")));
  }
  fputs("</svg>\n<div class=\"legend\"><span class=\"sw\" style=\"background:#2f6fdf\"></span>"
        "kernels <span class=\"sw\" style=\"background:#f28e2b\"></span>copies (outside "
        "kernels) <span class=\"sw\" style=\"background:#dfe3e8\"></span>idle</div>\n",
        fp);
}

/* Launch latency histogram of one scope: rows [first, end) of t. */
static void latency_chart(hw *w, const sm_table *t, size_t first, size_t end,
                          const sm_table *pct, size_t prow) {
  FILE *fp = w->fp;
  size_t n = end - first;
  double max = 0, total = 0;
  for (size_t i = first; i < end; i++) {
    double c = num(sm_cell(t, i, "launches"));
    total += c;
    if (c > max) max = c;
  }
  const double x0 = 50, width = 570, y0 = 24, height = 170, bwid = width / (double)n;
  fprintf(fp,
          "<svg class=\"chart\" viewBox=\"0 0 640 234\" role=\"img\" "
          "data-chart=\"launch_latency_histogram\"><title>Launch latency: launches per bin "
          "(quarter-octave bins)</title>\n");
  /* count axis */
  fprintf(fp, "<g class=\"axis\"><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>", x0, y0,
          x0, y0 + height);
  for (int k = 0; k <= 4; k++) {
    double y = y0 + height - k * height / 4;
    fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">%.0f</text>", x0 - 4, y + 4,
            max * k / 4);
  }
  fputs("</g>\n", fp);
  for (size_t i = first; i < end; i++) {
    double c = num(sm_cell(t, i, "launches")), lo = num(sm_cell(t, i, "lo")),
           hi = num(sm_cell(t, i, "hi"));
    double bh = max > 0 ? c / max * height : 0, x = x0 + (double)(i - first) * bwid;
    fprintf(fp, "<rect class=\"lat\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
                "data-v=\"%s\"><title>[",
            x + 0.5, y0 + height - bh, bwid > 2 ? bwid - 1 : bwid, bh, sm_cell(t, i, "launches"));
    hdur(fp, lo);
    fputs(", ", fp);
    hdur(fp, hi);
    fprintf(fp, "): %s launches (%.2f%%)</title></rect>\n", sm_cell(t, i, "launches"),
            total > 0 ? 100.0 * c / total : 0.0);
  }
  /* time labels at about 6 of the bin edges */
  fputs("<g class=\"axis\">", fp);
  fprintf(fp, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>", x0, y0 + height,
          x0 + width, y0 + height);
  size_t every = n / 6 + 1;
  for (size_t i = first; i < end; i += every) {
    double x = x0 + (double)(i - first) * bwid;
    fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">", x, y0 + height + 15);
    hdur(fp, num(sm_cell(t, i, "lo")));
    fputs("</text>", fp);
  }
  fputs("</g>\n", fp);
  /* percentile markers: where each falls among the bins */
  static const char *const pc[] = {"p50", "p90", "p99"};
  for (int k = 0; pct && k < 3; k++) {
    double p = num(sm_cell(pct, prow, pc[k]));
    for (size_t i = first; i < end; i++) {
      double lo = num(sm_cell(t, i, "lo")), hi = num(sm_cell(t, i, "hi"));
      if (p < lo || p >= hi) continue;
      double x = x0 + ((double)(i - first) + (hi > lo ? (p - lo) / (hi - lo) : 0)) * bwid;
      fprintf(fp, "<g class=\"pct\"><title>%s: ", pc[k]);
      hdur(fp, p);
      /* labels one under the other: close percentiles do not overlap */
      /* right of the line, or left of it in the chart's right half, so
       * the label stays inside the chart whole */
      int left = x > x0 + width / 2;
      fprintf(fp, "</title><line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>"
                  "<text x=\"%.1f\" y=\"%.0f\"%s>%s ",
              x, y0 - 12, x, y0 + height, left ? x - 3 : x + 3, y0 - 2 + 12 * k,
              left ? " text-anchor=\"end\"" : "", pc[k]);
      hdur(fp, p);
      fputs("</text></g>\n", fp);
      break;
    }
  }
  fputs("</svg>\n", fp);
}

/* ExecuTorch tax per block: the average as a bar, min to max as a line. */
static void et_chart(hw *w, const sm_table *t) {
  FILE *fp = w->fp;
  const int lw = 200, bw = 360, row = 24;
  fprintf(fp,
          "<svg class=\"chart\" viewBox=\"0 0 640 %zu\" role=\"img\" data-chart=\"executorch_tax\">"
          "<title>Framework tax per iteration, by block (bar: average; line: min to max)</title>\n",
          t->nrows * row + 26);
  for (size_t i = 0; i < t->nrows; i++) {
    double avg = num(sm_cell(t, i, "tax_avg_percent")), mn = num(sm_cell(t, i, "tax_min_percent")),
           mx = num(sm_cell(t, i, "tax_max_percent"));
    double y = (double)(i * row) + 3;
    fputs("<g><title>", fp);
    html_text(w, sm_cell(t, i, "block"), 0);
    fprintf(fp, ": %s iterations, tax avg %.2f%%, min %.2f%%, max %.2f%%</title>",
            sm_cell(t, i, "iterations"), avg, mn, mx);
    fprintf(fp, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">", lw - 6, y + 15);
    html_text(w, sm_cell(t, i, "block"), LABEL_CHARS - 8);
    fprintf(fp,
            "</text><rect x=\"%d\" y=\"%.1f\" width=\"%.2f\" height=\"%d\" fill=\"#d1495b\"/>"
            "<line class=\"whisker\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" class=\"v\">%.1f%%</text></g>\n",
            lw, y + 3, avg / 100 * bw, row - 8, lw + mn / 100 * bw, y + row / 2.0 - 1,
            lw + mx / 100 * bw, y + row / 2.0 - 1, lw + mx / 100 * bw + 4, y + 15, avg);
  }
  double y = (double)(t->nrows * row) + 6;
  fprintf(fp, "<g class=\"axis\"><line x1=\"%d\" y1=\"%.0f\" x2=\"%d\" y2=\"%.0f\"/>", lw, y,
          lw + bw, y);
  for (int k = 0; k <= 4; k++)
    fprintf(fp, "<text x=\"%d\" y=\"%.0f\" text-anchor=\"middle\">%d%%</text>", lw + k * bw / 4,
            y + 14, k * 25);
  fputs("</g></svg>\n", fp);
}

/* --- page ------------------------------------------------------------ */

static const char *const css =
    ":root{--k:#2f6fdf;--c:#f28e2b;--api:#8a5cc7;--lat:#1a9e8f;--et:#d1495b;--ink:#1d2330;"
    "--mute:#5d6675;--line:#d7dbe2;--bg:#e9edf2;--panel:#f5f7fa}"
    "*{box-sizing:border-box}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',"
    "sans-serif;color:var(--ink);background:var(--bg)}"
    "header{padding:18px 28px 10px;border-bottom:3px solid var(--k);background:#fff}"
    "h1{margin:0 0 4px;font-size:22px}h2{margin:0 0 10px;font-size:18px;border-bottom:1px solid "
    "var(--line);padding-bottom:4px}h3{font-size:15px;margin:14px 0 6px}"
    ".sub{color:var(--mute);margin:0;word-break:break-all}"
    "nav{margin-top:8px}nav a{margin-right:14px;color:var(--k);text-decoration:none;"
    "font-weight:600}"
    "main{padding:4px 20px 30px;max-width:1560px}"
    "section{margin:16px 0;background:#fff;border:1px solid #d5dbe3;border-radius:8px;"
    "padding:14px 20px 10px;box-shadow:0 1px 2px #0000000d}"
    ".note{color:var(--mute);margin:2px 0 10px;max-width:110ch}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px;margin:6px 0 14px}"
    ".card{background:var(--panel);border:1px solid var(--line);border-radius:6px;"
    "padding:8px 14px;min-width:130px}.card b{display:block;font-size:20px}"
    ".card span{color:var(--mute);font-size:12px}"
    ".pair{display:grid;grid-template-columns:minmax(0,500px) minmax(0,1fr);gap:20px;"
    "align-items:start}"
    "@media (max-width:1000px){.pair{grid-template-columns:minmax(0,1fr)}}"
    "svg.chart{width:100%;max-width:560px;height:auto;display:block}"
    "svg.wide{max-width:1000px}"
    "svg text{font:12.5px system-ui,'DejaVu Sans',sans-serif;fill:#2a3140}"
    "svg text.v{fill:var(--mute)}svg text.small{font-size:7px}"
    "svg .axis line{stroke:#9aa3b0;stroke-width:1}svg .axis text{fill:var(--mute);font-size:10px}"
    "svg rect.bg{fill:#f1f3f6}svg rect.row{fill:transparent}svg rect.row:hover{fill:#0000001a}svg rect.k{fill:var(--k)}svg rect.lat{fill:var(--lat)}"
    "svg .pct line{stroke:#c0392b;stroke-dasharray:4 3;stroke-width:1.2}"
    "svg .pct text{fill:#c0392b;font-weight:600}"
    "svg .whisker{stroke:#7a1f2b;stroke-width:2}"
    "svg g:hover>rect{opacity:.8}"
    ".tw{overflow-x:auto;max-width:100%}"
    "table.data{border-collapse:collapse;font-size:12px;margin:2px 0 10px}"
    "table.data th,table.data td{padding:3px 6px;border-bottom:1px solid var(--line);"
    "text-align:right;white-space:nowrap;vertical-align:top}"
    "table.data th{background:var(--panel);cursor:pointer;user-select:none}"
    /* names wrap (at any character: C++ names have few spaces) rather than
     * being cut: two kernels that differ late stay apart */
    "table.data .t{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:14ch;"
    "max-width:64ch}"
    "table.data .t.l{max-width:none}"
    "table.data td.t:first-child{font-weight:500}"
    "table.data tr:hover td{background:#eef3fc}.none{color:var(--mute);text-align:left}"
    ".legend{font-size:12px;color:var(--mute);margin:4px 0 10px}"
    ".sw{display:inline-block;width:12px;height:10px;margin:0 4px 0 8px;vertical-align:-1px;"
    "border:1px solid #0002}"
    "details>summary{cursor:pointer;color:var(--k);font-weight:600;margin:6px 0}"
    "footer{color:var(--mute);font-size:12px;padding:10px 28px 30px}"
    "@media print{nav,footer{display:none}body{font-size:11px;background:#fff}"
    "section{border:none;box-shadow:none;padding:0}"
    "section{break-inside:avoid-page}table.data th{cursor:auto}"
    ".pair{grid-template-columns:minmax(0,1fr)}a{color:inherit}}";

/* Click a column head to sort by it (exact values in data-v). */
static const char *const script =
    "document.querySelectorAll('table.data th').forEach(function(th){th.addEventListener("
    "'click',function(){var tb=th.closest('table').tBodies[0],i=th.cellIndex,d=th.dataset.d="
    "th.dataset.d==='1'?'-1':'1',rs=Array.from(tb.rows);rs.sort(function(a,b){var x=a.cells[i],"
    "y=b.cells[i];if(!x||!y)return 0;var u=x.dataset.v,v=y.dataset.v;var c=(u!==undefined&&v!=="
    "undefined)?(parseFloat(u)||0)-(parseFloat(v)||0):x.textContent.localeCompare(y.textContent);"
    "return c*d;});rs.forEach(function(r){tb.appendChild(r);});});});"
    "window.addEventListener('beforeprint',function(){document.querySelectorAll('details')."
    "forEach(function(d){d.open=true;});});";

static size_t find_table(const hw *w, const char *id) {
  for (size_t i = 0; i < w->n; i++)
    if (strcmp(w->t[i].id, id) == 0 && w->t[i].pid == HUB_NULL) return i;
  return (size_t)-1;
}

static void card(hw *w, const char *key, const char *value, const char *shown,
                 const char *label) {
  fprintf(w->fp, "<div class=\"card\"><b data-k=\"%s\" data-v=\"%s\">", key, value);
  html_text(w, shown, 0);
  fprintf(w->fp, "</b><span>%s</span></div>", label);
}

static void overview(hw *w) {
  const sm_summary *s = w->s;
  FILE *fp = w->fp;
  char v[64], h[64];
  heading(w, "h2", "overview", "Overview");
  int64_t span = s->events ? s->span_end - s->span_start : 0;
  fputs("<div class=\"cards\">", fp);
  snprintf(v, sizeof v, "%" PRId64, span);
  tt_human_duration(h, sizeof h, (double)span);
  card(w, "span_ns", v, h, "time span");
  snprintf(v, sizeof v, "%" PRIu64, s->events);
  card(w, "events", v, v, "events");
  snprintf(v, sizeof v, "%zu", s->nprocs);
  card(w, "processes", v, v, "processes");
  /* a hub that names no host (a generator's, an importer's without one)
   * has hosts unknown, not none */
  size_t hosts = sm_host_count(s, w->r);
  snprintf(v, sizeof v, "%zu", hosts);
  card(w, "hosts", v, hosts ? v : "unknown", hosts ? "hosts" : "hosts (none recorded)");
  snprintf(v, sizeof v, "%zu", s->nagents);
  card(w, "devices", v, v, "GPU devices with work");
  snprintf(v, sizeof v, "%zu", hub_reader_ndbs(w->r));
  card(w, "databases", v, v, "hub databases");
  fputs("</div>\n", fp);
  fprintf(fp, "<p class=\"note\">From <span data-k=\"span_start_ns\" data-v=\"%" PRId64
              "\">%" PRId64 "</span> to <span data-k=\"span_end_ns\" data-v=\"%" PRId64
              "\">%" PRId64 "</span> ns (the profilers' clock). Charts over time use %d bins of ",
          s->events ? s->span_start : 0, s->events ? s->span_start : 0,
          s->events ? s->span_end : 0, s->events ? s->span_end : 0, s->bins.n);
  hdur(fp, (double)s->bins.width);
  fprintf(fp, " from <span data-k=\"bin_start_ns\" data-v=\"%" PRId64 "\">%" PRId64
              "</span> ns (bin width <span data-k=\"bin_ns\" data-v=\"%" PRId64 "\">%" PRId64
              "</span> ns, <span data-k=\"bins\" data-v=\"%d\">%d</span> bins).</p>\n",
          s->bins.start, s->bins.start, s->bins.width, s->bins.width, s->bins.n, s->bins.n);
  fputs("<div class=\"pair\"><div><h3>Events by kind</h3>", fp);
  size_t ti = find_table(w, "event_counts");
  if (ti != (size_t)-1) data_table(w, ti);
  fputs("</div><div><h3>GPU devices</h3>", fp);
  ti = find_table(w, "gpu_busy");
  if (ti != (size_t)-1 && w->t[ti].nrows > 16) {
    /* many devices: the strips show them; the table on demand */
    fprintf(fp, "<details><summary>The table of all %zu devices</summary>", w->t[ti].nrows);
    data_table(w, ti);
    fputs("</details>", fp);
  } else if (ti != (size_t)-1) {
    data_table(w, ti);
  }
  fputs("</div></div>\n", fp);
}

/* A section table with its chart beside it (heaviest rows first). */
static void chart_with_table(hw *w, size_t ti, const char *col, const char *color,
                             const char *what) {
  const sm_table *t = &w->t[ti];
  fputs("<div class=\"pair\"><div>", w->fp);
  if (t->nrows) bar_chart(w, t, col, "name", color, what);
  else fputs("<p class=\"none\">none</p>", w->fp);
  fputs("</div><div>", w->fp);
  data_table(w, ti);
  fputs("</div></div>\n", w->fp);
}

/* The lowest rank of an input's processes, INT64_MAX when none has one. */
static int64_t db_rank(hub_reader *r, int db) {
  int64_t rank = INT64_MAX;
  for (size_t i = 0; i < hub_reader_nprocesses(r); i++) {
    const hub_process_info *p = hub_reader_process(r, i);
    if (p->db == db && p->rank != HUB_NULL && p->rank < rank) rank = p->rank;
  }
  return rank;
}

/* The inputs' names, in rank order where their processes have ranks. */
static void inputs_line(hw *w) {
  size_t n = hub_reader_ndbs(w->r);
  size_t *order = tt_malloc((n ? n : 1) * sizeof *order);
  int64_t *rank = tt_malloc((n ? n : 1) * sizeof *rank);
  for (size_t i = 0; i < n; i++) order[i] = i, rank[i] = db_rank(w->r, (int)i);
  for (size_t i = 1; i < n; i++) /* insertion sort: stable, few inputs shown */
    for (size_t j = i; j > 0 && rank[order[j - 1]] > rank[order[j]]; j--) {
      size_t x = order[j];
      order[j] = order[j - 1];
      order[j - 1] = x;
    }
  for (size_t i = 0; i < n && i < 6; i++) {
    if (i) fputs(", ", w->fp);
    const char *p = hub_reader_db_path(w->r, (int)order[i]);
    const char *b = strrchr(p, '/');
    html_text(w, b ? b + 1 : p, 0);
  }
  if (n > 6) fprintf(w->fp, " and %zu more", n - 6);
  free(order);
  free(rank);
}

void sm_write_html(const sm_summary *s, hub_reader *r, const sm_table *t, size_t n, FILE *fp) {
  hw w = {.fp = fp, .s = s, .r = r, .t = t, .n = n, .shown = tt_calloc(n ? n : 1, 1)};
  fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta name=\"generator\" content=\"db2summary " TT_VERSION "\"><title>GPU profile "
        "summary: ",
        fp);
  inputs_line(&w);
  fprintf(fp, "</title><style>%s", css);
  for (int l = 1; l <= HEAT_LEVELS; l++)
    fprintf(fp, "svg path.h%d{stroke:%s;fill:none}", l, heat_fill[l]);
  fputs("</style></head><body>\n<header><h1>GPU profile summary</h1><p class=\"sub\">", fp);
  inputs_line(&w);
  fputs(" &middot; db2summary " TT_VERSION "</p><nav><a href=\"#overview\">Overview</a>"
        "<a href=\"#activity\">GPU activity</a><a href=\"#kernels\">Kernels</a>"
        "<a href=\"#api\">API</a><a href=\"#copies\">Copies</a>"
        "<a href=\"#processes\">Processes</a><a href=\"#latency\">Launch latency</a>",
        fp);
  if (s->executorch) fputs("<a href=\"#executorch\">ExecuTorch</a>", fp);
  fputs("<a href=\"#tables\">Other tables</a></nav></header>\n<main>\n", fp);

  /* overview */
  fputs("<section>", fp);
  overview(&w);
  fputs("</section>\n", fp);

  /* GPU activity */
  fputs("<section>", fp);
  heading(&w, "h2", "activity", "GPU activity over time");
  fputs("<p class=\"note\">Busy percent of each device per time bin: the union of its kernels' "
        "and copies' intervals (the busy figure of the GPU devices table) cut at the bins' "
        "edges. Hover a bar for its numbers.</p>\n",
        fp);
  size_t ti = find_table(&w, "gpu_activity");
  if (ti != (size_t)-1) {
    w.shown[ti] = 1;
    activity_chart(&w, &t[ti], "agent", "GPU busy percent per time bin, one strip per device");
  }
  fputs("</section>\n", fp);

  /* kernels */
  fputs("<section>", fp);
  heading(&w, "h2", "kernels", "Top kernels");
  fputs("<p class=\"note\">Total time per kernel name, heaviest first; % is of all kernel "
        "time.</p>\n",
        fp);
  int any = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i].kind == SEC_KERNEL && t[i].section >= 0 && t[i].pid == HUB_NULL) {
      chart_with_table(&w, i, "total", "#2f6fdf", "total kernel time");
      any = 1;
    }
  if (!any)
    fputs(s->opt->by_process ? "<p class=\"none\">Per process: see Other tables.</p>"
                             : "<p class=\"none\">No kernels.</p>",
          fp);
  fputs("</section>\n", fp);

  /* API and other regions */
  fputs("<section>", fp);
  heading(&w, "h2", "api", "Runtime and driver API, and other CPU regions");
  any = 0;
  for (size_t i = 0; i < n; i++)
    if (t[i].kind == SEC_API && t[i].section >= 0 && t[i].pid == HUB_NULL) {
      heading(&w, "h3", t[i].slug, t[i].title);
      chart_with_table(&w, i, "total", "#8a5cc7", "total time in calls");
      any = 1;
    }
  if (!any)
    fputs(s->opt->by_process ? "<p class=\"none\">Per process: see Other tables.</p>"
                             : "<p class=\"none\">No API calls or CPU regions.</p>",
          fp);
  fputs("</section>\n", fp);

  /* CPU samples */
  any = 0;
  for (size_t i = 0; i < n; i++)
    if (strcmp(t[i].id, "cpu_samples") == 0 && t[i].pid == HUB_NULL) {
      if (!any) {
        fputs("<section>", fp);
        heading(&w, "h2", "cpu_samples", "CPU samples");
        fputs("<p class=\"note\">Functions by the samples they were running in (self) and "
              "the samples they were on the stack of (total), heaviest first.</p>\n",
              fp);
      }
      chart_with_table(&w, i, "self_samples", "#59a14f", "self samples");
      any = 1;
    }
  if (any) fputs("</section>\n", fp);

  /* copies */
  fputs("<section>", fp);
  heading(&w, "h2", "copies", "Memory copies by direction");
  fputs("<p class=\"note\">Bytes moved per direction; bandwidth is bytes over the summed copy "
        "time (GB/s = bytes per ns).</p>\n",
        fp);
  ti = find_table(&w, "copies_by_direction");
  if (ti != (size_t)-1) {
    fputs("<div class=\"pair\"><div>", fp);
    if (t[ti].nrows) bar_chart(&w, &t[ti], "bytes", "name", "#f28e2b", "bytes copied");
    else fputs("<p class=\"none\">No memory copies.</p>", fp);
    fputs("</div><div>", fp);
    data_table(&w, ti);
    fputs("</div></div>\n", fp);
    /* below the pair, the section's whole width: its ten columns beside
     * the chart scrolled sideways in a 1280 px window */
    for (size_t i = 0; i < n; i++)
      if (t[i].kind == SEC_COPY && t[i].section >= 0 && t[i].pid == HUB_NULL) {
        fputs("<h3>Copies by name: calls and times</h3>", fp);
        data_table(&w, i);
      }
  }
  fputs("</section>\n", fp);

  /* processes */
  fputs("<section>", fp);
  heading(&w, "h2", "processes", "Processes side by side");
  ti = find_table(&w, "processes");
  if (ti != (size_t)-1) {
    const sm_table *p = &t[ti];
    fputs("<p class=\"note\">Each process within its own span (first to last event): kernel "
          "busy is the union of its kernels, copy busy its copies outside them, the rest "
          "idle; ranks in rank order, other processes after them by kernel busy time, "
          "heaviest first.</p>\n",
          fp);
    if (p->nrows <= PROC_BARS) {
      /* the chart above its table, not beside it: the table's ten columns
       * need the section's whole width (beside the chart, a 1280 px
       * window hid its busy columns behind a scroll bar) */
      process_bars(&w, p);
      data_table(&w, ti);
    } else {
      fputs("<h3>GPU busy per process over time</h3>", fp);
      activity_chart(&w, p, "name", "GPU busy percent per time bin, one row per process");
      fputs("<details><summary>The table of every process</summary>", fp);
      data_table(&w, ti);
      fputs("</details>\n", fp);
    }
  }
  fputs("</section>\n", fp);

  /* launch latency */
  fputs("<section>", fp);
  heading(&w, "h2", "latency", "Launch latency");
  fputs("<p class=\"note\">Kernel start minus the start of the API call that launched it. Bins "
        "are quarter octaves; percentiles are within 0.2%.</p>\n",
        fp);
  ti = find_table(&w, "launch_latency_histogram");
  size_t pi = find_table(&w, "launch_latency_percentiles");
  if (ti != (size_t)-1 && pi != (size_t)-1) {
    const sm_table *h = &t[ti], *pc = &t[pi];
    fputs("<div class=\"pair\"><div>", fp);
    if (!h->nrows) fputs("<p class=\"none\">No kernel with its launching call.</p>", fp);
    /* one chart per scope, up to 8 */
    for (size_t i = 0, scope = 0; i < h->nrows && scope < 8; scope++) {
      size_t j = i;
      while (j < h->nrows && strcmp(h->cells[j * h->ncols], h->cells[i * h->ncols]) == 0) j++;
      if (pc->nrows > 1) {
        fputs("<h3>", fp);
        html_text(&w, sm_cell(h, i, "scope"), 0);
        fputs("</h3>", fp);
      }
      latency_chart(&w, h, i, j, scope < pc->nrows ? pc : NULL, scope);
      i = j;
    }
    fputs("</div><div><h3>Percentiles</h3>", fp);
    data_table(&w, pi);
    ti = find_table(&w, "launch_latency");
    if (ti != (size_t)-1) {
      fputs("<h3>Summary</h3>", fp);
      data_table(&w, ti);
    }
    fputs("<details><summary>Histogram bins</summary>", fp);
    data_table(&w, find_table(&w, "launch_latency_histogram"));
    fputs("</details></div></div>\n", fp);
  }
  fputs("</section>\n", fp);

  /* ExecuTorch */
  ti = find_table(&w, "executorch_tax");
  if (ti != (size_t)-1) {
    fputs("<section>", fp);
    heading(&w, "h2", "executorch", "ExecuTorch framework tax");
    fputs("<p class=\"note\">Per iteration: (execute - kernels) / execute, where execute is the "
          "longest Method::execute event and kernels the summed native calls and delegate "
          "executions.</p>\n<div class=\"pair\"><div>",
          fp);
    if (t[ti].nrows) et_chart(&w, &t[ti]);
    fputs("</div><div>", fp);
    data_table(&w, ti);
    fputs("</div></div></section>\n", fp);
  }

  ti = find_table(&w, "clocks");
  if (ti != (size_t)-1) {
    fputs("<section>", fp);
    heading(&w, "h2", "clocks", "Clocks");
    fputs("<p class=\"note\">Each host's clock against the reference (--align): offset and "
          "drift subtracted from its times; the residual is how far the ends of one collective "
          "still are apart across hosts after that (median, 99th percentile).</p>\n",
          fp);
    data_table(&w, ti);
    fputs("</section>\n", fp);
  }

  /* the rest: every table the sections above did not show */
  fputs("<section>", fp);
  heading(&w, "h2", "tables", "Other tables");
  any = 0;
  for (size_t i = 0; i < n; i++) {
    if (w.shown[i]) continue;
    heading(&w, "h3", t[i].slug, t[i].title);
    data_table(&w, i);
    any = 1;
  }
  if (!any) fputs("<p class=\"none\">none</p>", fp);
  fputs("</section>\n</main>\n<footer>Written by db2summary " TT_VERSION
        " from the hub databases; every figure here is also in <code>db2summary --format "
        "json</code>.</footer>\n<script>",
        fp);
  fputs(script, fp);
  fputs("</script>\n</body></html>\n", fp);
  tt_buf_free(&w.tmp);
  tt_buf_free(&w.label);
  free(w.shown);
}
