/* One side of the diff read as one stream (hub_reader.h), in time order:
 * each thread's open regions on a stack, so a launching call finds the
 * innermost op around it (and that op's parent, and the innermost
 * annotation); the launch's correlation id then leads its GPU work to
 * that op's instance. A step (ProfilerStep#N, or --step NAME) starts a
 * new segment of its process; a segment is handed out once every process
 * with steps is two steps past it (GPU work runs behind the CPU that
 * launched it), or at the end. So memory holds about three steps'
 * instances, never the run's. */
#include <stdlib.h>
#include <string.h>

#include "base/progress.h"
#include "db2diff.h"
#include "hub/hub_reader.h"
#include "sources/kernel_name.h"

enum { FRAME_OP, FRAME_MARK };

typedef struct dd_frame {
  int64_t end;
  int32_t name; /* the op's name id */
  int db;
  int64_t event_id; /* its args (shapes), read when it first launches */
  int kind;
  int64_t inst_seg; /* the segment of the instance made for it, -1 none */
  int32_t inst;
} dd_frame;

typedef struct dd_thread {
  int db;
  int64_t tid;
  TT_VEC(dd_frame) stack;
  int64_t stream_seg; /* the segment `stream` is its ordinal in */
  int32_t stream;
} dd_thread;

typedef struct dd_proc {
  int db;
  int64_t pid;
  int32_t ord;             /* its rank, else its order of appearance */
  int64_t seg;             /* the segment its events go to now */
  int64_t step_start, step_end;
  int has_steps, launched;
  int64_t stream_seg;      /* threads numbered in this segment */
  int32_t nstreams;
} dd_proc;

typedef struct dd_corr {
  int db;
  int64_t pid, corr;
  int32_t inst; /* -1: launched in a segment outside --steps */
} dd_corr;

/* A device's busy time within one process's step, three unions at once
 * (intervals come in start order, so each is a running cover). */
typedef struct dd_dev {
  int db;
  int64_t agent, pid;
  int64_t cover[3], busy[3]; /* compute; compute+comm; everything */
} dd_dev;

typedef struct dd_step_span {
  int db;
  int64_t pid, start, end;
} dd_step_span;

struct dd_seg_private {
  TT_VEC(dd_corr) corrs;
  TT_VEC(dd_dev) devs;
  TT_VEC(dd_step_span) spans;
};

struct dd_side {
  const char *label;
  hub_reader *r;
  const dd_options *o;
  dd_names *names;
  TT_VEC(dd_thread) threads;
  tt_i64map thread_ix;
  TT_VEC(dd_proc) procs;
  tt_i64map proc_ix;
  TT_VEC(dd_segment *) live; /* live.v[i] is segment first_live + i */
  int64_t first_live;
  tt_i64map corr_ix; /* (db, pid, corr) -> segment << 32 | its corrs' index */
  int64_t global_seg; /* the furthest segment of any process */
  /* The launches of the segment handed out last: their GPU work, still to
   * come, is late (counted, and put by its category). */
  tt_i64map retired;
  int eof;
  TT_VEC(int32_t) category_of; /* kernel name id -> category name id (-2 unknown) */
  TT_VEC(int32_t) comm_of;     /* kernel name id -> is a collective (-1 unknown) */
  tt_i64map agents_seen;
  dd_side_info info;
  dd_progress *progress;
  uint64_t events;
  tt_buf buf, buf2;
};

static uint64_t key3(int db, int64_t a, int64_t b) {
  return tt_hash_mix(tt_hash_mix(tt_hash_mix(0x6a09e667f3bcc908ULL, (uint64_t)db), (uint64_t)a),
                     (uint64_t)b);
}

/* --- threads, processes, segments ---------------------------------------- */

static dd_thread *thread_of(dd_side *s, int db, int64_t tid) {
  uint64_t h = key3(db, tid, 0);
  int64_t *ix = tt_i64map_get(&s->thread_ix, (int64_t)h);
  if (ix && s->threads.v[*ix].db == db && s->threads.v[*ix].tid == tid) return &s->threads.v[*ix];
  for (size_t i = 0; ix && i < s->threads.n; i++) /* a hash collision: rare, so a scan */
    if (s->threads.v[i].db == db && s->threads.v[i].tid == tid) return &s->threads.v[i];
  dd_thread *t = tt_vec_add(&s->threads);
  t->db = db;
  t->tid = tid;
  t->stream_seg = -1;
  if (!ix) tt_i64map_put(&s->thread_ix, (int64_t)h, (int64_t)(s->threads.n - 1));
  return t;
}

static dd_proc *proc_of(dd_side *s, int db, int64_t pid) {
  uint64_t h = key3(db, pid, 1);
  int64_t *ix = tt_i64map_get(&s->proc_ix, (int64_t)h);
  if (ix && s->procs.v[*ix].db == db && s->procs.v[*ix].pid == pid) return &s->procs.v[*ix];
  for (size_t i = 0; ix && i < s->procs.n; i++)
    if (s->procs.v[i].db == db && s->procs.v[i].pid == pid) return &s->procs.v[i];
  dd_proc *p = tt_vec_add(&s->procs);
  p->db = db;
  p->pid = pid;
  const hub_process_info *pi = hub_reader_find_process(s->r, db, pid);
  p->ord = pi && pi->rank != HUB_NULL && pi->rank < (1 << 14) ? (int32_t)pi->rank
                                                              : (int32_t)(s->procs.n - 1);
  p->stream_seg = -1;
  if (!ix) tt_i64map_put(&s->proc_ix, (int64_t)h, (int64_t)(s->procs.n - 1));
  return p;
}

static int selected(const dd_options *o, int64_t index) {
  if (o->steps_from == 0 && o->steps_to == 0) return 1;
  return index >= (o->steps_from ? o->steps_from : 1) && (o->steps_to == 0 || index <= o->steps_to);
}

/* Segment `index`, made (with every one before it) when new; NULL when
 * it was handed out already. */
static dd_segment *seg_at(dd_side *s, int64_t index) {
  if (index < s->first_live) return NULL;
  while (s->first_live + (int64_t)s->live.n <= index) {
    dd_segment *g = tt_calloc(1, sizeof *g);
    g->index = s->first_live + (int64_t)s->live.n;
    g->selected = selected(s->o, g->index);
    g->step_label = g->index;
    g->priv = tt_calloc(1, sizeof *g->priv);
    tt_vec_push(&s->live, g);
  }
  return s->live.v[index - s->first_live];
}

/* --- names --------------------------------------------------------------- */

static int is_step(const dd_side *s, const char *name, int64_t *label) {
  const char *want = s->o->step_name ? s->o->step_name : "ProfilerStep";
  size_t n = strlen(want);
  if (strncmp(name, want, n) != 0) return 0;
  if (name[n] == '\0' && s->o->step_name) return 1;
  if (name[n] != '#') return 0;
  char *end;
  long long v = strtoll(name + n + 1, &end, 10);
  if (end == name + n + 1 || *end) return 0;
  *label = v;
  return 1;
}

/* The op's "Input Dims" (Kineto's shapes), "" when not recorded. Read
 * when the op first launches, not as it is read: most ops launch nothing. */
static void shapes_of(dd_side *s, const dd_frame *f, tt_buf *out) {
  tt_buf_clear(out);
  if (f->event_id == HUB_NULL) return;
  hub_arg_view a;
  hub_args_begin(s->r, f->db, f->event_id);
  while (hub_args_next(s->r, &a))
    if (strcmp(a.name, "Input Dims") == 0) {
      tt_buf_puts(out, a.value);
      break;
    }
}

static int32_t category_of(dd_side *s, int32_t kernel, const hub_record *ev) {
  size_t need = (size_t)kernel + 1;
  while (s->category_of.n < need) tt_vec_push(&s->category_of, -2);
  while (s->comm_of.n < need) tt_vec_push(&s->comm_of, -1);
  if (s->category_of.v[kernel] == -2) {
    tt_kernel_category(ev->name, ev->cls == HUB_CLS_MEMCPY, (int)ev->copy_dir,
                       ev->cls == HUB_CLS_MEMSET, &s->buf2);
    s->category_of.v[kernel] = dd_name_id(s->names, s->buf2.data);
    s->comm_of.v[kernel] = strncmp(s->buf2.data, "collective", 10) == 0;
  }
  return s->category_of.v[kernel];
}

/* --- the records --------------------------------------------------------- */

static void step_starts(dd_side *s, dd_proc *p, const hub_record *ev, int64_t label) {
  p->seg++;
  p->has_steps = 1;
  p->step_start = ev->start;
  p->step_end = ev->end;
  if (p->seg > s->global_seg) s->global_seg = p->seg;
  s->info.steps = s->info.steps > p->seg ? s->info.steps : p->seg;
  dd_segment *g = seg_at(s, p->seg);
  if (!g) return;
  if (g->priv->spans.n == 0) g->step_label = label;
  *tt_vec_add(&g->priv->spans) = (dd_step_span){ev->db, ev->pid, ev->start, ev->end};
}

static void launch(dd_side *s, dd_thread *t, const hub_record *ev) {
  dd_proc *p = proc_of(s, ev->db, ev->pid);
  dd_segment *g = seg_at(s, p->seg);
  if (!g) return;
  int op = -1, mark = -1, parent = -1;
  for (size_t i = t->stack.n; i-- > 0;) {
    const dd_frame *f = &t->stack.v[i];
    if (f->kind == FRAME_OP && op < 0) op = (int)i;
    else if (f->kind == FRAME_OP && parent < 0) parent = (int)i;
    if (f->kind == FRAME_MARK && mark < 0) mark = (int)i;
  }
  int owner = op >= 0 ? op : mark; /* the region the instance is of */
  int32_t inst = -1;
  if (!g->selected) {
    inst = -1;
  } else if (owner >= 0 && t->stack.v[owner].inst_seg == g->index) {
    inst = t->stack.v[owner].inst; /* another launch of the same op */
  } else if (owner >= 0) {
    p->launched = 1;
    if (p->stream_seg != g->index) p->stream_seg = g->index, p->nstreams = 0;
    if (t->stream_seg != g->index) t->stream_seg = g->index, t->stream = p->ord * 4096 + p->nstreams++;
    dd_instance *x = tt_vec_add(&g->inst);
    for (int k = 0; k < DD_NKEYS; k++) x->key[k] = -1;
    x->stream = t->stream;
    x->category = -1;
    if (op >= 0) {
      dd_frame *f = &t->stack.v[op];
      x->key[DD_KEY_FULL] = x->key[DD_KEY_NAME] = f->name;
      shapes_of(s, f, &s->buf);
      if (s->buf.len) {
        tt_buf_clear(&s->buf2);
        tt_buf_printf(&s->buf2, "%s %s", dd_name(s->names, f->name), s->buf.data);
        x->key[DD_KEY_FULL] = dd_name_id(s->names, s->buf2.data);
      }
      tt_vendor_neutral_name(dd_name(s->names, f->name), &s->buf);
      x->key[DD_KEY_NEUTRAL] = dd_name_id(s->names, s->buf.data);
      if (parent >= 0) x->key[DD_KEY_PARENT] = t->stack.v[parent].name;
    }
    if (mark >= 0) x->key[DD_KEY_ANNOT] = t->stack.v[mark].name;
    inst = (int32_t)(g->inst.n - 1);
    t->stack.v[owner].inst_seg = g->index;
    t->stack.v[owner].inst = inst;
  } else {
    return; /* no op, no annotation: its GPU work goes by its category */
  }
  dd_corr *c = tt_vec_add(&g->priv->corrs);
  *c = (dd_corr){ev->db, ev->pid, ev->correlation_id, inst};
  tt_i64map_put(&s->corr_ix, (int64_t)key3(ev->db, ev->pid, ev->correlation_id),
                (g->index << 32) | (int64_t)(g->priv->corrs.n - 1));
}

static void region(dd_side *s, const hub_record *ev) {
  dd_thread *t = thread_of(s, ev->db, ev->tid);
  while (t->stack.n && t->stack.v[t->stack.n - 1].end <= ev->start) t->stack.n--;
  if (ev->cls == HUB_CLS_API) {
    if (ev->correlation_id != HUB_NULL) launch(s, t, ev);
    return;
  }
  int64_t label = 0;
  if (is_step(s, ev->name, &label)) {
    dd_proc *p = proc_of(s, ev->db, ev->pid);
    step_starts(s, p, ev, label ? label : p->seg + 1);
    return;
  }
  int kind;
  if (ev->cls == HUB_CLS_MARKER) kind = FRAME_MARK;
  else if (ev->cls == HUB_CLS_REGION && !strstr(ev->category, "python")) kind = FRAME_OP;
  else return; /* python functions, the profiler's own: not ops */
  dd_frame f = {.end = ev->end, .kind = kind, .db = ev->db, .event_id = ev->event_id,
                .inst_seg = -1, .inst = -1};
  f.name = dd_name_id(s->names, ev->name);
  /* nested by end: a region that starts with the one on top but ends
   * later encloses it (ties in start order) */
  size_t at = t->stack.n;
  while (at > 0 && t->stack.v[at - 1].end < ev->end) at--;
  tt_vec_add(&t->stack);
  memmove(t->stack.v + at + 1, t->stack.v + at, (t->stack.n - 1 - at) * sizeof f);
  t->stack.v[at] = f;
}

static void tally(dd_instance *x, int32_t kernel, int64_t ns) {
  x->gpu_ns += ns;
  x->kernels++;
  for (int i = 0; i < DD_INST_KERNELS; i++) {
    if (x->k[i].count && x->k[i].name != kernel) continue;
    x->k[i].name = kernel;
    x->k[i].count++;
    x->k[i].ns += ns;
    return;
  }
  x->more_kernels++;
}

static dd_dev *dev_of(dd_segment *g, const hub_record *ev) {
  for (size_t i = 0; i < g->priv->devs.n; i++) {
    dd_dev *d = &g->priv->devs.v[i];
    if (d->db == ev->db && d->agent == ev->agent_id && d->pid == ev->pid) return d;
  }
  dd_dev *d = tt_vec_add(&g->priv->devs);
  d->db = ev->db;
  d->agent = ev->agent_id;
  d->pid = ev->pid;
  for (int k = 0; k < 3; k++) d->cover[k] = INT64_MIN;
  return d;
}

/* Adds [a, b) to the running unions it belongs to. */
static void cover(dd_dev *d, int k, int64_t a, int64_t b) {
  if (a < d->cover[k]) a = d->cover[k];
  if (b > a) d->busy[k] += b - a;
  if (b > d->cover[k]) d->cover[k] = b;
}

static void gpu_work(dd_side *s, const hub_record *ev) {
  int64_t ns = ev->end - ev->start;
  int32_t kernel = dd_name_id(s->names, ev->name);
  int32_t cat = category_of(s, kernel, ev);
  dd_proc *p = proc_of(s, ev->db, ev->pid);
  dd_segment *g = NULL;
  dd_instance *x = NULL;
  if (ev->correlation_id != HUB_NULL) {
    int64_t *v = tt_i64map_get(&s->corr_ix, (int64_t)key3(ev->db, ev->pid, ev->correlation_id));
    dd_segment *cg = v ? seg_at(s, *v >> 32) : NULL;
    if (cg) {
      const dd_corr *c = &cg->priv->corrs.v[*v & 0xffffffff];
      if (c->db == ev->db && c->pid == ev->pid && c->corr == ev->correlation_id) {
        if (c->inst < 0) return; /* launched outside --steps */
        g = cg;
        x = &g->inst.v[c->inst];
      }
    }
  }
  if (!g && ev->correlation_id != HUB_NULL &&
      tt_i64map_get(&s->retired, (int64_t)key3(ev->db, ev->pid, ev->correlation_id)))
    s->info.late++;
  if (!g) {
    g = seg_at(s, p->has_steps ? p->seg : s->global_seg);
    if (!g || !g->selected) return;
    x = tt_vec_add(&g->inst);
    for (int k = 0; k < DD_NKEYS; k++) x->key[k] = -1;
    x->stream = -1;
    x->category = cat;
  }
  tally(x, kernel, ns);
  g->gpu_ns += ns;
  g->kernels++;
  if (ev->agent_id != HUB_NULL) tt_i64map_put(&s->agents_seen, (int64_t)key3(ev->db, ev->agent_id, 2), 1);
  /* the step's breakdown: by time, within its process's step */
  if (p->has_steps && ev->start < p->step_end && ev->end > p->step_start) {
    dd_segment *w = seg_at(s, p->seg);
    if (!w) return;
    dd_dev *d = dev_of(w, ev);
    int64_t a = ev->start > p->step_start ? ev->start : p->step_start;
    int64_t b = ev->end < p->step_end ? ev->end : p->step_end;
    int copy = ev->cls == HUB_CLS_MEMCPY, comm = s->comm_of.v[kernel] == 1;
    if (!copy && !comm) cover(d, 0, a, b);
    if (!copy) cover(d, 1, a, b);
    cover(d, 2, a, b);
  }
}

static void on_record(dd_side *s, const hub_record *ev) {
  if (ev->kind == HUB_REGION && !hub_record_is_gpu(ev) && ev->tid != HUB_NULL) region(s, ev);
  else if (ev->cls == HUB_CLS_KERNEL || ev->cls == HUB_CLS_MEMCPY || ev->cls == HUB_CLS_MEMSET)
    gpu_work(s, ev);
}

/* --- handing segments out -------------------------------------------------- */

static int ready(const dd_side *s, int64_t index) {
  if (s->eof) return 1;
  int any = 0;
  for (size_t i = 0; i < s->procs.n; i++) {
    if (!s->procs.v[i].has_steps) continue;
    any = 1;
    if (s->procs.v[i].seg < index + 2) return 0;
  }
  return any;
}

static void finish_segment(dd_side *s, dd_segment *g) {
  /* the step: its longest process, that process's busiest device */
  const dd_step_span *longest = NULL;
  for (size_t i = 0; i < g->priv->spans.n; i++)
    if (!longest || g->priv->spans.v[i].end - g->priv->spans.v[i].start > longest->end - longest->start)
      longest = &g->priv->spans.v[i];
  if (longest) {
    g->step_ns = longest->end - longest->start;
    const dd_dev *busiest = NULL;
    for (size_t i = 0; i < g->priv->devs.n; i++) {
      const dd_dev *d = &g->priv->devs.v[i];
      if (d->db == longest->db && d->pid == longest->pid && (!busiest || d->busy[2] > busiest->busy[2]))
        busiest = d;
    }
    if (!busiest) { /* GPU work under the device's own pid: any device of the segment */
      for (size_t i = 0; i < g->priv->devs.n; i++)
        if (!busiest || g->priv->devs.v[i].busy[2] > busiest->busy[2]) busiest = &g->priv->devs.v[i];
    }
    int64_t b[3] = {0, 0, 0};
    if (busiest) memcpy(b, busiest->busy, sizeof b);
    g->brk = (dd_breakdown){b[0], b[1] - b[0], b[2] - b[1], g->step_ns - b[2]};
  }
  for (size_t i = 0; i < g->inst.n; i++) {
    dd_instance *x = &g->inst.v[i];
    if (x->category >= 0 || !x->kernels) continue;
    int best = 0;
    for (int k = 1; k < DD_INST_KERNELS; k++)
      if (x->k[k].ns > x->k[best].ns) best = k;
    x->category = s->category_of.v[x->k[best].name];
  }
  g->nstreams = 0;
}

static void rebuild_corrs(dd_side *s) {
  tt_i64map_free(&s->corr_ix);
  s->corr_ix = (tt_i64map){0};
  for (size_t i = 0; i < s->live.n; i++) {
    dd_segment *g = s->live.v[i];
    for (size_t j = 0; j < g->priv->corrs.n; j++) {
      const dd_corr *c = &g->priv->corrs.v[j];
      tt_i64map_put(&s->corr_ix, (int64_t)key3(c->db, c->pid, c->corr), (g->index << 32) | (int64_t)j);
    }
  }
}

int dd_side_next(dd_side *s, dd_segment **out) {
  hub_record ev;
  while (!ready(s, s->first_live)) {
    int rc = hub_reader_next(s->r, &ev);
    if (rc < 0) return -1;
    if (rc == 0) {
      s->eof = 1;
    } else {
      on_record(s, &ev);
      s->events++;
      if (++s->progress->done % 4096 == 0) tt_progress("rows", s->progress->done, s->progress->total);
    }
  }
  if (s->live.n == 0) {
    if (!s->eof || s->first_live > 0) return 0;
    seg_at(s, 0); /* a side with nothing still has its segment 0 */
  }
  dd_segment *g = s->live.v[0];
  memmove(s->live.v, s->live.v + 1, (s->live.n - 1) * sizeof *s->live.v);
  s->live.n--;
  s->first_live++;
  finish_segment(s, g);
  rebuild_corrs(s);
  tt_i64map_free(&s->retired);
  for (size_t j = 0; j < g->priv->corrs.n; j++) {
    const dd_corr *c = &g->priv->corrs.v[j];
    tt_i64map_put(&s->retired, (int64_t)key3(c->db, c->pid, c->corr), 1);
  }
  *out = g;
  return 1;
}

uint64_t dd_side_events(const dd_side *s) { return s->events; }

void dd_segment_free(dd_segment *g) {
  if (!g) return;
  tt_vec_free(&g->inst);
  tt_vec_free(&g->priv->corrs);
  tt_vec_free(&g->priv->devs);
  tt_vec_free(&g->priv->spans);
  free(g->priv);
  free(g);
}

/* --- open, close, the header's facts ---------------------------------------- */

dd_side *dd_side_open(const char *label, const char *const *paths, size_t n, const dd_options *o,
                      dd_names *names, dd_progress *progress) {
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  hub_reader *r = hub_reader_open(paths, n, &f);
  if (!r) return NULL;
  dd_side *s = tt_calloc(1, sizeof *s);
  s->label = label;
  s->r = r;
  s->o = o;
  s->names = names;
  s->info.paths = paths;
  s->info.npaths = n;
  s->progress = progress;
  if (tt_progress_enabled()) progress->total += (uint64_t)hub_reader_row_count(r);
  return s;
}

/* "2x NVIDIA H100 80GB HBM3, 1x ...": the devices that ran GPU work, by
 * model; one whose model the hub does not record is named as the hub
 * names it, "GPU 2 (model not recorded)", and counts as "?" in the
 * models compared (by_model: two runs on GPU 0 and GPU 2 of an unnamed
 * model are not told apart). */
static char *devices_text(dd_side *s, int by_model) {
  tt_buf b = {0}, name = {0};
  tt_strmap count = {0};
  TT_VEC(const char *) order = {0};
  for (size_t i = 0; i < hub_reader_nagents(s->r); i++) {
    const hub_agent_view *a = hub_reader_agent(s->r, i);
    if (!tt_i64map_get(&s->agents_seen, (int64_t)key3(a->db, a->id, 2))) continue;
    tt_buf_clear(&name);
    if (a->product_name && *a->product_name) tt_buf_puts(&name, a->product_name);
    else if (by_model) tt_buf_puts(&name, "?");
    else tt_buf_printf(&name, "%s (model not recorded)", a->name);
    int added = 0;
    int64_t *c = tt_strmap_add(&count, name.data, 0, &added);
    if (added) tt_vec_push(&order, tt_strdup(name.data));
    ++*c;
  }
  for (size_t i = 0; i < order.n; i++) {
    tt_buf_printf(&b, "%s%lldx %s", i ? ", " : "", (long long)*tt_strmap_get(&count, order.v[i]),
                  order.v[i]);
    free((char *)order.v[i]);
  }
  tt_strmap_free(&count);
  tt_vec_free(&order);
  tt_buf_free(&name);
  if (!b.data) tt_buf_puts(&b, "");
  return b.data;
}

const dd_side_info *dd_side_info_of(dd_side *s) {
  if (!s->info.devices) {
    s->info.devices = devices_text(s, 0);
    s->info.models = devices_text(s, 1);
    int64_t launched = 0;
    for (size_t i = 0; i < s->procs.n; i++) launched += s->procs.v[i].launched;
    s->info.ranks = launched;
  }
  return &s->info;
}

void dd_side_close(dd_side *s) {
  if (!s) return;
  for (size_t i = 0; i < s->live.n; i++) dd_segment_free(s->live.v[i]);
  tt_vec_free(&s->live);
  for (size_t i = 0; i < s->threads.n; i++) tt_vec_free(&s->threads.v[i].stack);
  tt_vec_free(&s->threads);
  tt_vec_free(&s->procs);
  tt_i64map_free(&s->thread_ix);
  tt_i64map_free(&s->proc_ix);
  tt_i64map_free(&s->corr_ix);
  tt_i64map_free(&s->agents_seen);
  tt_i64map_free(&s->retired);
  tt_vec_free(&s->category_of);
  tt_vec_free(&s->comm_of);
  free(s->info.devices);
  free(s->info.models);
  tt_buf_free(&s->buf);
  tt_buf_free(&s->buf2);
  hub_reader_close(s->r);
  free(s);
}
