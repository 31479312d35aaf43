/* Private to the hub reader's files (common/hub/hub_reader*.c): the
 * reader's state and the functions its parts share, above the parts'
 * own headers (inputs, args, links, records, sql). Not a public contract:
 * tools include hub_reader.h only. */
#ifndef TT_HUB_READER_INTERNAL_H
#define TT_HUB_READER_INTERNAL_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "hub/hub_reader.h"
#include "hub/hub_reader_inputs.h"
#include "hub/hub_reader_links.h"
#include "hub/hub_reader_order.h"
#include "hub/hub_reader_sql.h"

typedef struct cursor {
  union { /* the heap key of the current row, by field or as one key */
    hr_merge_key key;
    struct {
      int64_t start, end, row_id;
      int32_t table, db; /* fixed for the cursor */
    };
  };
  sqlite3_stmt *st;
  int64_t raw_start, raw_end; /* the row's times as recorded (key: mapped) */
  /* Its table's args in the cursor's order (hr_args_sql), stepped along
   * as events are read: no lookup per event. */
  sqlite3_stmt *args_st;
  int args_state;           /* 0 not prepared, 1 on a row, 2 done, 3 failed */
  int args_taken;           /* the current row's args were read */
  hr_merge_key a_key; /* key of the args row it is on (same table and db) */
  struct hr_arg_scan *scan; /* ordered rocpd_arg: its scan, made at its first args */
} cursor;

/* A record source: the stream a reader reads, behind one interface, and
 * what each record carries (its args, its track's name). Sources:
 *   merge   the inputs' cursors merged directly (hub_reader_merge.c);
 *   passes  the records of groups merged in passes (hub_reader_passes.c);
 *   replay  a spool's records (hub_reader_spool.c);
 * and a wrapper of the same interface:
 *   tap     copies every record of its inner source into a spool.
 * A wrapper and a replay answer the args and track name of the record read
 * last from the record itself, and ask `inner` for anything else (an event
 * held past its record). No source changes its kind: a replay whose spool
 * is given up ends with HR_SOURCE_GIVEN_UP, and the reader then reads its
 * inputs from that record on (hub_reader.c, the one place). */
typedef struct hr_source hr_source;
typedef struct hr_source_ops {
  int (*next)(hr_source *s, hub_record *ev); /* 1, 0 at the end, -1, or HR_SOURCE_GIVEN_UP */
  void (*args_begin)(hr_source *s, int db, int64_t event_id);
  int (*args_next)(hr_source *s, hub_arg_view *a);
  const char *(*track_name)(hr_source *s, int db, int64_t track_id);
  void (*free)(hr_source *s); /* the source, and its inner one */
} hr_source_ops;
struct hr_source {
  const hr_source_ops *ops;
  hub_reader *r;     /* whose inputs it reads */
  hr_source *inner;  /* a wrapper's (or a replay's lookups'); NULL */
};
#define HR_SOURCE_GIVEN_UP 2

/* What a reader answers about its inputs as a whole, whatever source it
 * reads: by SQL on open inputs (direct), or gathered group by group
 * (passes). */
typedef struct hr_query_ops {
  int (*time_span)(hub_reader *r, int64_t *min_start, int64_t *max_end);
  /* pid of host (NULL: any; in passes always any) has a row */
  int (*process_has_events)(hub_reader *r, const char *host, int64_t pid);
  int64_t (*row_count)(hub_reader *r);
  int (*category_counts)(hub_reader *r, hub_category_count **out, size_t *n);
} hr_query_ops;
extern const hr_query_ops hr_direct_queries, hr_passes_queries;

/* A source of r reading with ops, no state of its own (its state is its
 * reader's part), and the free of one (hub_reader.c). */
hr_source *hr_source_new(hub_reader *r, const hr_source_ops *ops);
void hr_source_free(hr_source *s);
/* The sources (each malloc'ed; freed by its ops->free). */
hr_source *hr_merge_source(hub_reader *r);
hr_source *hr_passes_source(hub_reader *r);

/* hub_reader_spool.c: a tap writes every record its reader reads into a
 * spool (hub_reader_spool_into); a replay reader reads a spool's records
 * instead of its inputs' rows (hub_filter.replay), its info read as usual. */
struct hr_tap;
struct hr_replay;
/* r's source replays r->filter.replay's records (r->replay), its own
 * source kept for what the records do not hold. 0, or -1 (said). */
int hr_replay_start(hub_reader *r);
/* Ends r's replay (its spool given up): its source is freed, the one it
 * wrapped returned, *records the number it handed out. */
hr_source *hr_replay_end(hub_reader *r, uint64_t *records);

/* The direct merge (hub_reader.c): a cursor per (input, table) in a heap. */
typedef struct hr_merge {
  cursor *cursors;
  cursor **heap;
  size_t ncursors, heap_len;
  cursor *to_advance; /* yielded last time; stepped on the next call */
  int primed;         /* every cursor stepped to its first row */
} hr_merge;

/* The args being iterated (hub_reader_args.c): how, and from where. */
typedef enum { HR_ARGS_NONE, HR_ARGS_COPIED, HR_ARGS_MERGED, HR_ARGS_LOOKUP } hr_args_mode;
typedef struct hr_args_iter {
  hr_args_mode mode;
  sqlite3_stmt *iter;       /* LOOKUP: the statement stepped */
  cursor *cur;              /* MERGED: the cursor whose args query is stepped */
  struct hr_arg_row *rows;  /* COPIED: the event's rows, in position order */
  size_t nrows, caprows, next;
  tt_buf text;              /* COPIED: their strings */
  int step;                 /* step before the next row (MERGED) */
} hr_args_iter;

/* Launches read whose GPU work is still ahead (hub_reader.c): (db, pid,
 * correlation) -> launch start, and -> start of its last GPU work (to
 * forget it once the stream has passed it), and the number of its
 * arrows, and how many were taken. Bounded by the launches in flight. */
typedef struct hr_pending {
  tt_i64map launch, gpu, n, taken;
  uint64_t since_sweep;
} hr_pending;

/* A reader: its inputs, the filter, and the state of each part, each
 * part's own (the file named at its type). */
struct hub_reader {
  hr_source *src;             /* the stream it reads */
  const hr_query_ops *query;  /* its questions about the inputs */
  hr_inputs in;
  hub_filter filter;
  hr_merge merge;      /* reading directly */
  hr_args_iter args;
  hr_pending pending;
  struct hr_passes *passes; /* set when reading in passes (hub_reader_passes.c) */
  struct hr_tap *tap;       /* writing a spool (hub_reader_spool.c) */
  struct hr_replay *replay; /* reading one */
  char *metadata_value; /* hub_reader_metadata's last answer */
  int failed;
};

/* The merge source's reading (hub_reader_merge.c,
 * hub_reader_args.c): its ops, hr_source_ops. */
int hr_direct_next(hr_source *src, hub_record *ev);
void hr_direct_args_begin(hr_source *src, int db, int64_t event_id);
int hr_direct_args_next(hr_source *src, hub_arg_view *a);

/* hub_reader.c: the id of the arrow of correlation `id` in input `db`
 * (category `cat` for recorded flows, "" for launch links). */
int64_t hr_link_id(int db, const char *cat, int64_t id);

/* Whether process pid of host (NULL: any) has a row in the inputs. */
static inline int hr_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  return r->query->process_has_events(r, host, pid);
}

/* hub_reader_passes.c: more inputs than may be open at once (descriptors
 * under RLIMIT_NOFILE less a reserve, or HR_MAX_OPEN_INPUTS for memory)
 * are merged group by group into temporary record streams, then those
 * merged: the same records, in the same order, as a direct merge. */
#define HR_MAX_OPEN_INPUTS 256
/* Inputs merged at once in a pass: streams that interleave in time (ranks
 * of one job, aligned by --align) make every row a different connection's,
 * and a merge of 256 of them runs about 1.3x slower than of 64 (1000
 * rocprofv3-shaped hubs: the same instructions, more cache misses; a 64-way
 * pass holds a quarter of the connections, peak RSS 84 -> 27 MB). 32 is no
 * faster. A direct read of up to 256 stays direct: its passes would cost more. */
#define HR_PASS_GROUP_MAX 64
size_t hr_passes_group(size_t npaths); /* inputs per group, 0: read directly */
/* hubs[i]: uuids in paths[i] (NULL: one each); a file of more than
 * HR_MAX_HUBS_PER_CONN is read in slices, each its own group. keys[i]:
 * paths[i]'s order key (hr_file_order_key; NULL: read here), taken. */
hub_reader *hr_passes_open(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t group, const size_t *hubs, char **keys);
/* hub_reader.c: a direct reader; with slice_count, of paths[0]'s uuids
 * slice_first.. only. It is hr_direct_inputs, then hr_direct_stream
 * (info_only: the first alone). */
hub_reader *hr_open_direct(const char *const *paths, size_t npaths, const hub_filter *f,
                           size_t slice_first, size_t slice_count);
/* Its inputs: every file opened and checked, the hubs ordered, their info
 * loaded for f (f->info_only, f->host), times mapped by f->time_maps; no
 * cursor. NULL when one cannot be read (said); r->crowded when a file
 * holds more uuids than one connection reads (then nothing is loaded:
 * hr_crowded_hubs, and read it in passes). */
hub_reader *hr_direct_inputs(const char *const *paths, size_t npaths, const hub_filter *f,
                             size_t slice_first, size_t slice_count);
/* r's filter made f (a full filter: no info_only): its info named for
 * f's part, its hosts excluded, its times mapped (hub_reader_merge.c). */
void hr_direct_stream(hub_reader *r, const hub_filter *f);
/* Then its stream started: its cursors prepared, or its replay begun
 * (hub_reader.c). 0, or -1 (said). */
int hr_start_stream(hub_reader *r, const hub_filter *f);
/* What hub_reader_close frees of the merge and the stream's state kept
 * per input (hub_reader_merge.c), before its inputs (hr_inputs_free). */
void hr_merge_free(hub_reader *r);
/* The uuids of each of paths that a crowded r found (malloc'ed). */
size_t *hr_crowded_hubs(const hub_reader *r, const char *const *paths, size_t npaths);
/* The direct reader's cursors and links, on r's inputs (opened, their
 * info loaded, r->filter final): 0, or -1 (said). */
int hr_direct_prepare(hub_reader *r);
/* A direct reader found a file of more than HR_MAX_HUBS_PER_CONN uuids:
 * closes it and reads the same paths in passes. */
hub_reader *hr_passes_crowded(hub_reader *r, const char *const *paths, size_t npaths);
void hr_passes_free(hub_reader *r); /* its part of hub_reader_close */

#endif
