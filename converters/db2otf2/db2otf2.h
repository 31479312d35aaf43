/* db2otf2 internals: the state of one archive (one part) being written.
 *
 * Events go to their location's event writer as they stream in; every
 * definition (strings, regions, system tree, locations with their event
 * counts, metrics, the RMA window, calling contexts) is collected on the
 * way and written once, at the end, as Score-P does. Memory: one OTF2
 * chunk per location, the open intervals of each location, the distinct
 * names and calling contexts. */
#ifndef DB2OTF2_H
#define DB2OTF2_H
#include <otf2/otf2.h>
#include <stdint.h>

#include "cli/export.h"
#include "cli/part_samples.h"
#include "base/hashmap.h"
#include "cli/tracks.h"
#include "base/util.h"

/* Vendor of a device, from its agent name: decides CUDA[..] or HIP[..]. */
typedef enum { O2_GENERIC, O2_CUDA, O2_HIP } o2_vendor;

typedef enum { O2_LOC_CPU, O2_LOC_GPU, O2_LOC_METRIC } o2_loc_kind;

/* One open interval on a location, closed (Leave) when its end is due. */
typedef struct o2_open {
  int64_t end;
  uint32_t region;
  uint64_t rma_id; /* copy with RMA records: completes at end; 0 = none */
  uint32_t ctx;    /* its calling context (a part with samples) */
} o2_open;

typedef struct o2_loc {
  o2_loc_kind kind;
  int64_t pid, lane, gpu; /* CPU: lane = tid; GPU: lane = stream number */
  int sub;                /* overflow index, 0 = the lane itself */
  uint32_t group;         /* location group index */
  uint32_t name;          /* string ref */
  OTF2_EvtWriter *w;
  o2_open *open;
  size_t depth, cap;
  int64_t last_ts;
  int64_t rank; /* index in the RMA communicator, -1 when not in it */
  int generic;  /* GPU of unknown vendor: named at the end (see o2_resolve) */
  uint32_t ctx; /* the calling context of its last calling-context event */
} o2_loc;

typedef struct o2_group {
  OTF2_LocationGroupType type;
  int64_t pid, gpu;
  uint32_t name;
  uint32_t parent_node; /* system tree node */
  uint32_t creator;     /* accelerator: its process group */
  int has_thread;       /* process: has a CPU_THREAD location */
  int64_t metric_loc;   /* process: its "per process metrics" location, -1 */
  int generic;          /* accelerator of unknown vendor */
} o2_group;

typedef struct o2_node {
  uint32_t name, class_name, parent;
  OTF2_SystemTreeDomain domain;
  uint32_t prop_name, prop_value; /* "Device name" property, UINT32_MAX = none */
  int generic;                    /* device of unknown vendor */
} o2_node;

typedef struct o2_region {
  uint32_t name, canonical;
  uint32_t file; /* source file (a sample frame's module), O2_NO_STRING: none */
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
  int generic_gpu; /* GPU work of unknown vendor: paradigm set at the end */
} o2_region_def;

#define O2_NO_STRING UINT32_MAX
#define O2_NO_CONTEXT UINT32_MAX

/* A node of the calling-context tree (db2otf2_context.c). */
typedef struct o2_context_def {
  uint32_t region, parent, depth; /* parent O2_NO_CONTEXT: a root (depth 1) */
  int64_t pc;                     /* a sample frame's address, HUB_NULL: none */
  int64_t callsite;               /* the sample reader's callsite it stands for, -1 */
  uint32_t under;                 /* ... under this context */
} o2_context_def;

typedef struct o2_attr {
  uint32_t name;
  OTF2_Type type;
} o2_attr;

typedef struct o2_metric {
  uint32_t name, unit;
  int is_alloc;   /* bytes, uint64, absolute next (Score-P's alloc metric) */
  uint32_t group; /* the process group it is scoped to */
  int64_t loc;    /* recorder: the process's metric location */
  int64_t bytes;  /* allocation: current total */
} o2_metric;

typedef struct o2_archive {
  const tt_export_opts *o;
  const tt_part *part;
  char *stage;      /* directory the archive is written into */
  int own_stage;    /* stage is ours to rename (final existed) */
  OTF2_Archive *ar;
  OTF2_AttributeList *attrs;
  tt_nesting *nesting;
  int failed;
  unsigned long lib_errors_before; /* libotf2's error count when it began */

  tt_strmap strings; /* text -> ref */
  uint32_t nstrings;
  size_t string_bytes, string_limit; /* interned text, and its bound */
  tt_strmap region_index, attr_index, metric_index;
  tt_i64map loc_index, group_index, node_index, vendor_of_gpu;
  tt_strmap host_index; /* "host:NAME" -> its system-tree node */
  struct {
    int set, db;
    int64_t pid;
    uint32_t node;
  } last_host; /* the (input, pid) host_node answered last */
  o2_loc *locs; size_t nlocs, cap_locs;
  o2_group *groups; size_t ngroups, cap_groups;
  o2_node *nodes; size_t nnodes, cap_nodes;
  o2_region_def *regions; size_t nregions, cap_regions;
  o2_attr *attrv; size_t nattrs, cap_attrs;
  o2_metric *metrics; size_t nmetrics, cap_metrics;
  /* A part with CPU samples: calling-context events instead of
   * Enter/Leave (db2otf2_context.c). */
  int use_contexts;
  tt_part_samples samples;
  int samples_open;
  tt_strmap context_index, generator_index;
  tt_i64map callsite_contexts;
  o2_context_def *contexts; size_t ncontexts, cap_contexts;
  uint32_t *generators; size_t ngenerators, cap_generators; /* name refs */
  size_t ncontext_props;
  uint32_t s_address;
  uint32_t attr_weight, attr_state, attr_cpu;
  int64_t nranks;   /* locations in the RMA communicator */
  int rma_paradigm; /* OTF2_Paradigm of the copies (CUDA or HIP) */
  int used_cuda, used_hip;
  int api_cuda, api_hip; /* CUDA / HIP API calls seen */
  uint64_t next_rma_id;
  uint32_t attr_corr;
  int64_t ts_min, ts_max;
  uint64_t events;
  tt_buf text;
  tt_buf clean; /* o2_string's UTF-8 repair, per archive (two at once: the size planner) */
  /* The size model (db2otf2_size.c): event bytes so far, and the
   * attribute list being built for the next Enter. */
  uint64_t model_events, model_attr_n, model_attr_payload;
} o2_archive;

/* --- the size model (db2otf2_size.c) --- */
uint64_t o2_cu(uint64_t v);
/* An event record with fields of `fields` bytes (and its timestamp). */
void o2_model_event(o2_archive *a, uint64_t fields);
void o2_model_attr(o2_archive *a, uint32_t ref, uint64_t value_bytes);
/* The attribute list went out with an event. */
void o2_model_attrs_written(o2_archive *a);
uint64_t o2_part_bytes(void *state);
/* The model's bytes for what every archive has once (anchor file, file
 * headers, clock, paradigms). */
#define O2_MODEL_FIXED 2048

/* --- definitions (db2otf2_defs.c) --- */
uint32_t o2_string(o2_archive *a, const char *s);
/* Region of this name (and canonical name: NULL or "" for the same). */
uint32_t o2_region(o2_archive *a, const char *name, const char *canonical, OTF2_RegionRole role,
                   OTF2_Paradigm paradigm);
uint32_t o2_attribute(o2_archive *a, const char *name, OTF2_Type type);
o2_vendor o2_gpu_vendor(o2_archive *a, hub_reader *r, const hub_record *ev);
/* The location of (lane, overflow index), created with its group on first use. */
o2_loc *o2_location(o2_archive *a, hub_reader *r, const hub_record *ev, const tt_track_ref *t,
                    int sub);
/* The CPU location of a thread (sub-lane 0). */
o2_loc *o2_thread_location(o2_archive *a, hub_reader *r, int db, int64_t pid, int64_t tid);
o2_loc *o2_metric_location(o2_archive *a, hub_reader *r, int db, int64_t pid);
o2_metric *o2_metric_of(o2_archive *a, hub_reader *r, int db, int64_t pid, const char *name,
                        int is_alloc, size_t *index);
/* Writes every global definition; returns 0 on success. */
int o2_write_definitions(o2_archive *a);
void o2_defs_free(o2_archive *a);

/* Keeps the first error of the definition writes, said once at the end. */
static inline void o2_note(OTF2_ErrorCode *st, OTF2_ErrorCode e) {
  if (*st == OTF2_SUCCESS) *st = e;
}

/* --- the calling-context tree (db2otf2_context.c) --- */
/* Context (region, parent, address), interned. */
uint32_t o2_context(o2_archive *a, uint32_t region, uint32_t parent, int64_t pc);
uint32_t o2_context_parent(const o2_archive *a, uint32_t ctx);
/* The context of a sample reader's callsite (its frames, outermost
 * first) under context `under` (O2_NO_CONTEXT: a root). */
uint32_t o2_callsite_context(o2_archive *a, hub_sample_reader *sr, uint32_t under,
                             int64_t callsite);
/* The unwind distance of context `now` after `prev` (OTF2's CallingContext). */
uint32_t o2_unwind_distance(const o2_archive *a, uint32_t now, uint32_t prev);
/* The interrupt generator of samples of this category, defined once. */
uint32_t o2_interrupt_generator(o2_archive *a, const char *category);
void o2_write_contexts(o2_archive *a, OTF2_GlobalDefWriter *w, OTF2_ErrorCode *st);
void o2_contexts_free(o2_archive *a);

/* --- the output directory (db2otf2_dir.c) --- */
/* Checks the final path and prepares the staging directory; 0 on success.
 * A new path is renamed into place by the driver's commit; an existing
 * archive is replaced at exit, only if the whole run succeeded. */
int o2_stage_begin(o2_archive *a, tt_output *out);
/* Removes the staging directory (failure). */
void o2_stage_discard(o2_archive *a);

/* --- the exporter (db2otf2.c): what db2otf2_main.c and the fuzz harness run
 * with tt_export_main --- */
const tt_exporter *db2otf2_exporter(void);

#endif
