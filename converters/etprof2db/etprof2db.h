/* etprof2db: ExecuTorch profiles (the legacy profiler buffer prof_result.bin
 * and ETDump .etdp flatbuffers) into a hub database, with the figures
 * ExecuTorch's own tools print (--summary). Private to this tool. */
#ifndef ETPROF2DB_H
#define ETPROF2DB_H
#include <stddef.h>
#include <stdint.h>

#include "base/hashmap.h"
#include "hub/hub_writer.h"
#include "cli/import_cli.h"
#include "base/util.h"

typedef enum etp_scale { ETP_NS, ETP_US, ETP_MS, ETP_CYCLES } etp_scale;

typedef struct etp_opts {
  etp_scale scale;
  double cpu_freq; /* Hz, for ETP_CYCLES; 0 when not given */
  int lenient;
  int summary;
} etp_opts;

/* The --time-scale names, indexed by etp_scale. */
extern const char *const etp_scale_names[4];

typedef struct etp_summary etp_summary;

/* ---- the import as a component ------------------------------------------ */

/* What one import reads beyond the common options (main fills it from
 * its command line, the fuzz harnesses as their fixed options), zeroed
 * first: zero is every default. */
typedef struct etprof2db_run {
  etp_opts o;
  int etdump;       /* 1: an ETDump flatbuffer, 0: a legacy profiler buffer */
  etp_summary *sum; /* --summary's figures (etp_summary_new), NULL without */
} etprof2db_run;

/* Reads opts->input with the reader r->etdump picks and writes it through
 * w, or only into r->sum when w is NULL (--summary without -o); ctx is a
 * const etprof2db_run *. A tt_import_fn: 0 imported, 1 after a message
 * naming the file and byte at fault. */
int etprof2db_import(hub_writer *w, const tt_import_opts *opts, void *ctx);

/* --summary around one import, the same for main, the fuzz harnesses and
 * tests: etprof2db_summary_begin makes r->sum when r->o.summary asks for
 * it; etprof2db_summary_end, given the import's result rc, prints the
 * figures to out (the input named `input`) when rc is 0, frees them and
 * returns rc. */
void etprof2db_summary_begin(etprof2db_run *r);
int etprof2db_summary_end(etprof2db_run *r, int rc, FILE *out, const char *input);

/* A code block (legacy: a block name; ETDump: a RunData name), one thread
 * of the hub process. Its first iteration is kept for the sanity checks. */
typedef struct etp_block {
  char *name;
  int64_t tid;
  int64_t iterations;
  /* legacy: the first iteration's entry names and allocations */
  char **names;
  size_t nnames;
  uint32_t *allocs; /* pairs (allocator_id, size) */
  size_t nallocs;
} etp_block;

typedef struct etp {
  const char *path;
  const etp_opts *o;
  hub_writer *w;    /* NULL with --summary and no -o */
  etp_summary *sum; /* NULL without --summary */
  int64_t pid;
  const char *format;
  etp_block *blocks;
  size_t nblocks, capblocks;
  tt_strmap block_index;
  int64_t last_ns;           /* latest time seen, for events without one */
  int64_t warnings, inconsistencies, unfinished, wrapped;
  int64_t nevents, nallocs, ndebug;
  tt_buf tmp;
  /* every distinct (block, allocator id, name), for etprof2db.allocators */
  tt_strmap allocator_seen;
  tt_buf allocators; /* JSON array members */
} etp;

/* One profile event, times already in ns. */
typedef struct etp_ev {
  const char *name;
  const char *category;
  int64_t start, end;
  int unfinished, wrapped;
  int64_t index; /* position in its iteration */
  /* legacy: chain_idx / instruction_idx; ETDump: chain_index / instruction_id */
  const char *chain_arg, *instr_arg;
  int64_t chain, instr;
  /* ETDump delegate events */
  int has_delegate_int;
  int64_t delegate_int;
  const char *delegate_str; /* NULL when absent */
  size_t delegate_str_len;
  const char *orig_name; /* a delegate event's own name, when it has one */
  const uint8_t *meta; /* NULL when absent */
  size_t meta_len;
} etp_ev;

/* Ticks in the --time-scale unit to ns; -1 (message printed, naming
 * `byte`) beyond HUB_TIME_LIMIT (2^62 ns), the hub's time range. */
int etp_ticks_to_ns(etp *c, uint64_t ticks, uint64_t byte, int64_t *ns);
/* The block named `name` (created with its thread on first use). */
etp_block *etp_block_get(etp *c, const char *name);
/* A warning that counts toward the etprof2db.warnings metadata. */
void etp_warn(etp *c, const char *fmt, ...) TT_PRINTF(2, 3);
/* An inconsistency between iterations: an error, or with --lenient a
 * warning (returns 0 then, -1 otherwise). */
int etp_inconsistent(etp *c, const char *fmt, ...) TT_PRINTF(2, 3);

void etp_emit_event(etp *c, etp_block *b, int64_t iteration, int64_t run, const etp_ev *e);
/* An allocator table entry (kept in metadata even when nothing uses it). */
void etp_allocator(etp *c, const char *block, int64_t id, const char *name);
/* An allocation: no timestamp in the source, placed at `ts` (marked
 * synthetic). allocator_id as the source numbers it. */
void etp_emit_alloc(etp *c, etp_block *b, int64_t iteration, int64_t run, int64_t ts,
                    const char *allocator, int64_t allocator_id, int64_t size);
void etp_iteration_end(etp *c, etp_block *b, int64_t iteration);

/* The readers: 0 on success, else a message was printed. */
int etp_read_legacy(etp *c);
int etp_read_etdump(etp *c);

/* --summary (etprof2db_summary.c) */
etp_summary *etp_summary_new(void);
void etp_summary_event(etp_summary *s, const char *block, int64_t iteration, const etp_ev *e);
void etp_summary_alloc(etp_summary *s, const char *block, const char *allocator, int64_t size);
void etp_summary_iteration_end(etp_summary *s, const char *block, int64_t iteration);
void etp_summary_print(etp_summary *s, FILE *f, const char *path, const char *unit);
void etp_summary_free(etp_summary *s);

#endif
