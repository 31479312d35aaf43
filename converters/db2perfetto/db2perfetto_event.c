/* One held event -> one TrackEvent packet (SLICE_BEGIN, INSTANT or
 * COUNTER), and one open slice -> its SLICE_END. Names, categories,
 * annotation names and longer string values are interned; args become
 * typed debug annotations. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/vec.h"
#include "db2perfetto.h"

void pf_anns_free(pf_anns *a) {
  free(a->v);
  free(a->ptrs);
  free(a->str_off);
  tt_buf_free(&a->text);
  memset(a, 0, sizeof *a);
}

static pf_annotation *ann_add(pf_ctx *c, const char *name, size_t len) {
  pf_anns *a = &c->ann;
  if (a->n == a->cap) { /* three arrays of one capacity, each grown from it */
    size_t cap = a->cap;
    tt_grow(a->ptrs, a->n + 1, cap);
    cap = a->cap;
    tt_grow(a->str_off, a->n + 1, cap);
    tt_grow(a->v, a->n + 1, a->cap);
  }
  pf_annotation init = PERFETTO__PROTOS__DEBUG_ANNOTATION__INIT;
  pf_annotation *d = &a->v[a->n];
  *d = init;
  a->str_off[a->n] = (size_t)-1;
  a->n++;
  d->name_field_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID;
  d->name_iid = pf_intern_strn(&c->in, PF_ANNOTATIONS, name, len);
  return d;
}

/* String values of PF_INTERN_VALUE_MIN bytes or more are interned (sent
 * once per sequence, then referred to by iid): argument values repeat
 * (input shapes and types, call stacks). Shorter ones cost less inline.
 * An inline string is copied: the reader's strings live until its next row. */
#define PF_INTERN_VALUE_MIN 6
static void ann_string(pf_ctx *c, pf_annotation *d, const char *s, size_t n) {
  if (n >= PF_INTERN_VALUE_MIN) {
    d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID;
    d->string_value_iid = pf_intern_strn(&c->in, PF_VALUES, s, n);
    return;
  }
  pf_anns *a = &c->ann;
  d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE;
  a->str_off[d - a->v] = a->text.len;
  tt_buf_put_utf8(&a->text, s, n); /* protobuf strings are UTF-8 */
  tt_buf_append(&a->text, "", 1);
}

static void ann_int(pf_annotation *d, int64_t v) {
  d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE;
  d->int_value = v;
}

/* Typed value: ints, doubles and bools as such, everything else as text. */
static void ann_value(pf_ctx *c, pf_annotation *d, const hub_arg_view *a, size_t value_len) {
  char *end;
  hub_arg_type type = hub_arg_type_of(a->type);
  if (type == HUB_ARG_INT && a->value[0]) {
    errno = 0;
    long long v = strtoll(a->value, &end, 10);
    if (!*end && errno == 0) return ann_int(d, v);
    errno = 0;
    unsigned long long u = strtoull(a->value, &end, 10);
    if (!*end && errno == 0 && a->value[0] != '-') {
      d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE;
      d->uint_value = u;
      return;
    }
  } else if (type == HUB_ARG_DOUBLE && a->value[0]) {
    double v = strtod(a->value, &end);
    if (!*end) {
      d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE;
      d->double_value = v;
      return;
    }
  } else if (type == HUB_ARG_BOOL &&
             (strcmp(a->value, "true") == 0 || strcmp(a->value, "false") == 0)) {
    d->value_case = PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE;
    d->bool_value = a->value[0] == 't';
    return;
  }
  ann_string(c, d, a->value, value_len);
}

/* The event's args, then what the hub knows beside them. */
static void annotations(pf_ctx *c, const pf_held *h, pf_event *te) {
  const hub_record *ev = &h->ev;
  pf_anns *an = &c->ann;
  an->n = 0;
  tt_buf_clear(&an->text);
  /* The correlation goes to TrackEvent.correlation_id, which the trace
   * processor shows as the "correlation_id" arg: no annotation for it.
   * The args were read when the event was held (pf_hold). */
  const char *p = c->sl.text.data + h->args_off;
  for (uint32_t i = 0; i < h->nargs; i++) {
    hub_arg_view a;
    a.name = p;
    size_t name_len = strlen(p);
    p += name_len + 1;
    a.type = p;
    p += strlen(p) + 1;
    a.value = p;
    size_t value_len = strlen(p);
    p += value_len + 1;
    ann_value(c, ann_add(c, a.name, name_len), &a, value_len);
  }
  if (ev->size != HUB_NULL && ev->kind == HUB_ALLOC) ann_int(ann_add(c, "bytes", 5), ev->size);
  if (ev->clipped) {
    const char *v = ev->clipped == (HUB_CLIP_START | HUB_CLIP_END) ? "both"
                    : ev->clipped & HUB_CLIP_START                 ? "start"
                                                                   : "end";
    ann_string(c, ann_add(c, "clipped", 7), v, strlen(v));
  }
  for (size_t i = 0; i < an->n; i++) {
    if (an->str_off[i] != (size_t)-1) an->v[i].string_value = an->text.data + an->str_off[i];
    an->ptrs[i] = &an->v[i];
  }
  te->n_debug_annotations = an->n;
  te->debug_annotations = an->ptrs;
}

/* Upper bound of the annotations' encoding: per annotation the message,
 * its name and its value; string values add their length. */
static size_t annotations_bound(const pf_anns *an) {
  return PF_FIELD_MAX * 3 * an->n + an->text.len;
}

/* What track_event_packet and the type-specific fields may set: the
 * packet's timestamp and track_event; the event's track_uuid, type,
 * name_iid, counter value and correlation_id. */
#define PF_EVENT_FIELDS 7

/* A TracePacket holding a TrackEvent at `ts` on track `uuid`; the caller
 * sets the event's type and the rest. */
static void track_event_packet(pf_packet *p, pf_event *te, int64_t ts, uint64_t uuid) {
  *p = (pf_packet)PERFETTO__PROTOS__TRACE_PACKET__INIT;
  *te = (pf_event)PERFETTO__PROTOS__TRACK_EVENT__INIT;
  p->has_timestamp = 1;
  p->timestamp = (uint64_t)ts;
  p->data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT;
  p->track_event = te;
  te->has_track_uuid = 1;
  te->track_uuid = uuid;
  te->has_type = 1;
}

int pf_write_held(pf_ctx *c, pf_held *h) {
  const hub_record *ev = &h->ev;
  if (pf_intern_reset_if_full(&c->in)) c->w.clear_next = 1;
  /* Its stack was sent when it was held; sent again when the state was
   * cleared since (the resend takes the CLEARED flag). */
  if (h->callsite >= 0 && !pf_stack_known(c, h->callsite) && pf_stack_send(c, h->callsite) != 0)
    return -1;
  pf_packet p;
  pf_event te;
  track_event_packet(&p, &te, ev->start, c->tracks.v[h->track].uuid);
  int uses_state = 0;
  size_t bound = PF_FIELD_MAX * PF_EVENT_FIELDS;
  uint64_t cat_iid; /* te points at it until the packet is written */
  if (ev->kind == HUB_COUNTER) {
    te.type = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER;
    te.counter_value_field_case = PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE;
    te.double_counter_value = ev->value;
  } else {
    int instant = ev->kind == HUB_INSTANT || h->flow_instant;
    te.type = instant ? PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT
                      : PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN;
    te.name_field_case = PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID;
    te.name_iid = pf_intern_strn(&c->in, PF_NAMES, ev->name, h->name_len);
    const char *cat = hub_record_category(ev);
    if (cat[0]) {
      size_t cat_len = cat == ev->category ? h->cat_len : strlen(cat);
      cat_iid = pf_intern_strn(&c->in, PF_CATEGORIES, cat, cat_len);
      te.n_category_iids = 1;
      te.category_iids = &cat_iid;
    }
    if (h->callsite >= 0) {
      te.callstack_field_case = PERFETTO__PROTOS__TRACK_EVENT__CALLSTACK_FIELD_CALLSTACK_IID;
      te.callstack_iid = (uint64_t)h->callsite + 1;
    }
    if (ev->correlation_id != HUB_NULL && ev->correlation_id >= 0 && !h->flow_instant) {
      te.correlation_id_field_case = PERFETTO__PROTOS__TRACK_EVENT__CORRELATION_ID_FIELD_CORRELATION_ID;
      te.correlation_id = (uint64_t)ev->correlation_id;
    }
    te.n_flow_ids = h->nout;
    te.flow_ids = h->flow_out;
    if (h->more_out > 0) {
      size_t n = h->nout + (size_t)h->more_out;
      tt_grow(c->flow_ids, n, c->cap_flow_ids);
      memcpy(c->flow_ids, h->flow_out, h->nout * sizeof *h->flow_out);
      for (int64_t k = 1; k <= h->more_out; k++)
        c->flow_ids[h->nout + k - 1] = (uint64_t)hub_arrow_id(h->ev.link_id, k);
      te.n_flow_ids = n;
      te.flow_ids = c->flow_ids;
    }
    te.n_terminating_flow_ids = h->nin;
    te.terminating_flow_ids = h->flow_in;
    if (!h->flow_instant) {
      annotations(c, h, &te);
      bound += annotations_bound(&c->ann);
    }
    bound += PF_FIELD_MAX * (te.n_category_iids + te.n_flow_ids + te.n_terminating_flow_ids);
    uses_state = 1;
  }
  p.interned_data = pf_intern_take(&c->in);
  bound += pf_intern_bound(&c->in);
  int rc = pf_writer_put(&c->w, &p, uses_state, bound);
  pf_intern_done(&c->in);
  return rc;
}

int pf_write_end(pf_ctx *c, const pf_open *o) {
  return pf_writer_put_end(&c->w, o->end, c->tracks.v[o->track].uuid, o->flow_out, o->nout,
                           o->flow_in, o->nin);
}
