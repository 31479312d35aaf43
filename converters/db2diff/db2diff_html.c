/* db2diff's html: one offline file (inline CSS and SVG, no script, no
 * network) in the look of db2summary's report: the two sides, the verdict
 * and its warnings, the steps and their breakdown, a chart of the largest
 * changes, and the groups' table. Trace text reaches it only through
 * tt_html_escape (base/html_text.h). Its size is bounded: the chart shows
 * CHART_ROWS groups, the table TABLE_ROWS (json and csv have all). */
#include <math.h>
#include <string.h>

#include "base/html_text.h"
#include "db2diff.h"

#define CHART_ROWS 20
#define TABLE_ROWS 500
#define LABEL_CHARS 48
#define NAME_CHARS 200

typedef struct hw {
  FILE *fp;
  const dd_report *r;
  tt_buf tmp;
} hw;

static void esc(hw *w, const char *s, size_t max) { tt_html_escape(w->fp, s, max, &w->tmp); }

static void dur(hw *w, double ns) {
  char b[48];
  fputs(tt_human_duration(b, sizeof b, ns), w->fp);
}

static const char *const css =
    ":root{--ink:#1d2330;--mute:#5d6675;--line:#d7dbe2;--up:#d1495b;--down:#1a9e8f;"
    "--k:#2f6fdf;--panel:#f5f7fa}"
    "body{margin:0;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;"
    "color:var(--ink);background:#e9edf2}"
    "header{padding:18px 28px 10px;border-bottom:3px solid var(--k);background:#fff}"
    "h1{margin:0 0 4px;font-size:22px}"
    "h2{margin:0 0 10px;font-size:18px;border-bottom:1px solid var(--line);padding-bottom:4px}"
    ".sub{color:var(--mute);margin:0;word-break:break-all}"
    "main{padding:4px 20px 30px;max-width:1560px}"
    "section{margin:16px 0;background:#fff;border:1px solid #d5dbe3;border-radius:8px;padding:14px 20px 10px}"
    ".note{color:var(--mute);max-width:110ch}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px}"
    ".card{background:var(--panel);border:1px solid var(--line);border-radius:6px;padding:8px 14px}"
    ".card b{display:block;font-size:20px}.card span{color:var(--mute);font-size:12px}"
    ".regression{color:var(--up)}.improvement{color:var(--down)}"
    ".warn{color:#8a5a00;background:#fff6e0;border:1px solid #f0d590;border-radius:6px;padding:6px 10px}"
    "table{border-collapse:collapse;width:100%}"
    "th,td{border-bottom:1px solid var(--line);padding:3px 8px;text-align:left;vertical-align:top}"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "td.k{font-size:12px;color:var(--mute);word-break:break-all}"
    "svg{display:block;max-width:1000px;width:100%;height:auto}"
    "svg text{font:12px system-ui,'DejaVu Sans',sans-serif;fill:#2a3140}";

static const char *side_name(int i) { return i ? "candidate" : "base"; }

static void card(hw *w, const char *label, const char *cls) {
  fprintf(w->fp, "<div class=\"card\"><span>%s</span><b%s%s%s>", label, cls ? " class=\"" : "",
          cls ? cls : "", cls ? "\"" : "");
}

static void header(hw *w) {
  const dd_report *r = w->r;
  fputs("<section><h2>Runs</h2><table><tr><th>side</th><th>inputs</th><th>devices</th>"
        "<th>processes</th><th>steps</th><th>GPU time</th><th>GPU ops</th><th>matched</th></tr>\n",
        w->fp);
  for (int i = 0; i < 2; i++) {
    const dd_side_info *in = &r->info[i];
    fprintf(w->fp, "<tr><td>%s</td><td class=\"k\">", side_name(i));
    for (size_t k = 0; k < in->npaths; k++) {
      if (k) fputs("<br>", w->fp);
      esc(w, in->paths[k], NAME_CHARS);
    }
    fputs("</td><td>", w->fp);
    esc(w, in->devices && *in->devices ? in->devices : "no GPU work", NAME_CHARS);
    fprintf(w->fp, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td><td class=\"n\">",
            (long long)in->ranks, (long long)in->steps);
    dur(w, (double)r->gpu_ns[i]);
    fprintf(w->fp, "</td><td class=\"n\">%lld</td><td class=\"n\">%.1f%% (%.1f%% by launching op)</td></tr>\n",
            (long long)r->kernels[i], 100 * dd_share(r, i, 0), 100 * dd_share(r, i, 1));
  }
  fputs("</table></section>\n", w->fp);
}

static void verdict(hw *w) {
  const dd_report *r = w->r;
  fputs("<section><h2>Verdict</h2><div class=\"cards\">", w->fp);
  const char *cls = strcmp(r->verdict, "regression") == 0    ? "regression"
                    : strcmp(r->verdict, "improvement") == 0 ? "improvement"
                                                             : NULL;
  card(w, "verdict", cls);
  esc(w, r->verdict, 0);
  fputs("</b></div>", w->fp);
  card(w, r->by_steps ? "step time (median)" : "GPU time", cls);
  fprintf(w->fp, "%+.2f%%</b></div>", r->change_pct);
  card(w, "noise (steps' spread)", NULL);
  fprintf(w->fp, "%.2f%%</b></div>", r->noise_pct);
  card(w, "GPU time", NULL);
  dur(w, (double)r->gpu_ns[0]);
  fputs(" \xe2\x86\x92 ", w->fp); /* → */
  dur(w, (double)r->gpu_ns[1]);
  fputs("</b></div>", w->fp);
  for (int i = 0; i < 2; i++) {
    card(w, i ? "candidate step" : "base step", NULL);
    if (r->steps[i].ns.n) dur(w, (double)r->steps[i].median_ns);
    else fputs("no steps", w->fp);
    fputs("</b></div>", w->fp);
  }
  fputs("</div>\n", w->fp);
  for (size_t i = 0; i < r->warnings.n; i++) {
    fputs("<p class=\"warn\">warning: ", w->fp);
    esc(w, r->warnings.v[i], 0);
    fputs("</p>\n", w->fp);
  }
  fputs("</section>\n", w->fp);
}

/* The median step of each side as one bar of its four parts. */
static void steps(hw *w) {
  const dd_report *r = w->r;
  if (!r->by_steps) return;
  static const char *const part[4] = {"compute", "communication not hidden", "copies", "idle"};
  static const char *const fill[4] = {"#2f6fdf", "#f28e2b", "#8a5cc7", "#c9ced6"};
  double most = (double)(r->steps[0].median_ns > r->steps[1].median_ns ? r->steps[0].median_ns
                                                                        : r->steps[1].median_ns);
  fputs("<section><h2>Steps</h2><p class=\"note\">The median step of each side, on the busiest device "
        "of its longest process: compute, communication not hidden behind compute, copies not "
        "hidden behind either, and idle (the GPU waiting for the host). The parts add up to the "
        "step.</p>\n<svg viewBox=\"0 0 1000 120\" role=\"img\">",
        w->fp);
  for (int i = 0; i < 2; i++) {
    const dd_breakdown *k = &r->steps[i].median_brk;
    int64_t v[4] = {k->compute_ns, k->comm_ns, k->copy_ns, k->idle_ns};
    double x = 110, y = 10 + i * 40;
    fprintf(w->fp, "<text x=\"0\" y=\"%.0f\">%s</text>", y + 17, side_name(i));
    for (int p = 0; p < 4; p++) {
      double wd = most > 0 ? 760.0 * (double)v[p] / most : 0;
      fprintf(w->fp, "<rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"24\" fill=\"%s\"><title>%s: ", x, y,
              wd, fill[p], part[p]);
      dur(w, (double)v[p]);
      fputs("</title></rect>", w->fp);
      x += wd;
    }
    fprintf(w->fp, "<text x=\"%.1f\" y=\"%.0f\">", x + 6, y + 17);
    dur(w, (double)r->steps[i].median_ns);
    fputs("</text>", w->fp);
  }
  for (int p = 0; p < 4; p++)
    fprintf(w->fp, "<rect x=\"%d\" y=\"96\" width=\"12\" height=\"12\" fill=\"%s\"/><text x=\"%d\" y=\"106\">%s</text>",
            110 + p * 200, fill[p], 128 + p * 200, part[p]);
  fputs("</svg>\n<table><tr><th>side</th><th>steps</th><th>median</th><th>spread (MAD)</th><th>compute</th>"
        "<th>communication</th><th>copies</th><th>idle</th></tr>\n",
        w->fp);
  for (int i = 0; i < 2; i++) {
    const dd_steps *s = &r->steps[i];
    int64_t v[6] = {s->median_ns, s->spread_ns, s->median_brk.compute_ns, s->median_brk.comm_ns,
                    s->median_brk.copy_ns, s->median_brk.idle_ns};
    fprintf(w->fp, "<tr><td>%s</td><td class=\"n\">%zu</td>", side_name(i), s->ns.n);
    for (int k = 0; k < 6; k++) {
      fputs("<td class=\"n\">", w->fp);
      dur(w, (double)v[k]);
      fputs("</td>", w->fp);
    }
    fputs("</tr>\n", w->fp);
  }
  fputs("</table></section>\n", w->fp);
}

/* The largest changes as bars either side of zero (groups are sorted by
 * the size of their change already). */
static void chart(hw *w) {
  const dd_report *r = w->r;
  size_t n = r->groups.n < CHART_ROWS ? r->groups.n : CHART_ROWS;
  double most = 0;
  for (size_t i = 0; i < n; i++)
    most = fmax(most, fabs((double)(r->groups.v[i].side[1].gpu_ns - r->groups.v[i].side[0].gpu_ns)));
  fputs("<section><h2>Largest changes</h2><p class=\"note\">GPU time of each group, candidate minus base: "
        "right (red) is slower, left (green) faster. Hover a bar for its figures.</p>\n",
        w->fp);
  if (!n || most == 0) {
    fputs("<p>No group changed.</p></section>\n", w->fp);
    return;
  }
  fprintf(w->fp, "<svg viewBox=\"0 0 1000 %zu\" role=\"img\">", n * 22 + 10);
  for (size_t i = 0; i < n; i++) {
    const dd_group *g = &r->groups.v[i];
    double d = (double)(g->side[1].gpu_ns - g->side[0].gpu_ns), y = 5 + (double)i * 22;
    double wd = 300.0 * fabs(d) / most, x = d >= 0 ? 680 : 680 - wd;
    fprintf(w->fp, "<text x=\"0\" y=\"%.0f\">", y + 14);
    esc(w, dd_name(r->names, g->key), LABEL_CHARS);
    fprintf(w->fp, "</text><rect x=\"%.1f\" y=\"%.0f\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>",
            x, y, wd, d >= 0 ? "#d1495b" : "#1a9e8f");
    esc(w, dd_name(r->names, g->key), NAME_CHARS);
    fprintf(w->fp, " (%s): ", dd_rule_name(g->rule));
    dur(w, (double)g->side[0].gpu_ns);
    fputs(" \xe2\x86\x92 ", w->fp); /* → */
    dur(w, (double)g->side[1].gpu_ns);
    fputs("</title></rect>", w->fp);
  }
  fprintf(w->fp, "<line x1=\"680\" x2=\"680\" y1=\"0\" y2=\"%zu\" stroke=\"#5d6675\"/></svg></section>\n",
          n * 22 + 10);
}

static void kernels(hw *w, const dd_tally_side *t) {
  for (int k = 0; k < DD_INST_KERNELS && t->k[k].count; k++) {
    if (k) fputs("<br>", w->fp);
    esc(w, dd_name(w->r->names, t->k[k].name), NAME_CHARS);
    fprintf(w->fp, " \xc3\x97%d", t->k[k].count); /* × */
  }
  if (t->other_kernels) fprintf(w->fp, "<br>%lld more", (long long)t->other_kernels);
}

static void groups(hw *w) {
  const dd_report *r = w->r;
  fprintf(w->fp, "<section><h2>Groups</h2><p class=\"note\">By launching op and shapes, or by the "
                 "fallback that paired them (the match column); largest change first. %zu groups",
          r->groups.n);
  if (r->groups.n > TABLE_ROWS) fprintf(w->fp, ", the first %d shown (json and csv list all)", TABLE_ROWS);
  fputs(".</p>\n<table><tr><th>change</th><th>base</th><th>candidate</th><th>ops</th><th>match</th>"
        "<th>key</th><th>base kernels</th><th>candidate kernels</th></tr>\n",
        w->fp);
  for (size_t i = 0; i < r->groups.n && i < TABLE_ROWS; i++) {
    const dd_group *g = &r->groups.v[i];
    int64_t d = g->side[1].gpu_ns - g->side[0].gpu_ns;
    fprintf(w->fp, "<tr><td class=\"n %s\">%s", d > 0 ? "regression" : d < 0 ? "improvement" : "",
            d > 0 ? "+" : "");
    dur(w, (double)d);
    fputs("</td><td class=\"n\">", w->fp);
    dur(w, (double)g->side[0].gpu_ns);
    fputs("</td><td class=\"n\">", w->fp);
    dur(w, (double)g->side[1].gpu_ns);
    fprintf(w->fp, "</td><td class=\"n\">%lld \xe2\x86\x92 %lld</td><td>%s</td><td>",
            (long long)g->side[0].kernels, (long long)g->side[1].kernels, dd_rule_name(g->rule));
    esc(w, dd_name(r->names, g->key), NAME_CHARS);
    fputs("</td><td class=\"k\">", w->fp);
    kernels(w, &g->side[0]);
    fputs("</td><td class=\"k\">", w->fp);
    kernels(w, &g->side[1]);
    fputs("</td></tr>\n", w->fp);
  }
  fputs("</table></section>\n", w->fp);
}

int dd_write_html(const dd_report *r, FILE *fp) {
  hw w = {.fp = fp, .r = r};
  fprintf(fp, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>db2diff: %s</title>"
              "<style>%s</style></head><body>\n<header><h1>What changed: base \xe2\x86\x92 candidate</h1>"
              "<p class=\"sub\">db2diff " TT_VERSION "</p></header>\n<main>\n",
          r->verdict, css);
  verdict(&w);
  header(&w);
  steps(&w);
  chart(&w);
  groups(&w);
  fputs("</main></body></html>\n", fp);
  tt_buf_free(&w.tmp);
  return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}
