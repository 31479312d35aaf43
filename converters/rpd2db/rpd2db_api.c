/* rocpd_api: every call (HIP, CUDA, roctx, the tracer's own overhead
 * records) becomes a region on its process and thread. UserMarker rows
 * (roctx) are named by their label, as rpd2tracing.py shows them; a marker
 * without duration is an instant sample on the thread's "markers" track.
 * The call's args string and (v3) its stack frames are kept as args of
 * its event; so is its kernelapi / copyapi / code object row when it
 * launched no GPU work (otherwise that row goes with the work). A call that
 * launched GPU work carries its id as correlation id, shared with the
 * work (rpd2db_op.c). */
#include <stdlib.h>
#include <string.h>

#include "rpd2db_parts.h"

/* Column positions of the API query. */
enum {
  C_ID, C_PID, C_TID, C_START, C_END, C_NAME_ID, C_NAME, C_ARGS_ID, C_ARGS, C_DOMAIN,
  C_CATEGORY, C_REST
};

static const char *trim(char *s, char **end_out) {
  while (*s == ' ' || *s == '\t') s++;
  char *e = s + strlen(s);
  while (e > s && (e[-1] == ' ' || e[-1] == '\t')) e--;
  *e = '\0';
  if (end_out) *end_out = e;
  return s;
}

/* "ptr=0x7f3e... | size=0x77400000" (the tracer's format) as one arg per
 * key; anything else as one arg "args" holding the whole text. */
static void args_string(rpd *c, int64_t ev, int *pos, const char *text) {
  if (!text || !*text) return;
  char *copy = tt_strdup(text);
  int ok = 1, n = 0;
  for (char *p = copy; ok && p;) {
    char *bar = strchr(p, '|');
    if (bar) *bar = '\0';
    char *eq = strchr(p, '=');
    if (!eq) ok = 0;
    else {
      *eq = '\0';
      ok = *trim(p, NULL) != '\0';
      n++;
    }
    p = bar ? bar + 1 : NULL;
  }
  free(copy);
  if (!ok || n == 0) {
    rpd_arg(c, ev, pos, HUB_ARG_STRING, "args", text);
    return;
  }
  copy = tt_strdup(text);
  for (char *p = copy; p;) {
    char *bar = strchr(p, '|');
    if (bar) *bar = '\0';
    char *eq = strchr(p, '=');
    *eq = '\0';
    const char *key = trim(p, NULL), *value = trim(eq + 1, NULL);
    rpd_arg(c, ev, pos, HUB_ARG_STRING, key, value);
    p = bar ? bar + 1 : NULL;
  }
  free(copy);
}

/* The call's own columns; its kernelapi / copyapi / code object row is
 * read by launch_rest_query, only for a call that launched no GPU work
 * (most calls did: joining those tables to every call cost the query more
 * than the rest of it). */
static void build_query(rpd *c, int *own_end) {
  tt_buf *q = &c->sql;
  tt_buf_clear(q);
  tt_buf_puts(q, "SELECT a.id, a.pid, a.tid, a.start, a.end, a.apiName_id, n.string, a.args_id, "
                 "g.string, ");
  tt_buf_puts(q, c->version == 3 ? "d.string, y.string" : "NULL, NULL");
  nv_rest_columns(&c->src, "rocpd_api", "a",
                  "id,pid,tid,start,end,apiName_id,args_id,domain_id,category_id", q);
  int n = C_REST + rpd_rest_count(c, "rocpd_api",
                                  "id,pid,tid,start,end,apiName_id,args_id,domain_id,category_id");
  *own_end = n;
  tt_buf_printf(q,
                " FROM rocpd_api a LEFT JOIN rocpd_string n ON n.id = a.apiName_id "
                "LEFT JOIN %s g ON g.id = a.args_id",
                c->args_table);
  if (c->version == 3)
    tt_buf_puts(q, " LEFT JOIN rocpd_string d ON d.id = a.domain_id"
                   " LEFT JOIN rocpd_string y ON y.id = a.category_id");
  tt_buf_puts(q, " ORDER BY a.id");
}

/* The kernelapi / copyapi / code object columns of call ?1 that have no
 * hub column (as args, after a NULL in column 0), in the order and with
 * the names the op query gives the work a call launched; for an RPD with
 * a kernelapi or copyapi table. *ncols: the statement's column count. */
static sqlite3_stmt *launch_rest_query(rpd *c, int *ncols) {
  tt_buf *q = &c->sql;
  tt_buf_clear(q);
  tt_buf_puts(q, "SELECT NULL");
  int n = 1;
  if (c->have_kernelapi) {
    tt_buf_puts(q, ", kn.string AS kernelName");
    nv_rest_columns(&c->src, "rocpd_kernelapi", "k", "api_ptr_id,kernelName_id", q);
    n += 1 + rpd_rest_count(c, "rocpd_kernelapi", "api_ptr_id,kernelName_id");
    if (c->have_codeobject) {
      nv_rest_columns(&c->src, "rocpd_kernelcodeobject", "co", "id", q);
      n += rpd_rest_count(c, "rocpd_kernelcodeobject", "id");
    }
  }
  if (c->have_copyapi) {
    nv_rest_columns(&c->src, "rocpd_copyapi", "cp", "api_ptr_id", q);
    n += rpd_rest_count(c, "rocpd_copyapi", "api_ptr_id");
  }
  tt_buf_puts(q, " FROM (SELECT ?1 AS id) a");
  rpd_launch_joins(c, q, "a.id");
  *ncols = n;
  return nv_prepare(&c->src, q->data);
}

int rpd_apis(rpd *c) {
  rpd_side linked, frames;
  if (rpd_side_open(c, &linked, "rocpd_api_ops",
                    "SELECT DISTINCT api_id FROM rocpd_api_ops ORDER BY api_id"))
    return -1;
  if (rpd_side_open(c, &frames, "rocpd_stackframe",
                    c->have_stackframe
                        ? "SELECT f.api_ptr_id, f.depth, s.string FROM rocpd_stackframe f "
                          "LEFT JOIN rocpd_string s ON s.id = f.name_id "
                          "ORDER BY f.api_ptr_id, f.depth, f.id"
                        : NULL)) {
    rpd_side_close(&linked);
    return -1;
  }
  int own_end, rest_cols = 0;
  int has_rest = c->have_kernelapi || c->have_copyapi;
  sqlite3_stmt *rest = has_rest ? launch_rest_query(c, &rest_cols) : NULL;
  build_query(c, &own_end);
  sqlite3_stmt *st = has_rest && !rest ? NULL : nv_prepare(&c->src, c->sql.data);
  if (!st) {
    sqlite3_finalize(rest);
    rpd_side_close(&linked);
    rpd_side_close(&frames);
    return -1;
  }
  int rc = 0, step;
  int64_t dangling_args = 0;
  const char *fallback_category = "api";
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t id = sqlite3_column_int64(st, C_ID);
    const char *name = (const char *)sqlite3_column_text(st, C_NAME);
    if (!name) {
      tt_error("%s: table rocpd_api row id %lld: apiName_id %lld is not in rocpd_string",
               c->src.path, (long long)id, (long long)sqlite3_column_int64(st, C_NAME_ID));
      rc = -1;
      break;
    }
    const char *args = (const char *)sqlite3_column_text(st, C_ARGS);
    if (!args && sqlite3_column_type(st, C_ARGS_ID) != SQLITE_NULL) dangling_args++;
    const char *domain = (const char *)sqlite3_column_text(st, C_DOMAIN);
    const char *category = (const char *)sqlite3_column_text(st, C_CATEGORY);
    int marker = strcmp(name, "UserMarker") == 0;
    const char *cat = domain && *domain ? domain : marker ? "UserMarker" : fallback_category;
    int64_t pid = rpd_pid(c, sqlite3_column_int64(st, C_PID));
    int64_t tid = rpd_tid(c, sqlite3_column_int64(st, C_TID));
    /* nv_time: a time outside +-2^62 ns is refused (at the end of the
     * import), never carried into arithmetic that could overflow */
    int64_t start = nv_time(&c->src, st, C_START, 0), end = nv_time(&c->src, st, C_END, 0);
    int launches = rpd_side_at(&linked, id);
    int64_t ev = hub_event(c->w, cat, launches ? id : HUB_NULL, NULL);
    int pos = 0;
    if (category && *category) rpd_arg(c, ev, &pos, HUB_ARG_STRING, "category", category);
    if (!marker) args_string(c, ev, &pos, args);
    rpd_args_from(c, ev, &pos, st, C_REST, own_end);
    /* A call's kernelapi / copyapi row describes the work it launched: it
     * goes with that work (rpd2db_op.c), or here when there is none. */
    if (!launches && has_rest) {
      sqlite3_reset(rest);
      sqlite3_bind_int64(rest, 1, id);
      step = sqlite3_step(rest);
      if (step != SQLITE_ROW) {
        rc = nv_step_error(&c->src, c->have_kernelapi ? "rocpd_kernelapi" : "rocpd_copyapi");
        break;
      }
      rpd_args_from(c, ev, &pos, rest, 1, rest_cols);
    }
    while (rpd_side_at(&frames, id)) {
      char key[40];
      snprintf(key, sizeof key, "stack[%lld]", (long long)sqlite3_column_int64(frames.st, 1));
      rpd_arg_value(c, ev, &pos, key, sqlite3_column_value(frames.st, 2));
      rpd_side_next(&frames);
    }
    if (marker && start == end) {
      hub_touch_thread(c->w, pid, tid, start, end);
      int64_t track = hub_track(c->w, pid, tid, "markers", HUB_TRACK_MARKER);
      nv_json_begin(&c->ext);
      nv_json_str(&c->ext, "name", args && *args ? args : name);
      hub_sample(c->w, track, start, ev, nv_json_end(&c->ext));
    } else {
      hub_region(c->w, pid, tid, start, end, marker && args && *args ? args : name, ev, NULL);
    }
    rpd_progress(c);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->src, "rocpd_api");
  if (!rc && (linked.err || frames.err)) rc = -1;
  if (!rc && dangling_args)
    tt_warn("%s: %lld rocpd_api rows name an args string missing from %s: imported without args",
            c->src.path, (long long)dangling_args, c->args_table);
  sqlite3_finalize(st);
  sqlite3_finalize(rest);
  rpd_side_close(&linked);
  rpd_side_close(&frames);
  return rc;
}
