/* Packets, one at a time: each TracePacket is serialized with protobuf-c
 * and appended as field 1 of Trace (0x0A, varint length, bytes). A trace
 * file is nothing but that sequence, so nothing is held beyond the packet
 * being written and a fixed output buffer: packets are packed straight
 * into it and it goes to the file in large chunks (one fwrite per small
 * packet cost more than some of the packing). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "db2perfetto.h"

/* Output buffer size; a larger packet gets a buffer of its own size. */
#define PF_OUT_CHUNK (1u << 20)
/* Frame header: tag 0x0A and the length as a varint (< 2^35 bytes). */
#define PF_FRAME_MAX 6
/* What the writer adds to a packet: sequence id, flags, first-packet. */
#define PF_WRITER_FIELDS (3 * PF_FIELD_MAX)

void pf_writer_init(pf_writer *w, FILE *fp, const char *path, uint32_t seq) {
  memset(w, 0, sizeof *w);
  w->fp = fp;
  w->path = path;
  w->seq = seq;
  w->clear_next = 1; /* every part starts its sequence afresh */
  w->first = 1;
}

int pf_writer_flush(pf_writer *w) {
  if (w->len && fwrite(w->buf, 1, w->len, w->fp) != w->len) {
    tt_error("%s: write failed: %s", w->path, strerror(errno));
    return -1;
  }
  w->bytes_out += w->len;
  w->len = 0;
  return 0;
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static uint8_t *put_varint(uint8_t *q, uint64_t v) {
  if (v < 0x80) { /* most: tags' values, iids, small lengths */
    *q = (uint8_t)v;
    return q + 1;
  }
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q++ = (uint8_t)v;
  return q;
}

/* Hand encoding of the packets every event makes (a TrackEvent with its
 * typed debug annotations and flows, nothing interned), byte for byte as
 * protobuf-c packs them: fields in number order, proto2 repeated fields
 * unpacked, a oneof's NULL string left out. protobuf-c walks descriptors
 * for every field; this is the hot path of the tool. Anything else (a
 * packet with interned data, a track descriptor) goes through protobuf-c. */

static size_t put_fixed64(uint8_t *q, uint64_t v) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  memcpy(q, &v, 8); /* protobuf's fixed64 is little-endian */
#else
  for (int i = 0; i < 8; i++) q[i] = (uint8_t)(v >> (8 * i));
#endif
  return 8;
}

/* A DebugAnnotation's body size, or 0 when it is not one hand-encoded. */
static size_t ann_size(const pf_annotation *d) {
  if (d->name_field_case != PERFETTO__PROTOS__DEBUG_ANNOTATION__NAME_FIELD_NAME_IID) return 0;
  size_t n = 1 + varint_size(d->name_iid);
  switch (d->value_case) {
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE__NOT_SET: return n;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE: return n + 2;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE: return n + 1 + varint_size(d->uint_value);
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE:
    return n + 1 + varint_size((uint64_t)d->int_value);
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE: return n + 9;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE: {
    if (!d->string_value) return 0;
    size_t len = strlen(d->string_value);
    return n + 1 + varint_size(len) + len;
  }
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
    return n + 2 + varint_size(d->string_value_iid);
  default: return 0;
  }
}

static uint8_t *ann_put(uint8_t *q, const pf_annotation *d) {
  *q++ = 1 << 3;
  q = put_varint(q, d->name_iid);
  switch (d->value_case) {
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_BOOL_VALUE:
    *q++ = 2 << 3;
    *q++ = d->bool_value ? 1 : 0;
    break;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_UINT_VALUE:
    *q++ = 3 << 3;
    q = put_varint(q, d->uint_value);
    break;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_INT_VALUE:
    *q++ = 4 << 3;
    q = put_varint(q, (uint64_t)d->int_value);
    break;
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_DOUBLE_VALUE: {
    uint64_t bits;
    memcpy(&bits, &d->double_value, 8);
    *q++ = 5 << 3 | 1;
    q += put_fixed64(q, bits);
    break;
  }
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE: {
    size_t len = strlen(d->string_value);
    *q++ = 6 << 3 | 2;
    q = put_varint(q, len);
    memcpy(q, d->string_value, len);
    q += len;
    break;
  }
  case PERFETTO__PROTOS__DEBUG_ANNOTATION__VALUE_STRING_VALUE_IID:
    *q++ = 0x88; /* field 17, varint: two tag bytes */
    *q++ = 0x01;
    q = put_varint(q, d->string_value_iid);
    break;
  default: break;
  }
  return q;
}

/* An interned entry's body (EventName, EventCategory, DebugAnnotationName
 * or InternedString: iid = 1, then the string or bytes as field 2). */
static size_t entry_size(protobuf_c_boolean has_iid, uint64_t iid, const void *s, size_t len) {
  return (has_iid ? 1 + varint_size(iid) : 0) + (s ? 1 + varint_size(len) + len : 0);
}

static uint8_t *entry_put(uint8_t *q, protobuf_c_boolean has_iid, uint64_t iid, const void *s,
                          size_t len) {
  if (has_iid) {
    *q++ = 1 << 3;
    q = put_varint(q, iid);
  }
  if (s) {
    *q++ = 2 << 3 | 2;
    q = put_varint(q, len);
    memcpy(q, s, len);
    q += len;
  }
  return q;
}

/* The InternedData's body size, or with `out` its encoding there; entries
 * in field order: categories (1), names (2), annotation names (3), string
 * values (29). Strings are measured once per pass: they are short. */
static size_t interned_pack(const Perfetto__Protos__InternedData *d, uint8_t *out) {
  size_t n = 0;
  uint8_t *q = out;
#define PF_ENTRY(tag, has_iid, iid, s, len)                                                        \
  do {                                                                                             \
    size_t body_ = entry_size(has_iid, iid, s, len);                                               \
    n += sizeof tag - 1 + varint_size(body_) + body_;                                             \
    if (q) {                                                                                       \
      memcpy(q, tag, sizeof tag - 1);                                                             \
      q = put_varint(q + sizeof tag - 1, body_);                                                   \
      q = entry_put(q, has_iid, iid, s, len);                                                      \
    }                                                                                              \
  } while (0)
  for (size_t i = 0; i < d->n_event_categories; i++) {
    const Perfetto__Protos__EventCategory *e = d->event_categories[i];
    PF_ENTRY("\x0A", e->has_iid, e->iid, e->name, e->name ? strlen(e->name) : 0);
  }
  for (size_t i = 0; i < d->n_event_names; i++) {
    const Perfetto__Protos__EventName *e = d->event_names[i];
    PF_ENTRY("\x12", e->has_iid, e->iid, e->name, e->name ? strlen(e->name) : 0);
  }
  for (size_t i = 0; i < d->n_debug_annotation_names; i++) {
    const Perfetto__Protos__DebugAnnotationName *e = d->debug_annotation_names[i];
    PF_ENTRY("\x1A", e->has_iid, e->iid, e->name, e->name ? strlen(e->name) : 0);
  }
  for (size_t i = 0; i < d->n_debug_annotation_string_values; i++) {
    const Perfetto__Protos__InternedString *e = d->debug_annotation_string_values[i];
    PF_ENTRY("\xEA\x01", e->has_iid, e->iid,
             e->has_str ? (e->str.data ? (const void *)e->str.data : "") : NULL,
             e->str.len);
  }
#undef PF_ENTRY
  return n;
}

/* The TrackEvent's size, or 0 when the packet is not hand-encoded. */
static size_t event_size(const pf_packet *p) {
  if (p->data_case != PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT || !p->has_timestamp)
    return 0;
  const pf_event *te = p->track_event;
  if (!te->has_type || te->type < 0 || !te->has_track_uuid) return 0;
  if (te->name_field_case != PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD__NOT_SET &&
      te->name_field_case != PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < te->n_category_iids; i++) n += 1 + varint_size(te->category_iids[i]);
  for (size_t i = 0; i < te->n_debug_annotations; i++) {
    size_t a = ann_size(te->debug_annotations[i]);
    if (!a) return 0;
    n += 1 + varint_size(a) + a;
  }
  n += 1 + varint_size((uint64_t)te->type);
  if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID)
    n += 1 + varint_size(te->name_iid);
  n += 1 + varint_size(te->track_uuid);
  if (te->counter_value_field_case ==
      PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE)
    n += 2 + 8;
  else if (te->counter_value_field_case !=
           PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD__NOT_SET)
    return 0;
  n += 10 * (te->n_flow_ids + te->n_terminating_flow_ids);
  if (te->correlation_id_field_case ==
      PERFETTO__PROTOS__TRACK_EVENT__CORRELATION_ID_FIELD_CORRELATION_ID)
    n += 2 + varint_size(te->correlation_id);
  if (te->callstack_field_case == PERFETTO__PROTOS__TRACK_EVENT__CALLSTACK_FIELD_CALLSTACK_IID)
    n += 2 + varint_size(te->callstack_iid);
  return n;
}

/* Encodes a packet whose TrackEvent is `esize` bytes (event_size);
 * returns the packet's length. */
static size_t pack_event(const pf_packet *p, size_t esize, uint8_t *out) {
  const pf_event *te = p->track_event;
  uint8_t *q = out;
  *q++ = 8 << 3;
  q = put_varint(q, p->timestamp);
  if (p->optional_trusted_packet_sequence_id_case ==
      PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID) {
    *q++ = 10 << 3;
    q = put_varint(q, p->trusted_packet_sequence_id);
  }
  *q++ = 11 << 3 | 2;
  q = put_varint(q, esize);
  for (size_t i = 0; i < te->n_category_iids; i++) {
    *q++ = 3 << 3;
    q = put_varint(q, te->category_iids[i]);
  }
  for (size_t i = 0; i < te->n_debug_annotations; i++) {
    const pf_annotation *d = te->debug_annotations[i];
    *q++ = 4 << 3 | 2;
    q = put_varint(q, ann_size(d));
    q = ann_put(q, d);
  }
  *q++ = 9 << 3;
  q = put_varint(q, (uint64_t)te->type);
  if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) {
    *q++ = 10 << 3;
    q = put_varint(q, te->name_iid);
  }
  *q++ = 11 << 3;
  q = put_varint(q, te->track_uuid);
  if (te->counter_value_field_case ==
      PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD_DOUBLE_COUNTER_VALUE) {
    uint64_t bits;
    memcpy(&bits, &te->double_counter_value, 8);
    *q++ = 0xE1; /* field 44, fixed64 */
    *q++ = 0x02;
    q += put_fixed64(q, bits);
  }
  for (size_t i = 0; i < te->n_flow_ids; i++) {
    *q++ = 0xF9; /* field 47, fixed64 */
    *q++ = 0x02;
    q += put_fixed64(q, te->flow_ids[i]);
  }
  for (size_t i = 0; i < te->n_terminating_flow_ids; i++) {
    *q++ = 0x81; /* field 48, fixed64 */
    *q++ = 0x03;
    q += put_fixed64(q, te->terminating_flow_ids[i]);
  }
  if (te->correlation_id_field_case ==
      PERFETTO__PROTOS__TRACK_EVENT__CORRELATION_ID_FIELD_CORRELATION_ID) {
    *q++ = 0xA0; /* field 52, varint: two tag bytes */
    *q++ = 0x03;
    q = put_varint(q, te->correlation_id);
  }
  if (te->callstack_field_case == PERFETTO__PROTOS__TRACK_EVENT__CALLSTACK_FIELD_CALLSTACK_IID) {
    *q++ = 0xC0; /* field 56, varint */
    *q++ = 0x03;
    q = put_varint(q, te->callstack_iid);
  }
  if (p->interned_data) {
    *q++ = 12 << 3 | 2;
    q = put_varint(q, interned_pack(p->interned_data, NULL));
    q += interned_pack(p->interned_data, q);
  }
  if (p->has_sequence_flags) {
    *q++ = 13 << 3;
    q = put_varint(q, p->sequence_flags);
  }
  if (p->has_first_packet_on_sequence) {
    *q++ = 0xB8; /* field 87, varint */
    *q++ = 0x05;
    *q++ = p->first_packet_on_sequence ? 1 : 0;
  }
  return (size_t)(q - out);
}

/* Room for a packet of at most `max` bytes, packed at the returned
 * place; frame_end then frames it. NULL when a flush failed. */
static uint8_t *frame_begin(pf_writer *w, size_t max) {
  if (w->len + PF_FRAME_MAX + max > w->cap) {
    if (pf_writer_flush(w) != 0) return NULL;
    if (PF_FRAME_MAX + max > w->cap) {
      w->cap = PF_FRAME_MAX + max > PF_OUT_CHUNK ? PF_FRAME_MAX + max : PF_OUT_CHUNK;
      w->buf = tt_realloc(w->buf, w->cap);
    }
  }
  return w->buf + w->len + 2;
}

/* Most packets are under 128 bytes (a 1-byte length): they are packed
 * behind a 2-byte header and moved only when their length is longer. */
static void frame_end(pf_writer *w, size_t n) {
  uint8_t *frame = w->buf + w->len;
  size_t hlen = 1 + varint_size(n);
  if (hlen > 2) memmove(frame + hlen, frame + 2, n);
  uint8_t *q = frame;
  *q++ = 0x0A;
  for (uint64_t v = n;; v >>= 7) {
    if (v < 0x80) {
      *q = (uint8_t)v;
      break;
    }
    *q++ = (uint8_t)(v | 0x80);
  }
  w->len += hlen + n;
  w->packets++;
}

int pf_writer_put_end(pf_writer *w, int64_t ts, uint64_t uuid, const uint64_t *flow_out,
                      size_t nout, const uint64_t *flow_in, size_t nin) {
  uint32_t flags = w->clear_next ? PF_SEQ_CLEARED : 0;
  w->clear_next = 0;
  size_t esize = 2 + 1 + varint_size(uuid) + 10 * (nout + nin);
  uint8_t *out = frame_begin(w, esize + PF_FIELD_MAX * 3 + PF_WRITER_FIELDS);
  if (!out) return -1;
  uint8_t *q = out;
  *q++ = 8 << 3;
  q = put_varint(q, (uint64_t)ts);
  *q++ = 10 << 3;
  q = put_varint(q, w->seq);
  *q++ = 11 << 3 | 2;
  q = put_varint(q, esize);
  *q++ = 9 << 3;
  *q++ = PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
  *q++ = 11 << 3;
  q = put_varint(q, uuid);
  for (size_t i = 0; i < nout; i++) {
    *q++ = 0xF9; /* field 47, fixed64 */
    *q++ = 0x02;
    q += put_fixed64(q, flow_out[i]);
  }
  for (size_t i = 0; i < nin; i++) {
    *q++ = 0x81; /* field 48, fixed64 */
    *q++ = 0x03;
    q += put_fixed64(q, flow_in[i]);
  }
  if (flags) {
    *q++ = 13 << 3;
    q = put_varint(q, flags);
  }
  if (w->first) {
    *q++ = 0xB8; /* field 87, varint */
    *q++ = 0x05;
    *q++ = 1;
    w->first = 0;
  }
  frame_end(w, (size_t)(q - out));
  return 0;
}

int pf_writer_put(pf_writer *w, pf_packet *p, int uses_state, size_t bound) {
  p->optional_trusted_packet_sequence_id_case =
      PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
  p->trusted_packet_sequence_id = w->seq;
  uint32_t flags = uses_state ? PF_SEQ_NEEDS : 0;
  if (w->clear_next) {
    flags |= PF_SEQ_CLEARED;
    w->clear_next = 0;
  }
  if (flags) {
    p->has_sequence_flags = 1;
    p->sequence_flags = flags;
  }
  if (w->first) {
    p->has_first_packet_on_sequence = 1;
    p->first_packet_on_sequence = 1;
    w->first = 0;
  }
  /* protobuf-c packs nested messages in one pass, so sizing the whole
   * packet first would walk it twice: with a caller's bound, pack at once. */
  size_t max = bound ? bound + PF_WRITER_FIELDS : protobuf_c_message_get_packed_size(&p->base);
  uint8_t *out = frame_begin(w, max);
  if (!out) return -1;
  size_t esize = event_size(p);
  size_t n = esize ? pack_event(p, esize, out) : protobuf_c_message_pack(&p->base, out);
  if (n > max) {
    /* The buffer may have been overrun: a bug in a bound, never input. */
    tt_error("%s: internal error: packet of %zu bytes over its bound %zu", w->path, n, max);
    abort();
  }
  frame_end(w, n);
  return 0;
}

void pf_writer_free(pf_writer *w) {
  free(w->buf);
  w->buf = NULL;
  w->cap = w->len = 0;
}
