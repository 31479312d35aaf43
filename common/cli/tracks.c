#include "cli/tracks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "base/vec.h"

int64_t tt_lane_number(const char *name, int64_t fallback) {
  size_t n = strlen(name);
  size_t i = n;
  while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9') i--;
  if (i == n || n - i > 18) return fallback;
  if (i > 0 && name[i - 1] == '-') i--; /* Kineto's "stream -1" */
  return strtoll(name + i, NULL, 10);
}

/* The group name of a GPU's rows ("GPU 0 (MI300X)"), formatted again only
 * when the agent differs from the last one this thread asked for: asked
 * per GPU event, and snprintf was 1.5% of db2otf2's instructions. The
 * last agent is known by its index and names, not by its address (a
 * reader closed and another opened may reuse that). Per thread: a size
 * split planned ahead runs two sinks at once. */
typedef struct gpu_label {
  int valid;
  int64_t idx;
  char name[64], product[64], owner[128]; /* the agent's, as last formatted */
  char text[256];
  char label[160]; /* "GPU 0 · nodeB [rank 4]" */
} gpu_label;

/* The owner's part of a name: " · nodeB [rank 4]", or "" when it has none. */
#define OWNER_SEP(o) ((o)[0] ? " \xc2\xb7 " : ""), (o)

static const gpu_label *gpu_names(const hub_agent_view *a, int64_t idx) {
  static _Thread_local gpu_label last;
  const char *name = a ? a->name : "", *product = a ? a->product_name : "";
  const char *owner = a ? a->owner_label : "";
  /* The kept names are shorter than their buffers, so strcmp alone tells
   * a longer name apart. */
  if (last.valid && last.idx == idx && strcmp(last.name, name) == 0 &&
      strcmp(last.product, product) == 0 && strcmp(last.owner, owner) == 0)
    return &last;
  if (name[0] && strncmp(name, "GPU", 3) == 0)
    snprintf(last.text, sizeof last.text, "%s%s%s", name, OWNER_SEP(owner));
  else if (product[0] || name[0])
    snprintf(last.text, sizeof last.text, "GPU %lld (%s)%s%s", (long long)idx,
             product[0] ? product : name, OWNER_SEP(owner));
  else if (idx >= 0)
    snprintf(last.text, sizeof last.text, "GPU %lld%s%s", (long long)idx, OWNER_SEP(owner));
  else
    snprintf(last.text, sizeof last.text, "GPU%s%s", OWNER_SEP(owner));
  if (idx >= 0)
    snprintf(last.label, sizeof last.label, "GPU %lld%s%s", (long long)idx, OWNER_SEP(owner));
  else
    last.label[0] = '\0';
  size_t nl = strlen(name), pl = strlen(product), ol = strlen(owner);
  last.valid = nl < sizeof last.name && pl < sizeof last.product &&
               ol < sizeof last.owner; /* else asked again */
  if (last.valid) {
    memcpy(last.name, name, nl + 1);
    memcpy(last.product, product, pl + 1);
    memcpy(last.owner, owner, ol + 1);
    last.idx = idx;
  }
  return &last;
}

int64_t tt_written_tid(int64_t tid) { return tid < 0 ? (int64_t)(uint32_t)tid : tid; }

/* A thread written under another tid than the hub's: its name carries the
 * recorded one, so the thread is found by the tid the trace gave. */
static const char *recorded_name(const char *name, int64_t recorded) {
  static _Thread_local char text[320];
  if (name && name[0])
    snprintf(text, sizeof text, "%.280s [tid %lld]", name, (long long)recorded);
  else
    snprintf(text, sizeof text, "thread %lld", (long long)recorded);
  return text;
}

void tt_track_of(hub_reader *r, const hub_record *ev, tt_track_ref *t) {
  memset(t, 0, sizeof *t);
  int gpu_work = ev->lane_id != HUB_NULL ||
                 (ev->kind == HUB_KERNEL) ||
                 (ev->kind == HUB_COUNTER && ev->agent_id != HUB_NULL) || /* a GPU's counter */
                 ((ev->kind == HUB_COPY || ev->kind == HUB_ALLOC) && ev->tid == HUB_NULL &&
                  ev->agent_id != HUB_NULL);
  if (gpu_work) {
    const hub_agent_view *a =
        ev->agent_id != HUB_NULL ? hub_reader_find_agent(r, ev->db, ev->agent_id) : NULL;
    int64_t idx = a ? a->type_index : -1;
    t->is_gpu = 1;
    t->gpu_index = idx;
    if (a && a->gpu_view > 0)
      t->group = TT_GPU_SORT_BASE + TT_GPU_VIEW_BASE + a->gpu_view;
    else
      t->group = TT_GPU_SORT_BASE + (idx < 0 ? 999 : idx);
    t->group_sort = t->group;
    const gpu_label *names = gpu_names(a, idx);
    t->group_name = names->text;
    t->gpu_label = names->label;
    const hub_lane_info *l =
        ev->lane_id != HUB_NULL ? hub_reader_find_lane(r, ev->db, ev->lane_id, ev->lane_is_queue)
                                : NULL;
    t->lane = l ? tt_lane_number(l->name, l->id) : (ev->lane_id != HUB_NULL ? ev->lane_id : 0);
    t->lane_name = l && l->name[0] ? l->name : (ev->lane_is_queue ? "queue" : "stream");
    t->lane_sort = t->lane;
    t->recorded_lane = t->lane;
    t->lane = tt_written_tid(t->lane); /* "stream -1": its name says it */
    return;
  }
  t->group = ev->pid;
  t->lane = ev->tid != HUB_NULL ? ev->tid : ev->pid;
  t->group_sort = ev->pid;
  t->lane_sort = t->lane;
  t->group_name = "";
  t->gpu_label = "";
  t->lane_name = "";
  const hub_process_info *p = hub_reader_find_process(r, ev->db, ev->pid);
  if (p) {
    t->group = p->view_pid; /* two hosts' pid 1234: two groups */
    t->group_name = p->label;
    t->group_sort = p->sort_index;
  }
  const hub_thread_info *th =
      ev->tid != HUB_NULL ? hub_reader_find_thread(r, ev->db, ev->tid) : NULL;
  if (th) {
    t->lane = th->tid; /* ev->tid is the row id: the OS tid is shown */
    t->lane_name = th->name;
    t->lane_sort = th->sort_index;
  }
  t->recorded_lane = t->lane;
  t->lane = tt_written_tid(t->lane);
  if (t->lane != t->recorded_lane) t->lane_name = recorded_name(t->lane_name, t->recorded_lane);
}

/* --- nesting ---------------------------------------------------------- */

typedef struct sublane {
  int64_t *ends; /* stack of open intervals' end times */
  size_t depth, cap;
} sublane;

typedef struct lane_state {
  sublane *subs;
  size_t nsubs, cap;
} lane_state;

struct tt_nesting {
  tt_i64map index; /* lane key -> index in lanes */
  lane_state *lanes;
  size_t nlanes, cap;
};

tt_nesting *tt_nesting_new(void) { return tt_calloc(1, sizeof(tt_nesting)); }

int tt_nesting_place(tt_nesting *n, uint64_t lane_key, int64_t start, int64_t end) {
  int64_t *ix = tt_i64map_get(&n->index, (int64_t)lane_key);
  if (!ix) {
    tt_grow(n->lanes, n->nlanes + 1, n->cap); /* zeroed */
    tt_i64map_put(&n->index, (int64_t)lane_key, (int64_t)n->nlanes);
    ix = tt_i64map_get(&n->index, (int64_t)lane_key);
    n->nlanes++;
  }
  lane_state *l = &n->lanes[*ix];
  for (size_t s = 0;; s++) {
    if (s == l->nsubs) {
      tt_grow(l->subs, l->nsubs + 1, l->cap); /* zeroed */
      l->nsubs++;
    }
    sublane *sl = &l->subs[s];
    while (sl->depth && sl->ends[sl->depth - 1] <= start) sl->depth--;
    if (sl->depth == 0 || end <= sl->ends[sl->depth - 1]) {
      tt_grow(sl->ends, sl->depth + 1, sl->cap);
      sl->ends[sl->depth++] = end;
      return (int)s;
    }
  }
}

void tt_nesting_free(tt_nesting *n) {
  if (!n) return;
  for (size_t i = 0; i < n->nlanes; i++) {
    for (size_t s = 0; s < n->lanes[i].nsubs; s++) free(n->lanes[i].subs[s].ends);
    free(n->lanes[i].subs);
  }
  free(n->lanes);
  tt_i64map_free(&n->index);
  free(n);
}
