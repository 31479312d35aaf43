/* Every reader an export opens, from one place, with its policies decided
 * once, before anything opens (tt_readers_init):
 *   threads  a whole size split on two CPUs plans its cuts on a second
 *            thread; SQLite is told so before its first connection;
 *   inputs   opened once (hub_input_set.h) and --align planned from them;
 *            the first reader takes them, later ones open the paths;
 *   spool    a size split's stream kept as its fewest pass reads it
 *            (hub_reader.h, hub_spool): readers of that stream replay it.
 * Each reader is the caller's until it closes it or hands it on (to a cut
 * source, to the spool's thread). Private to the exporters' driver. */
#ifndef TT_EXPORT_READERS_H
#define TT_EXPORT_READERS_H
#include "cli/exporter.h"
#include "hub/hub_input_set.h"

typedef struct tt_readers {
  const tt_export_opts *o;
  hub_input_set *inputs; /* until the first reader takes them */
  hub_spool *spool;   /* a size split's stream, when kept */
  int plan_ahead;     /* a size split plans on a second thread */
} tt_readers;

/* SQLite's threading set for the run, the inputs opened and --align
 * planned (stated on stderr; o's align takes the result). 0, or -1 (said). */
int tt_readers_init(tt_readers *rd, tt_export_opts *o);

/* A reader of every input under f (its time range as given). NULL (said). */
hub_reader *tt_readers_open(tt_readers *rd, const hub_filter *f);
/* The same on [t0, t1) (HUB_NULL: unbounded), f's range set to it. */
hub_reader *tt_readers_open_range(tt_readers *rd, hub_filter *f, int64_t t0, int64_t t1);
/* The same, replaying the spool when there is one (the stream the spool
 * keeps: the same inputs, filter and range). */
hub_reader *tt_readers_open_replay(tt_readers *rd, hub_filter *f, int64_t t0, int64_t t1);

/* Keeps *r's stream in a spool (not for --count-parts, --part K, or
 * TT_SPOOL=0). Planning ahead, a thread of its own reads *r into it, and
 * *r becomes a replay of it just behind, on [t0, t1). 0, or -1 (said; *r
 * closed). No spool at all is not an error: the stream is read again. */
int tt_readers_spool(tt_readers *rd, hub_reader **r, hub_filter *f, int64_t t0, int64_t t1);

/* After every reader of the run is closed. */
void tt_readers_free(tt_readers *rd);

#endif
