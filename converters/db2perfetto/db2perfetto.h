/* db2perfetto's parts, one concern each:
 *   db2perfetto_writer.c  packets: serialize one at a time, frame, append
 *   db2perfetto_intern.c  per-sequence interning of names, categories and
 *                         debug-annotation names, bounded
 *   db2perfetto_tracks.c  track descriptors (process, thread, GPU stream,
 *                         overflow, counter), written lazily before use
 *   db2perfetto_slices.c  time order: open slices closed at the right time,
 *                         events held back while their timestamp is current
 *                         so that recorded flow ends can join them
 *   db2perfetto_event.c   one held-back event -> one TrackEvent packet
 *   db2perfetto_samples.c CPU samples -> PerfSample packets, stacks interned
 *   db2perfetto.c         the exporter callbacks
 *   db2perfetto_main.c    main(): the command line around them
 * Memory is bounded by open slices, distinct tracks and the interning bound,
 * never by the number of events. */
#ifndef DB2PERFETTO_H
#define DB2PERFETTO_H
#include <stdint.h>
#include <stdio.h>

#include "cli/export.h"
#include "cli/part_samples.h"
#include "base/hashmap.h"
#include "hub/hub_reader.h"
#include "cli/tracks.h"
#include "perfetto_trace_subset.pb-c.h"
#include "base/util.h"

typedef Perfetto__Protos__TracePacket pf_packet;
typedef Perfetto__Protos__TrackEvent pf_event;
typedef Perfetto__Protos__TrackDescriptor pf_track_desc;
typedef Perfetto__Protos__DebugAnnotation pf_annotation;

#define PF_SEQ_CLEARED PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED
#define PF_SEQ_NEEDS PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE

/* --- writer ------------------------------------------------------------ */

typedef struct pf_writer {
  FILE *fp;
  const char *path;
  uint8_t *buf; /* output not yet written: bounded, no whole-trace buffer */
  size_t len, cap;
  uint32_t seq;      /* trusted_packet_sequence_id of this part */
  int clear_next;    /* next packet carries SEQ_INCREMENTAL_STATE_CLEARED */
  int first;         /* next packet is the first on the sequence */
  uint64_t packets;
  uint64_t bytes_out; /* given to the file so far */
} pf_writer;

void pf_writer_init(pf_writer *w, FILE *fp, const char *path, uint32_t seq);
/* Upper bound of one field's encoding: a tag (<= 2 bytes here) and a
 * 10-byte varint, fixed64 or length prefix. A string field costs this plus
 * its length; a nested message this plus its fields. */
#define PF_FIELD_MAX 16
/* Serializes p, frames it as Trace.packet (0x0A, varint length) and
 * appends it. uses_state: p refers to interned data. bound: an upper bound
 * of p's encoded size (fields the writer sets excluded), or 0 to have
 * protobuf-c size it first. 0 ok, -1 write error. */
int pf_writer_put(pf_writer *w, pf_packet *p, int uses_state, size_t bound);
/* A slice's END at `ts` on track `uuid` with its flows, packed directly:
 * the same bytes pf_writer_put makes of that packet, without building it. */
int pf_writer_put_end(pf_writer *w, int64_t ts, uint64_t uuid, const uint64_t *flow_out,
                      size_t nout, const uint64_t *flow_in, size_t nin);
/* Writes out what is buffered. 0 ok, -1 write error. */
int pf_writer_flush(pf_writer *w);
void pf_writer_free(pf_writer *w);

/* --- interning --------------------------------------------------------- */

/* Tables: event names, categories, debug-annotation names, and the string
 * values of debug annotations (arguments repeat: shapes, types, stacks). */
enum { PF_NAMES, PF_CATEGORIES, PF_ANNOTATIONS, PF_VALUES, PF_NTABLES };

/* A table's slot: iid 0 marks it empty; the key is `len` bytes at `off`
 * in pf_intern.keys, its hash kept to compare and to grow without
 * rehashing. */
typedef struct pf_islot {
  uint64_t hash, iid;
  size_t off, len;
} pf_islot;

typedef struct pf_itable {
  pf_islot *slots;
  size_t cap, count; /* cap: 0 or a power of two */
} pf_itable;

typedef struct pf_intern {
  pf_itable map[PF_NTABLES];
  tt_buf keys; /* every table's keys, since the last reset */
  uint64_t next_iid[PF_NTABLES];
  size_t entries, bytes;       /* since the last reset */
  size_t max_entries, max_bytes;
  uint64_t resets;
  /* Entries new in the packet being built (InternedData of that packet). */
  Perfetto__Protos__InternedData data;
  Perfetto__Protos__EventName *names, **name_ptrs;
  Perfetto__Protos__EventCategory *cats, **cat_ptrs;
  Perfetto__Protos__DebugAnnotationName *anns, **ann_ptrs;
  Perfetto__Protos__InternedString *vals, **val_ptrs;
  size_t cap[PF_NTABLES];
  tt_buf text; /* their strings; offsets, fixed up in pf_intern_take */
  size_t *offsets[PF_NTABLES];
} pf_intern;

void pf_intern_init(pf_intern *in);
/* iid of s in table t (PF_NAMES ...); new strings are queued for the
 * packet being built. */
uint64_t pf_intern_str(pf_intern *in, int t, const char *s);
/* The same for s of known length n (s[n] == 0). */
uint64_t pf_intern_strn(pf_intern *in, int t, const char *s, size_t n);
/* Before building a packet: when the tables reached their bound, forgets
 * them all and returns 1 (the packet must clear the incremental state). */
int pf_intern_reset_if_full(pf_intern *in);
/* The InternedData for the packet being built, NULL when nothing is new.
 * Valid until pf_intern_done. */
Perfetto__Protos__InternedData *pf_intern_take(pf_intern *in);
/* Upper bound of that InternedData's encoding (0 when nothing is new). */
size_t pf_intern_bound(const pf_intern *in);
void pf_intern_done(pf_intern *in);
void pf_intern_free(pf_intern *in);

/* --- tracks ------------------------------------------------------------ */

typedef struct pf_track {
  uint64_t uuid;
  int32_t open; /* innermost open slice (index in pf_slices.pool), -1 none */
} pf_track;

/* What tt_track_of reads from a record: records alike in these go to
 * the same lane, so each distinct source finds its lane only once. */
typedef struct pf_source {
  int64_t pid, tid, agent_id, lane_id;
  int db, lane_is_queue;
  hub_kind kind;
  uint32_t track;    /* the lane's own track */
  uint64_t lane_key;
} pf_source;

typedef struct pf_tracks {
  tt_i64map index; /* hashed key -> index in v */
  pf_track *v;
  size_t n, cap;
  tt_i64map source_index; /* hashed source -> index in src */
  pf_source *src;
  size_t nsrc, cap_src;
  tt_nesting *nesting;
  tt_buf name;
} pf_tracks;

/* Where a record goes: its lane (process/thread or GPU stream) as a key,
 * and the track index of the lane itself (sub-lane 0). */
typedef struct pf_place {
  uint64_t lane_key;
  uint32_t track;
} pf_place;

void pf_tracks_init(pf_tracks *t);
void pf_tracks_free(pf_tracks *t);
/* The root track descriptor (uuid 0), first in every part: it carries
 * only process_ordering and thread_ordering EXPLICIT, so that Perfetto
 * shows processes and threads by their sibling_order_rank (the order
 * db2json's sort indexes give). 0, or -1 on a write error. */
int pf_tracks_root(pf_writer *w);
/* Track of an interval (placed on an overflow track when it does not nest
 * on its lane) or of an instant/counter; writes descriptors not yet
 * written. Returns -1 on a write error. */
int pf_track_for(pf_tracks *t, pf_writer *w, hub_reader *r, const hub_record *ev,
                 pf_place *out);
/* Lane keys a recorded flow end may refer to: its own (pid, tid) lane and,
 * as in Kineto's GPU rows (pid = device, tid = stream), that GPU stream. */
#define PF_MAX_LANE_KEYS 5
int pf_flow_lanes(hub_reader *r, const hub_record *ev, uint64_t keys[PF_MAX_LANE_KEYS]);
/* The lane's own track if it exists, else -1. */
int64_t pf_track_find(const pf_tracks *t, uint64_t lane_key);

/* --- time order -------------------------------------------------------- */

#define PF_MAX_FLOWS 4

/* An event held back while its timestamp is the current one. */
typedef struct pf_held {
  hub_record ev;
  size_t name_off, cat_off; /* ev.name/category copied into pf_slices.text */
  size_t name_len, cat_len;  /* their lengths */
  /* Its args, read while the reader was on its row (in stream order: no
   * lookup by id later), as nargs name/type/value string triples in
   * pf_slices.text from args_off. */
  size_t args_off;
  uint32_t nargs;
  uint32_t track;
  uint64_t lane_key;
  uint64_t flow_out[PF_MAX_FLOWS], flow_in[PF_MAX_FLOWS];
  uint8_t nout, nin;
  /* A launch of many GPU works (a graph launch): its arrows 1..more_out
   * after flow_out's, ids hub_arrow_id(ev.link_id, k), made when written. */
  int64_t more_out;
  int64_t callsite;     /* its backtrace's callsite (hub_samples.h), -1 none */
  uint8_t is_slice;     /* an interval: SLICE_BEGIN now, SLICE_END later */
  uint8_t flow_instant; /* an instant standing for a recorded flow end */
} pf_held;

/* An open slice: its END is due at `end`. */
typedef struct pf_open {
  int64_t end;
  uint64_t order; /* begin order: among equal ends the later closes first */
  uint32_t track;
  int32_t below;  /* the slice open below it on the same track */
  uint8_t closed; /* END written (via its track); still in the heap */
  uint64_t flow_in[PF_MAX_FLOWS], flow_out[PF_MAX_FLOWS]; /* on its END */
  uint8_t nin, nout;
} pf_open;

struct pf_ctx;
typedef struct pf_slices {
  pf_open *pool;
  int32_t *free_list, nfree;
  size_t npool, cap_pool;
  int32_t *heap; /* min-heap of open slices by (end, -order) */
  size_t nheap, cap_heap;
  uint64_t order;
  pf_held *held;
  size_t nheld, cap_held;
  int64_t held_ts;
  tt_buf text;
} pf_slices;

/* Debug annotations of the packet being built (reused). */
typedef struct pf_anns {
  pf_annotation *v;
  pf_annotation **ptrs;
  size_t *str_off; /* string value offset in text, or (size_t)-1 */
  size_t n, cap;
  tt_buf text;
} pf_anns;

/* The state of one part. */
typedef struct pf_ctx {
  hub_reader *r;
  const tt_export_opts *o;
  const tt_part *part;
  pf_writer w;
  pf_intern in;
  pf_tracks tracks;
  pf_slices sl;
  pf_anns ann;
  uint64_t *flow_ids; /* a held event's flow ids with its more_out (reused) */
  size_t cap_flow_ids;
  uint64_t flow_instants; /* recorded flow ends drawn on an instant */
  tt_part_samples samples; /* the part's CPU samples (db2perfetto_samples.c) */
  struct pf_stacks *stacks;
} pf_ctx;

void pf_slices_init(pf_slices *s);
void pf_slices_free(pf_slices *s);
/* Before an event at time t: writes held events when t is later than
 * theirs, and every END due before t, in time order. */
int pf_advance(pf_ctx *c, int64_t t);
/* At the end of a part: writes everything held and closes every slice. */
int pf_finish(pf_ctx *c);
/* Upper bound of what pf_finish would still write (held events, their
 * interned names, the END of every open slice). */
uint64_t pf_pending_bound(const pf_ctx *c);
/* Holds an event (copying its strings) until time moves on. Returns the
 * held entry (valid until the next call). */
pf_held *pf_hold(pf_ctx *c, const hub_record *ev, const pf_place *pl);
/* The latest held slice begin at the current time on one of the lanes. */
pf_held *pf_held_begin_on(pf_ctx *c, const uint64_t *keys, int nkeys);
/* Innermost open slice on a track, or NULL. */
pf_open *pf_open_top(pf_ctx *c, uint32_t track);

/* --- one event --------------------------------------------------------- */

/* Builds and writes the packet of a held event. */
int pf_write_held(pf_ctx *c, pf_held *h);
/* Writes the SLICE_END of an open slice at its end time. */
int pf_write_end(pf_ctx *c, const pf_open *o);
void pf_anns_free(pf_anns *a);

/* --- CPU samples (db2perfetto_samples.c) ----------------------------- */

/* Writes the part's samples before time t (INT64_MAX: all that are left),
 * each after what is due before it. 0, or -1 (said). */
int pf_samples_before(pf_ctx *c, int64_t t);
int pf_sample_write(pf_ctx *c, const hub_cpu_sample *s);
/* Makes callsite `site`'s stack known on the sequence: an InternedData
 * packet of what is not sent since the state was last cleared. */
int pf_stack_send(pf_ctx *c, int64_t site);
/* Whether site's stack is known on the sequence now. */
int pf_stack_known(const pf_ctx *c, int64_t site);
void pf_stacks_free(struct pf_stacks *k);

/* --- the exporter (db2perfetto.c): what db2perfetto_main.c and the fuzz
 * harness run with tt_export_main ------------------------------------- */
const tt_exporter *db2perfetto_exporter(void);

#endif
