/* A part's CPU samples (part_samples.h). */
#include <ctype.h>
#include <stdatomic.h>
#include <string.h>

#include "cli/part_samples.h"
#include "base/util.h"

static atomic_llong samples_written;

int64_t tt_part_samples_written(void) { return (int64_t)atomic_load(&samples_written); }

int tt_part_samples_open(tt_part_samples *ps, hub_reader *r, const tt_export_opts *o,
                         const tt_part *p) {
  memset(ps, 0, sizeof *ps);
  ps->o = o;
  ps->part = p;
  if (o->gpu_only) return 0;
  ps->f = (hub_filter){.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL};
  tt_align_filter(&o->align, &ps->f);
  if (p->start != INT64_MIN) ps->f.start = p->start;
  /* the end may be planned later (a size split): checked per sample */
  if (p->npids) {
    ps->f.pids = p->pids;
    ps->f.npids = p->npids;
  } else {
    ps->f.pid = p->pid;
  }
  if (p->pid != HUB_NULL || p->npids) ps->f.host = p->host;
  ps->sr = hub_samples_open(r, &ps->f);
  return ps->sr ? 0 : -1;
}

static int globs_match(const char **globs, size_t n, const char *lower) {
  for (size_t i = 0; i < n; i++) {
    char pat[256];
    size_t k = 0;
    for (; globs[i][k] && k + 1 < sizeof pat; k++) pat[k] = (char)tolower((unsigned char)globs[i][k]);
    pat[k] = '\0';
    if (tt_glob_match(pat, lower)) return 1;
  }
  return 0;
}

/* The category filters, case-insensitive as the reader's. */
static int category_kept(tt_part_samples *ps, const char *category) {
  const tt_export_opts *o = ps->o;
  if (!o->ncategories && !o->nexclude) return 1;
  tt_buf_clear(&ps->category);
  for (const char *c = category; *c; c++) tt_buf_putc(&ps->category, (char)tolower((unsigned char)*c));
  const char *lower = ps->category.data ? ps->category.data : "";
  if (o->ncategories && !globs_match(o->categories, o->ncategories, lower)) return 0;
  return !(o->nexclude && globs_match(o->exclude_categories, o->nexclude, lower));
}

int tt_part_samples_before(tt_part_samples *ps, int64_t t, hub_cpu_sample *s) {
  if (!ps->sr) return 0;
  for (;;) {
    if (!ps->have) {
      int rc = hub_samples_next(ps->sr, &ps->next);
      if (rc <= 0) return rc; /* the stream stays open: its stacks are still asked for */
      ps->have = 1;
    }
    if (ps->next.ts >= t || ps->next.ts >= ps->part->end) return 0;
    ps->have = 0;
    if (!category_kept(ps, ps->next.category)) continue;
    *s = ps->next;
    ps->count++;
    if (!ps->part->dry) atomic_fetch_add(&samples_written, 1);
    return 1;
  }
}

int tt_part_samples_peek(tt_part_samples *ps) {
  if (!ps->sr) return 0;
  for (;;) {
    if (!ps->have) {
      int rc = hub_samples_next(ps->sr, &ps->next);
      if (rc <= 0) return rc;
      ps->have = 1;
    }
    if (ps->next.ts >= ps->part->end) return 0;
    if (category_kept(ps, ps->next.category)) return 1;
    ps->have = 0;
  }
}

int tt_part_samples_any(hub_reader *r, const tt_export_opts *o, const tt_part *p) {
  tt_part_samples ps;
  if (tt_part_samples_open(&ps, r, o, p) != 0) return -1;
  int rc = tt_part_samples_peek(&ps); /* peeked, not handed out: not counted as written */
  tt_part_samples_close(&ps);
  return rc;
}

void tt_part_samples_close(tt_part_samples *ps) {
  hub_samples_close(ps->sr);
  ps->sr = NULL;
  tt_buf_free(&ps->category);
}
