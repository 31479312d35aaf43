/* kineto2db's parts share this header:
 *   kineto2db.c        kineto2db_import: the read loop (zlib → repair → yajl)
 *   kineto2db_main.c   the command line around it
 *   kineto2db_repair.c the JSON PyTorch writes that JSON forbids, repaired
 *                      in the stream before yajl sees it
 *   kineto2db_parse.c  yajl callbacks: route tokens into the current event,
 *                      the top-level metadata and deviceProperties
 *   kineto2db_event.c  one complete event → hub rows (the mapping)
 *   kineto2db_json.c   compact JSON re-serialisation and UTF-8 repair
 * Only the current event and small maps (names, pids, B/E stacks) are held:
 * memory never grows with the number of events. */
#ifndef KINETO2DB_H
#define KINETO2DB_H
#include <stddef.h>
#include <stdint.h>
#include <yajl/yajl_parse.h>

#include "base/hashmap.h"
#include "hub/hub_writer.h"
#include "cli/import_cli.h"
#include "base/util.h"

/* ---- the import as a component (kineto2db.c) ---- */

/* What one import reads beyond the common options. */
typedef struct kineto2db_opts {
  int lenient; /* a trace cut short: import the events before the cut */
} kineto2db_opts;

/* Reads opts->input (.json or .json.gz) and writes it through w; ctx is a
 * const kineto2db_opts *. A tt_import_fn: 0 imported, 1 after a message
 * naming the file and byte at fault. */
int kineto2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx);

/* ---- JSON helpers (kineto2db_json.c) ---- */

/* Appends s[0..n) as valid UTF-8 without NUL bytes: invalid bytes and NULs
 * become U+FFFD, because the writer takes NUL-terminated text. */
void kj_clean_utf8(tt_buf *b, const char *s, size_t n);

/* Re-serialises a value that arrives as SAX tokens as compact JSON text. */
typedef struct kj_capture {
  tt_buf out;
  int depth;      /* open containers; 0 when the value is complete */
  int need_comma; /* the next key/value follows a complete one */
} kj_capture;
void kj_begin(kj_capture *c);
void kj_open(kj_capture *c, char bracket);  /* '{' or '[' */
void kj_close(kj_capture *c, char bracket); /* '}' or ']' */
void kj_key(kj_capture *c, const char *s, size_t n);
void kj_string(kj_capture *c, const char *s, size_t n);
void kj_raw(kj_capture *c, const char *text, size_t n); /* number, true, false, null */

/* ---- repair in front of yajl (kineto2db_repair.c) ---- */

/* Raw control characters and invalid escapes inside strings, invalid UTF-8
 * inside strings, and NaN/Infinity outside them, made valid JSON with the
 * same text. A chunk without any is handed over as it is. */
typedef struct kr_repair {
  int in_string;            /* the next byte is inside a string */
  unsigned char carry[16];  /* a token cut by the chunk's end, held back */
  size_t ncarry;
  tt_buf joined;            /* carry + chunk */
  tt_buf out;               /* the repaired chunk */
  int repaired;             /* the chunk handed out is `out` */
  size_t copied;            /* input bytes copied to `out` so far */
  struct kr_mark {          /* offsets of `out` → offsets of the chunk */
    size_t out, orig;
    int inside;             /* within a replacement: maps to its start */
  } *marks;
  size_t nmarks, cap_marks;
  uint64_t base;            /* file offset of the chunk handed out */
  const unsigned char *chunk; /* what yajl parses now: its strings are */
  size_t chunk_len;           /* valid UTF-8 without control bytes */
  int ended;                /* the file's end was handed out */
  uint64_t n_control, n_bad_escape, n_bad_utf8, n_nonfinite;
} kr_repair;

/* Repairs the next n bytes of the (decompressed) file, at file offset
 * `offset`; *out and *out_n give what yajl parses next, valid until the next
 * call. Bytes of a token cut by the chunk's end are held back. */
void kr_feed(kr_repair *r, const unsigned char *in, size_t n, uint64_t offset,
             const unsigned char **out, size_t *out_n);
/* What was held back at the end of the file (`end`: its size), unrepaired. */
void kr_finish(kr_repair *r, uint64_t end, const unsigned char **out, size_t *out_n);
/* File offset of byte `consumed` of the last chunk handed out. */
uint64_t kr_offset(const kr_repair *r, size_t consumed);
void kr_free(kr_repair *r);

/* ---- one event, as parsed ---- */

typedef enum { KV_NONE, KV_STRING, KV_NUMBER, KV_BOOL, KV_NULL, KV_JSON } kv_type;

typedef struct kv {
  kv_type type;
  tt_buf text; /* strings UTF-8-cleaned; numbers as written; JSON compact */
} kv;

typedef struct k_arg {
  tt_buf name; /* UTF-8-cleaned */
  kv val;
} k_arg;

/* The event keys the mapping reads; any other key is kept as an arg
 * named "kineto.<key>". */
enum { F_PH, F_CAT, F_NAME, F_PID, F_TID, F_TS, F_DUR, F_ID, F_BP, F_S, F_COUNT };
extern const char *const k_field_names[F_COUNT];

typedef struct k_event {
  kv f[F_COUNT];
  k_arg *args; /* members of "args", in order (reused between events) */
  size_t nargs, cap_args;
  k_arg *extra; /* unknown top-level keys, in order */
  size_t nextra, cap_extra;
} k_event;

/* One open B event awaiting its E. */
typedef struct k_open {
  int64_t start, event_id;
  int nargs;
  char *name;
} k_open;
typedef struct k_stack {
  k_open *items;
  size_t n, cap;
  int64_t pid, tid;
} k_stack;

typedef struct kineto {
  hub_writer *w;
  const char *path;
  int lenient;       /* a trace cut short: import the events before the cut */
  yajl_handle parser; /* its callbacks are kineto_callbacks(), ctx this */
  uint64_t fed;      /* (decompressed) bytes fed so far */
  uint64_t nevents; /* elements of the events array seen so far */
  kr_repair repair;

  /* parse state (kineto2db_parse.c) */
  int stack[8]; /* structural states, see kineto2db_parse.c */
  int sp;
  int seen_root;
  tt_buf key;          /* the current key, cleaned */
  int key_field;       /* the F_ field it names, else F_COUNT */
  kj_capture cap;      /* a nested value being captured */
  int capturing, cap_target;
  tt_buf cap_name;     /* the key the captured value belongs to */
  kv dev_id, dev_name; /* "id"/"name" of a deviceProperties entry */
  int dev_key;         /* which of them the last depth-1 key names */
  char err[160];       /* our own parse error (yajl is cancelled) */
  k_event ev;

  /* mapping state (kineto2db_event.c) */
  tt_strmap syn_pids, syn_tids; /* non-numeric pid/tid strings → ids */
  tt_i64map gpu_pids, cpu_pids; /* pid → 1 */
  /* The last complete event when it was a call (a region), not GPU work:
   * its pid and thread. Kineto writes a flow end right after the event it
   * binds to, and a device's pid holds calls too (MTIA's runtime). */
  int last_x_region;
  int64_t last_x_pid, last_x_tid;
  tt_i64map device_pids;        /* deviceProperties ids: Kineto's GPU pids */
  tt_strmap ext_seen;           /* extdata members written once */
  tt_strmap stack_index;        /* "pid tid" → index in stacks */
  k_stack *stacks;
  size_t nstacks, cap_stacks;
  int64_t next_dispatch;
  int64_t next_device; /* type_index of a deviceProperties entry without id */
  int64_t last_ts; /* latest time seen, for B events never closed */
  int have_base;
  int64_t base;
  int64_t rank; /* distributedInfo.rank, else HUB_NULL: the CPU processes' */
  tt_buf tmp, tmp2; /* scratch */
  /* The last GPU lanes and instant tracks resolved: Kineto writes runs of
   * events on a few streams and threads, and resolving one costs the
   * writer's key formatting and map lookups (see gpu_lane). */
  struct k_lane {
    int64_t pid, device, stream, agent, stream_id;
    int used;
  } lanes[8];
  struct k_track {
    int64_t pid, tid, track;
    int used;
  } tracks[8];
  uint64_t warn_bad_event, warn_unmatched_e, warn_unmatched_b, warn_no_ts,
      warn_dropped_args, warn_other_phase, warn_counter_value, warn_bad_time,
      warn_end_before_start, warn_big_number;
  int cut;        /* --lenient: the trace was cut short at byte cut_at */
  uint64_t cut_at;
} kineto;

/* kineto2db.c: one import of a trace's bytes, what kineto2db_import runs
 * on the file's chunks and fuzz/fuzz_kineto2db.c on its bytes, so that the
 * defaults (rank HUB_NULL, ...) are set in this one place. kineto_begin
 * readies k to write through w (path names the input in messages); then
 * kineto_feed for each chunk in order, kineto_end at the end, and
 * kineto_free whatever they returned. kineto_feed and kineto_end: 0, or 1
 * after a message naming the file and byte at fault; kineto_end's 0 means
 * the trace is imported (open events closed, the base time set). */
void kineto_begin(kineto *k, hub_writer *w, const char *path, int lenient);
int kineto_feed(kineto *k, const unsigned char *buf, size_t n);
/* The input ends here, cut short (lenient: the gzip stream broke off). */
void kineto_cut(kineto *k);
int kineto_end(kineto *k);
void kineto_free(kineto *k);

/* kineto2db_repair.c: the bytes of the file, through the repair, into
 * yajl; the end of the file; the file offset of yajl's error. */
yajl_status kineto_parse_bytes(kineto *k, yajl_handle h, const unsigned char *buf, size_t n,
                               uint64_t offset);
yajl_status kineto_parse_end(kineto *k, yajl_handle h, uint64_t end);
uint64_t kineto_error_offset(const kineto *k, yajl_handle h);

/* kineto2db_parse.c: the yajl callbacks (ctx is the kineto). A callback
 * that rejects the input fills k->err and cancels the parse. */
const yajl_callbacks *kineto_callbacks(void);
void kineto_parse_free(kineto *k);

/* kineto2db_event.c */
void kineto_emit_event(kineto *k);                      /* the event just closed */
/* One deviceProperties entry: its JSON text and its "id" and "name". */
void kineto_device_properties(kineto *k, const char *json, const kv *id, const kv *name);
void kineto_metadata(kineto *k, const char *key, const char *json);
void kineto_finish(kineto *k); /* open B events, base time, GPU owner */
void kineto_event_free(kineto *k);

#endif
