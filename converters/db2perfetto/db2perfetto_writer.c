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
  w->len = 0;
  return 0;
}

static size_t varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) v >>= 7, n++;
  return n;
}

static uint8_t *put_varint(uint8_t *q, uint64_t v) {
  while (v >= 0x80) {
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  *q++ = (uint8_t)v;
  return q;
}

/* The packets most events make: a TrackEvent with a type, a track, at
 * most a name iid, one category iid and a correlation id, and nothing
 * interned (a slice's END, and its BEGIN once its strings are known). */
static int simple_event(const pf_packet *p) {
  const pf_event *te = p->track_event;
  return p->data_case == PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACK_EVENT && !p->interned_data &&
         te->n_category_iids <= 1 && !te->n_debug_annotations && !te->n_flow_ids &&
         !te->n_terminating_flow_ids && te->has_type && te->has_track_uuid &&
         te->type >= 0 && p->has_timestamp &&
         te->counter_value_field_case == PERFETTO__PROTOS__TRACK_EVENT__COUNTER_VALUE_FIELD__NOT_SET &&
         (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD__NOT_SET ||
          te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID);
}

/* Encodes a simple_event packet by hand, byte for byte as protobuf-c
 * does (fields in number order, proto2 repeated fields unpacked); returns
 * its length. At most 5 varints and 12 tag bytes: < 80 bytes. */
static size_t pack_simple(const pf_packet *p, uint8_t *out) {
  const pf_event *te = p->track_event;
  uint8_t ev[64], *e = ev;
  if (te->n_category_iids) {
    *e++ = 3 << 3;
    e = put_varint(e, te->category_iids[0]);
  }
  *e++ = 9 << 3;
  e = put_varint(e, (uint64_t)te->type);
  if (te->name_field_case == PERFETTO__PROTOS__TRACK_EVENT__NAME_FIELD_NAME_IID) {
    *e++ = 10 << 3;
    e = put_varint(e, te->name_iid);
  }
  *e++ = 11 << 3;
  e = put_varint(e, te->track_uuid);
  if (te->correlation_id_field_case ==
      PERFETTO__PROTOS__TRACK_EVENT__CORRELATION_ID_FIELD_CORRELATION_ID) {
    *e++ = 0xA0; /* field 52, varint: two tag bytes */
    *e++ = 0x03;
    e = put_varint(e, te->correlation_id);
  }
  uint8_t *q = out;
  *q++ = 8 << 3;
  q = put_varint(q, p->timestamp);
  if (p->optional_trusted_packet_sequence_id_case ==
      PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID) {
    *q++ = 10 << 3;
    q = put_varint(q, p->trusted_packet_sequence_id);
  }
  *q++ = 11 << 3 | 2;
  q = put_varint(q, (uint64_t)(e - ev));
  memcpy(q, ev, (size_t)(e - ev));
  q += e - ev;
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
  if (w->len + PF_FRAME_MAX + max > w->cap) {
    if (pf_writer_flush(w) != 0) return -1;
    if (PF_FRAME_MAX + max > w->cap) {
      w->cap = PF_FRAME_MAX + max > PF_OUT_CHUNK ? PF_FRAME_MAX + max : PF_OUT_CHUNK;
      w->buf = tt_realloc(w->buf, w->cap);
    }
  }
  /* Most packets are under 128 bytes (a 1-byte length): pack behind a
   * 2-byte header and move the packet only when its length is longer. */
  uint8_t *frame = w->buf + w->len;
  size_t n = simple_event(p) ? pack_simple(p, frame + 2)
                             : protobuf_c_message_pack(&p->base, frame + 2);
  if (n > max) {
    /* The buffer may have been overrun: a bug in a bound, never input. */
    tt_error("%s: internal error: packet of %zu bytes over its bound %zu", w->path, n, max);
    abort();
  }
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
  return 0;
}

void pf_writer_free(pf_writer *w) {
  free(w->buf);
  w->buf = NULL;
  w->cap = w->len = 0;
}
