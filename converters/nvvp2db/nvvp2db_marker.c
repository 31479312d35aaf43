/* NVTX markers from nvprof's MARKER table. A range is two rows sharing
 * `id`: flags 2 (start, with name and domain) and 4 (end). Rows are read
 * in id order, so a range's rows are adjacent and one pending start is all
 * the state needed: memory stays flat however many markers there are.
 * Ranges become NVTX regions on the starting thread; instantaneous
 * markers (flags 1, or anything without start/end) become samples on the
 * thread's "NVTX" track. MARKER_DATA (payload, color, category) and the
 * domain become args of the event. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "nvvp2db_parts.h"

enum { F_INSTANT = 1, F_START = 2, F_END = 4 };

/* Column positions of the marker query. */
enum {
  C_ROW, C_FLAGS, C_TS, C_ID, C_OKIND, C_OBJ, C_NAME, C_NAMEV, C_DOM, C_DOMV,
  C_PKIND, C_PAYLOAD, C_COLOR, C_CAT, C_DATA, C_REST
};

/* A start waiting for its end: owned copies of everything it writes. */
typedef struct pending {
  int active;
  int64_t id, ts, pid, tid, row;
  char *name, *domain, *ext;
  int has_data;
  int64_t pkind, color, category;
  unsigned char payload[8];
  int payload_len;
} pending;

static void pending_clear(pending *p) {
  free(p->name);
  free(p->domain);
  free(p->ext);
  memset(p, 0, sizeof *p);
}

/* The payload as CUpti_MetricValueKind says: 0 double, 1 uint64,
 * 2 percent (double), 3 throughput (uint64), 4 int64, 5 utilization. */
static void payload_arg(hub_writer *w, int64_t ev, int pos, const pending *p) {
  uint64_t v = 0;
  for (int i = p->payload_len - 1; i >= 0; i--) v = v << 8 | p->payload[i];
  char text[64];
  hub_arg_type type = HUB_ARG_INT;
  if (p->pkind == 0 || p->pkind == 2) {
    double d;
    memcpy(&d, &v, sizeof d);
    if (isfinite(d)) {
      snprintf(text, sizeof text, "%.17g", d);
      type = HUB_ARG_DOUBLE;
    } else { /* an unset payload holds arbitrary bits */
      snprintf(text, sizeof text, "0x%016llx", (unsigned long long)v);
      type = HUB_ARG_STRING;
    }
  } else if (p->pkind == 4) {
    snprintf(text, sizeof text, "%lld", (long long)v);
  } else if (p->pkind == 5) {
    snprintf(text, sizeof text, "%u", (unsigned)(v & 0xFFFFFFFFu));
  } else {
    snprintf(text, sizeof text, "%llu", (unsigned long long)v);
  }
  hub_arg(w, ev, pos, type, "payload", text);
}

static int64_t marker_event(nvp *c, const pending *p) {
  int64_t ev = cupti_nvtx_event(&c->b, p->ext);
  int pos = 0;
  if (p->domain) hub_arg(c->b.w, ev, pos++, HUB_ARG_STRING, "domain", p->domain);
  if (p->has_data) {
    hub_arg_int(c->b.w, ev, pos++, "color", p->color);
    hub_arg_int(c->b.w, ev, pos++, "category", p->category);
    hub_arg_int(c->b.w, ev, pos++, "payload_kind", p->pkind);
    payload_arg(c->b.w, ev, pos++, p);
  }
  return ev;
}

static void emit_range(nvp *c, const pending *p, int64_t end, int64_t end_tid) {
  int64_t ev = marker_event(c, p);
  if (end_tid != p->tid) hub_arg_int(c->b.w, ev, 10, "end_tid", end_tid);
  hub_region(c->b.w, p->pid, p->tid, p->ts, end, p->name ? p->name : "", ev, NULL);
}

static void emit_instant(nvp *c, const pending *p) {
  cupti_nvtx_instant(&c->b, p->pid, p->tid, p->ts, marker_event(c, p));
}

/* Copies the current row into p. Returns -1 on a dangling string id. */
static int load_row(nvp *c, sqlite3_stmt *st, pending *p) {
  const char *t = NVP_TABLE("MARKER");
  p->row = sqlite3_column_int64(st, C_ROW);
  const char *name, *domain;
  if (nvp_string(c, st, C_NAME, t, p->row, &name) ||
      nvp_string(c, st, C_DOM, t, p->row, &domain))
    return -1;
  p->active = 1;
  p->id = sqlite3_column_int64(st, C_ID);
  p->ts = cupti_time(&c->b, st, C_TS);
  nvp_object_ids(c, st, C_OKIND, C_OBJ, &p->pid, &p->tid);
  p->name = name ? tt_strdup(name) : NULL;
  p->domain = domain && sqlite3_column_int64(st, C_DOM) != 0 ? tt_strdup(domain) : NULL;
  p->has_data = sqlite3_column_type(st, C_DATA) != SQLITE_NULL;
  if (p->has_data) {
    p->pkind = sqlite3_column_int64(st, C_PKIND);
    p->color = sqlite3_column_int64(st, C_COLOR);
    p->category = sqlite3_column_int64(st, C_CAT);
    const unsigned char *b = sqlite3_column_blob(st, C_PAYLOAD);
    int n = sqlite3_column_bytes(st, C_PAYLOAD);
    p->payload_len = b ? (n > 8 ? 8 : n) : 0;
    if (p->payload_len) memcpy(p->payload, b, (size_t)p->payload_len);
  }
  nv_json_begin(&c->b.ext);
  nv_json_int(&c->b.ext, "id", p->id);
  nv_json_int(&c->b.ext, "flags", sqlite3_column_int64(st, C_FLAGS));
  nv_rest_json(st, C_REST, &c->b.ext);
  if (p->name && !(sqlite3_column_int64(st, C_FLAGS) & F_START)) nv_json_str(&c->b.ext, "name", p->name);
  p->ext = tt_strdup(nv_json_end(&c->b.ext));
  return 0;
}

int nvp_markers(nvp *c) {
  const char *t = NVP_TABLE("MARKER"), *td = NVP_TABLE("MARKER_DATA");
  int usable = nv_table_usable(&c->b.src, t, "_id_,flags,timestamp,id,objectKind,objectId,name", 0);
  if (usable <= 0) return usable;
  /* CUPTI's first marker record had no domain (nvprof Version 8 has none). */
  int domain = nv_has_column(&c->b.src, t, "domain");
  /* payload and color are extras: markers import without them */
  int data = nv_table_usable(&c->b.src, td, "_id_,id,payloadKind,payload,color,category", 1);
  tt_buf_clear(&c->sql);
  tt_buf_printf(&c->sql, "SELECT m._id_, m.flags, m.timestamp, m.id, m.objectKind, m.objectId, "
                         "m.name, sn.value, %s, sd.value",
                domain ? "m.domain" : "NULL");
  tt_buf_puts(&c->sql, data ? ", d.payloadKind, d.payload, d.color, d.category, d._id_"
                            : ", NULL, NULL, NULL, NULL, NULL");
  nv_rest_columns(&c->b.src, t, "m", "_id_,flags,timestamp,id,objectKind,objectId,name,domain",
                  &c->sql);
  if (data) nv_rest_columns(&c->b.src, td, "d", "_id_,flags,id,payloadKind,payload,color,category", &c->sql);
  tt_buf_puts(&c->sql, " FROM " NVP_TABLE("MARKER") " m"
                       " LEFT JOIN StringTable sn ON sn._id_ = m.name"
                       " LEFT JOIN StringTable sd ON sd._id_ = ");
  tt_buf_puts(&c->sql, domain ? "m.domain" : "NULL");
  /* The data row belongs to the start (or instant) row of the same id. */
  if (data) tt_buf_puts(&c->sql, " LEFT JOIN " NVP_TABLE("MARKER_DATA") " d ON d.id = m.id AND (m.flags & 4) = 0");
  tt_buf_puts(&c->sql, " ORDER BY m.id, m._id_");
  sqlite3_stmt *st = nv_prepare(&c->b.src, c->sql.data);
  if (!st) return -1;
  /* Unclosed ranges end at the last timestamp: known before the id-ordered
   * pass (the timestamp index makes this cheap). */
  sqlite3_stmt *mx = nv_prepare(&c->b.src, "SELECT max(timestamp) FROM " NVP_TABLE("MARKER"));
  if (mx && sqlite3_step(mx) == SQLITE_ROW && sqlite3_column_type(mx, 0) == SQLITE_INTEGER) {
    int64_t v = sqlite3_column_int64(mx, 0), lim = (int64_t)1 << 62;
    if (v >= -lim && v <= lim) cupti_cover(&c->b, v); /* else the pass reports it */
  }
  sqlite3_finalize(mx);
  pending p = {0}, row = {0};
  int64_t unclosed = 0, unopened = 0, last_row = INT64_MIN;
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    int64_t r = sqlite3_column_int64(st, C_ROW);
    if (r == last_row) continue; /* a second MARKER_DATA row for one marker */
    last_row = r;
    int64_t flags = sqlite3_column_int64(st, C_FLAGS), id = sqlite3_column_int64(st, C_ID);
    int64_t ts = cupti_time(&c->b, st, C_TS); /* as every nvprof time: +-2^62 */
    cupti_cover(&c->b, ts);
    cupti_progress(&c->b);
    if (p.active && (id != p.id || !(flags & F_END))) { /* start never closed */
      emit_range(c, &p, c->b.max_ts, p.tid);
      unclosed++;
      pending_clear(&p);
    }
    if (flags & F_END && !(flags & F_START)) {
      if (p.active) { /* the end of the pending start */
        int64_t pid, tid;
        nvp_object_ids(c, st, C_OKIND, C_OBJ, &pid, &tid);
        emit_range(c, &p, ts, tid);
        pending_clear(&p);
      } else { /* an end whose start is missing: kept as a sample */
        if ((rc = load_row(c, st, &row))) break;
        emit_instant(c, &row);
        pending_clear(&row);
        unopened++;
      }
    } else if (flags & F_START) {
      if ((rc = load_row(c, st, &p))) break;
    } else {
      if ((rc = load_row(c, st, &row))) break;
      emit_instant(c, &row);
      pending_clear(&row);
    }
  }
  if (!rc && step != SQLITE_DONE) rc = nv_step_error(&c->b.src, t);
  if (!rc && p.active) {
    emit_range(c, &p, c->b.max_ts, p.tid);
    unclosed++;
  }
  pending_clear(&p);
  pending_clear(&row);
  sqlite3_finalize(st);
  cupti_nvtx_warn_unclosed(&c->b, unclosed);
  if (unopened)
    tt_warn("%s: %lld NVTX range ends have no start: kept as NVTX samples", c->b.src.path,
            (long long)unopened);
  return rc;
}
