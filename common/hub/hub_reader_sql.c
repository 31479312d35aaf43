/* The SQL of the reader's cursors: one statement per table of a hub, the
 * user's filters pushed into it, launch->GPU links and flow anchors joined;
 * and of each table's args, in its cursor's order. Every table is named by
 * hr_qt (hub_reader_internal.h), the quoted identifier of its base name
 * and the hub's suffix; the suffix is "" or '_' and [0-9A-Za-z_] only
 * besides (hub_catalog.h refuses any other hub before it is read). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hub/hub_reader_sql.h"
#include "base/util.h"

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

void hub_filter_pid_sql(tt_buf *b, const char *col, const hub_filter *f) {
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
  hub_filter_pid_sql(b, pid, f);
  if (!instant && f->min_duration > 0)
    tt_buf_printf(b, " AND %s - %s >= %lld", end, start, (long long)f->min_duration);
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

/* The (correlation, pid, start) of the GPU work of one table (alias x,
 * joined to its symbol or name table ja for `name`) the filters keep. */
static void gpu_work(tt_buf *b, const hub_filter *f, const hub_db *d, const char *table,
                     const char *x, const char *jtable, const char *ja, const char *jcol,
                     const char *name) {
  tt_buf_printf(b,
                "SELECT e2.correlation_id AS corr, %s.pid AS pid, %s.start AS start FROM "
                "%s %s JOIN %s e2 ON e2.id = %s.event_id LEFT JOIN "
                "%s c2 ON c2.id = e2.category_id LEFT JOIN %s %s ON %s.id = "
                "%s.%s WHERE e2.correlation_id IS NOT NULL",
                x, x, hr_qt(d, table), x, hr_qt(d, "rocpd_event"), x, hr_qt(d, "rocpd_string"),
                hr_qt(d, jtable), ja, ja, x, jcol);
  char pid[16];
  snprintf(pid, sizeof pid, "%s.pid", x);
  hub_filter_pid_sql(b, pid, f);
  if (f->min_duration > 0)
    tt_buf_printf(b, " AND %s.end - %s.start >= %lld", x, x, (long long)f->min_duration);
  category_filter(b, f, "COALESCE(c2.string,'')");
  name_filter(b, f, name);
}

/* Per (correlation, process) of the GPU work the filters keep: the start
 * of the first and last, their number and every start (a graph launch has
 * one arrow per GPU work), in (correlation, process) order: the stream
 * hub_reader_links.c merges with the launches (correlation ids are
 * per process). Integer keys only: the merge compares them as integers. */
char *hr_links_sql(const hub_db *d, const hub_filter *f) {
  tt_buf b = {0};
  tt_buf_puts(&b, "SELECT corr, pid, min(start), count(*), max(start), CASE WHEN count(*) > 1 "
                  "THEN group_concat(start) END FROM (");
  int first = 1;
  if (d->has_table[T_KERNEL]) {
    gpu_work(&b, f, d, "rocpd_kernel_dispatch", "k2", "rocpd_info_kernel_symbol", "ks2",
             "kernel_id", KERNEL_NAME("ks2"));
    first = 0;
  }
  if (d->has_table[T_COPY]) {
    if (!first) tt_buf_puts(&b, " UNION ALL ");
    gpu_work(&b, f, d, "rocpd_memory_copy", "m2", "rocpd_string", "n2", "name_id",
             "COALESCE(n2.string,'')");
    first = 0;
  }
  if (first) tt_buf_puts(&b, "SELECT NULL AS corr, NULL AS pid, NULL AS start");
  tt_buf_puts(&b, ") WHERE typeof(corr) = 'integer' AND typeof(pid) = 'integer' GROUP BY corr, "
                  "pid ORDER BY corr, pid");
  return b.data;
}

/* EXISTS a slice of one table (alias x, joined to ja for `name`) that
 * starts at ts where `on` says and that the filters keep. */
static void anchor_exists(tt_buf *b, const hub_filter *f, const hub_db *d, const char *table,
                          const char *x, const char *jtable, const char *ja, const char *jcol,
                          const char *name, const char *ts, const char *on) {
  tt_buf_printf(b,
                "EXISTS(SELECT 1 FROM %s %s LEFT JOIN %s %s ON %s.id = %s.%s LEFT JOIN "
                "%s ea ON ea.id = %s.event_id LEFT JOIN %s ca ON "
                "ca.id = ea.category_id WHERE %s.start = %s AND %s",
                hr_qt(d, table), x, hr_qt(d, jtable), ja, ja, x, jcol, hr_qt(d, "rocpd_event"), x,
                hr_qt(d, "rocpd_string"), x, ts, on);
  if (f->min_duration > 0)
    tt_buf_printf(b, " AND %s.end - %s.start >= %lld", x, x, (long long)f->min_duration);
  category_filter(b, f, "COALESCE(ca.string,'')");
  name_filter(b, f, name);
  tt_buf_putc(b, ')');
}

/* Under a category, name or duration filter, a recorded flow end is kept only when
 * a slice the filters keep starts at its time on its lane (every Kineto
 * flow end does: s on the launching call, f on the kernel), so no arrow
 * points at a slice that is not written. `ts` and `t` are the SQL of the
 * flow end's timestamp and the alias of its rocpd_track row. Each check
 * is one lookup on the start index of the hubs importers write. */
static void flow_anchor(tt_buf *b, const hub_db *d, const hub_filter *f, const char *ts,
                        const char *t) {
  tt_buf_printf(b, "(CASE WHEN (CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                   "'$.stream_id') END) IS NULL THEN ",
                t, t);
  if (d->has_table[T_REGION]) {
    char *on = sqlite3_mprintf("ra.pid = %s.pid AND ra.tid IS %s.tid", t, t);
    anchor_exists(b, f, d, "rocpd_region", "ra", "rocpd_string", "na", "name_id",
                  "COALESCE(na.string,'')", ts, on);
    sqlite3_free(on);
  } else {
    tt_buf_puts(b, "0");
  }
  tt_buf_puts(b, " ELSE (0");
  char *lane = sqlite3_mprintf("(CASE WHEN json_valid(%s.extdata) THEN json_extract(%s.extdata,"
                               "'$.stream_id') END)",
                               t, t);
  if (d->has_table[T_KERNEL]) {
    char *on = sqlite3_mprintf("ka.stream_id = %s", lane);
    tt_buf_puts(b, " OR ");
    anchor_exists(b, f, d, "rocpd_kernel_dispatch", "ka", "rocpd_info_kernel_symbol", "ksa",
                  "kernel_id", KERNEL_NAME("ksa"), ts, on);
    sqlite3_free(on);
  }
  if (d->has_table[T_COPY]) {
    char *on = sqlite3_mprintf("ma.stream_id = %s", lane);
    tt_buf_puts(b, " OR ");
    anchor_exists(b, f, d, "rocpd_memory_copy", "ma", "rocpd_string", "na", "name_id",
                  "COALESCE(na.string,'')", ts, on);
    sqlite3_free(on);
  }
  sqlite3_free(lane);
  tt_buf_puts(b, ") END)");
}

static int has_event_filter(const hub_filter *f) {
  return f->ncategories || f->nexclude || f->nnames || f->min_duration > 0;
}

/* --gpu, on the tables that hold more than GPU work (the reader's
 * classifier, hub_reader.c, decides each row it reads the same way):
 * regions only on threads that stand for a GPU lane, allocate rows only
 * of a memset kind. */
static void gpu_only_regions(tt_buf *b, const hub_db *d) {
  tt_buf_printf(b,
                " AND r.tid IN (SELECT tid FROM %s WHERE " JX("extdata", "$.kind")
                " = '" HUB_WORD_GPU_LANE "')",
                hr_qt(d, "rocpd_info_thread"));
}

/* A cursor query's select list, each expression set by its column's name
 * (C_ID, C_NAME, ...); a column a table has no value for is NULL. */
typedef struct select_list {
  const char *col[C_NCOLS];
} select_list;

/* "SELECT e0, e1, ..." of the first n columns. */
static void put_select(tt_buf *b, const select_list *s, int n) {
  tt_buf_puts(b, "SELECT ");
  for (int i = 0; i < n; i++) {
    if (i) tt_buf_puts(b, ", ");
    tt_buf_puts(b, s->col[i] ? s->col[i] : "NULL");
  }
}

/* The columns of every table of events (not samples), from alias x: its
 * row, the event's correlation (e) and category (c). */
#define EVENT_COLUMNS(s, x)                                                                 \
  ((s)->col[C_ID] = x ".id", (s)->col[C_START] = x ".start", (s)->col[C_END] = x ".end",  \
   (s)->col[C_PID] = x ".pid", (s)->col[C_TID] = x ".tid",                                 \
   (s)->col[C_CAT] = "COALESCE(c.string,'')", (s)->col[C_CORR] = "e.correlation_id",       \
   (s)->col[C_EVENT] = x ".event_id")

/* The GPU lane of a row of alias x: its stream, else its queue. */
#define LANE_COLUMNS(s, x)                                                          \
  ((s)->col[C_LANE] = "COALESCE(" x ".stream_id, " x ".queue_id)",                   \
   (s)->col[C_LANE_IS_QUEUE] = "(" x ".stream_id IS NULL AND " x ".queue_id IS NOT NULL)")

/* FROM an event table (alias x), the join of its own (jtable, alias ja,
 * on x's column jcol; none when jtable is NULL), its event (e) and its
 * category (c). */
static void from_event_table(tt_buf *b, const hub_db *d, const char *table, const char *x,
                             const char *jtable, const char *ja, const char *jcol) {
  tt_buf_printf(b, " FROM %s %s", hr_qt(d, table), x);
  if (jtable) tt_buf_printf(b, " LEFT JOIN %s %s ON %s.id = %s.%s", hr_qt(d, jtable), ja, ja, x, jcol);
  tt_buf_printf(b,
                " LEFT JOIN %s e ON e.id = %s.event_id LEFT JOIN %s c "
                "ON c.id = e.category_id",
                hr_qt(d, "rocpd_event"), x, hr_qt(d, "rocpd_string"));
}

/* The user's filters on an event table's rows (alias x; `name` the
 * expression names are matched on). */
static void event_filters(tt_buf *b, const hub_filter *f, const char *x, const char *name) {
  char start[16], end[16], pid[16];
  snprintf(start, sizeof start, "%s.start", x);
  snprintf(end, sizeof end, "%s.end", x);
  snprintf(pid, sizeof pid, "%s.pid", x);
  common_filters(b, f, start, end, pid, name, "COALESCE(c.string,'')", 0);
}

/* The cursor's order (hr_merge_less within one table). */
static void event_order(tt_buf *b, const char *x) {
  tt_buf_printf(b, " ORDER BY %s.start, %s.end DESC, %s.id", x, x, x);
}

char *hr_cursor_sql(const hub_db *d, table_id t, const hub_filter *f) {
  tt_buf b = {0};
  select_list s = {{0}};
  switch (t) {
  case T_REGION: {
    /* A launch's GPU work is found by hub_reader_links.c. */
    EVENT_COLUMNS(&s, "r");
    s.col[C_NAME] = "COALESCE(n.string,'')";
    s.col[C_LANE_IS_QUEUE] = "0";
    put_select(&b, &s, C_LINK + 1);
    from_event_table(&b, d, "rocpd_region", "r", "rocpd_string", "n", "name_id");
    event_filters(&b, f, "r", "COALESCE(n.string,'')");
    tt_buf_puts(&b, " AND NOT COALESCE(" HUB_SQL_IS_FRAME("e") ", 0)");
    if (f->gpu_only) gpu_only_regions(&b, d);
    event_order(&b, "r");
    break;
  }
  case T_KERNEL: {
    const char *kname = KERNEL_NAME("ks");
    EVENT_COLUMNS(&s, "k");
    s.col[C_NAME] = kname;
    s.col[C_AGENT] = "k.agent_id";
    LANE_COLUMNS(&s, "k");
    /* C_LINK stays NULL: the launch is found in memory (fill_event) */
    s.col[C_MANGLED] = "COALESCE(ks.kernel_name, '')";
    put_select(&b, &s, C_MANGLED + 1);
    from_event_table(&b, d, "rocpd_kernel_dispatch", "k", "rocpd_info_kernel_symbol", "ks",
                     "kernel_id");
    event_filters(&b, f, "k", kname);
    event_order(&b, "k");
    break;
  }
  case T_COPY: {
    /* The copy's GPU agent: the other side may be the host's CPU agent. */
    char *agents = hr_tname(d, "rocpd_info_agent");
    int typed = hr_table_exists(d, agents);
    sqlite3_free(agents);
    char *agent =
        typed ? sqlite3_mprintf("COALESCE((SELECT ga.id FROM %s ga WHERE "
                                "ga.id = m.dst_agent_id AND ga.type = 'GPU'), (SELECT ga.id FROM "
                                "%s ga WHERE ga.id = m.src_agent_id AND "
                                "ga.type = 'GPU'), m.dst_agent_id, m.src_agent_id)",
                                hr_qt(d, "rocpd_info_agent"), hr_qt(d, "rocpd_info_agent"))
              : sqlite3_mprintf("COALESCE(m.dst_agent_id, m.src_agent_id)");
    EVENT_COLUMNS(&s, "m");
    s.col[C_NAME] = "COALESCE(n.string,'')";
    s.col[C_AGENT] = agent;
    s.col[C_SRC_AGENT] = "m.src_agent_id"; /* its direction (hub_reader.c) */
    s.col[C_DST_AGENT] = "m.dst_agent_id";
    LANE_COLUMNS(&s, "m");
    s.col[C_SIZE] = "m.size";
    put_select(&b, &s, C_DST_AGENT + 1);
    sqlite3_free(agent);
    from_event_table(&b, d, "rocpd_memory_copy", "m", "rocpd_string", "n", "name_id");
    event_filters(&b, f, "m", "COALESCE(n.string,'')");
    event_order(&b, "m");
    break;
  }
  case T_ALLOC:
    EVENT_COLUMNS(&s, "a");
    s.col[C_NAME] = "COALESCE(a.type,'') || CASE WHEN a.level IS NOT NULL THEN ' ' || a.level "
                    "ELSE '' END";
    s.col[C_AGENT] = "a.agent_id";
    LANE_COLUMNS(&s, "a");
    s.col[C_SIZE] = "a.size";
    put_select(&b, &s, C_LINK + 1);
    from_event_table(&b, d, "rocpd_memory_allocate", "a", NULL, NULL, NULL);
    event_filters(&b, f, "a", "COALESCE(a.type,'')");
    if (f->gpu_only) tt_buf_puts(&b, " AND lower(COALESCE(a.type,'')) GLOB '*memset*'");
    event_order(&b, "a");
    break;
  case T_SAMPLE: {
#define KIND JX("t.extdata", "$.kind")
    const char *kind = KIND;
    s.col[C_ID] = "s.id";
    s.col[C_START] = s.col[C_END] = "s.timestamp";
    s.col[C_PID] = "t.pid";
    s.col[C_TID] = "t.tid";
    s.col[C_NAME] = "CASE " KIND " WHEN '" HUB_WORD_FLOW "' THEN COALESCE("
                    JX("e.extdata", "$.name") ",'') WHEN '" HUB_WORD_COUNTER "' THEN "
                    "COALESCE(tn.string,'') ELSE COALESCE(" JX("s.extdata", "$.name")
                    ", tn.string, '') END";
#undef KIND
    s.col[C_CAT] = "COALESCE(c.string,'')";
    s.col[C_CORR] = "e.correlation_id";
    s.col[C_EVENT] = "s.event_id";
    s.col[C_AGENT] = JX("t.extdata", "$.agent_id");
    s.col[C_LANE] = JX("t.extdata", "$.stream_id");
    s.col[C_LANE_IS_QUEUE] = "0";
    s.col[C_TRACK] = "s.track_id";
    s.col[C_VALUE] = JX("s.extdata", "$.value");
    s.col[C_TRACK_KIND] = kind;
    s.col[C_PH] = JX("e.extdata", "$.ph");
    s.col[C_BP] = JX("e.extdata", "$.bp");
    /* Split by process: the other end must be in the same part; under
     * filters it must have a slice that is written (flow_anchor). */
    tt_buf pidjoin = {0}, pidcond = {0}, link = {0};
    if (f->pid != HUB_NULL || f->npids || has_event_filter(f))
      tt_buf_printf(&pidjoin, " JOIN %s t2 ON t2.id = s2.track_id", hr_qt(d, "rocpd_track"));
    hub_filter_pid_sql(&pidcond, "t2.pid", f);
    if (has_event_filter(f)) {
      tt_buf_puts(&pidcond, " AND ");
      flow_anchor(&pidcond, d, f, "s2.timestamp", "t2");
    }
    if (d->can_link && d->has_flows) {
      tt_buf_printf(&link,
                    "(CASE WHEN %s = '" HUB_WORD_FLOW "' THEN (SELECT min(s2.timestamp) FROM "
                    "%s e2 JOIN %s s2 ON s2.event_id = e2.id "
                    "%s WHERE e2.correlation_id = e.correlation_id AND e2.category_id IS "
                    "e.category_id AND e2.id != e.id AND %s IS NOT %s%s) END)",
                    kind, d->flow_ev_src, d->flow_sm_src, pidjoin.len ? pidjoin.data : "",
                    JX("e2.extdata", "$.ph"), JX("e.extdata", "$.ph"),
                    pidcond.len ? pidcond.data : "");
      s.col[C_LINK] = link.data;
    }
    put_select(&b, &s, C_LINK + 1);
    tt_buf_free(&pidjoin);
    tt_buf_free(&pidcond);
    tt_buf_free(&link);
    tt_buf_printf(&b,
                  " FROM %s s JOIN %s t ON t.id = s.track_id "
                  "LEFT JOIN %s tn ON tn.id = t.name_id LEFT JOIN "
                  "%s e ON e.id = s.event_id LEFT JOIN %s c ON "
                  "c.id = e.category_id",
                  hr_qt(d, "rocpd_sample"), hr_qt(d, "rocpd_track"), hr_qt(d, "rocpd_string"),
                  hr_qt(d, "rocpd_event"), hr_qt(d, "rocpd_string"));
    /* Flow ends carry no name or category a user would filter on: they
     * follow the time range, the process and the slices they bind to. */
    tt_buf_printf(&b, " WHERE NOT COALESCE(" HUB_SQL_IS_FRAME("e") ", 0)");
    if (f->end != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp < %lld", (long long)f->end);
    if (f->start != HUB_NULL) tt_buf_printf(&b, " AND s.timestamp >= %lld", (long long)f->start);
    hub_filter_pid_sql(&b, "t.pid", f);
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
  tt_buf b = {0};
  if (t == T_SAMPLE) {
    tt_buf_printf(&b,
                  "SELECT x.timestamp, x.timestamp, x.id, a.name, a.type, a.value FROM "
                  "%s x JOIN %s a ON a.event_id = x.event_id "
                  "WHERE 1",
                  hr_qt(d, "rocpd_sample"), hr_qt(d, "rocpd_arg"));
    if (f->end != HUB_NULL) tt_buf_printf(&b, " AND x.timestamp < %lld", (long long)f->end);
    if (f->start != HUB_NULL) tt_buf_printf(&b, " AND x.timestamp >= %lld", (long long)f->start);
    tt_buf_puts(&b, " ORDER BY x.timestamp, x.id, a.position, a.id");
    return b.data;
  }
  /* Only the cursor's time and process filters: rows of events the other
   * filters drop are stepped over. */
  tt_buf_printf(&b,
                "SELECT x.start, x.end, x.id, a.name, a.type, a.value FROM %s x JOIN "
                "%s a ON a.event_id = x.event_id",
                hr_qt(d, hr_table_names[t]), hr_qt(d, "rocpd_arg"));
  hub_filter tp = {.start = f->start, .end = f->end, .pid = f->pid, .pids = f->pids,
                   .npids = f->npids};
  common_filters(&b, &tp, "x.start", "x.end", "x.pid", NULL, NULL, 0);
  tt_buf_puts(&b, " ORDER BY x.start, x.end DESC, x.id, a.position, a.id");
  return b.data;
}

/* --- the merge -------------------------------------------------------- */
