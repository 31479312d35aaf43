/* db2otf2: hub databases -> OTF2 archives (Score-P's layout) for Vampir,
 * Scalasca and libotf2's readers, written with the OTF2 library.
 *
 * Every interval (CPU region, GPU kernel, copy, instant) is an Enter at its
 * start; its Leave is written when the next record of its location is
 * later than its end, or when the part ends, so records are time-ordered
 * per location and strictly nested. Intervals that overlap without
 * nesting go to overflow locations ("CUDA[0:7] overlap 1"), placed by
 * common/cli/tracks.c as db2perfetto does, so none is dropped.
 *
 * A part that holds CPU samples writes them as CallingContextSample
 * records and, since OTF2 keeps calling-context events and Enter/Leave
 * apart in a trace, its intervals as CallingContextEnter/Leave
 * (db2otf2_context.c, docs/exporters.md "db2otf2: CPU samples"). */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/part_samples.h"
#include "db2otf2.h"
#include "base/util.h"
#include "base/vec.h"

/* Event chunk per location: OTF2 flushes a full chunk to its file (the
 * pre-flush callback says so), so memory is one chunk per location. 4 MiB
 * is libotf2's file write buffer (OTF2_FILE_BUFFER_SIZE, internal): a
 * write of that size goes straight to the file, a smaller one is copied
 * into a 4 MiB buffer the file keeps until it is closed. A 1 MiB chunk
 * thus cost 5 MiB per location once its file had 4 MiB written (9
 * locations: 57 MB peak at 10M events, 48 MB with this). */
#define O2_EVENT_CHUNK (4 * 1024 * 1024)
#define O2_DEF_CHUNK (4 * 1024 * 1024)
/* Text of the distinct strings kept for the definitions (names and
 * string argument values): past this, a new argument value is written as
 * a placeholder, so memory stays bounded however many distinct values the
 * arguments have. TT_OTF2_STRING_LIMIT (bytes) lowers it for tests. */
#define O2_STRING_LIMIT (32u << 20)
#define O2_TOO_MANY "(too many distinct values)"

extern const OTF2_FlushCallbacks o2_flush_callbacks;
extern const OTF2_MemoryCallbacks o2_memory_callbacks;

static int otf2_ok(o2_archive *a, OTF2_ErrorCode e, const char *what) {
  if (e == OTF2_SUCCESS) return 0;
  if (!a->failed)
    tt_error("%s: otf2: %s: %s", a->part->path, what, OTF2_Error_GetDescription(e));
  a->failed = 1;
  return -1;
}

/* Errors libotf2 reported, counted by its error callback: some of its
 * failures never reach a return status (a buffered write that fails when
 * its file is closed, on a full disk), so an archive is complete only
 * when none was reported while it was written. */
static atomic_ulong lib_errors; /* the size planner writes on a second thread */

static OTF2_ErrorCode on_lib_error(void *user, const char *file, uint64_t line,
                                   const char *function, OTF2_ErrorCode code, const char *format,
                                   va_list va) {
  (void)user, (void)file, (void)line, (void)function;
  char msg[512];
  vsnprintf(msg, sizeof msg, format, va);
  if (code == OTF2_WARNING || code == OTF2_DEPRECATED) {
    tt_warn("otf2: %s", msg);
    return code;
  }
  lib_errors++;
  tt_error("otf2: %s: %s", OTF2_Error_GetDescription(code), msg);
  return code;
}

static void see_time(o2_archive *a, int64_t t) {
  if (t < a->ts_min) a->ts_min = t;
  if (t > a->ts_max) a->ts_max = t;
}

/* Leaves (and copy completions) of everything on `l` that ends at or
 * before t, innermost first. */
static int close_due(o2_archive *a, o2_loc *l, int64_t t) {
  while (l->depth && l->open[l->depth - 1].end <= t) {
    o2_open *op = &l->open[--l->depth];
    int64_t ts = op->end < l->last_ts ? l->last_ts : op->end;
    if (op->rma_id) o2_model_event(a, 1 + o2_cu(op->rma_id));
    o2_model_event(a, o2_cu(op->region));
    if (op->rma_id &&
        otf2_ok(a, OTF2_EvtWriter_RmaOpCompleteBlocking(l->w, NULL, (OTF2_TimeStamp)ts, 0,
                                                        op->rma_id),
                "writing a copy completion"))
      return -1;
    OTF2_ErrorCode e;
    if (a->use_contexts) {
      o2_model_event(a, o2_cu(op->ctx));
      e = OTF2_EvtWriter_CallingContextLeave(l->w, NULL, (OTF2_TimeStamp)ts, op->ctx);
      l->ctx = o2_context_parent(a, op->ctx); /* the previous context from here on */
    } else {
      e = OTF2_EvtWriter_Leave(l->w, NULL, (OTF2_TimeStamp)ts, op->region);
    }
    if (otf2_ok(a, e, "writing a leave")) return -1;
    l->last_ts = ts;
  }
  return 0;
}

static void add_args(o2_archive *a, hub_reader *r, const hub_record *ev) {
  int has_corr = 0;
  if (!a->o->no_args && ev->event_id != HUB_NULL) {
    hub_arg_view v;
    hub_args_begin(r, ev->db, ev->event_id);
    while (hub_args_next(r, &v)) {
      char *end;
      hub_arg_type type = hub_arg_type_of(v.type);
      if (type == HUB_ARG_INT) {
        long long x = strtoll(v.value, &end, 10);
        if (v.value[0] && !*end) {
          if (strcmp(v.name, "correlation") == 0) has_corr = 1;
          uint32_t ref = o2_attribute(a, v.name, OTF2_TYPE_INT64);
          o2_model_attr(a, ref, o2_cu((uint64_t)x));
          if (otf2_ok(a, OTF2_AttributeList_AddInt64(a->attrs, ref, x), "adding an attribute"))
            return;
          continue;
        }
      } else if (type == HUB_ARG_DOUBLE) {
        double x = strtod(v.value, &end);
        if (v.value[0] && !*end) {
          uint32_t ref = o2_attribute(a, v.name, OTF2_TYPE_DOUBLE);
          o2_model_attr(a, ref, 8);
          if (otf2_ok(a, OTF2_AttributeList_AddDouble(a->attrs, ref, x), "adding an attribute"))
            return;
          continue;
        }
      }
      const char *s = v.value;
      if (a->string_bytes >= a->string_limit && !tt_strmap_get(&a->strings, s)) s = O2_TOO_MANY;
      uint32_t ref = o2_attribute(a, v.name, OTF2_TYPE_STRING), str = o2_string(a, s);
      o2_model_attr(a, ref, o2_cu(str));
      if (otf2_ok(a, OTF2_AttributeList_AddStringRef(a->attrs, ref, str), "adding an attribute"))
        return;
    }
  }
  /* The launch <-> GPU work correlation, on both Enter records. */
  if (!has_corr && ev->correlation_id != HUB_NULL) {
    o2_model_attr(a, a->attr_corr, o2_cu((uint64_t)ev->correlation_id));
    otf2_ok(a, OTF2_AttributeList_AddInt64(a->attrs, a->attr_corr, ev->correlation_id),
            "adding an attribute");
  }
  /* An interval cut by the part's bounds, marked as db2json and
   * db2perfetto mark it: the string attribute "clipped" on its Enter. */
  if (ev->clipped) {
    const char *how = ev->clipped == (HUB_CLIP_START | HUB_CLIP_END) ? "both"
                      : ev->clipped & HUB_CLIP_START                 ? "start"
                                                                     : "end";
    uint32_t ref = o2_attribute(a, "clipped", OTF2_TYPE_STRING), str = o2_string(a, how);
    o2_model_attr(a, ref, o2_cu(str));
    otf2_ok(a, OTF2_AttributeList_AddStringRef(a->attrs, ref, str), "adding an attribute");
  }
}

/* An API call's paradigm: HIP for hip* and hsa_* calls (or a HIP or HSA
 * category), CUDA for cuda* and cu[A-Z]* ones (or a CUDA category), else
 * none known (rpd's own calls, RCCL's): then it is a plain function. */
static OTF2_Paradigm api_paradigm(const hub_record *ev) {
  const char *n = ev->name;
  if (strncmp(n, "hip", 3) == 0 || strncmp(n, "hsa_", 4) == 0) return OTF2_PARADIGM_HIP;
  if (strncmp(n, "cuda", 4) == 0 || (n[0] == 'c' && n[1] == 'u' && n[2] >= 'A' && n[2] <= 'Z'))
    return OTF2_PARADIGM_CUDA;
  if (strcasestr(ev->category, "hip") || strcasestr(ev->category, "hsa")) return OTF2_PARADIGM_HIP;
  if (strcasestr(ev->category, "cuda")) return OTF2_PARADIGM_CUDA;
  return OTF2_PARADIGM_USER;
}

static OTF2_Paradigm vendor_paradigm(o2_vendor v) {
  return v == O2_CUDA ? OTF2_PARADIGM_CUDA : v == O2_HIP ? OTF2_PARADIGM_HIP : OTF2_PARADIGM_USER;
}

/* Region role and paradigm as Score-P sets them: API calls are CUDA/HIP
 * wrappers, kernels functions of the device's paradigm, copies data
 * transfers, everything else (PyTorch operators, NVTX) user functions. */
static uint32_t region_of(o2_archive *a, hub_reader *r, const hub_record *ev,
                          const tt_track_ref *t) {
  OTF2_RegionRole role = OTF2_REGION_ROLE_FUNCTION;
  OTF2_Paradigm p = OTF2_PARADIGM_USER;
  int gpu_work = ev->kind == HUB_KERNEL || ev->kind == HUB_COPY;
  if (gpu_work) {
    p = vendor_paradigm(o2_gpu_vendor(a, r, ev));
    if (ev->kind == HUB_COPY) role = OTF2_REGION_ROLE_DATA_TRANSFER;
  } else if (ev->cls == HUB_CLS_API && !t->is_gpu && (p = api_paradigm(ev)) != OTF2_PARADIGM_USER) {
    role = OTF2_REGION_ROLE_WRAPPER;
    if (p == OTF2_PARADIGM_HIP)
      a->api_hip = 1;
    else
      a->api_cuda = 1;
  }
  uint32_t ix = o2_region(a, ev->name, ev->kind == HUB_KERNEL ? ev->kernel_name : NULL, role, p);
  /* Unknown vendor: the paradigm of the trace's API calls, at the end. */
  if (gpu_work && p == OTF2_PARADIGM_USER) a->regions[ix].generic_gpu = 1;
  return ix;
}

/* Host -> device copies are RmaGet, device -> host RmaPut (Score-P). */
static int copy_rma(hub_copy_dir dir) {
  return dir == HUB_COPY_HTOD ? 'G' : dir == HUB_COPY_DTOH ? 'P' : 0;
}

static int64_t rank_of(o2_archive *a, o2_loc *l) {
  if (l->rank < 0) l->rank = a->nranks++;
  return l->rank;
}

/* site: the interval's backtrace (a callsite of the part's samples), or -1. */
static int interval(o2_archive *a, hub_reader *r, const hub_record *ev, const tt_track_ref *t,
                    int64_t site) {
  int64_t pid = ev->pid == HUB_NULL ? 0 : ev->pid;
  int64_t end = ev->end < ev->start ? ev->start : ev->end;
  uint32_t region = region_of(a, r, ev, t);
  /* The copy's host side, found before the stream's location (adding a
   * location may move the array). */
  int dir = ev->kind == HUB_COPY && t->is_gpu ? copy_rma(ev->copy_dir) : 0;
  OTF2_Paradigm cp = vendor_paradigm(o2_gpu_vendor(a, r, ev));
  /* One window: copies of another (known) paradigm get no RMA records.
   * OTF2_PARADIGM_USER stands for an unknown vendor, resolved at the end. */
  if (dir && a->nranks && cp != (OTF2_Paradigm)a->rma_paradigm && cp != OTF2_PARADIGM_USER &&
      a->rma_paradigm != OTF2_PARADIGM_USER)
    dir = 0;
  size_t host = 0;
  if (dir) {
    host = (size_t)(o2_thread_location(a, r, ev->db, pid, ev->tid != HUB_NULL ? ev->tid : pid) - a->locs);
    if (!a->nranks || a->rma_paradigm == OTF2_PARADIGM_USER) a->rma_paradigm = cp;
  }
  uint64_t lane = tt_hash_mix(0x6a09e667, (uint64_t)t->is_gpu);
  lane = tt_hash_mix(lane, (uint64_t)(t->is_gpu ? pid : 0));
  lane = tt_hash_mix(lane, (uint64_t)t->group);
  lane = tt_hash_mix(lane, (uint64_t)t->lane);
  const char *hn = hub_reader_host(r, ev->db, pid); /* two hosts' same pid: two lanes */
  if (hn[0]) lane = tt_hash_mix(lane, tt_hash_bytes(hn, strlen(hn)));
  int sub = tt_nesting_place(a->nesting, lane, ev->start, end);
  o2_loc *l = o2_location(a, r, ev, t, sub);
  if (close_due(a, l, ev->start)) return -1;
  if (l->depth && end > l->open[l->depth - 1].end) {
    tt_error("%s: internal error: interval does not nest on its location", a->part->path);
    return -1;
  }
  add_args(a, r, ev);
  if (a->failed) return -1;
  o2_model_attrs_written(a);
  o2_model_event(a, o2_cu(region));
  uint32_t ctx = O2_NO_CONTEXT;
  OTF2_ErrorCode e;
  if (a->use_contexts) {
    /* Its context: under the innermost interval open here, and under its
     * own backtrace's frames when it has one (nsys's OS runtime calls). */
    ctx = l->depth ? l->open[l->depth - 1].ctx : O2_NO_CONTEXT;
    if (site >= 0) ctx = o2_callsite_context(a, tt_part_samples_stacks(&a->samples), ctx, site);
    ctx = o2_context(a, region, ctx, HUB_NULL);
    uint32_t unwind = o2_unwind_distance(a, ctx, l->ctx);
    o2_model_event(a, o2_cu(ctx) + o2_cu(unwind));
    e = OTF2_EvtWriter_CallingContextEnter(l->w, a->attrs, (OTF2_TimeStamp)ev->start, ctx, unwind);
    l->ctx = ctx;
  } else {
    e = OTF2_EvtWriter_Enter(l->w, a->attrs, (OTF2_TimeStamp)ev->start, region);
  }
  if (otf2_ok(a, e, "writing an enter")) return -1;
  l->last_ts = ev->start;
  uint64_t rma = 0;
  if (dir) {
    rma = ++a->next_rma_id;
    uint32_t remote = (uint32_t)rank_of(a, &a->locs[host]);
    rank_of(a, l);
    uint64_t bytes = ev->size != HUB_NULL && ev->size > 0 ? (uint64_t)ev->size : 0;
    o2_model_event(a, 1 + o2_cu(remote) + o2_cu(bytes) + o2_cu(rma));
    OTF2_ErrorCode e =
        dir == 'G' ? OTF2_EvtWriter_RmaGet(l->w, NULL, (OTF2_TimeStamp)ev->start, 0, remote, bytes, rma)
                   : OTF2_EvtWriter_RmaPut(l->w, NULL, (OTF2_TimeStamp)ev->start, 0, remote, bytes, rma);
    if (otf2_ok(a, e, "writing a copy")) return -1;
  }
  tt_grow(l->open, l->depth + 1, l->cap);
  l->open[l->depth++] = (o2_open){.end = end, .region = region, .rma_id = rma, .ctx = ctx};
  see_time(a, ev->start);
  see_time(a, end);
  return 0;
}

/* A metric sample on the process's metric location. */
static int metric(o2_archive *a, hub_reader *r, const hub_record *ev, const char *name,
                  int is_alloc) {
  int64_t pid = ev->pid == HUB_NULL ? 0 : ev->pid;
  size_t ix;
  o2_metric *m = o2_metric_of(a, r, ev->db, pid, name, is_alloc, &ix);
  OTF2_Type type;
  OTF2_MetricValue v;
  if (is_alloc) {
    int64_t size = ev->size == HUB_NULL ? 0 : ev->size;
    int freeing = strncmp(ev->name, "FREE", 4) == 0 || strncmp(ev->name, "RECLAIM", 7) == 0;
    m->bytes += freeing ? -(size < 0 ? -size : size) : size;
    if (m->bytes < 0) m->bytes = 0;
    type = OTF2_TYPE_UINT64;
    v.unsigned_int = (uint64_t)m->bytes;
  } else {
    type = OTF2_TYPE_DOUBLE;
    v.floating_point = ev->value;
  }
  o2_loc *l = &a->locs[m->loc];
  int64_t ts = ev->start < l->last_ts ? l->last_ts : ev->start;
  l->last_ts = ts;
  see_time(a, ts);
  o2_model_event(a, o2_cu(2 * ix + 1) + 1 + 1 + 9);
  return otf2_ok(a, OTF2_EvtWriter_Metric(l->w, NULL, (OTF2_TimeStamp)ts,
                                          (OTF2_MetricRef)(2 * ix + 1), 1, &type, &v),
                 "writing a metric");
}

static const char *alloc_metric_name(o2_archive *a, hub_reader *r, const hub_record *ev) {
  const hub_agent_view *ag =
      ev->agent_id != HUB_NULL ? hub_reader_find_agent(r, ev->db, ev->agent_id) : NULL;
  tt_buf_clear(&a->text);
  if (ag && strcmp(ag->type, "GPU") == 0) {
    o2_vendor v = o2_gpu_vendor(a, r, ev);
    tt_buf_printf(&a->text, "%s Context %lld Memory",
                  v == O2_CUDA ? "CUDA" : v == O2_HIP ? "HIP" : "GPU", (long long)ag->type_index);
  } else {
    tt_buf_puts(&a->text, "Host Memory");
  }
  return a->text.data;
}

/* A CPU sample on its thread's location: its frames under the innermost
 * interval open there (OTF2: the regions entered with CallingContextEnter
 * bound a sample's unwind distance), after the Leaves due by its time. */
static int sample(o2_archive *a, hub_reader *r, const hub_cpu_sample *s) {
  int64_t pid = s->pid == HUB_NULL ? 0 : s->pid;
  o2_loc *l = o2_thread_location(a, r, s->db, pid, s->tid != HUB_NULL ? s->tid : pid);
  if (close_due(a, l, s->ts)) return -1;
  uint32_t under = l->depth ? l->open[l->depth - 1].ctx : O2_NO_CONTEXT;
  uint32_t ctx = o2_callsite_context(a, tt_part_samples_stacks(&a->samples), under, s->callsite);
  uint32_t unwind = o2_unwind_distance(a, ctx, l->ctx);
  uint32_t gen = o2_interrupt_generator(a, s->category);
  /* What the sample counts and the thread's state: attributes, as OTF2
   * has no field for them (and Score-P's samples carry none). */
  const struct {
    uint32_t *ref;
    const char *name;
    int64_t v;
  } at[3] = {{&a->attr_weight, "weight", s->weight},
             {&a->attr_state, "thread_state", s->thread_state},
             {&a->attr_cpu, "cpu", s->cpu}};
  for (int i = 0; i < 3; i++) {
    if (at[i].v == HUB_NULL) continue;
    if (*at[i].ref == O2_NO_STRING) *at[i].ref = o2_attribute(a, at[i].name, OTF2_TYPE_INT64);
    o2_model_attr(a, *at[i].ref, o2_cu((uint64_t)at[i].v));
    if (otf2_ok(a, OTF2_AttributeList_AddInt64(a->attrs, *at[i].ref, at[i].v),
                "adding an attribute"))
      return -1;
  }
  o2_model_attrs_written(a);
  int64_t ts = s->ts < l->last_ts ? l->last_ts : s->ts;
  o2_model_event(a, o2_cu(ctx) + o2_cu(unwind) + o2_cu(gen));
  if (otf2_ok(a, OTF2_EvtWriter_CallingContextSample(l->w, a->attrs, (OTF2_TimeStamp)ts, ctx,
                                                     unwind, gen),
              "writing a sample"))
    return -1;
  l->ctx = ctx;
  l->last_ts = ts;
  see_time(a, ts);
  return 0;
}

/* The part's samples before time t (INT64_MAX: all that are left). */
static int samples_before(o2_archive *a, hub_reader *r, int64_t t) {
  hub_cpu_sample s;
  int rc;
  while ((rc = tt_part_samples_before(&a->samples, t, &s)) == 1)
    if (sample(a, r, &s) != 0) return -1;
  if (rc < 0) a->failed = 1;
  return rc;
}

static int o2_event(void *state, hub_reader *r, const hub_record *ev) {
  o2_archive *a = state;
  if (a->failed) return -1;
  if (ev->start < 0) {
    tt_error("%s: event '%s' has a negative timestamp (%lld): OTF2 times are unsigned",
             hub_reader_db_path(r, ev->db), ev->name, (long long)ev->start);
    a->failed = 1;
    return -1;
  }
  if (a->use_contexts && samples_before(a, r, ev->start) != 0) return -1;
  tt_track_ref t;
  int64_t site = -1;
  switch (ev->kind) {
  case HUB_REGION:
  case HUB_KERNEL:
  case HUB_COPY:
  case HUB_INSTANT:
    /* every region asked, in stream order (hub_samples_region_stack) */
    if (a->use_contexts && ev->kind == HUB_REGION &&
        (site = tt_part_region_stack(&a->samples, ev)) == -2) {
      a->failed = 1;
      return -1;
    }
    tt_track_of(r, ev, &t);
    a->events++;
    return interval(a, r, ev, &t, site);
  case HUB_ALLOC: {
    char *name = tt_strdup(alloc_metric_name(a, r, ev));
    int rc = metric(a, r, ev, name, 1);
    free(name);
    a->events++;
    return rc;
  }
  case HUB_COUNTER:
    a->events++;
    return metric(a, r, ev, ev->name, 0);
  default: /* flows: the correlation attribute links launch and GPU work */
    return 0;
  }
}

static void *o2_begin(hub_reader *r, const tt_export_opts *o, const tt_part *p, tt_output *out) {
  static atomic_flag handler_set = ATOMIC_FLAG_INIT;
  if (!atomic_flag_test_and_set(&handler_set)) OTF2_Error_RegisterCallback(on_lib_error, NULL);
  o2_archive *a = tt_calloc(1, sizeof *a);
  a->lib_errors_before = lib_errors;
  a->o = o;
  a->part = p;
  a->ts_min = INT64_MAX;
  a->ts_max = INT64_MIN;
  o2_string(a, ""); /* ref 0: the empty string */
  const char *limit = getenv("TT_OTF2_STRING_LIMIT");
  a->string_limit = limit ? (size_t)strtoull(limit, NULL, 10) : O2_STRING_LIMIT;
  /* The size split's planning pass: libotf2 writes no file at all. */
  if (!p->dry && o2_stage_begin(a, out) != 0) {
    o2_defs_free(a);
    free(a);
    return NULL;
  }
  /* A dry archive's chunks go nowhere and its size is modelled
   * (db2otf2_size.c), so they take libotf2's least memory: a chunk per
   * location is held beside the real archive's in a split planned ahead. */
  uint64_t evt_chunk = p->dry ? OTF2_CHUNK_SIZE_MIN : O2_EVENT_CHUNK;
  uint64_t def_chunk = p->dry ? OTF2_CHUNK_SIZE_MIN : O2_DEF_CHUNK;
  a->ar = OTF2_Archive_Open(p->dry ? "." : a->stage, "traces", OTF2_FILEMODE_WRITE, evt_chunk,
                            def_chunk, p->dry ? OTF2_SUBSTRATE_NONE : OTF2_SUBSTRATE_POSIX,
                            OTF2_COMPRESSION_NONE);
  if (!a->ar) {
    tt_error("%s: otf2: cannot create the archive in %s", p->path, p->dry ? "." : a->stage);
    o2_stage_discard(a);
    free(a->stage);
    o2_defs_free(a);
    free(a);
    return NULL;
  }
  otf2_ok(a, OTF2_Archive_SetFlushCallbacks(a->ar, &o2_flush_callbacks, NULL),
          "setting the flush callbacks");
  otf2_ok(a, OTF2_Archive_SetMemoryCallbacks(a->ar, &o2_memory_callbacks, NULL),
          "setting the memory callbacks");
  otf2_ok(a, OTF2_Archive_SetSerialCollectiveCallbacks(a->ar), "setting the collectives");
  otf2_ok(a, OTF2_Archive_SetCreator(a->ar, "db2otf2 (tracetools) " TT_VERSION),
          "setting the creator");
  otf2_ok(a, OTF2_Archive_SetDescription(a->ar, "converted from rocpd hub databases"),
          "setting the description");
  otf2_ok(a, OTF2_Archive_OpenEvtFiles(a->ar), "opening event files");
  a->attrs = OTF2_AttributeList_New();
  if (!a->attrs) tt_die(1, "%s: otf2: cannot allocate an attribute list", p->path);
  a->attr_corr = o2_attribute(a, "correlation", OTF2_TYPE_INT64);
  a->attr_weight = a->attr_state = a->attr_cpu = O2_NO_STRING;
  a->nesting = tt_nesting_new();
  /* Only a part that holds samples changes layout: the others stay
   * Enter/Leave, as Score-P writes a trace without unwinding. */
  int any = -1;
  if (tt_part_samples_open(&a->samples, r, o, p) == 0) {
    a->samples_open = 1;
    any = tt_part_samples_peek(&a->samples);
  }
  a->use_contexts = any == 1;
  if (any < 0) a->failed = 1; /* said */
  if (a->samples_open && !a->use_contexts) {
    tt_part_samples_close(&a->samples);
    a->samples_open = 0;
  }
  return a;
}

static int o2_end(void *state, hub_reader *r) {
  o2_archive *a = state;
  int rc = a->failed ? -1 : 0;
  if (rc == 0 && a->use_contexts && samples_before(a, r, INT64_MAX) != 0) rc = -1;
  if (a->samples_open) tt_part_samples_close(&a->samples);
  for (size_t i = 0; i < a->nlocs && rc == 0; i++) rc = close_due(a, &a->locs[i], INT64_MAX);
  if (rc == 0) rc = o2_write_definitions(a);
  if (otf2_ok(a, OTF2_Archive_Close(a->ar), "closing the archive")) rc = -1;
  if (rc == 0 && lib_errors != a->lib_errors_before) {
    tt_error("%s: otf2: the archive is incomplete (libotf2 reported an error above); not written",
             a->part->path);
    rc = -1;
  }
  if (rc != 0) o2_stage_discard(a);
  /* No "wrote" here: the driver also ends a part whose stream failed, and
   * says what it wrote once the archive is in place. */
  OTF2_AttributeList_Delete(a->attrs);
  tt_nesting_free(a->nesting);
  o2_defs_free(a);
  free(a->stage);
  free(a);
  return rc;
}

const tt_exporter *db2otf2_exporter(void) {
  static const tt_exporter ex = {
      .description = "Writes OTF2 archives (Score-P's layout) for Vampir, Scalasca and otf2-print:\n"
                     "OUTPUT is a directory holding traces.otf2, traces.def and traces/.",
      .extension = ".otf2",
      .stdout_ok = 0,
      .no_gzip = 1,
      .begin_part = o2_begin,
      .event = o2_event,
      .end_part = o2_end,
      .part_bytes = o2_part_bytes,
      .part_shared_bytes = O2_MODEL_FIXED,
      /* An end clipped: the "clipped" attribute on its Enter (a list's
       * header, reference, type and string reference, at their largest);
       * once, its definition and its four strings. A Leave's time moves:
       * 8 bytes either way. */
      .clip_bytes = 24,
      .clip_bytes_once = 128,
      .viewer_limit = "Vampir's limit is the desktop's memory, not a file size",
  };
  return &ex;
}
