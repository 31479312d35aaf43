/* The SQL of the reader's cursors: one statement per table of a hub, the
 * user's filters pushed into it, launch->GPU links and flow anchors joined;
 * and of each table's args, in its cursor's order. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "hub_reader_internal.h"
#include "util.h"

/* Category and name globs match case-insensitively: importers spell the
 * same category "kernel", "Kernel" and "KERNEL_DISPATCH". */
static void glob_any(tt_buf *b, const char *expr, const char **globs, size_t n) {
  tt_buf_putc(b, '(');
  for (size_t i = 0; i < n; i++) {
    char *lower = tt_strdup(globs[i]);
    for (char *c = lower; *c; c++)
      if (*c >= 'A' && *c <= 'Z') *c = (char)(*c - 'A' + 'a');
    char *lit = sqlite3_mprintf("%Q", lower);
    tt_buf_printf(b, "%slower(%s) GLOB %s", i ? " OR " : "", expr, lit);
    sqlite3_free(lit);
    free(lower);
  }
  tt_buf_putc(b, ')');
}

/* Category filter on a category expression, "" when no category filter. */
static void category_filter(tt_buf *b, const hub_filter *f, const char *cat_expr) {
  if (f->ncategories) {
    tt_buf_puts(b, " AND ");
    glob_any(b, cat_expr, f->categories, f->ncategories);
  }
  if (f->nexclude) {
    tt_buf_puts(b, " AND NOT ");
    glob_any(b, cat_expr, f->exclude_categories, f->nexclude);
  }
}

/* " AND col = PID", or " AND col IN (...)" for a set of processes. */
static void pid_cond(tt_buf *b, const char *col, const hub_filter *f) {
  if (f->npids) {
    tt_buf_printf(b, " AND %s IN (", col);
    for (size_t i = 0; i < f->npids; i++)
      tt_buf_printf(b, "%s%lld", i ? "," : "", (long long)f->pids[i]);
    tt_buf_puts(b, ")");
  } else if (f->pid != HUB_NULL) {
    tt_buf_printf(b, " AND %s = %lld", col, (long long)f->pid);
  }
}

static void common_filters(tt_buf *b, const hub_filter *f, const char *start, const char *end,
                           const char *pid, const char *name, const char *cat,
                           int instant) {
  tt_buf_puts(b, " WHERE 1");
  if (f->end != HUB_NULL) tt_buf_printf(b, " AND %s < %lld", start, (long long)f->end);
  if (f->start != HUB_NULL) {
    if (instant)
      tt_buf_printf(b, " AND %s >= %lld", start, (long long)f->start);
    else
      tt_buf_printf(b, " AND (%s > %lld OR %s >= %lld)", end, (long long)f->start, start,
                    (long long)f->start);
  }
  pid_cond(b, pid, f);
  if (cat) category_filter(b, f, cat);
  if (name && f->nnames) {
    tt_buf_puts(b, " AND ");
    glob_any(b, name, f->names, f->nnames);
  }
}

/* A kernel's display name from its symbol row `ks`: the demangled name
 * when the kernel name is mangled. */
#define KERNEL_NAME(ks)                                                                  \
  "(CASE WHEN " ks ".kernel_name GLOB '_Z*' AND COALESCE(" ks ".display_name,'') != '' " \
  "THEN " ks ".display_name ELSE COALESCE(" ks ".kernel_name, " ks ".display_name, '') END)"

static void name_filter(tt_buf *b, const hub_filter *f, const char *name_expr) {
  if (!f->nnames) return;
  tt_buf_puts(b, " AND ");
  glob_any(b, name_expr, f->names, f->nnames);
}

/* Start of the first and last GPU work sharing a launch's correlation (in
 * the same process, as correlation ids are per process), among the work
 * the filters keep, their number and every start (a graph launch has one
 * arrow per GPU work): a launch's arrow is drawn only when its other end
 * is written. One
 * grouped query over the GPU tables, joined to the launches (SQLite builds
 * it once and probes it per launch): no lookup per launch on indexes an
 * input may lack, no copy of its tables. */
static void link_to_gpu(tt_buf *b, const hub_db *d, const hub_filter *f) {
  const char *S = d->suffix;
  tt_buf_puts(b, " LEFT JOIN (SELECT corr, pid, min(start) AS start, count(*) AS n, max(start) "
                 "AS last, CASE WHEN count(*) > 1 THEN group_concat(start) END AS starts FROM (");
  int first = 1;
  if (d->has_table[T_KERNEL]) {
    tt_buf_printf(b,
                  "SELECT e2.correlation_id AS corr, k2.pid AS pid, k2.start AS start FROM "
                  "\"rocpd_kernel_dispatch%s\" k2 JOIN \"rocpd_event%s\" e2 ON e2.id = "
                  "k2.event_id LEFT JOIN \"rocpd_string%s\" c2 ON c2.id = e2.category_id LEFT "
                  "JOIN \"rocpd_info_kernel_symbol%s\" ks2 ON ks2.id = k2.kernel_id WHERE "
                  "e2.correlation_id IS NOT NULL",
                  S, S, S, S);
    pid_cond(b, "k2.pid", f);
    category_filter(b, f, "COALESCE(c2.string,'')");
    name_filter(b, f, KERNEL_NAME("ks2"));
    first = 0;
  }
  if (d->has_table[T_COPY]) {
    if (!first) tt_buf_puts(b, " UNION ALL ");
    tt_buf_printf(b,
                  "SELECT e2.correlation_id AS corr, m2.pid AS pid, m2.start AS start FROM "
                  "\"rocpd_memory_copy%s\" m2 JOIN \"rocpd_event%s\" e2 ON e2.id = m2.event_id "
                  "LEFT JOIN \"rocpd_string%s\" c2 ON c2.id = e2.category_id LEFT JOIN "
                  "\"rocpd_string%s\" n2 ON n2.id = m2.name_id WHERE e2.correlation_id IS NOT "
                  "NULL",
                  S, S, S, S);
    pid_cond(b, "m2.pid", f);
    category_filter(b, f, "COALESCE(c2.string,'')");
    name_filter(b, f, "COALESCE(n2.string,'')");
    first = 0;
  }
  if (first) tt_buf_puts(b, "SELECT NULL AS corr, NULL AS pid, NULL AS start");
  tt_buf_puts(b, ") GROUP BY corr, pid) g ON g.corr = e.correlation_id AND g.pid = r.pid");
}

/* Under a category or name filter, a recorded flow end is kept only when
 * a slice the filters keep starts at its time on its lane (every Kineto
 * flow end does: s on the launching call, f on the kernel), so no arrow
 * points at a slice that is not written. `ts` and `t` are the SQL of the
 * flow end's timestamp and the alias of its rocpd_track row. Each check
 * is one lookup on the start index of the hubs importers write. */
static void flow_anchor(tt_buf *b, const hub_db *d, const hub_filter *f, const char *ts,
                        const char *t) {
  const char *S = d->suffix;
  tt_buf_printf(b, "(CASE WHEN (CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                   "'$.stream_id') END) IS NULL THEN ",
                t, t);
  if (d->has_table[T_REGION]) {
    tt_buf_printf(b,
                  "EXISTS(SELECT 1 FROM \"rocpd_region%s\" ra LEFT JOIN \"rocpd_string%s\" na ON "
                  "na.id = ra.name_id LEFT JOIN \"rocpd_event%s\" ea ON ea.id = ra.event_id LEFT "
                  "JOIN \"rocpd_string%s\" ca ON ca.id = ea.category_id WHERE ra.start = %s AND "
                  "ra.pid = %s.pid AND ra.tid IS %s.tid",
                  S, S, S, S, ts, t, t);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, "COALESCE(na.string,'')");
    tt_buf_putc(b, ')');
  } else {
    tt_buf_puts(b, "0");
  }
  tt_buf_puts(b, " ELSE (0");
  char *lane = sqlite3_mprintf("(CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                               "'$.stream_id') END)",
                               t, t);
  if (d->has_table[T_KERNEL]) {
    tt_buf_printf(b,
                  " OR EXISTS(SELECT 1 FROM \"rocpd_kernel_dispatch%s\" ka LEFT JOIN "
                  "\"rocpd_info_kernel_symbol%s\" ksa ON ksa.id = ka.kernel_id LEFT JOIN "
                  "\"rocpd_event%s\" ea ON ea.id = ka.event_id LEFT JOIN \"rocpd_string%s\" ca ON "
                  "ca.id = ea.category_id WHERE ka.start = %s AND ka.stream_id = %s",
                  S, S, S, S, ts, lane);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, KERNEL_NAME("ksa"));
    tt_buf_putc(b, ')');
  }
  if (d->has_table[T_COPY]) {
    tt_buf_printf(b,
                  " OR EXISTS(SELECT 1 FROM \"rocpd_memory_copy%s\" ma LEFT JOIN \"rocpd_string%s\" "
                  "na ON na.id = ma.name_id LEFT JOIN \"rocpd_event%s\" ea ON ea.id = ma.event_id "
                  "LEFT JOIN \"rocpd_string%s\" ca ON ca.id = ea.category_id WHERE ma.start = %s "
                  "AND ma.stream_id = %s",
                  S, S, S, S, ts, lane);
    category_filter(b, f, "COALESCE(ca.string,'')");
    name_filter(b, f, "COALESCE(na.string,'')");
    tt_buf_putc(b, ')');
  }
  sqlite3_free(lane);
  tt_buf_puts(b, ") END)");
}

static int has_event_filter(const hub_filter *f) {
  return f->ncategories || f->nexclude || f->nnames;
}

/* --gpu, on the tables that hold more than GPU work (the reader's
 * classifier, hub_reader.c, decides each row it reads the same way):
 * regions only on threads that stand for a GPU lane, allocate rows only
 * of a memset kind. */
static void gpu_only_regions(tt_buf *b, const hub_db *d) {
  tt_buf_printf(b,
                " AND r.tid IN (SELECT tid FROM \"rocpd_info_thread%s\" WHERE " JX("extdata", "$.kind")
                " = '" HUB_WORD_GPU_LANE "')",
                d->suffix);
}

char *hr_cursor_sql(const hub_db *d, table_id t, const hub_filter *f) {
  const char *S = d->suffix;
  tt_buf b = {0};
  switch (t) {
  case T_REGION: {
    /* --gpu writes no launch: no arrow to find. */
    int link = !d->has_flows && !f->gpu_only;
    tt_buf_puts(&b, "SELECT r.id, r.start, r.end, r.pid, r.tid, COALESCE(n.string,''), "
                    "COALESCE(c.string,''), e.correlation_id, r.event_id, NULL, NULL, 0, NULL, "
                    "NULL, NULL, NULL, NULL, NULL, ");
    tt_buf_puts(&b, link ? "g.start, g.n, g.last, g.starts" : "NULL, NULL, NULL, NULL");
    tt_buf_printf(&b,
                  " FROM \"rocpd_region%s\" r LEFT JOIN \"rocpd_string%s\" n ON n.id = "
                  "r.name_id LEFT JOIN \"rocpd_event%s\" e ON e.id = r.event_id LEFT JOIN "
                  "\"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    if (link) link_to_gpu(&b, d, f);
    common_filters(&b, f, "r.start", "r.end", "r.pid", "COALESCE(n.string,'')",
                   "COALESCE(c.string,'')", 0);
    if (f->gpu_only) gpu_only_regions(&b, d);
    tt_buf_puts(&b, " ORDER BY r.start, r.end DESC, r.id");
    break;
  }
  case T_KERNEL: {
    const char *kname = KERNEL_NAME("ks");
    tt_buf_printf(&b,
                  "SELECT k.id, k.start, k.end, k.pid, k.tid, %s, COALESCE(c.string,''), "
                  "e.correlation_id, k.event_id, k.agent_id, COALESCE(k.stream_id, k.queue_id), "
                  "(k.stream_id IS NULL AND k.queue_id IS NOT NULL), NULL, NULL, NULL, NULL, "
                  "NULL, NULL, NULL, " /* link: the launch is found in memory (fill_event) */
                  "COALESCE(ks.kernel_name, '')", /* C_MANGLED: kernels only */
                  kname);
    tt_buf_printf(&b,
                  " FROM \"rocpd_kernel_dispatch%s\" k LEFT JOIN \"rocpd_info_kernel_symbol%s\" "
                  "ks ON ks.id = k.kernel_id LEFT JOIN \"rocpd_event%s\" e ON e.id = k.event_id "
                  "LEFT JOIN \"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    common_filters(&b, f, "k.start", "k.end", "k.pid", kname, "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY k.start, k.end DESC, k.id");
    break;
  }
  case T_COPY: {
    /* The copy's GPU agent: the other side may be the host's CPU agent. */
    char *agents = hr_tname(d, "rocpd_info_agent");
    int typed = hr_table_exists(d, agents);
    sqlite3_free(agents);
    tt_buf_puts(&b, "SELECT m.id, m.start, m.end, m.pid, m.tid, COALESCE(n.string,''), "
                    "COALESCE(c.string,''), e.correlation_id, m.event_id, COALESCE(");
    if (typed)
      tt_buf_printf(&b,
                    "(SELECT ga.id FROM \"rocpd_info_agent%s\" ga WHERE ga.id = m.dst_agent_id "
                    "AND ga.type = 'GPU'), (SELECT ga.id FROM \"rocpd_info_agent%s\" ga WHERE "
                    "ga.id = m.src_agent_id AND ga.type = 'GPU'), ",
                    S, S);
    tt_buf_puts(&b, "m.dst_agent_id, m.src_agent_id), COALESCE(m.stream_id, m.queue_id), "
                    "(m.stream_id IS NULL AND m.queue_id IS NOT NULL), m.size, NULL, NULL, NULL, "
                    "NULL, NULL, NULL, m.src_agent_id, m.dst_agent_id"); /* C_SRC_AGENT.. */
    tt_buf_printf(&b,
                  " FROM \"rocpd_memory_copy%s\" m LEFT JOIN \"rocpd_string%s\" n ON n.id = "
                  "m.name_id LEFT JOIN \"rocpd_event%s\" e ON e.id = m.event_id LEFT JOIN "
                  "\"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S, S);
    common_filters(&b, f, "m.start", "m.end", "m.pid", "COALESCE(n.string,'')",
                   "COALESCE(c.string,'')", 0);
    tt_buf_puts(&b, " ORDER BY m.start, m.end DESC, m.id");
    break;
  }
  case T_ALLOC:
    tt_buf_printf(&b,
                  "SELECT a.id, a.start, a.end, a.pid, a.tid, COALESCE(a.type,'') || "
                  "CASE WHEN a.level IS NOT NULL THEN ' ' || a.level ELSE '' END, "
                  "COALESCE(c.string,''), e.correlation_id, a.event_id, a.agent_id, "
                  "COALESCE(a.stream_id, a.queue_id), (a.stream_id IS NULL AND a.queue_id IS "
                  "NOT NULL), a.size, NULL, NULL, NULL, NULL, NULL, NULL FROM "
                  "\"rocpd_memory_allocate%s\" a LEFT JOIN \"rocpd_event%s\" e ON e.id = "
                  "a.event_id LEFT JOIN \"rocpd_string%s\" c ON c.id = e.category_id",
                  S, S, S);
    common_filters(&b, f, "a.start", "a.end", "a.pid", "COALESCE(a.type,'')",
                   "COALESCE(c.string,'')", 0);
    if (f->gpu_only) tt_buf_puts(&b, " AND lower(COALESCE(a.type,'')) GLOB '*memset*'");
    tt_buf_puts(&b, " ORDER BY a.start, a.end DESC, a.id");
    break;
  case T_SAMPLE: {
    const char *kind = JX("t.extdata", "$.kind");
    tt_buf_printf(&b,
                  "SELECT s.id, s.timestamp, s.timestamp, t.pid, t.tid, CASE %s WHEN '" HUB_WORD_FLOW "' THEN "
                  "COALESCE(%s,'') WHEN '" HUB_WORD_COUNTER "' THEN COALESCE(tn.string,'') ELSE "
                  "COALESCE(%s, tn.string, '') END, COALESCE(c.string,''), e.correlation_id, "
                  "s.event_id, %s, %s, 0, NULL, s.track_id, %s, %s, %s, %s, ",
                  kind, JX("e.extdata", "$.name"), JX("s.extdata", "$.name"),
                  JX("t.extdata", "$.agent_id"), JX("t.extdata", "$.stream_id"),
                  JX("s.extdata", "$.value"), kind, JX("e.extdata", "$.ph"),
                  JX("e.extdata", "$.bp"));
    /* Split by process: the other end must be in the same part; under
     * filters it must have a slice that is written (flow_anchor). */
    tt_buf pidjoin = {0}, pidcond = {0};
    if (f->pid != HUB_NULL || f->npids || has_event_filter(f))
      tt_buf_printf(&pidjoin, " JOIN \"rocpd_track%s\" t2 ON t2.id = s2.track_id", S);
    pid_cond(&pidcond, "t2.pid", f);
    if (has_event_filter(f)) {
      tt_buf_puts(&pidcond, " AND ");
      flow_anchor(&pidcond, d, f, "s2.timestamp", "t2");
    }
    if (d->can_link && d->has_flows)
      tt_buf_printf(&b,
                    "(CASE WHEN %s = '" HUB_WORD_FLOW "' THEN (SELECT min(s2.timestamp) FROM "
                    "\"rocpd_event%s\" e2 JOIN \"rocpd_sample%s\" s2 ON s2.event_id = e2.id "
                    "%s WHERE e2.correlation_id = e.correlation_id AND e2.category_id IS "
                    "e.category_id AND e2.id != e.id AND %s IS NOT %s%s) END)",
                    kind, S, S, pidjoin.len ? pidjoin.data : "", JX("e2.extdata", "$.ph"),
                    JX("e.extdata", "$.ph"), pidcond.len ? pidcond.data : "");
    else
      tt_buf_puts(&b, "NULL");
    tt_buf_free(&pidjoin);
    tt_buf_free(&pidcond);
    tt_buf_printf(&b,
                  " FROM \"rocpd_sample%s\" s JOIN \"rocpd_track%s\" t ON t.id = s.track_id "
                  "LEFT JOIN \"rocpd_string%s\" tn ON tn.id = t.name_id LEFT JOIN "
                  "\"rocpd_event%s\" e ON e.id = s.event_id LEFT JOIN \"rocpd_string%s\" c ON "
                  "c.id = e.category_id",
                  S, S, S, S, S);
    /* Flow ends carry no name or category a user would filter on: they
     * follow the time range, the process and the slices they bind to. */
    tt_buf_printf(&b, " WHERE 1");
    if (f->end != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp < %lld", (long long)f->end);
    if (f->start != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp >= %lld", (long long)f->start);
    pid_cond(&b, "t.pid", f);
    if (has_event_filter(f)) {
      tt_buf b2 = {0};
      category_filter(&b2, f, "COALESCE(c.string,'')");
      if (f->nnames) {
        tt_buf_puts(&b2, " AND ");
        glob_any(&b2, "COALESCE(tn.string,'')", f->names, f->nnames);
      }
      tt_buf_printf(&b, " AND (CASE WHEN COALESCE(%s,'') = '" HUB_WORD_FLOW "' THEN ", kind);
      flow_anchor(&b, d, f, "s.timestamp", "t");
      tt_buf_printf(&b, " ELSE (1%s) END)", b2.data ? b2.data : "");
      tt_buf_free(&b2);
    }
    tt_buf_puts(&b, " ORDER BY s.timestamp, s.id");
    break;
  }
  default:
    break;
  }
  return b.data;
}

char *hr_args_sql(const hub_db *d, table_id t, const hub_filter *f) {
  const char *S = d->suffix;
  tt_buf b = {0};
  if (t == T_SAMPLE) {
    tt_buf_printf(&b,
                  "SELECT x.timestamp, x.timestamp, x.id, a.name, a.type, a.value FROM "
                  "\"rocpd_sample%s\" x JOIN \"rocpd_arg%s\" a ON a.event_id = x.event_id "
                  "WHERE 1",
                  S, S);
    if (f->end != HUB_NULL) tt_buf_printf(&b, " AND x.timestamp < %lld", (long long)f->end);
    if (f->start != HUB_NULL) tt_buf_printf(&b, " AND x.timestamp >= %lld", (long long)f->start);
    tt_buf_puts(&b, " ORDER BY x.timestamp, x.id, a.position, a.id");
    return b.data;
  }
  /* Only the cursor's time and process filters: rows of events the other
   * filters drop are stepped over. */
  tt_buf_printf(&b,
                "SELECT x.start, x.end, x.id, a.name, a.type, a.value FROM \"%s%s\" x JOIN "
                "\"rocpd_arg%s\" a ON a.event_id = x.event_id",
                hr_table_names[t], S, S);
  hub_filter tp = {.start = f->start, .end = f->end, .pid = f->pid, .pids = f->pids,
                   .npids = f->npids};
  common_filters(&b, &tp, "x.start", "x.end", "x.pid", NULL, NULL, 0);
  tt_buf_puts(&b, " ORDER BY x.start, x.end DESC, x.id, a.position, a.id");
  return b.data;
}

/* --- the merge -------------------------------------------------------- */
