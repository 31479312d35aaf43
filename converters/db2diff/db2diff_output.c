/* db2diff's text, csv, json and markdown (db2diff.h). Names from the
 * traces are data: escaped here, at the output, for each format (text
 * and csv: control characters shown as \xHH, text_escape.h; json: its
 * quoting; markdown: that and '|'). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/text_escape.h"
#include "db2diff.h"

typedef struct out {
  FILE *fp;
  tt_buf b; /* json and escaping scratch */
} out;

static void text(out *o, const char *s) { tt_text_escape_file(o->fp, s, strlen(s)); }

static void json_str(out *o, const char *s) {
  tt_buf_clear(&o->b);
  tt_json_string(&o->b, s, strlen(s));
  fwrite(o->b.data, 1, o->b.len, o->fp);
}

static void csv_cell(out *o, const char *s) {
  fputc('"', o->fp);
  for (const char *p = s; *p; p++) {
    if (*p == '"') fputc('"', o->fp);
    if ((unsigned char)*p < 0x20 || *p == 0x7f) tt_text_escape_file(o->fp, p, 1);
    else fputc(*p, o->fp);
  }
  fputc('"', o->fp);
}

static void md_cell(out *o, const char *s) {
  for (const char *p = s; *p; p++) {
    if (*p == '|' || *p == '\\' || *p == '`' || *p == '*' || *p == '_' || *p == '<') fputc('\\', o->fp);
    if ((unsigned char)*p < 0x20 || *p == 0x7f) tt_text_escape_file(o->fp, p, 1);
    else fputc(*p, o->fp);
  }
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static double pct(int64_t b, int64_t c) { return b ? 100.0 * (double)(c - b) / (double)b : 0; }

static const char *side_name(int i) { return i ? "candidate" : "base"; }

/* The verdict line and one line per warning, marked up by the caller's
 * prefixes and escaped by its `cell`. */
static void verdict_lines(out *o, const dd_report *r, const char *open, const char *close,
                          const char *warning, void (*cell)(out *, const char *)) {
  fprintf(o->fp, "%s%s%s (%s %+.2f%%, noise %.2f%%)\n%s", open, r->verdict, close,
          r->by_steps ? "step time" : "GPU time", r->change_pct, r->noise_pct, *close ? "\n" : "");
  for (size_t i = 0; i < r->warnings.n; i++) {
    fputs(warning, o->fp);
    cell(o, r->warnings.v[i]);
    fputc('\n', o->fp);
  }
}

/* --- text -------------------------------------------------------------- */

static void text_side(out *o, const dd_report *r, int i) {
  const dd_side_info *in = &r->info[i];
  fprintf(o->fp, "%-9s ", side_name(i));
  for (size_t k = 0; k < in->npaths; k++) {
    if (k) fputs(", ", o->fp);
    if (k == 3 && in->npaths > 4) {
      fprintf(o->fp, "... (%zu hubs)", in->npaths);
      break;
    }
    text(o, in->paths[k]);
  }
  fputs("\n          ", o->fp);
  text(o, in->devices && *in->devices ? in->devices : "no GPU work");
  fprintf(o->fp, "; %lld process%s launching GPU work; %lld step%s; GPU time %.3f ms in %lld ops; "
                 "%.1f%% matched (%.1f%% by launching op)\n",
          (long long)in->ranks, in->ranks == 1 ? "" : "es", (long long)in->steps, in->steps == 1 ? "" : "s",
          ms(r->gpu_ns[i]),
          (long long)r->kernels[i], 100 * dd_share(r, i, 0), 100 * dd_share(r, i, 1));
}

static void text_group(out *o, const dd_report *r, const dd_group *g) {
  int64_t d = g->side[1].gpu_ns - g->side[0].gpu_ns;
  fprintf(o->fp, "  %+10.3f ms  %9.3f -> %9.3f ms  %5lld -> %-5lld  %-14s ", ms(d), ms(g->side[0].gpu_ns),
          ms(g->side[1].gpu_ns), (long long)g->side[0].kernels, (long long)g->side[1].kernels,
          dd_rule_name(g->rule));
  text(o, dd_name(r->names, g->key));
  fputc('\n', o->fp);
  for (int s = 0; s < 2; s++)
    if (g->side[s].k[0].count) {
      fprintf(o->fp, "%38s %s: ", "", s ? "cand" : "base");
      for (int k = 0; k < DD_INST_KERNELS && g->side[s].k[k].count; k++) {
        if (k) fputs("; ", o->fp);
        char line[121];
        const char *nm = dd_name(r->names, g->side[s].k[k].name);
        snprintf(line, sizeof line, "%s", nm);
        text(o, line);
        if (strlen(nm) > 120) fputs("...", o->fp);
        fprintf(o->fp, " x%d", g->side[s].k[k].count);
      }
      if (g->side[s].other_kernels) fprintf(o->fp, "; %lld more", (long long)g->side[s].other_kernels);
      fputc('\n', o->fp);
    }
}

static void text_out(out *o, const dd_report *r) {
  fputs("db2diff: base -> candidate\n", o->fp);
  text_side(o, r, 0);
  text_side(o, r, 1);
  verdict_lines(o, r, "\nverdict: ", "", "warning: ", text);
  if (r->by_steps) {
    const dd_steps *b = &r->steps[0], *c = &r->steps[1];
    fprintf(o->fp, "\nstep time (median of %zu -> %zu): %.3f ms (+-%.3f) -> %.3f ms (+-%.3f), %+.2f%%\n",
            b->ns.n, c->ns.n, ms(b->median_ns), ms(b->spread_ns), ms(c->median_ns), ms(c->spread_ns),
            pct(b->median_ns, c->median_ns));
    fputs("  median step:          compute    communication  copies      idle\n", o->fp);
    for (int i = 0; i < 2; i++) {
      const dd_breakdown *k = &r->steps[i].median_brk;
      fprintf(o->fp, "  %-9s %9.3f ms %9.3f ms   %9.3f ms %9.3f ms\n", side_name(i), ms(k->compute_ns),
              ms(k->comm_ns), ms(k->copy_ns), ms(k->idle_ns));
    }
  }
  fprintf(o->fp, "\nGPU time: %.3f ms -> %.3f ms, %+.2f%%\n", ms(r->gpu_ns[0]), ms(r->gpu_ns[1]),
          pct(r->gpu_ns[0], r->gpu_ns[1]));
  for (int pass = 0; pass < 2; pass++) {
    fprintf(o->fp, "\ntop %s (change, base -> candidate GPU time and ops, match, key):\n",
            pass ? "improvements" : "regressions");
    int shown = 0;
    for (size_t i = 0; i < r->groups.n && (r->o->top == 0 || shown < r->o->top); i++) {
      const dd_group *g = &r->groups.v[i];
      int64_t d = g->side[1].gpu_ns - g->side[0].gpu_ns;
      if (pass ? d >= 0 : d <= 0) continue;
      text_group(o, r, g);
      shown++;
    }
    if (!shown) fputs("  none\n", o->fp);
  }
  fprintf(o->fp, "\n%zu groups in all (--format csv or json lists every one)\n", r->groups.n);
}

/* --- the instances, spooled by the report ------------------------------- */

typedef struct inst_row {
  long long step, bns, cns;
  int rule, key, bkey, ckey, bk, ck;
} inst_row;

static int next_row(FILE *f, inst_row *x) {
  return fscanf(f, "%lld\t%d\t%d\t%d\t%d\t%lld\t%lld\t%d\t%d\n", &x->step, &x->rule, &x->key, &x->bkey,
                &x->ckey, &x->bns, &x->cns, &x->bk, &x->ck) == 9;
}

/* --- json -------------------------------------------------------------- */

static void json_tally(out *o, const dd_report *r, const dd_tally_side *t) {
  fprintf(o->fp, "{\"kernels\": %lld, \"gpu_ns\": %lld, \"instances\": %lld, \"kernel_names\": [",
          (long long)t->kernels, (long long)t->gpu_ns, (long long)t->instances);
  for (int k = 0; k < DD_INST_KERNELS && t->k[k].count; k++) {
    fputs(k ? ", {\"name\": " : "{\"name\": ", o->fp);
    json_str(o, dd_name(r->names, t->k[k].name));
    fprintf(o->fp, ", \"count\": %d, \"gpu_ns\": %lld}", t->k[k].count, (long long)t->k[k].ns);
  }
  fprintf(o->fp, "], \"other_kernels\": %lld}", (long long)t->other_kernels);
}

static void json_brk(out *o, const dd_breakdown *k) {
  fprintf(o->fp, "{\"compute_ns\": %lld, \"communication_ns\": %lld, \"copies_ns\": %lld, \"idle_ns\": %lld}",
          (long long)k->compute_ns, (long long)k->comm_ns, (long long)k->copy_ns, (long long)k->idle_ns);
}

static void json_side(out *o, const dd_report *r, int i) {
  const dd_side_info *in = &r->info[i];
  const dd_steps *s = &r->steps[i];
  fprintf(o->fp, "  \"%s\": {\"inputs\": [", side_name(i));
  for (size_t k = 0; k < in->npaths; k++) {
    if (k) fputs(", ", o->fp);
    json_str(o, in->paths[k]);
  }
  fputs("], \"devices\": ", o->fp);
  json_str(o, in->devices ? in->devices : "");
  fprintf(o->fp, ", \"ranks\": %lld, \"gpu_ns\": %lld, \"kernels\": %lld,\n    \"steps\": {\"found\": %lld, "
                 "\"count\": %zu, \"median_ns\": %lld, \"spread_ns\": %lld, \"median_breakdown\": ",
          (long long)in->ranks, (long long)r->gpu_ns[i], (long long)r->kernels[i], (long long)in->steps,
          s->ns.n, (long long)s->median_ns, (long long)s->spread_ns);
  json_brk(o, &s->median_brk);
  fputs(", \"each\": [", o->fp);
  for (size_t k = 0; k < s->ns.n; k++) {
    fprintf(o->fp, "%s{\"ns\": %lld, \"breakdown\": ", k ? ", " : "", (long long)s->ns.v[k]);
    json_brk(o, &s->brk.v[k]);
    fputc('}', o->fp);
  }
  fprintf(o->fp, "]}, \"late_kernels\": %lld}", (long long)in->late);
}

/* One side of an instance row: null when the side has none (kernels < 0). */
static void json_inst_side(out *o, const dd_report *r, const char *side, int key, long long ns, int kernels) {
  fprintf(o->fp, ", \"%s\": ", side);
  if (kernels < 0) {
    fputs("null", o->fp);
    return;
  }
  fputs("{\"key\": ", o->fp);
  json_str(o, dd_name(r->names, key));
  fprintf(o->fp, ", \"gpu_ns\": %lld, \"kernels\": %d}", ns, kernels);
}

static void json_out(out *o, const dd_report *r) {
  fprintf(o->fp, "{\n  \"tool\": \"db2diff\",\n");
  json_side(o, r, 0);
  fputs(",\n", o->fp);
  json_side(o, r, 1);
  fprintf(o->fp, ",\n  \"matched_share\": {\"base\": %.6f, \"candidate\": %.6f},\n", dd_share(r, 0, 0),
          dd_share(r, 1, 0));
  fprintf(o->fp, "  \"matched_share_by_op\": {\"base\": %.6f, \"candidate\": %.6f},\n", dd_share(r, 0, 1),
          dd_share(r, 1, 1));
  fputs("  \"verdict\": ", o->fp);
  json_str(o, r->verdict);
  fprintf(o->fp, ",\n  \"metric\": \"%s\", \"change_pct\": %.4f, \"noise_pct\": %.4f,\n  \"warnings\": [",
          r->by_steps ? "step time" : "GPU time", r->change_pct, r->noise_pct);
  for (size_t i = 0; i < r->warnings.n; i++) {
    if (i) fputs(", ", o->fp);
    json_str(o, r->warnings.v[i]);
  }
  fputs("],\n  \"groups\": [", o->fp);
  for (size_t i = 0; i < r->groups.n; i++) {
    const dd_group *g = &r->groups.v[i];
    fputs(i ? ",\n    {\"key\": " : "\n    {\"key\": ", o->fp);
    json_str(o, dd_name(r->names, g->key));
    fprintf(o->fp, ", \"match\": \"%s\", \"change_ns\": %lld,\n     \"base\": ", dd_rule_name(g->rule),
            (long long)(g->side[1].gpu_ns - g->side[0].gpu_ns));
    json_tally(o, r, &g->side[0]);
    fputs(",\n     \"candidate\": ", o->fp);
    json_tally(o, r, &g->side[1]);
    fputc('}', o->fp);
  }
  fputs("\n  ]", o->fp);
  if (r->instances) {
    fputs(",\n  \"instances\": [", o->fp);
    rewind(r->instances);
    inst_row x;
    for (int64_t n = 0; next_row(r->instances, &x); n++) {
      fprintf(o->fp, "%s\n    {\"step\": %lld, \"match\": \"%s\", \"key\": ", n ? "," : "", x.step,
              dd_rule_name((dd_rule)x.rule));
      json_str(o, dd_name(r->names, x.key));
      json_inst_side(o, r, "base", x.bkey, x.bns, x.bk);
      json_inst_side(o, r, "candidate", x.ckey, x.cns, x.ck);
      fputc('}', o->fp);
    }
    fputs("\n  ]", o->fp);
  }
  fputs("\n}\n", o->fp);
}

/* --- csv: the groups, or with --instances the instances ----------------- */

static void csv_kernels(out *o, const dd_report *r, const dd_tally_side *t) {
  tt_buf b = {0};
  for (int k = 0; k < DD_INST_KERNELS && t->k[k].count; k++)
    tt_buf_printf(&b, "%s%s x%d", k ? "; " : "", dd_name(r->names, t->k[k].name), t->k[k].count);
  if (t->other_kernels) tt_buf_printf(&b, "; %lld more", (long long)t->other_kernels);
  csv_cell(o, b.data ? b.data : "");
  tt_buf_free(&b);
}

static void csv_out(out *o, const dd_report *r) {
  if (r->instances) {
    fputs("step,match,key,base_key,candidate_key,base_gpu_ns,candidate_gpu_ns,base_kernels,candidate_kernels\n",
          o->fp);
    rewind(r->instances);
    inst_row x;
    while (next_row(r->instances, &x)) {
      fprintf(o->fp, "%lld,%s,", x.step, dd_rule_name((dd_rule)x.rule));
      csv_cell(o, dd_name(r->names, x.key));
      fputc(',', o->fp);
      csv_cell(o, x.bk < 0 ? "" : dd_name(r->names, x.bkey));
      fputc(',', o->fp);
      csv_cell(o, x.ck < 0 ? "" : dd_name(r->names, x.ckey));
      fputc(',', o->fp);
      if (x.bk >= 0) fprintf(o->fp, "%lld", x.bns);
      fputc(',', o->fp);
      if (x.ck >= 0) fprintf(o->fp, "%lld", x.cns);
      fputc(',', o->fp);
      if (x.bk >= 0) fprintf(o->fp, "%d", x.bk);
      fputc(',', o->fp);
      if (x.ck >= 0) fprintf(o->fp, "%d", x.ck);
      fputc('\n', o->fp);
    }
    return;
  }
  fputs("key,match,base_kernels,base_gpu_ns,candidate_kernels,candidate_gpu_ns,change_ns,base_kernel_names,"
        "candidate_kernel_names\n",
        o->fp);
  for (size_t i = 0; i < r->groups.n; i++) {
    const dd_group *g = &r->groups.v[i];
    csv_cell(o, dd_name(r->names, g->key));
    fprintf(o->fp, ",%s,%lld,%lld,%lld,%lld,%lld,", dd_rule_name(g->rule), (long long)g->side[0].kernels,
            (long long)g->side[0].gpu_ns, (long long)g->side[1].kernels, (long long)g->side[1].gpu_ns,
            (long long)(g->side[1].gpu_ns - g->side[0].gpu_ns));
    csv_kernels(o, r, &g->side[0]);
    fputc(',', o->fp);
    csv_kernels(o, r, &g->side[1]);
    fputc('\n', o->fp);
  }
}

/* --- markdown -------------------------------------------------------------- */

static void md_out(out *o, const dd_report *r) {
  fputs("# db2diff: base -> candidate\n\n", o->fp);
  for (int i = 0; i < 2; i++) {
    const dd_side_info *in = &r->info[i];
    fprintf(o->fp, "- **%s**: ", side_name(i));
    for (size_t k = 0; k < in->npaths; k++) {
      if (k) fputs(", ", o->fp);
      md_cell(o, in->paths[k]);
    }
    fputs("; ", o->fp);
    md_cell(o, in->devices && *in->devices ? in->devices : "no GPU work");
    fprintf(o->fp, "; %lld steps; GPU time %.3f ms in %lld ops; %.1f%% matched (%.1f%% by launching op)\n",
            (long long)in->steps, ms(r->gpu_ns[i]), (long long)r->kernels[i], 100 * dd_share(r, i, 0),
            100 * dd_share(r, i, 1));
  }
  verdict_lines(o, r, "\n**Verdict: ", "**", "- warning: ", md_cell);
  if (r->by_steps) {
    fputs("\n| side | steps | median ms | spread ms | compute ms | communication ms | copies ms | idle ms |\n"
          "|---|--:|--:|--:|--:|--:|--:|--:|\n",
          o->fp);
    for (int i = 0; i < 2; i++) {
      const dd_steps *s = &r->steps[i];
      fprintf(o->fp, "| %s | %zu | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n", side_name(i), s->ns.n,
              ms(s->median_ns), ms(s->spread_ns), ms(s->median_brk.compute_ns), ms(s->median_brk.comm_ns),
              ms(s->median_brk.copy_ns), ms(s->median_brk.idle_ns));
    }
  }
  fputs("\n| change ms | base ms | candidate ms | base ops | candidate ops | match | key |\n"
        "|--:|--:|--:|--:|--:|---|---|\n",
        o->fp);
  for (size_t i = 0; i < r->groups.n && (r->o->top == 0 || i < (size_t)r->o->top); i++) {
    const dd_group *g = &r->groups.v[i];
    fprintf(o->fp, "| %+.3f | %.3f | %.3f | %lld | %lld | %s | ", ms(g->side[1].gpu_ns - g->side[0].gpu_ns),
            ms(g->side[0].gpu_ns), ms(g->side[1].gpu_ns), (long long)g->side[0].kernels,
            (long long)g->side[1].kernels, dd_rule_name(g->rule));
    md_cell(o, dd_name(r->names, g->key));
    fputs(" |\n", o->fp);
  }
}

int dd_write(const dd_report *r, FILE *fp) {
  out o = {.fp = fp};
  switch (r->o->format) {
  case DD_TEXT: text_out(&o, r); break;
  case DD_CSV: csv_out(&o, r); break;
  case DD_JSON: json_out(&o, r); break;
  case DD_MARKDOWN: md_out(&o, r); break;
  case DD_HTML: tt_buf_free(&o.b); return dd_write_html(r, fp);
  }
  tt_buf_free(&o.b);
  return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}
