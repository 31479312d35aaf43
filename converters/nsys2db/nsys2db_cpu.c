/* Nsight Systems' CPU-side tables: NVTX_EVENTS (ranges, marks, domain and
 * category names, thread names), OSRT_API (with its backtraces) and
 * PROFILER_OVERHEAD. */
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "nsys2db_parts.h"

/* NVTX_EVENTS eventType values (Nsight Systems export documentation). */
enum {
  NVTX_CATEGORY = 33, NVTX_MARK = 34, NVTX_THREAD = 39, NVTX_PUSHPOP = 59,
  NVTX_STARTEND = 60, NVTX_DOMAIN_CREATE = 75, NVTX_DOMAIN_DESTROY = 76
};

/* Domain and category names, registered by their own NVTX_EVENTS rows:
 * few (one per domain/category), so kept in memory for the main pass. */
typedef struct names {
  tt_strmap index;
  char **v;
  size_t n, cap;
} names;

static const char *names_get(names *m, const char *key) {
  int64_t *i = tt_strmap_get(&m->index, key);
  return i ? m->v[*i] : NULL;
}

static void names_put(names *m, const char *key, const char *value) {
  if (names_get(m, key)) return;
  tt_grow(m->v, m->n + 1, m->cap);
  m->v[m->n] = tt_strdup(value);
  tt_strmap_put(&m->index, key, (int64_t)m->n++);
}

static void names_free(names *m) {
  for (size_t i = 0; i < m->n; i++) free(m->v[i]);
  free(m->v);
  tt_strmap_free(&m->index);
}

/* `n.col`, or NULL where this export version lacks the column. */
static void opt_col(ns *c, const char *col, tt_buf *sql) {
  if (nv_has_column(&c->b.src, "NVTX_EVENTS", col)) tt_buf_printf(sql, ", n.%s", col);
  else tt_buf_puts(sql, ", NULL");
}

enum {
  N_ROW, N_START, N_END, N_TYPE, N_TID, N_ENDTID, N_TEXT, N_TEXTID, N_TEXTV, N_DOMAIN,
  N_CATEGORY, N_COLOR, N_REST
};

static sqlite3_stmt *nvtx_query(ns *c, const char *where) {
  tt_buf_clear(&c->sql);
  tt_buf_puts(&c->sql, "SELECT n.rowid, n.start, n.end, n.eventType, n.globalTid");
  static const char *const opt[] = {"endGlobalTid", "text", "textId"};
  for (int i = 0; i < 3; i++) opt_col(c, opt[i], &c->sql);
  tt_buf_puts(&c->sql, ", s.value");
  static const char *const opt2[] = {"domainId", "category", "color"};
  for (int i = 0; i < 3; i++) opt_col(c, opt2[i], &c->sql);
  nv_rest_columns(&c->b.src, "NVTX_EVENTS", "n",
                  "start,end,eventType,globalTid,endGlobalTid,text,textId,domainId,category,color",
                  &c->sql);
  tt_buf_printf(&c->sql, " FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = %s WHERE %s",
                nv_has_column(&c->b.src, "NVTX_EVENTS", "textId") ? "n.textId" : "NULL", where);
  return nv_prepare(&c->b.src, c->sql.data);
}

static void key_of(char *key, size_t n, int64_t pid, sqlite3_stmt *st, int with_category) {
  if (with_category)
    snprintf(key, n, "%lld/%lld/%lld", (long long)pid, (long long)sqlite3_column_int64(st, N_DOMAIN),
             (long long)sqlite3_column_int64(st, N_CATEGORY));
  else
    snprintf(key, n, "%lld/%lld", (long long)pid, (long long)sqlite3_column_int64(st, N_DOMAIN));
}

int ns_nvtx(ns *c) {
  const char *t = "NVTX_EVENTS";
  int usable = nv_table_usable(&c->b.src, t, "start,end,eventType,globalTid", 0);
  if (usable <= 0) return usable;
  names domains = {0}, categories = {0};
  char key[96];
  int rc = 0, step;
  sqlite3_stmt *st = nvtx_query(c, "n.eventType IN (33, 75)");
  if (!st) return -1;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *v;
    if ((rc = ns_string(c, st, N_TEXTID, t, sqlite3_column_int64(st, N_ROW), &v))) break;
    const char *text = sqlite3_column_text(st, N_TEXT) ? (const char *)sqlite3_column_text(st, N_TEXT) : v;
    if (!text) continue;
    int64_t pid = ns_pid(sqlite3_column_int64(st, N_TID));
    int cat = sqlite3_column_int64(st, N_TYPE) == NVTX_CATEGORY;
    key_of(key, sizeof key, pid, st, cat);
    names_put(cat ? &categories : &domains, key, text);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  sqlite3_finalize(st);
  if (rc) goto done;

  /* Ranges without an end stop at the last timestamp of the trace. */
  st = nv_prepare(&c->b.src, "SELECT max(max(start), COALESCE(max(end), 0)) FROM NVTX_EVENTS");
  if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
    cupti_cover(&c->b, cupti_time(&c->b, st, 0));
  sqlite3_finalize(st);

  st = nvtx_query(c, "n.eventType NOT IN (33, 75)");
  if (!st) {
    rc = -1;
    goto done;
  }
  int64_t unclosed = 0, ignored = 0;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *v;
    if ((rc = ns_string(c, st, N_TEXTID, t, sqlite3_column_int64(st, N_ROW), &v))) break;
    const char *text = sqlite3_column_text(st, N_TEXT) ? (const char *)sqlite3_column_text(st, N_TEXT) : v;
    int64_t type = sqlite3_column_int64(st, N_TYPE), g = sqlite3_column_int64(st, N_TID);
    int64_t pid = ns_seen(c, ns_pid(g)), tid = ns_tid(g);
    int64_t start = cupti_time(&c->b, st, N_START);
    cupti_progress(&c->b);
    if (type == NVTX_THREAD) { /* nvtxNameOsThread: kept beside ThreadNames' name */
      tt_buf b = {0};
      tt_json_string(&b, text ? text : "", text ? strlen(text) : 0);
      hub_thread_extdata(c->b.w, pid, tid, "nvtx_name", b.data);
      tt_buf_free(&b);
      continue;
    }
    if (type == NVTX_DOMAIN_DESTROY) {
      ignored++;
      continue;
    }
    nv_json_begin(&c->b.ext);
    nv_json_int(&c->b.ext, "eventType", type);
    nv_rest_json(st, N_REST, &c->b.ext);
    int has_end = sqlite3_column_type(st, N_END) != SQLITE_NULL;
    int range = has_end || type == NVTX_PUSHPOP || type == NVTX_STARTEND;
    if (!range) nv_json_str(&c->b.ext, "name", text);
    int64_t ev = cupti_nvtx_event(&c->b, nv_json_end(&c->b.ext));
    int pos = 0;
    if (sqlite3_column_type(st, N_DOMAIN) != SQLITE_NULL && sqlite3_column_int64(st, N_DOMAIN)) {
      key_of(key, sizeof key, ns_pid(g), st, 0);
      const char *d = names_get(&domains, key);
      if (d) hub_arg(c->b.w, ev, pos++, HUB_ARG_STRING, "domain", d);
      else hub_arg_int(c->b.w, ev, pos++, "domain", sqlite3_column_int64(st, N_DOMAIN));
    }
    if (sqlite3_column_type(st, N_CATEGORY) != SQLITE_NULL) {
      key_of(key, sizeof key, ns_pid(g), st, 1);
      const char *cn = names_get(&categories, key);
      if (cn) hub_arg(c->b.w, ev, pos++, HUB_ARG_STRING, "category", cn);
      else hub_arg_int(c->b.w, ev, pos++, "category", sqlite3_column_int64(st, N_CATEGORY));
    }
    if (sqlite3_column_type(st, N_COLOR) != SQLITE_NULL)
      hub_arg_int(c->b.w, ev, pos++, "color", sqlite3_column_int64(st, N_COLOR));
    if (range) {
      int64_t end = has_end ? cupti_time(&c->b, st, N_END) : c->b.max_ts;
      if (!has_end) unclosed++;
      if (sqlite3_column_type(st, N_ENDTID) != SQLITE_NULL &&
          sqlite3_column_int64(st, N_ENDTID) != g)
        hub_arg_int(c->b.w, ev, pos++, "end_tid", ns_tid(sqlite3_column_int64(st, N_ENDTID)));
      hub_region(c->b.w, pid, tid, start, end, text ? text : "", ev, NULL);
    } else {
      cupti_nvtx_instant(&c->b, pid, tid, start, ev);
    }
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  sqlite3_finalize(st);
  cupti_nvtx_warn_unclosed(&c->b, unclosed);
  if (ignored)
    tt_warn("%s: %lld NVTX domain-destroy rows have no hub mapping: not imported", c->b.src.path,
            (long long)ignored);
done:
  names_free(&domains);
  names_free(&categories);
  return rc;
}

/* OS runtime calls and profiler overhead: named intervals on a thread,
 * OS runtime calls with their backtraces as their event's call_stack. */
int ns_cpu_ranges(ns *c, const char *table, const char *category, const char *chains) {
  int usable = nv_table_usable(&c->b.src, table, "start,end,globalTid,nameId", 0);
  if (usable <= 0) return usable;
  int with_chain = chains && nv_has_column(&c->b.src, table, "callchainId");
  ns_stacks *stacks = with_chain ? ns_stacks_open(c, chains) : NULL;
  if (with_chain && !stacks && nv_table_usable(&c->b.src, chains, "id,symbol,module,stackDepth", 0) < 0)
    return -1;
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT o.rowid, o.start, o.end, o.globalTid, o.nameId, s.value, %s",
                stacks ? "o.callchainId" : "NULL");
  nv_rest_columns(&c->b.src, table, "o",
                  stacks ? "start,end,globalTid,nameId,callchainId" : "start,end,globalTid,nameId",
                  &c->sql);
  tt_buf_printf(&c->sql, " FROM %s o LEFT JOIN StringIds s ON s.id = o.nameId", table);
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) {
    ns_stacks_close(stacks);
    return -1;
  }
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    const char *name, *stack = NULL;
    if ((rc = ns_string(c, st, 4, table, sqlite3_column_int64(st, 0), &name))) break;
    /* callchainId 0: no backtrace (no chain has id 0) */
    if (stacks && sqlite3_column_int64(st, 6) != 0 &&
        (rc = ns_stack_json(c, stacks, chains, sqlite3_column_int64(st, 6), &stack)))
      break;
    int64_t g = sqlite3_column_int64(st, 3);
    int64_t end = cupti_time(&c->b, st, 2);
    nv_json_begin(&c->b.ext);
    nv_rest_json(st, 7, &c->b.ext);
    int64_t ev = hub_event_call_stack(c->b.w, category, HUB_NULL, stack, NULL);
    hub_region(c->b.w, ns_seen(c, ns_pid(g)), ns_tid(g), cupti_time(&c->b, st, 1),
               end, name ? name : "", ev, nv_json_end(&c->b.ext));
    cupti_cover(&c->b, end);
    cupti_progress(&c->b);
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, table);
  sqlite3_finalize(st);
  ns_stacks_close(stacks);
  return rc;
}
