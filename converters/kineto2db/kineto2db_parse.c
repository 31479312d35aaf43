/* yajl callbacks for Kineto JSON. The document is walked as a small stack
 * of structural states (root object → traceEvents array → event object →
 * args object); any other nested value is captured as compact JSON text
 * and handed over whole. Numbers arrive as their text (yajl_number) so
 * timestamps are converted exactly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "kineto2db.h"

enum { ST_NONE, ST_ROOT_OBJ, ST_EVENTS, ST_EVENT, ST_ARGS, ST_DEVPROPS };
enum { CAP_META, CAP_DEVPROP, CAP_EXTRA, CAP_ARG, CAP_DISCARD };
enum { DEV_KEY_NONE, DEV_KEY_ID, DEV_KEY_NAME };

const char *const k_field_names[F_COUNT] = {"ph", "cat", "name", "pid", "tid",
                                            "ts", "dur", "id", "bp", "s"};

static int top(const kineto *k) { return k->sp ? k->stack[k->sp - 1] : ST_NONE; }

static int push(kineto *k, int st) {
  if (k->sp == (int)(sizeof k->stack / sizeof *k->stack)) {
    snprintf(k->err, sizeof k->err, "nesting too deep");
    return 0;
  }
  k->stack[k->sp++] = st;
  return 1;
}

static int key_is(const kineto *k, const char *s) { return strcmp(k->key.data, s) == 0; }

/* Appends a string token's text as valid UTF-8 without NUL. One yajl
 * hands over from the chunk it parses (a string without escapes) went
 * through the repair stage: it is. One yajl decoded (escapes such as
 * \u0000 or a lone surrogate) or joined across chunks is repaired here. */
static void append_text(const kineto *k, tt_buf *b, const char *s, size_t n) {
  uintptr_t a = (uintptr_t)s, c = (uintptr_t)k->repair.chunk;
  if (c && a >= c && a - c <= k->repair.chunk_len && n <= k->repair.chunk_len - (a - c))
    tt_buf_append(b, s, n);
  else
    kj_clean_utf8(b, s, n);
}

static void kv_set(const kineto *k, kv *v, kv_type t, const char *s, size_t n) {
  v->type = t;
  tt_buf_clear(&v->text);
  if (t == KV_STRING)
    append_text(k, &v->text, s, n);
  else
    tt_buf_append(&v->text, s, n);
}

/* Next slot of a reused arg array, its buffers emptied. */
static k_arg *push_arg(k_arg **arr, size_t *n, size_t *cap) {
  tt_grow(*arr, *n + 1, *cap); /* new slots zeroed: their buffers empty */
  k_arg *a = &(*arr)[(*n)++];
  tt_buf_clear(&a->name);
  if (!a->name.data) tt_buf_append(&a->name, "", 0);
  return a;
}

static void add_arg(kineto *k, int extra, const char *name, size_t name_len, kv_type t,
                    const char *s, size_t n) {
  k_arg *a = extra ? push_arg(&k->ev.extra, &k->ev.nextra, &k->ev.cap_extra)
                   : push_arg(&k->ev.args, &k->ev.nargs, &k->ev.cap_args);
  tt_buf_append(&a->name, name, name_len);
  kv_set(k, &a->val, t, s, n);
}

static void begin_event(kineto *k) {
  /* A field's text is read only when its type says it is there. */
  for (int i = 0; i < F_COUNT; i++) {
    k->ev.f[i].type = KV_NONE;
    tt_buf_clear(&k->ev.f[i].text);
  }
  k->ev.nargs = k->ev.nextra = 0;
}

static void begin_capture(kineto *k, int target, char bracket) {
  k->capturing = 1;
  k->cap_target = target;
  tt_buf_clear(&k->cap_name);
  tt_buf_append(&k->cap_name, k->key.data ? k->key.data : "", k->key.len);
  if (target == CAP_DEVPROP) {
    kv_set(k, &k->dev_id, KV_NONE, "", 0);
    kv_set(k, &k->dev_name, KV_NONE, "", 0);
    k->dev_key = DEV_KEY_NONE;
  }
  kj_begin(&k->cap);
  kj_open(&k->cap, bracket);
}

static void end_capture(kineto *k) {
  k->capturing = 0;
  const char *json = k->cap.out.data;
  switch (k->cap_target) {
  case CAP_META: kineto_metadata(k, k->cap_name.data, json); break;
  case CAP_DEVPROP: kineto_device_properties(k, json, &k->dev_id, &k->dev_name); break;
  case CAP_EXTRA:
    add_arg(k, 1, k->cap_name.data, k->cap_name.len, KV_JSON, json, k->cap.out.len);
    break;
  case CAP_ARG:
    add_arg(k, 0, k->cap_name.data, k->cap_name.len, KV_JSON, json, k->cap.out.len);
    break;
  default: /* an element of traceEvents that is not an object */
    k->warn_bad_event++;
    k->nevents++;
  }
}

/* The JSON text of a scalar token, for metadata values. */
static const char *scalar_json(kineto *k, kv_type t, const char *s, size_t n) {
  tt_buf_clear(&k->tmp);
  if (t == KV_STRING)
    tt_json_string(&k->tmp, s, n);
  else
    tt_buf_append(&k->tmp, s, n);
  return k->tmp.data;
}

/* "traceEvents" holds the events: anything but an array is refused, not
 * kept as a metadata value that would hide a trace's events. */
static int not_an_array(kineto *k) {
  snprintf(k->err, sizeof k->err, "traceEvents is not an array");
  return 0;
}

static int on_scalar(kineto *k, kv_type t, const char *s, size_t n) {
  if (k->capturing) {
    if (t == KV_STRING)
      kj_string(&k->cap, s, n);
    else
      kj_raw(&k->cap, s, n);
    if (k->cap_target == CAP_DEVPROP && k->cap.depth == 1 && k->dev_key != DEV_KEY_NONE)
      kv_set(k, k->dev_key == DEV_KEY_ID ? &k->dev_id : &k->dev_name, t, s, n);
    return 1;
  }
  switch (top(k)) {
  case ST_NONE:
    snprintf(k->err, sizeof k->err, "the top level is not an object or an array");
    return 0;
  case ST_ROOT_OBJ:
    if (key_is(k, "traceEvents")) return not_an_array(k);
    kineto_metadata(k, k->key.data, scalar_json(k, t, s, n));
    break;
  case ST_EVENTS: /* not an event object: counted, not mapped */
    k->warn_bad_event++;
    k->nevents++;
    break;
  case ST_DEVPROPS: k->warn_bad_event++; break;
  case ST_EVENT: {
    int f = k->key_field;
    if (f != F_COUNT && k->ev.f[f].type == KV_NONE) {
      kv_set(k, &k->ev.f[f], t, s, n);
      return 1;
    }
    add_arg(k, 1, k->key.data, k->key.len, t, s, n); /* unknown or repeated key */
    break;
  }
  case ST_ARGS: add_arg(k, 0, k->key.data, k->key.len, t, s, n); break;
  }
  return 1;
}

/* Deeper values are refused: the hub would keep them as JSON text that
 * recursive JSON parsers downstream cannot read back without exhausting
 * their stack; real args nest a few levels (3000 levels are still kept). */
#define KJ_MAX_DEPTH 10000

static int on_open(kineto *k, char bracket) {
  if (k->capturing) {
    if (k->cap.depth >= KJ_MAX_DEPTH) {
      snprintf(k->err, sizeof k->err, "a value nested deeper than %d levels", KJ_MAX_DEPTH);
      return 0;
    }
    kj_open(&k->cap, bracket);
    return 1;
  }
  switch (top(k)) {
  case ST_NONE:
    k->seen_root = 1;
    return push(k, bracket == '{' ? ST_ROOT_OBJ : ST_EVENTS);
  case ST_ROOT_OBJ:
    if (bracket == '[' && key_is(k, "traceEvents")) return push(k, ST_EVENTS);
    if (bracket == '[' && key_is(k, "deviceProperties")) return push(k, ST_DEVPROPS);
    if (key_is(k, "traceEvents")) return not_an_array(k);
    begin_capture(k, CAP_META, bracket);
    return 1;
  case ST_EVENTS:
    if (bracket == '{') {
      begin_event(k);
      return push(k, ST_EVENT);
    }
    begin_capture(k, CAP_DISCARD, bracket);
    return 1;
  case ST_DEVPROPS: begin_capture(k, CAP_DEVPROP, bracket); return 1;
  case ST_EVENT:
    /* A second "args" object or an array-valued one is kept as JSON. */
    if (bracket == '{' && key_is(k, "args") && k->ev.nargs == 0) return push(k, ST_ARGS);
    begin_capture(k, CAP_EXTRA, bracket);
    return 1;
  case ST_ARGS: begin_capture(k, CAP_ARG, bracket); return 1;
  }
  return 1;
}

static int on_close(kineto *k, char bracket) {
  if (k->capturing) {
    kj_close(&k->cap, bracket);
    if (k->cap.depth == 0) end_capture(k);
    return 1;
  }
  int st = top(k);
  k->sp--;
  if (st == ST_EVENT) {
    kineto_emit_event(k);
    k->nevents++;
  }
  return 1;
}

/* Which of k_field_names the key is (F_COUNT: none), found once per key
 * rather than by comparing it with each name for every scalar. */
static int field_of(const char *s, size_t n) {
  /* Fixed-size compares the compiler inlines, the most frequent first. */
#define KEY_IS(lit) (n == sizeof lit - 1 && memcmp(s, lit, sizeof lit - 1) == 0)
  return KEY_IS("ph")     ? F_PH
         : KEY_IS("ts")   ? F_TS
         : KEY_IS("name") ? F_NAME
         : KEY_IS("cat")  ? F_CAT
         : KEY_IS("pid")  ? F_PID
         : KEY_IS("tid")  ? F_TID
         : KEY_IS("dur")  ? F_DUR
         : KEY_IS("id")   ? F_ID
         : KEY_IS("bp")   ? F_BP
         : KEY_IS("s")    ? F_S
                          : F_COUNT;
#undef KEY_IS
}

static int cb_null(void *ctx) { return on_scalar(ctx, KV_NULL, "null", 4); }

static int cb_boolean(void *ctx, int v) {
  return on_scalar(ctx, KV_BOOL, v ? "true" : "false", v ? 4 : 5);
}

static int cb_number(void *ctx, const char *s, size_t n) {
  return on_scalar(ctx, KV_NUMBER, s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n) {
  return on_scalar(ctx, KV_STRING, (const char *)s, n);
}

static int cb_start_map(void *ctx) { return on_open(ctx, '{'); }
static int cb_end_map(void *ctx) { return on_close(ctx, '}'); }
static int cb_start_array(void *ctx) { return on_open(ctx, '['); }
static int cb_end_array(void *ctx) { return on_close(ctx, ']'); }

static int cb_map_key(void *ctx, const unsigned char *s, size_t n) {
  kineto *k = ctx;
  if (k->capturing) {
    kj_key(&k->cap, (const char *)s, n);
    if (k->cap_target == CAP_DEVPROP && k->cap.depth == 1)
      k->dev_key = n == 2 && memcmp(s, "id", 2) == 0     ? DEV_KEY_ID
                   : n == 4 && memcmp(s, "name", 4) == 0 ? DEV_KEY_NAME
                                                         : DEV_KEY_NONE;
    return 1;
  }
  tt_buf_clear(&k->key);
  append_text(k, &k->key, (const char *)s, n);
  k->key_field = field_of(k->key.data, k->key.len);
  return 1;
}

static const yajl_callbacks callbacks = {
    cb_null,      cb_boolean,  NULL,         NULL,           cb_number,   cb_string,
    cb_start_map, cb_map_key, cb_end_map,   cb_start_array, cb_end_array,
};

const yajl_callbacks *kineto_callbacks(void) { return &callbacks; }

static void free_args(k_arg *a, size_t cap) {
  for (size_t i = 0; i < cap; i++) {
    tt_buf_free(&a[i].name);
    tt_buf_free(&a[i].val.text);
  }
  free(a);
}

void kineto_parse_free(kineto *k) {
  kr_free(&k->repair);
  tt_buf_free(&k->key);
  tt_buf_free(&k->cap.out);
  tt_buf_free(&k->cap_name);
  tt_buf_free(&k->dev_id.text);
  tt_buf_free(&k->dev_name.text);
  for (int i = 0; i < F_COUNT; i++) tt_buf_free(&k->ev.f[i].text);
  free_args(k->ev.args, k->ev.cap_args);
  free_args(k->ev.extra, k->ev.cap_extra);
}
