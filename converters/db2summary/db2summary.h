/* db2summary's parts, one concern each:
 *   db2summary_stats.c   aggregation: one row per (section, process, name)
 *                        with count, total, min, max and a running
 *                        variance; GPU busy time as the union of each
 *                        agent's intervals; a bounded latency histogram
 *   db2summary_executorch.c  ExecuTorch framework tax per iteration
 *   db2summary_samples.c CPU samples: functions by self and total samples
 *   db2summary_activity.c  busy time over time: the unions of intervals
 *                        cut into fixed bins, per device and per process
 *   db2summary_tables.c  every figure as tables of cells, one code path
 *                        for every format
 *   db2summary_output.c  the tables as text, csv, markdown or json
 *   db2summary_html.c    the tables as one self-contained HTML report
 *   db2summary.c         the exporter callbacks and options
 *   db2summary_main.c    main(): the command line around them
 * Memory is bounded by distinct names, processes and agents, never by the
 * number of events. */
#ifndef DB2SUMMARY_H
#define DB2SUMMARY_H
#include <stdint.h>
#include <stdio.h>

#include "sources/executorch_tax.h"
#include "base/hashmap.h"
#include "hub/hub_align.h"
#include "hub/hub_reader.h"
#include "hub/hub_samples.h"
#include "base/util.h"
#include "cli/exporter.h"

typedef enum { SM_TEXT, SM_CSV, SM_MARKDOWN, SM_JSON, SM_HTML } sm_format;

typedef struct sm_options {
  sm_format format;
  int64_t top; /* rows per table, 0 = all */
  int by_process;
  int truncate_kernels;
  int mangled; /* kernels by the symbol's kernel_name as recorded (mangled) */
  int width;   /* text: the line width names are cut to fit */
  const char *table; /* --table: only the tables of this id */
  const hub_alignment *align; /* --align's plan: the clocks table */
} sm_options;

/* What a table lists. */
typedef enum { SEC_KERNEL, SEC_COPY, SEC_ALLOC, SEC_API, SEC_MEMSET } sm_sec_kind;

typedef struct sm_section {
  char *key;   /* "kernels", "copies", "hip_api", or "region:<category>" */
  char *slug;  /* the key as an html id: [A-Za-z0-9_:-] kept, any other
                * byte '.', and then ".<index>" so it stays unique */
  char *title; /* "Kernels", "HIP API", "Regions: cpu_op" */
  sm_sec_kind kind;
  int order;   /* fixed families first, then other categories */
} sm_section;

/* One row: every call of one name in one section (and process). */
typedef struct sm_row {
  int section;
  int64_t pid; /* HUB_NULL unless --by-process */
  int db;      /* with --by-process: the input the process came from */
  char *name;
  char *short_name; /* --truncate-kernels: the kernel's short name
                     * (kernel_name.h), else NULL; rows stay by name */
  uint64_t calls;
  int64_t total, min, max, bytes;
  double mean, m2; /* Welford: population variance = m2 / calls */
} sm_row;

/* Log-linear histogram of non-negative ns values: exact below 256 ns,
 * above it 256 buckets per power of two (each 1/256 of its lower bound
 * wide), so a percentile read as the bucket's midpoint is within 0.2% of
 * the exact one. Bucket arrays are allocated per power of two in use. */
#define SM_HIST_SUB 256
#define SM_HIST_EXPS 57
typedef struct sm_hist {
  uint64_t *bucket[SM_HIST_EXPS];
  uint64_t n;
  int64_t min, max;
  __int128 sum;
} sm_hist;
void sm_hist_add(sm_hist *h, int64_t v);
/* Nearest-rank percentile (p in (0, 100]); bucket midpoint, clamped. */
int64_t sm_hist_percentile(const sm_hist *h, double p);
void sm_hist_free(sm_hist *h);

/* Fixed time bins over the part (json and html only: n = 0 otherwise). */
#define SM_BINS 400
typedef struct sm_bins {
  int64_t start, width; /* bin i covers [start + i*width, start + (i+1)*width) */
  int n;
} sm_bins;

/* The union of intervals that arrive in start order, built online: only
 * the piece still growing is held. Each closed piece adds to busy and, when
 * bins are kept, to the busy ns of every bin it covers. */
typedef struct sm_union {
  int binned; /* keep bins (when the summary has them) */
  int open;
  int64_t cur_start, cur_end;
  int64_t busy;
  int64_t *bins; /* busy ns per bin, or NULL */
} sm_union;

/* GPU busy time of one agent: the union of its kernels' and copies'
 * intervals. */
typedef struct sm_agent {
  int db;
  int64_t agent_id;
  sm_union u;
  int64_t summed;
  uint64_t intervals;
} sm_agent;

/* One process (json and html): its span, its GPU work as the union of its
 * kernels alone and of its kernels and copies (over all its devices). */
typedef struct sm_proc {
  int db;
  int64_t pid;
  uint64_t events;
  int64_t first, last; /* span of its events */
  int64_t rank;        /* its rank, HUB_NULL when unknown (set for the table) */
  sm_union kernels, gpu;
} sm_proc;

/* Launch latency per scope (all processes, or one with --by-process). */
typedef struct sm_latency {
  int64_t pid;
  int db;
  sm_hist hist;
} sm_latency;

/* ExecuTorch framework tax of one block (one thread of an etprof2db hub),
 * per iteration as ExecuTorch's own tools compute it (executorch_tax.h).
 * Iterations follow one another on a block, so only the current one is
 * held. */
typedef struct sm_et_block {
  int db;
  int64_t pid, tid;
  int64_t iteration; /* the one being read */
  tt_et_iteration it;
  uint64_t iterations;
  double tax_sum, tax_min, tax_max; /* percent */
  int64_t exec_total, kernel_total;
} sm_et_block;

/* CPU samples of one function (in one process with --by-process); a
 * scope's row (no name) counts its samples in self. */
typedef struct sm_fn {
  int db;
  int64_t pid; /* HUB_NULL unless --by-process */
  char *name;
  uint64_t self, total;
  uint64_t last; /* the sample that counted it in total last */
} sm_fn;

typedef struct sm_summary {
  const sm_options *opt;
  sm_section *sections; size_t nsections, cap_sections;
  tt_strmap section_ix;
  sm_row *rows; size_t nrows, cap_rows;
  tt_strmap row_ix;
  sm_agent *agents; size_t nagents, cap_agents;
  tt_i64map agent_ix;
  sm_latency *lat; size_t nlat, cap_lat;
  tt_strmap lat_ix;
  int64_t span_start, span_end; /* of every event summarized */
  uint64_t events;
  int executorch; /* the hub holds ExecuTorch data */
  uint64_t kind_events[HUB_KIND_COUNT]; /* memsets apart: */
  uint64_t memset_events;               /* dispatches or allocate rows */
  /* each input's span, for the warning that inputs are not one run */
  struct sm_db_span { int64_t first, last; } *db_spans; size_t ndb_spans, cap_db_spans;
  int charts; /* json and html: bins, processes, histograms */
  sm_bins bins;
  sm_proc *procs; size_t nprocs, cap_procs;
  tt_i64map proc_ix;
  sm_et_block *et; size_t net, cap_et;
  tt_strmap et_ix;
  sm_fn *fns; size_t nfns, cap_fns;
  tt_strmap fn_ix;
  sm_fn *scopes; size_t nscopes, cap_scopes;
  uint64_t nsamples;
  tt_buf key, tmp;
} sm_summary;

void sm_init(sm_summary *s, const sm_options *opt);
void sm_add(sm_summary *s, hub_reader *r, const hub_record *ev);
void sm_free(sm_summary *s);
/* Finishes the busy intervals still open; call once before output. */
void sm_finish(sm_summary *s);

/* Activity (db2summary_activity.c). sm_bins_set fixes the bins over
 * [lo, hi] before the first event (json and html). */
void sm_bins_set(sm_summary *s, int64_t lo, int64_t hi);
void sm_union_add(const sm_summary *s, sm_union *u, int64_t start, int64_t end);
void sm_union_finish(const sm_summary *s, sm_union *u);
void sm_union_free(sm_union *u);
void sm_proc_add(sm_summary *s, const hub_record *ev);
void sm_procs_finish(sm_summary *s);
void sm_procs_free(sm_summary *s);
/* With several inputs: warns on stderr when they do not look like one run
 * (spans a day or more apart). */
void sm_warn_runs(const sm_summary *s, hub_reader *r);

/* ExecuTorch: one event of category executorch* (its "iteration" arg is
 * read through r), and the end of the stream. */
void sm_et_event(sm_summary *s, hub_reader *r, const hub_record *ev);
void sm_et_finish(sm_summary *s);
void sm_et_free(sm_summary *s);

/* CPU samples (db2summary_samples.c): one sample with its stack from sr,
 * and its tables (one per process with --by-process) after the row
 * sections'. */
void sm_sample(sm_summary *s, hub_sample_reader *sr, const hub_cpu_sample *smp);
void sm_samples_free(sm_summary *s);

/* --- tables (db2summary_tables.c) ------------------------------------ *
 * Every figure of every format comes from these cells, so the html report
 * and json give the same numbers. Durations are ns in the machine formats
 * (csv, json, html), µs with 3 decimals in text and markdown. */
typedef struct sm_table {
  const char *id;   /* csv/json table id: "kernels", "gpu_busy" ... */
  const char *slug; /* the id as an html id (sm_section's slug) */
  char *title;
  const char *const *cols;
  size_t ncols;
  char **cells; /* nrows * ncols */
  size_t nrows, cap_cells;
  int64_t pid;
  int db;
  sm_sec_kind kind; /* of a section table */
  int section;      /* a row section's index, -1 for the other tables */
} sm_table;

void sm_sample_tables(sm_summary *s, hub_reader *r, sm_table **out, size_t *nout, size_t *cap);
/* What the table builders share: a row of t->ncols cells (taken), and a
 * title with its process ("Kernels, pid 12 (app) on nodeA"). */
void sm_table_add(sm_table *t, char **row);
char *sm_scope_title(hub_reader *r, const char *title, int64_t pid, int db);

/* Builds every table (the chart tables too when s->charts). */
size_t sm_tables(sm_summary *s, hub_reader *r, sm_table **out);
void sm_tables_free(sm_table *t, size_t n);
void sm_tables_free_one(sm_table *t); /* its cells and title */
/* A column's title in the output ("total_ns", "calls"). Static buffer. */
const char *sm_col_title(const sm_summary *s, const char *col);
int sm_col_is_text(const char *col);
int sm_col_is_array(const char *col); /* the cell is a json array */
/* A cell by column name, NULL when the table has no such column. */
const char *sm_cell(const sm_table *t, size_t row, const char *col);
/* The clocks the inputs' processes' times are in, in hub_clock order,
 * appended to out as "boot, wall" (nothing when there is no process). */
void sm_clocks(hub_reader *r, tt_buf *out);
/* Distinct hosts of the processes with events. */
size_t sm_host_count(const sm_summary *s, hub_reader *r);
/* The process's name and host as the reader gives them ("" if unknown). */
const char *sm_process_name(hub_reader *r, int db, int64_t pid);
const char *sm_process_host(hub_reader *r, int db, int64_t pid);

/* db2summary_clocks.c: the clocks table (each host's alignment), when
 * the inputs are of several hosts or clocks: 1 with *t filled, else 0. */
int sm_clocks_table(const sm_summary *s, sm_table *t);

/* Writes every table (--table's only, when given) to fp; path is the
 * output's final path (csv writes a file per table beside it), NULL for
 * stdout. 0 ok, -1 write error, -2 refused (said why). */
int sm_write(sm_summary *s, hub_reader *r, FILE *fp, const char *path);
/* The html report of the tables. */
void sm_write_html(const sm_summary *s, hub_reader *r, const sm_table *t, size_t n, FILE *fp);

/* The exporter (db2summary.c): what db2summary_main.c and the fuzz harness
 * run with tt_export_main. Each call starts it afresh (--format's
 * extension and the options back to their defaults), as a new command
 * line does. */
const tt_exporter *db2summary_exporter(void);

#endif
