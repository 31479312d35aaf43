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
  size_t n = protobuf_c_message_pack(&p->base, frame + 2);
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
