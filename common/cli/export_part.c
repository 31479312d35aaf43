/* The parts of an export, one at a time (export_part.h). */
#include "cli/export_part.h"

#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/progress.h"
#include "base/util.h"
#include "cli/cli.h"
#include "cli/export_options.h"
#include "cli/export_split.h"
#include "cli/part_samples.h"

static void clip(hub_record *ev, int64_t a, int64_t b) {
  if (ev->start < a) {
    ev->start = a;
    ev->clipped |= HUB_CLIP_START;
  }
  if (ev->end > b) {
    ev->end = b;
    ev->clipped |= HUB_CLIP_END;
  }
  if (ev->end < ev->start) ev->end = ev->start;
}

/* A size split (--max-part-size) that needs one part writes the plain
 * name: the user asked for parts only where one file is too big. */
char *tt_part_writer_path(const tt_part_writer *w, int64_t count, const char *tag) {
  int plain = !tag[0] || (count == 1 && w->o->split == TT_SPLIT_WINDOW && w->o->max_part_size);
  return plain ? tt_strdup(w->o->output) : tt_part_path(w->o->output, tag);
}

void tt_part_window_tag(const tt_part_writer *w, int64_t i, char *tag, size_t n) {
  int width = w->tag_width < 3 ? 3 : w->tag_width > 19 ? 19 : w->tag_width;
  snprintf(tag, n, ".w%0*lld", width, (long long)i);
}

void tt_part_name(tt_part_writer *w, int64_t index, int64_t count, int64_t start, int64_t end,
                  int64_t pid, const char *tag) {
  free(w->path);
  w->path = tt_part_writer_path(w, count, tag);
  w->part = (tt_part){.index = index, .count = count, .start = start, .end = end, .pid = pid,
                      .path = w->path};
  w->begun = 0;
}

static int is_stdout(const char *path) { return strcmp(path, "-") == 0; }

int tt_part_begin(tt_part_writer *w, hub_reader *r) {
  if (w->begun) return 0;
  /* A streamed output on the terminal: no progress line in it. */
  if (is_stdout(w->path) && !w->ex->writes_at_end) tt_progress_stdout_begins();
  w->out = tt_output_begin(w->path);
  w->state = w->ex->begin_part(r, w->o, &w->part, w->out);
  if (!w->state) {
    tt_output_abort(w->out);
    w->out = NULL;
    return -1;
  }
  w->begun = 1;
  return 0;
}

/* Bytes of the regular files under a directory output (an OTF2 archive). */
static uint64_t dir_total;
static int add_file(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (flag == FTW_F && S_ISREG(st->st_mode)) dir_total += (uint64_t)st->st_size;
  return 0;
}
static uint64_t dir_bytes(const char *dir) {
  dir_total = 0;
  nftw(dir, add_file, 16, FTW_PHYS);
  return dir_total;
}

int tt_part_end(tt_part_writer *w, hub_reader *r) {
  /* A part with CPU samples and no event (a window between calls) is
   * written: the sink gives its samples when it ends. */
  if (!w->begun) {
    int has = tt_part_samples_any(r, w->o, &w->part);
    if (has < 0) return -1;
    if (!has || tt_part_begin(w, r) != 0) {
      if (!has) w->parts_empty++;
      return has ? -1 : 0;
    }
  }
  /* db2summary's text goes out now: the progress line leaves first. */
  if (is_stdout(w->path)) tt_progress_stdout_begins();
  int rc = w->ex->end_part(w->state, r);
  w->state = NULL;
  w->begun = 0;
  if (rc != 0) {
    tt_output_abort(w->out);
    w->out = NULL;
    return -1;
  }
  /* Written in place (stdout, a device, a directory a sink replaces at
   * exit): what is at the path now is not what this run wrote. */
  int in_place = strcmp(tt_output_tmp_path(w->out), tt_output_final_path(w->out)) == 0;
  const char *staged = tt_output_staged_path(w->out);
  char *measure = staged ? tt_strdup(staged) : NULL; /* what replaces the path at exit */
  rc = tt_output_commit_part(w->out);
  w->out = NULL;
  if (rc == 0) {
    w->parts_written++;
    struct stat st;
    w->part_bytes = 0;
    if (strcmp(w->path, "-") != 0 && stat(w->path, &st) == 0 &&
        (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
      if (in_place && !measure) {
        w->bytes_unknown = 1;
      } else {
        w->part_bytes = measure              ? dir_bytes(measure)
                        : S_ISDIR(st.st_mode) ? dir_bytes(w->path)
                                              : (uint64_t)st.st_size;
        w->bytes_written += w->part_bytes;
        if (w->part_sizes) w->part_sizes[w->part.index] = w->part_bytes;
      }
      if (w->part.count <= 16) tt_info("wrote %s", w->path);
    } else {
      w->bytes_unknown = 1;
    }
  }
  free(measure);
  return rc;
}

int tt_part_emit(tt_part_writer *w, hub_reader *r, hub_record *ev) {
  if (tt_part_begin(w, r) != 0) return -1;
  clip(ev, w->part.start, w->part.end);
  /* A flow arrow's recorded end is drawn on its event, not one of its own:
   * counted as db2summary counts (the progress counts every row read). */
  w->events += ev->kind != HUB_FLOW;
  if ((++w->records & 0xFFF) == 0) tt_progress("rows", w->records, w->progress_total);
  return w->ex->event(w->state, r, ev);
}

int tt_part_stream(tt_part_writer *w, hub_reader *r) {
  hub_record ev;
  int rc;
  while ((rc = hub_reader_next(r, &ev)) > 0)
    if (tt_part_emit(w, r, &ev) != 0) return -1;
  return rc;
}

void tt_part_abort(tt_part_writer *w, hub_reader *r) {
  if (w->state) w->ex->end_part(w->state, r);
  w->state = NULL;
  w->begun = 0;
  if (w->out) tt_output_abort(w->out);
  w->out = NULL;
}

void tt_part_writer_free(tt_part_writer *w) {
  free(w->part_sizes);
  free(w->path);
  w->part_sizes = NULL;
  w->path = NULL;
}

int tt_part_digits(int64_t v) {
  int d = 1;
  while (v >= 10) {
    v /= 10;
    d++;
  }
  return d;
}

/* --- what a split says of its parts ------------------------------------ */

void tt_parts_check_count(const tt_export_opts *o, int64_t count, const char *what) {
  if (count > o->max_parts)
    tt_die(2, "the split would write %lld parts (%s), more than --max-parts %lld: choose larger "
           "windows, fewer --windows, or raise --max-parts",
           (long long)count, what, (long long)o->max_parts);
}

void tt_parts_say_count(int64_t count, const char *what) {
  tt_info("%lld part%s (%s)", (long long)count, count == 1 ? "" : "s", what);
}

void tt_parts_refuse_input(const tt_export_opts *o, const char *path, tt_cut_source **planner) {
  if (!tt_cli_input_named_by(path, o->inputs, o->ninputs)) return;
  /* A planner still running stops before the program ends. */
  tt_cut_source_free(*planner);
  *planner = NULL;
  tt_cli_refuse_input_as_output(path, o->inputs, o->ninputs);
}

void tt_part_warn_oversize(const tt_export_opts *o, int64_t i, uint64_t bytes, int64_t at) {
  char sz[32], b[32];
  tt_warn("part %lld holds about %s, more than --max-part-size %s: the events at one instant "
          "(%lld ns), with those that cross it, cannot be cut apart",
          (long long)i, tt_size_text(bytes, b, sizeof b),
          tt_size_text(o->max_part_size, sz, sizeof sz), (long long)at);
}

/* Balanced parts are about total/n, at least about half of the size. */
void tt_part_check_size(const tt_export_opts *o, int64_t i, uint64_t planned, uint64_t real,
                        uint64_t next) {
  uint64_t max = o->max_part_size;
  char sz[32], b[32];
  tt_size_text(max, sz, sizeof sz);
  /* For the tests: the plan's bound beside what was written. */
  if (getenv("TT_SPLIT_TRACE"))
    fprintf(stderr, "split: part %lld planned %llu written %llu\n", (long long)i,
            (unsigned long long)planned, (unsigned long long)real);
  if (real > max && planned <= max)
    tt_warn("part %lld holds %s, more than --max-part-size %s (planned at most %llu bytes): a "
            "bug, please report it", (long long)i, tt_size_text(real, b, sizeof b), sz,
            (unsigned long long)planned);
  else if (next && planned < max / 2 && next <= max)
    tt_warn("part %lld holds %s, less than half of --max-part-size %s: the instant after it "
            "does not fit in the same part", (long long)i, tt_size_text(real, b, sizeof b), sz);
}
int tt_part_has_pid(const tt_part *p, int64_t pid) {
  if (p->npids) {
    size_t lo = 0, hi = p->npids;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (p->pids[mid] < pid) lo = mid + 1;
      else hi = mid;
    }
    return lo < p->npids && p->pids[lo] == pid;
  }
  return p->pid == HUB_NULL || p->pid == pid;
}

