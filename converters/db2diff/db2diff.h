/* db2diff: what changed between two runs, op by op. The pieces and what
 * they share:
 *   db2diff_names.c   one string table for both sides (ids compare as names)
 *   db2diff_side.c    one side read as a stream: its steps (segments), the
 *                     op instances that launched its GPU work, per step
 *   db2diff_align.c   a segment of each side paired instance by instance
 *   db2diff_report.c  the pairs summed into groups, steps, totals, verdict
 *   db2diff_output.c  text, csv, json and markdown; db2diff_html.c html
 *   db2diff.c         the command line and the run (db2diff_main)
 *   db2diff_main.c    main
 * Memory: a side holds the segments not yet paired (at most three steps'
 * instances) and the names; the report holds the groups (one per distinct
 * key) and one number per step. */
#ifndef DB2DIFF_H
#define DB2DIFF_H
#include <stdint.h>
#include <stdio.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "base/vec.h"

/* --- names ------------------------------------------------------------ */
typedef struct dd_names {
  tt_strmap ids;
  TT_VEC(const char *) str; /* id -> the map's copy of the string */
} dd_names;
int32_t dd_name_id(dd_names *n, const char *s);
const char *dd_name(const dd_names *n, int32_t id); /* "" for -1 */
void dd_names_free(dd_names *n);

/* --- the options ------------------------------------------------------ */
typedef enum { DD_TEXT, DD_CSV, DD_MARKDOWN, DD_JSON, DD_HTML } dd_format;
typedef struct dd_options {
  dd_format format;
  const char *step_name;     /* --step NAME; NULL: Kineto's ProfilerStep#N */
  int64_t steps_from, steps_to; /* --steps A:B (1-based positions, inclusive); 0: open */
  int instances;             /* --instances */
  double fail_above;         /* --fail-above PCT; < 0: not given */
  int top;                   /* text: rows of regressions and improvements */
} dd_options;

/* --- a side's op instances and segments -------------------------------- */
#define DD_INST_KERNELS 3
typedef struct dd_kernel_tally {
  int32_t name, count;
  int64_t ns;
} dd_kernel_tally;

/* The matching keys of an instance, most exact first (dd_rule's order). */
enum { DD_KEY_FULL, DD_KEY_NAME, DD_KEY_NEUTRAL, DD_KEY_PARENT, DD_KEY_ANNOT, DD_NKEYS };

/* One op instance: the innermost op around one or more launching calls of
 * a thread, with the GPU work they launched; or one piece of GPU work
 * with no launching op (stream -1, keys -1). */
typedef struct dd_instance {
  int32_t key[DD_NKEYS]; /* name ids, -1 when none */
  int32_t stream;        /* ordinal of its launching thread in the segment, -1 */
  int32_t category;      /* set when emitted: its heaviest kernel's category */
  int32_t kernels, more_kernels; /* GPU ops; those not tallied in k[] */
  int64_t gpu_ns;
  dd_kernel_tally k[DD_INST_KERNELS];
} dd_instance;

/* Where the step's time went on the busiest device of its longest
 * process; the four add up to step_ns. */
typedef struct dd_breakdown {
  int64_t compute_ns, comm_ns, copy_ns, idle_ns;
} dd_breakdown;

typedef struct dd_segment {
  int64_t index;       /* 0: before the first step, k: the k-th step */
  int selected;        /* within --steps */
  int64_t step_ns;     /* the step's time (longest process), 0 for none */
  int64_t step_label;  /* ProfilerStep#N's N, else its position */
  dd_breakdown brk;
  int64_t gpu_ns, kernels;
  TT_VEC(dd_instance) inst;
  int32_t nstreams;
  /* private to the side */
  struct dd_seg_private *priv;
} dd_segment;

typedef struct dd_side dd_side;
/* Rows read by both sides, for the progress line (base/progress.h). */
typedef struct dd_progress {
  uint64_t done, total;
} dd_progress;
/* Opens the side's hubs (paths[0..n)), its rows added to progress->total.
 * NULL after saying why. `label`: "base" or "candidate", for messages. */
dd_side *dd_side_open(const char *label, const char *const *paths, size_t n, const dd_options *o,
                      dd_names *names, dd_progress *progress);
/* The events (records) the side has read. */
uint64_t dd_side_events(const dd_side *s);
/* The next segment, in index order (every index from 0 up to the last,
 * empty ones too): 1 with *seg set (the caller gives it back with
 * dd_segment_free), 0 at the end, -1 on a read error (said). */
int dd_side_next(dd_side *s, dd_segment **seg);
void dd_segment_free(dd_segment *seg);
void dd_side_close(dd_side *s);

/* What the header shows of a side, known once it is read to its end. */
typedef struct dd_side_info {
  const char *const *paths;
  size_t npaths;
  char *devices;     /* "2x NVIDIA H100 80GB HBM3", "" when none */
  char *models;      /* the same with "?" for a model not recorded: compared */
  int64_t ranks;     /* processes with GPU work (or ranks recorded) */
  int64_t steps;     /* steps found (all, before --steps) */
  int64_t late;      /* GPU work whose launching op's step was already paired */
} dd_side_info;
const dd_side_info *dd_side_info_of(dd_side *s);

/* --- pairing ----------------------------------------------------------- */
typedef enum dd_rule {
  DD_RULE_OP_SHAPES, DD_RULE_OP, DD_RULE_VENDOR, DD_RULE_PARENT, DD_RULE_ANNOTATION,
  DD_RULE_CATEGORY, DD_RULE_BASE_ONLY, DD_RULE_CANDIDATE_ONLY, DD_NRULES
} dd_rule;
const char *dd_rule_name(dd_rule r);

/* Pairs the instances of two segments of one index (either may be NULL)
 * and hands each pair, or each instance left alone, to `pair`. */
typedef void (*dd_pair_fn)(void *ctx, const dd_segment *sb, const dd_instance *b,
                           const dd_segment *sc, const dd_instance *c, dd_rule rule, int32_t key);
void dd_align_segments(const dd_segment *b, const dd_segment *c, dd_pair_fn pair, void *ctx);

/* --- the report ---------------------------------------------------------- */
typedef struct dd_tally_side {
  int64_t kernels, gpu_ns, instances;
  dd_kernel_tally k[DD_INST_KERNELS];
  int64_t other_kernels;
} dd_tally_side;

typedef struct dd_group {
  dd_rule rule;
  int32_t key;
  dd_tally_side side[2]; /* base, candidate */
} dd_group;

typedef struct dd_steps {
  TT_VEC(int64_t) ns; /* each step's time, in order */
  TT_VEC(dd_breakdown) brk;
  int64_t median_ns, spread_ns; /* spread: median absolute deviation */
  dd_breakdown median_brk;      /* the median step's own (it adds up to it) */
  int64_t median_step;          /* which step that is (index in ns) */
} dd_steps;

typedef struct dd_report {
  const dd_options *o;
  dd_names *names;
  dd_side_info info[2];
  int64_t gpu_ns[2], kernels[2], matched_ns[2], matched_op_ns[2];
  dd_steps steps[2];
  tt_i64map group_ids; /* rule << 32 | key + 1 -> index in groups */
  TT_VEC(dd_group) groups;
  FILE *instances;      /* --instances: rows spooled to a temporary file */
  int64_t ninstances;
  /* decided by dd_report_finish */
  const char *verdict;
  double change_pct, noise_pct; /* of the metric: step median, else GPU time */
  int by_steps;                 /* the metric is the step time */
  TT_VEC(char *) warnings;
} dd_report;

void dd_report_init(dd_report *r, const dd_options *o, dd_names *names);
/* One segment of each side (either NULL): paired and summed. */
void dd_report_add(dd_report *r, const dd_segment *b, const dd_segment *c);
/* Sorts the groups, decides the verdict and warnings. */
void dd_report_finish(dd_report *r);
/* The share of the side's GPU time paired (by any rule; by_op: by its
 * launching op, rules op+shapes to parent op), 0 when it has none. */
double dd_share(const dd_report *r, int side, int by_op);
/* Whether --fail-above is exceeded. */
int dd_report_fails(const dd_report *r);
void dd_report_free(dd_report *r);

/* The tool: parses argv, compares, writes; returns the exit status. */
int db2diff_main(int argc, char **argv);

/* --- outputs ----------------------------------------------------------- */
/* 0, or -1 when writing failed. */
int dd_write(const dd_report *r, FILE *fp);
int dd_write_html(const dd_report *r, FILE *fp);

#endif
