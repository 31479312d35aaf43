/* How big the archive of a part would be if it ended now: the size
 * split's measure (tt_exporter.part_bytes). libotf2 keeps its event
 * chunks to itself, so the events are counted as its buffer encodes them
 * (OTF2_Buffer: a record is its type byte, a length byte, then its fields;
 * an integer is compressed to a byte count and its significant bytes; a
 * timestamp record, 9 bytes, goes before any event whose time differs from
 * the one before, counted here for every event), and the definitions from
 * what they will hold, every field at its largest. Never less than the
 * archive: the cut points rely on it. */
#include "db2otf2.h"

/* Bytes of a compressed integer: 0 and all-ones take one. */
uint64_t o2_cu(uint64_t v) {
  if (v == 0 || v == UINT64_MAX || v == UINT32_MAX) return 1;
  uint64_t n = 1;
  while (v) {
    v >>= 8;
    n++;
  }
  return n;
}

#define O2_TS 9      /* timestamp record */
#define O2_REC 2     /* type and length bytes */
#define O2_CHUNK 64  /* a chunk's header and end marker, with slack */

void o2_model_event(o2_archive *a, uint64_t fields) { a->model_events += O2_TS + O2_REC + fields; }

void o2_model_attr(o2_archive *a, uint32_t ref, uint64_t value_bytes) {
  a->model_attr_n++;
  a->model_attr_payload += o2_cu(ref) + 1 + value_bytes;
}

void o2_model_attrs_written(o2_archive *a) {
  if (!a->model_attr_n) return;
  uint64_t payload = o2_cu(a->model_attr_n) + a->model_attr_payload;
  a->model_events += 1 + (payload < 255 ? 1 : 9) + payload;
  a->model_attr_n = 0;
  a->model_attr_payload = 0;
}

uint64_t o2_part_bytes(void *state) {
  const o2_archive *a = state;
  uint64_t b = a->model_events;
  /* The Leaves (and copy completions) still to come. */
  for (size_t i = 0; i < a->nlocs; i++)
    for (size_t d = 0; d < a->locs[i].depth; d++) {
      const o2_open *op = &a->locs[i].open[d];
      b += O2_TS + O2_REC + o2_cu(op->region) + (a->use_contexts ? o2_cu(op->ctx) : 0);
      if (op->rma_id) b += O2_TS + O2_REC + 1 + o2_cu(op->rma_id);
    }
  /* Chunks: one per location at least, one more each 4 MiB. */
  b += (a->nlocs + 1 + b / (1u << 20)) * O2_CHUNK;
  /* Definitions. A string: record, reference, text; a GPU-only process
   * gets a thread and the vendor names come at the end (slack below). */
  b += a->string_bytes + (uint64_t)a->nstrings * (1 + 9 + 5);
  b += (uint64_t)a->nregions * (O2_REC + 9 + 4 * 5 + 3 + 3 * 5);
  b += (uint64_t)a->nattrs * (O2_REC + 9 + 3 * 5 + 1);
  b += (uint64_t)a->nnodes * (3 * O2_REC + 27 + 4 * 5 + 1 + 5 + 5 + 1 + 9);
  b += (uint64_t)a->ngroups * (O2_REC + 9 + 4 * 5 + 1 + 5 + 16);
  /* A location: its definition, its event and local definition files. */
  b += (uint64_t)a->nlocs * (O2_REC + 9 + 9 + 5 + 1 + 9 + 5 + 64);
  b += (uint64_t)a->nmetrics * 160;
  /* Calling contexts: region, source code location, parent; an address
   * property; an interrupt generator. A frame's region also names its
   * module (in nregions above, with 5 bytes for the file). */
  b += (uint64_t)a->ncontexts * (O2_REC + 4 * 5) + (uint64_t)a->ncontext_props * (O2_REC + 5 + 5 + 1 + 9);
  b += (uint64_t)a->ngenerators * (O2_REC + 2 * 5 + 2 + 9 + 9);
  if (a->nranks) b += 256 + 2 * 9 * (uint64_t)a->nranks;
  /* The anchor file, creator and description, clock, paradigms, file
   * headers and the names given at the end. */
  return b + O2_MODEL_FIXED;
}
