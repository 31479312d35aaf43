#include "cli/export_split.h"

#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "base/vec.h"

int tt_parse_size(const char *s, uint64_t *bytes) {
  static const struct {
    const char *unit;
    int64_t scale;
  } units[] = {{"KiB", 1LL << 10}, {"MiB", 1LL << 20}, {"GiB", 1LL << 30},
               {"KB", 1LL << 10},  {"MB", 1LL << 20},  {"GB", 1LL << 30},
               {"K", 1LL << 10},   {"M", 1LL << 20},   {"G", 1LL << 30},
               {"k", 1LL << 10},   {"m", 1LL << 20},   {"g", 1LL << 30}};
  size_t n = strlen(s);
  for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
    size_t u = strlen(units[i].unit);
    if (n <= u || strcmp(s + n - u, units[i].unit) != 0) continue;
    int64_t v;
    if (tt_decimal_to_int_scaled(s, n - u, units[i].scale, &v) == 0 && v > 0) {
      *bytes = (uint64_t)v;
      return 0;
    }
    return -1;
  }
  return -1;
}

const char *tt_size_text(uint64_t bytes, char *buf, size_t n) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
    snprintf(buf, n, "%llu MiB", (unsigned long long)(bytes >> 20));
  else if (bytes >= (1u << 20))
    snprintf(buf, n, "%.1f MiB", (double)bytes / (1u << 20));
  else if (bytes >= 1024 && bytes % 1024 == 0)
    snprintf(buf, n, "%llu KiB", (unsigned long long)(bytes >> 10));
  else
    snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
  return buf;
}

/* --- --split process --------------------------------------------------- */

int tt_proc_key_cmp(const void *a, const void *b) {
  const tt_proc_key *x = a, *y = b;
  int c = strcmp(x->host, y->host);
  if (c) return c;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

static tt_proc_part *add_proc_part(tt_proc_plan *plan) {
  tt_grow(plan->parts, plan->nparts + 1, plan->cap_parts);
  tt_proc_part *p = &plan->parts[plan->nparts++];
  p->window = -1;
  return p;
}

int tt_plan_processes(const tt_exporter *ex, const tt_export_opts *o, const hub_filter *base,
                      const tt_proc_key *keys, size_t n, int bounded, int64_t t0, int64_t t1,
                      tt_proc_plan *plan) {
  memset(plan, 0, sizeof *plan);
  uint64_t max = o->max_part_size, shared = ex->part_shared_bytes;
  tt_proc_part *pack = NULL; /* the pack being filled */
  /* Indexes into plan->windowed, resolved to cuts once it stops moving. */
  for (size_t i = 0; i < n; i++) {
    hub_filter f = *base;
    f.pid = keys[i].pid;
    f.start = bounded ? t0 : HUB_NULL;
    f.end = bounded ? t1 : HUB_NULL;
    hub_reader *r = hub_reader_open(keys[i].inputs, keys[i].ninputs, &f);
    if (!r) return -1;
    int64_t lo = t0, hi = t1;
    if (!bounded) {
      if (!hub_reader_time_span(r, &lo, &hi)) lo = hi = 0;
      hi += 1;
    }
    tt_part proto = {.pid = keys[i].pid, .as_many_dbs = 1, .path = o->output ? o->output : "-"};
    tt_plan_spec spec = {.ex = ex, .o = o, .proto = &proto, .t0 = lo, .t1 = hi, .max = max};
    tt_cut_plan cp;
    if (tt_plan_cuts(r, keys[i].inputs, keys[i].ninputs, &f, &spec, &cp) != 0) return -1;
    if (cp.nparts == 1 && cp.bytes[0] <= max) {
      uint64_t b = cp.bytes[0];
      tt_cut_plan_free(&cp);
      /* Packed, the part has once what each process's part has alone. A
       * pack holds one host's processes: its reader takes their pids on
       * that host (a merged hub holds every host's pid 1234). */
      if (pack && strcmp(keys[pack->first].host, keys[i].host) == 0 &&
          pack->bytes + b - (b > shared ? shared : 0) <= max) {
        pack->bytes += b - (b > shared ? shared : 0);
        pack->n++;
        continue;
      }
      pack = add_proc_part(plan);
      pack->first = i;
      pack->n = 1;
      pack->bytes = b;
      continue;
    }
    /* Too big alone: its own windows. */
    pack = NULL;
    tt_grow(plan->windowed, plan->nwindowed + 1, plan->cap_windowed);
    plan->windowed[plan->nwindowed++] = cp;
    for (size_t w = 0; w < cp.nparts; w++) {
      tt_proc_part *p = add_proc_part(plan);
      p->first = i;
      p->n = 1;
      p->window = (int64_t)w;
      p->nwindows = (int64_t)cp.nparts;
      p->bytes = cp.bytes[w];
      p->cuts = cp.cuts; /* the cuts array stays where it is */
    }
  }
  return 0;
}

void tt_proc_plan_free(tt_proc_plan *plan) {
  for (size_t i = 0; i < plan->nwindowed; i++) tt_cut_plan_free(&plan->windowed[i]);
  free(plan->windowed);
  free(plan->parts);
  memset(plan, 0, sizeof *plan);
}
