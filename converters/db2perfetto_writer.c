/* Packets, one at a time: each TracePacket is serialized with protobuf-c
 * into one reused buffer and appended as field 1 of Trace (0x0A, varint
 * length, bytes). A trace file is nothing but that sequence, so nothing
 * is ever held beyond the packet being written. */
#include <stdlib.h>
#include <string.h>

#include "db2perfetto.h"

void pf_writer_init(pf_writer *w, FILE *fp, const char *path, uint32_t seq) {
  memset(w, 0, sizeof *w);
  w->fp = fp;
  w->path = path;
  w->seq = seq;
  w->clear_next = 1; /* every part starts its sequence afresh */
  w->first = 1;
}

int pf_writer_put(pf_writer *w, pf_packet *p, int uses_state) {
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
  size_t n = protobuf_c_message_get_packed_size(&p->base);
  if (n + 11 > w->cap) {
    w->cap = (n + 11) * 2;
    w->buf = tt_realloc(w->buf, w->cap);
  }
  /* Header first, then the packet right behind it: one fwrite. */
  uint8_t *q = w->buf;
  *q++ = 0x0A;
  for (uint64_t v = n; ; ) {
    if (v < 0x80) {
      *q++ = (uint8_t)v;
      break;
    }
    *q++ = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  size_t hdr = (size_t)(q - w->buf);
  size_t packed = protobuf_c_message_pack(&p->base, q);
  if (packed != n) {
    tt_error("%s: protobuf-c packed %zu bytes, expected %zu", w->path, packed, n);
    return -1;
  }
  w->packets++;
  if (fwrite(w->buf, 1, hdr + n, w->fp) != hdr + n) {
    tt_error("%s: write failed", w->path);
    return -1;
  }
  return 0;
}

void pf_writer_free(pf_writer *w) {
  free(w->buf);
  w->buf = NULL;
  w->cap = 0;
}
