/* ETDump (.etdp): a flatbuffer (schema devtools/etdump/etdump_schema_flatcc.fbs,
 * identifier ED00), normally size-prefixed. Field ids below are the
 * declaration order (the schema has no id attributes); absent fields take
 * the schema's defaults (flatcc omits them). Each RunData is one iteration
 * of the block named after it (repeated "Execute" runs are iterations of
 * block Execute). The file is read whole (flatbuffers are random access,
 * at most 2 GiB) and every access goes through the verifier-first reader
 * in etprof2db_fb.c. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "etprof2db.h"
#include "etprof2db_fb.h"
#include "base/progress.h"

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* executorch_flatbuffer.ScalarType (scalar_type.fbs) */
static const char *scalar_type_name(int v) {
  static const char *const names[] = {
      "BYTE",     "CHAR",     "SHORT",       "INT",          "LONG",           "HALF",
      "FLOAT",    "DOUBLE",   NULL,          NULL,           NULL,             "BOOL",
      "QINT8",    "QUINT8",   "QINT32",      "BFLOAT16",     "QUINT4X2",       "QUINT2X4",
      NULL,       NULL,       NULL,          NULL,           "BITS16",         "FLOAT8E5M2",
      "FLOAT8E4M3FN", "FLOAT8E5M2FNUZ", "FLOAT8E4M3FNUZ", "UINT16", "UINT32", "UINT64"};
  return v >= 0 && v < (int)(sizeof names / sizeof *names) ? names[v] : NULL;
}

static const char *const VALUE_TYPES[] = {"Null",   "Int",        "Bool",  "Float",
                                          "Double", "Tensor", "TensorList", "String"};

typedef struct etdump {
  etp *c;
  fb b;
  char what[96];
  tt_buf json;
} etdump;

static const char *W(etdump *d, const char *fmt, uint32_t i, uint32_t j) {
  snprintf(d->what, sizeof d->what, fmt, i, j);
  return d->what;
}

/* A profile event's start/end in ns; a start after the end is a 32-bit
 * tick counter that wrapped (as the Inspector reads it). */
static int profile_times(etdump *d, const fb_table *pe, const char *what, etp_ev *e) {
  uint64_t s, t;
  if (fb_u64(&d->b, pe, 6, 0, what, &s) < 0 || fb_u64(&d->b, pe, 7, 0, what, &t) < 0) return -1;
  e->wrapped = 0;
  if (s > t) {
    if (s > UINT32_MAX || t > UINT32_MAX) {
      tt_error("%s: byte %llu: %s: start_time %" PRIu64 " is after end_time %" PRIu64
               " and they are not 32-bit ticks that wrapped",
               d->c->path, fb_at(&d->b, pe->pos), what, s, t);
      return -1;
    }
    t = s + ((uint64_t)UINT32_MAX - s) + t; /* the Inspector's (2^32-1 - start) + end */
    e->wrapped = 1;
  }
  if (etp_ticks_to_ns(d->c, s, fb_at(&d->b, pe->pos), &e->start)) return -1;
  if (etp_ticks_to_ns(d->c, t, fb_at(&d->b, pe->pos), &e->end)) return -1;
  return 0;
}

static int profile_event(etdump *d, const fb_table *pe, const char *what, etp_block *blk,
                         int64_t iteration, uint32_t run, uint32_t index, int64_t *end) {
  etp *c = d->c;
  fb *b = &d->b;
  etp_ev e;
  memset(&e, 0, sizeof e);
  e.chain_arg = "chain_index";
  e.instr_arg = "instruction_id";
  e.index = index;
  const char *name, *dstr;
  uint32_t nlen, dlen;
  int32_t chain, instr, dint;
  fb_vec meta;
  int has_meta;
  if (fb_string(b, pe, 0, what, &name, &nlen) < 0 || fb_i32(b, pe, 1, 0, what, &chain) < 0 ||
      fb_i32(b, pe, 2, -1, what, &instr) < 0 || fb_i32(b, pe, 3, -1, what, &dint) < 0 ||
      fb_string(b, pe, 4, what, &dstr, &dlen) < 0 ||
      (has_meta = fb_vector(b, pe, 5, 1, what, &meta)) < 0 || profile_times(d, pe, what, &e))
    return -1;
  e.chain = chain;
  e.instr = instr;
  e.has_delegate_int = dint != -1;
  e.delegate_int = dint;
  e.delegate_str = dstr;
  e.delegate_str_len = dlen;
  e.meta = has_meta ? b->p + meta.pos : NULL;
  e.meta_len = meta.n;
  char idname[32];
  /* As the Inspector does: an event with a delegate debug id (the int one
   * first, then a non-empty string) is named by it; a name it also has is
   * kept as the arg event_name. */
  int delegated = dint != -1 || (dstr && dlen);
  e.category = delegated ? "executorch_delegate" : "executorch";
  if (dint != -1) {
    snprintf(idname, sizeof idname, "%d", dint);
    e.name = idname;
  } else if (delegated) {
    e.name = dstr;
  } else {
    e.name = name ? name : "";
  }
  if (delegated && name) e.orig_name = name;
  if (e.wrapped) {
    c->wrapped++;
    etp_warn(c, "byte %llu: %s ('%s'): start after end, read as a 32-bit tick counter that "
                "wrapped",
             fb_at(b, pe->pos), what, e.name);
  }
  etp_emit_event(c, blk, iteration, run, &e);
  *end = e.end;
  return 0;
}

static int allocation_event(etdump *d, const fb_table *ae, const fb_vec *allocators,
                            const char *what, etp_block *blk, int64_t iteration, uint32_t run,
                            int64_t ts) {
  etp *c = d->c;
  int32_t id;
  uint64_t size;
  if (fb_i32(&d->b, ae, 0, 0, what, &id) < 0 || fb_u64(&d->b, ae, 1, 0, what, &size) < 0)
    return -1;
  if (size > INT64_MAX) {
    tt_error("%s: byte %llu: %s: allocation_size %" PRIu64 " is out of range", c->path,
             fb_at(&d->b, ae->pos), what, size);
    return -1;
  }
  /* ids are 1-based: track_allocator returns the new length of the list */
  char fallback[48], *name = NULL;
  if (id >= 1 && (uint32_t)id <= allocators->n) {
    fb_table at;
    const char *s;
    uint32_t n;
    char w2[64];
    snprintf(w2, sizeof w2, "Allocator %d", id);
    if (fb_vec_table(&d->b, allocators, (uint32_t)id - 1, w2, &at) ||
        fb_string(&d->b, &at, 0, w2, &s, &n) < 0)
      return -1;
    name = tt_strndup(s ? s : "", n);
  } else {
    if (etp_inconsistent(c, "byte %llu: %s: allocator_id %d names none of the run's %u "
                            "allocators (ids are 1-based)",
                         fb_at(&d->b, ae->pos), what, id, allocators->n))
      return -1;
    snprintf(fallback, sizeof fallback, "allocator %d", id);
  }
  etp_emit_alloc(c, blk, iteration, run, ts, name ? name : fallback, id, (int64_t)size);
  free(name);
  return 0;
}

/* sizes/strides of a Tensor as a JSON array */
static int long_vector_json(etdump *d, const fb_table *t, int id, const char *what, tt_buf *out) {
  fb_vec v;
  int r = fb_vector(&d->b, t, id, 8, what, &v);
  if (r < 0) return -1;
  tt_buf_putc(out, '[');
  for (uint32_t i = 0; i < v.n; i++) {
    if (i) tt_buf_putc(out, ',');
    tt_buf_put_i64(out, (int64_t)fb_vec_u64(&d->b, &v, i));
  }
  tt_buf_putc(out, ']');
  return 0;
}

static int tensor_json(etdump *d, const fb_table *t, const char *what, tt_buf *out) {
  uint8_t st;
  uint64_t off;
  if (fb_u8(&d->b, t, 0, 0, what, &st) < 0 || fb_u64(&d->b, t, 3, 0, what, &off) < 0) return -1;
  const char *sn = scalar_type_name((int8_t)st);
  tt_buf_puts(out, "{\"scalar_type\":");
  if (sn) tt_buf_printf(out, "\"%s\"", sn);
  else tt_buf_printf(out, "%d", (int8_t)st);
  tt_buf_puts(out, ",\"sizes\":");
  if (long_vector_json(d, t, 1, what, out)) return -1;
  tt_buf_puts(out, ",\"strides\":");
  if (long_vector_json(d, t, 2, what, out)) return -1;
  tt_buf_printf(out, ",\"offset\":%lld}", (long long)(int64_t)off);
  return 0;
}

static int debug_event(etdump *d, const fb_table *de, const char *what, etp_block *blk,
                       int64_t iteration, uint32_t run, int64_t ts) {
  etp *c = d->c;
  fb *b = &d->b;
  uint64_t chain;
  int32_t instr, dint;
  const char *dstr, *name;
  uint32_t dlen, nlen;
  fb_table val;
  int has_val;
  if (fb_u64(b, de, 0, 0, what, &chain) < 0 || fb_i32(b, de, 1, -1, what, &instr) < 0 ||
      (has_val = fb_subtable(b, de, 2, what, &val)) < 0 || fb_i32(b, de, 3, -1, what, &dint) < 0 ||
      fb_string(b, de, 4, what, &dstr, &dlen) < 0 || fb_string(b, de, 5, what, &name, &nlen) < 0)
    return -1;
  uint8_t type = 0, output = 0;
  int has_output = 0, scalar = 0;
  double value = 0;
  tt_buf_clear(&d->json);
  if (has_val) {
    fb_table sub;
    int r;
    if (fb_u8(b, &val, 0, 0, what, &type) < 0) return -1;
    if ((r = fb_subtable(b, &val, 7, what, &sub)) < 0) return -1;
    if (r == 1) {
      if (fb_u8(b, &sub, 0, 0, what, &output) < 0) return -1;
      has_output = 1;
    }
    switch (type) {
    case 1: { /* Int { int_val: long } */
      uint64_t v = 0;
      if ((r = fb_subtable(b, &val, 3, what, &sub)) < 0) return -1;
      if (r == 1 && fb_u64(b, &sub, 0, 0, what, &v) < 0) return -1;
      tt_buf_put_i64(&d->json, (int64_t)v);
      value = (double)(int64_t)v;
      scalar = 1;
      break;
    }
    case 2: { /* Bool */
      uint8_t v = 0;
      if ((r = fb_subtable(b, &val, 6, what, &sub)) < 0) return -1;
      if (r == 1 && fb_u8(b, &sub, 0, 0, what, &v) < 0) return -1;
      tt_buf_puts(&d->json, v ? "true" : "false");
      value = v != 0;
      scalar = 1;
      break;
    }
    case 3:
    case 4: { /* Float / Double */
      float f = 0;
      double v = 0;
      if ((r = fb_subtable(b, &val, type == 3 ? 4 : 5, what, &sub)) < 0) return -1;
      if (r == 1 && (type == 3 ? fb_f32(b, &sub, 0, 0, what, &f) : fb_f64(b, &sub, 0, 0, what, &v)) < 0)
        return -1;
      if (type == 3) v = f;
      value = v;
      scalar = isfinite(v);
      if (scalar) tt_buf_printf(&d->json, "%.17g", v);
      else tt_buf_printf(&d->json, "\"%s\"", isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity");
      break;
    }
    case 5: /* Tensor */
      if ((r = fb_subtable(b, &val, 1, what, &sub)) < 0) return -1;
      if (r == 1 && tensor_json(d, &sub, what, &d->json)) return -1;
      break;
    case 6: { /* TensorList { tensors: [Tensor] } */
      fb_vec v;
      if ((r = fb_subtable(b, &val, 2, what, &sub)) < 0) return -1;
      tt_buf_putc(&d->json, '[');
      if (r == 1 && fb_vector(b, &sub, 0, 4, what, &v) < 0) return -1;
      for (uint32_t i = 0; r == 1 && i < v.n; i++) {
        fb_table t;
        if (i) tt_buf_putc(&d->json, ',');
        if (fb_vec_table(b, &v, i, what, &t) || tensor_json(d, &t, what, &d->json)) return -1;
      }
      tt_buf_putc(&d->json, ']');
      break;
    }
    default: break;
    }
  }
  c->ndebug++;
  if (!c->w) return 0;
  char key[160];
  if (name) snprintf(key, sizeof key, "%.*s", (int)nlen, name);
  else if (dstr) snprintf(key, sizeof key, "debug delegate %.*s", (int)dlen, dstr);
  else if (dint != -1) snprintf(key, sizeof key, "debug delegate %d", dint);
  else snprintf(key, sizeof key, "debug chain %" PRIu64 " instr %d", chain, instr);
  int64_t ev = hub_event(c->w, "executorch_debug", HUB_NULL, NULL);
  int pos = 0;
  hub_arg_int(c->w, ev, pos++, "iteration", iteration);
  hub_arg_int(c->w, ev, pos++, "run", run);
  hub_arg_int(c->w, ev, pos++, "chain_index", (int64_t)chain);
  hub_arg_int(c->w, ev, pos++, "instruction_id", instr);
  if (dint != -1) hub_arg_int(c->w, ev, pos++, "delegate_debug_id_int", dint);
  if (dstr) {
    char *s = tt_strndup(dstr, dlen);
    hub_arg(c->w, ev, pos++, HUB_ARG_STRING, "delegate_debug_id_str", s);
    free(s);
  }
  hub_arg(c->w, ev, pos++, HUB_ARG_STRING, "value_type",
          type < sizeof VALUE_TYPES / sizeof *VALUE_TYPES ? VALUE_TYPES[type] : "unknown");
  if (d->json.len) {
    const char *vt = type == 5 ? "tensor" : type == 6 ? "tensors" : "value";
    hub_arg_type vtype = type == 5 || type == 6 || !scalar ? HUB_ARG_JSON
                         : type == 1                      ? HUB_ARG_INT
                         : type == 2                      ? HUB_ARG_BOOL
                                                          : HUB_ARG_DOUBLE;
    hub_arg(c->w, ev, pos++, vtype, vt, d->json.data);
  }
  if (has_output) hub_arg(c->w, ev, pos++, HUB_ARG_BOOL, "output", output ? "true" : "false");
  hub_arg_int(c->w, ev, pos++, "synthetic_time", 1);
  hub_touch_thread(c->w, c->pid, blk->tid, ts, ts);
  if (scalar) {
    char ext[64];
    snprintf(ext, sizeof ext, "{\"value\":%.17g}", value);
    /* on the block's thread (not process-wide): rocpd's samples view joins threads */
    hub_sample(c->w, hub_track(c->w, c->pid, blk->tid, key, HUB_TRACK_COUNTER), ts, ev, ext);
  } else {
    tt_buf ext = {0};
    tt_buf_puts(&ext, "{\"name\":");
    tt_json_string(&ext, key, strlen(key));
    tt_buf_putc(&ext, '}');
    hub_sample(c->w, hub_track(c->w, c->pid, blk->tid, "debug", HUB_TRACK_INSTANT), ts, ev,
               ext.data);
    tt_buf_free(&ext);
  }
  return 0;
}

static int run_data(etdump *d, const fb_table *rd, uint32_t run) {
  etp *c = d->c;
  fb *b = &d->b;
  const char *rname;
  uint32_t rlen;
  int32_t bundled;
  fb_vec allocators, events;
  const char *what = W(d, "RunData %u", run, 0);
  if (fb_string(b, rd, 0, what, &rname, &rlen) < 0 || fb_i32(b, rd, 1, -1, what, &bundled) < 0 ||
      fb_vector(b, rd, 2, 4, what, &allocators) < 0 || fb_vector(b, rd, 3, 4, what, &events) < 0)
    return -1;
  char *name = tt_strndup(rname ? rname : "", rlen);
  etp_block *blk = etp_block_get(c, name);
  free(name);
  int64_t iteration = blk->iterations++;
  for (uint32_t k = 0; k < allocators.n; k++) {
    fb_table at;
    const char *an;
    uint32_t alen;
    if (fb_vec_table(b, &allocators, k, W(d, "RunData %u Allocator %u", run, k + 1), &at) ||
        fb_string(b, &at, 0, d->what, &an, &alen) < 0)
      return -1;
    char *s = tt_strndup(an ? an : "", alen);
    etp_allocator(c, blk->name, (int64_t)k + 1, s);
    free(s);
  }
  if (bundled != -1) {
    char tag[64], v[32];
    snprintf(tag, sizeof tag, "etprof2db.run%u.bundled_input_index", run);
    snprintf(v, sizeof v, "%d", bundled);
    if (c->w) hub_writer_metadata(c->w, tag, v);
  }
  /* Allocations and debug events carry no time: allocations go to the
   * run's start (its earliest profile event), debug events to the end of
   * the profile event before them (events are appended when they end). */
  int64_t run_start = INT64_MAX;
  for (uint32_t j = 0; j < events.n; j++) {
    fb_table ev, pe;
    etp_ev e;
    int r;
    if (fb_vec_table(b, &events, j, W(d, "RunData %u event %u", run, j), &ev) ||
        (r = fb_subtable(b, &ev, 0, d->what, &pe)) < 0)
      return -1;
    if (r == 1) {
      if (profile_times(d, &pe, d->what, &e)) return -1;
      if (e.start < run_start) run_start = e.start;
    }
  }
  if (run_start == INT64_MAX) run_start = c->last_ns > 0 ? c->last_ns : 0;
  int64_t last_end = run_start;
  uint32_t nprofile = 0; /* a profile event's index among the run's profile events */
  for (uint32_t j = 0; j < events.n; j++) {
    fb_table ev, sub;
    int any = 0, r;
    const char *w = W(d, "RunData %u event %u", run, j);
    if (fb_vec_table(b, &events, j, w, &ev)) return -1;
    if ((r = fb_subtable(b, &ev, 0, w, &sub)) < 0) return -1;
    if (r == 1) {
      any = 1;
      int64_t end;
      if (profile_event(d, &sub, W(d, "RunData %u ProfileEvent %u", run, j), blk, iteration, run,
                        nprofile++, &end))
        return -1;
      last_end = end;
      w = W(d, "RunData %u event %u", run, j);
    }
    if ((r = fb_subtable(b, &ev, 1, w, &sub)) < 0) return -1;
    if (r == 1) {
      any = 1;
      if (allocation_event(d, &sub, &allocators, W(d, "RunData %u AllocationEvent %u", run, j), blk,
                           iteration, run, run_start))
        return -1;
      w = W(d, "RunData %u event %u", run, j);
    }
    if ((r = fb_subtable(b, &ev, 2, w, &sub)) < 0) return -1;
    if (r == 1) {
      any = 1;
      if (debug_event(d, &sub, W(d, "RunData %u DebugEvent %u", run, j), blk, iteration, run, last_end))
        return -1;
    }
    if (!any)
      etp_warn(c, "byte %llu: RunData %u event %u has no profile, allocation or debug event: "
                  "skipped",
               fb_at(b, ev.pos), run, j);
  }
  etp_iteration_end(c, blk, iteration);
  return 0;
}

int etp_read_etdump(etp *c) {
  FILE *f = fopen(c->path, "rb");
  if (!f) {
    tt_error("%s: cannot open: %s", c->path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    tt_error("%s: not a regular file", c->path);
    fclose(f);
    return -1;
  }
  if ((uint64_t)st.st_size > ((uint64_t)1 << 31) + 4) {
    tt_error("%s: %lld bytes: larger than any flatbuffer (2 GiB)", c->path, (long long)st.st_size);
    fclose(f);
    return -1;
  }
  size_t flen = (size_t)st.st_size;
  uint8_t *data = tt_malloc(flen ? flen : 1);
  size_t got = fread(data, 1, flen, f);
  fclose(f);
  if (got != flen) {
    tt_error("%s: byte %zu: read failed", c->path, got);
    free(data);
    return -1;
  }
  etdump d;
  memset(&d, 0, sizeof d);
  d.c = c;
  d.b.path = c->path;
  int rc = -1;
  if (flen < 8) {
    tt_error("%s: byte %zu: truncated: an ETDump needs at least 12 bytes (size prefix, root "
             "offset, identifier ED00)",
             c->path, flen);
  } else if (flen >= 12 && memcmp(data + 8, "ED00", 4) == 0) {
    uint32_t size = le32(data);
    if ((uint64_t)size > flen - 4) {
      tt_error("%s: byte 0: truncated: the size prefix says %u bytes follow, the file has %zu",
               c->path, size, flen - 4);
    } else {
      if ((uint64_t)size < flen - 4)
        etp_warn(c, "byte %llu: %zu bytes after the flatbuffer's size prefix ends: ignored",
                 (unsigned long long)size + 4, flen - 4 - size);
      d.b.p = data + 4;
      d.b.len = size;
      d.b.base = 4;
      rc = 0;
    }
  } else if (memcmp(data + 4, "ED00", 4) == 0) {
    d.b.p = data;
    d.b.len = flen;
    rc = 0;
  } else {
    char id[5] = {0};
    const uint8_t *p = flen >= 12 ? data + 8 : data + 4;
    for (int i = 0; i < 4; i++) id[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
    tt_error("%s: byte %d: wrong file identifier '%s': an ETDump has ED00 at byte 8 (after the "
             "size prefix) or at byte 4",
             c->path, flen >= 12 ? 8 : 4, id);
  }
  fb_table root;
  uint32_t version;
  fb_vec runs;
  if (!rc && (fb_root(&d.b, "ED00", "ETDump", &root) ||
              fb_u32(&d.b, &root, 0, 0, "ETDump", &version) < 0 ||
              fb_vector(&d.b, &root, 1, 4, "ETDump.run_data", &runs) < 0))
    rc = -1;
  if (!rc && version != 0) {
    tt_error("%s: byte %llu: ETDump version %u, this reader knows version 0", c->path,
             fb_at(&d.b, root.pos), version);
    rc = -1;
  }
  for (uint32_t i = 0; !rc && i < runs.n; i++) {
    fb_table rd;
    if (fb_vec_table(&d.b, &runs, i, W(&d, "RunData %u", i, 0), &rd) || run_data(&d, &rd, i))
      rc = -1;
    tt_progress("runs", i + 1, runs.n);
  }
  tt_buf_free(&d.json);
  free(data);
  return rc;
}
