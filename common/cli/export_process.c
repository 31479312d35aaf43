/* --split process (export_process.h). */
#include "cli/export_process.h"

#include <stdlib.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/progress.h"
#include "base/util.h"
#include "base/vec.h"
#include "cli/export_split.h"

/* The processes that have events, in --split process order (host, pid),
 * as the reader keys them: a process row alone makes no part, and two
 * hosts' pid 1234 are two parts. Keys own their host. Its inputs (the
 * files with a row for the process, in input order) are `files`, each
 * file once: a merged hub is one file holding several hubs, given to a
 * part's reader once. */
static tt_proc_key *process_keys(hub_reader *r, size_t *n_out, const char ***files_out,
                                 size_t *nfiles_out) {
  size_t np = hub_reader_nprocesses(r), ndbs = hub_reader_ndbs(r), nfiles = 0;
  const char **files = tt_calloc(ndbs ? ndbs : 1, sizeof *files);
  size_t *file_of = tt_calloc(ndbs ? ndbs : 1, sizeof *file_of);
  for (size_t d = 0; d < ndbs; d++) {
    const char *path = hub_reader_db_path(r, (int)d);
    size_t f = 0;
    while (f < nfiles && strcmp(files[f], path) != 0) f++;
    if (f == nfiles) files[nfiles++] = tt_strdup(path);
    file_of[d] = f;
  }
  hub_process_key *hk;
  size_t n = hub_reader_process_keys(r, &hk);
  tt_proc_key *keys = tt_calloc(n ? n : 1, sizeof *keys);
  for (size_t i = 0; i < n; i++)
    keys[i] = (tt_proc_key){.host = tt_strdup(hk[i].host), .pid = hk[i].pid,
                            .ambiguous = hk[i].ambiguous};
  free(hk);
  /* Each key's files, in input order (keys are sorted by (host, pid)). */
  for (size_t d = 0; d < ndbs; d++) {
    const char *file = files[file_of[d]];
    for (size_t i = 0; i < np; i++) {
      const hub_process_info *p = hub_reader_process(r, i);
      if (p->db != (int)d) continue;
      tt_proc_key probe = {.host = p->hostname ? p->hostname : "", .pid = p->pid};
      tt_proc_key *key = bsearch(&probe, keys, n, sizeof *keys, tt_proc_key_cmp);
      if (!key) continue;
      int have = 0;
      for (size_t j = 0; j < key->ninputs && !have; j++) have = key->inputs[j] == file;
      if (have) continue;
      tt_grow(key->inputs, key->ninputs + 1, key->cap_inputs);
      key->inputs[key->ninputs++] = file;
    }
  }
  free(file_of);
  *n_out = n;
  *files_out = files;
  *nfiles_out = nfiles;
  return keys;
}

static void process_keys_free(tt_proc_key *keys, size_t n, const char **paths, size_t npaths) {
  for (size_t i = 0; i < n; i++) {
    free((void *)keys[i].inputs);
    free((void *)keys[i].host);
  }
  free(keys);
  for (size_t d = 0; d < npaths; d++) free((void *)paths[d]);
  free((void *)paths);
}

/* The inputs of a part packing keys[first, first + n): in input order. */
static const char **part_inputs(const tt_proc_key *keys, size_t first, size_t n,
                                const char **paths, size_t npaths, size_t *count) {
  const char **v = tt_calloc(npaths ? npaths : 1, sizeof *v);
  size_t c = 0;
  for (size_t d = 0; d < npaths; d++) {
    int in = 0;
    for (size_t k = first; k < first + n && !in; k++)
      for (size_t j = 0; j < keys[k].ninputs && !in; j++) in = keys[k].inputs[j] == paths[d];
    if (in) v[c++] = paths[d];
  }
  *count = c;
  return v;
}

/* The longest host written whole in a part's name: a file name holds at
 * most 255 bytes (NAME_MAX), and a cluster's host names can be longer. */
#define HOST_IN_NAME_MAX 48

/* A host as a part's name writes it: as it is when it is short, made of
 * [A-Za-z0-9._-] only and not "nohost"; else its first characters (others
 * as '_'), '+' and a hash of the whole name ('+' is in no host written as
 * it is, so two hosts never share a name). No host known: "nohost". */
static void put_host(tt_buf *b, const char *host) {
  size_t n = strlen(host), keep = n < HOST_IN_NAME_MAX ? n : HOST_IN_NAME_MAX;
  if (n == 0) {
    tt_buf_puts(b, "nohost");
    return;
  }
  int changed = n > keep || strcmp(host, "nohost") == 0;
  for (size_t i = 0; i < keep; i++) {
    char c = host[i];
    int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '.' || c == '-' || c == '_';
    tt_buf_putc(b, ok ? c : '_');
    changed |= !ok;
  }
  if (changed) tt_buf_printf(b, "+%016llx", (unsigned long long)tt_hash_str(host, n));
}

/* A part's tag: ".p1234", ".p1234-1301" (a pack of one host's processes,
 * its first and last), or ".p1234.w003" (a window of a process too big
 * alone); ".HOST.p1234..." when another host has one of its pids. A part
 * is named by its first process (host, pid), which no other part starts
 * with, so no two parts share a name. Malloc'ed. */
static char *process_tag(const tt_proc_key *keys, const tt_proc_part *pp) {
  tt_buf b = {0};
  const tt_proc_key *k = &keys[pp->first];
  int with_host = 0;
  for (size_t i = pp->first; i < pp->first + pp->n; i++) with_host |= keys[i].ambiguous;
  tt_buf_putc(&b, '.');
  if (with_host) {
    put_host(&b, k->host);
    tt_buf_putc(&b, '.');
  }
  tt_buf_printf(&b, "p%lld", (long long)k->pid);
  if (pp->n > 1) {
    tt_buf_printf(&b, "-%lld", (long long)keys[pp->first + pp->n - 1].pid);
  } else if (pp->window >= 0) {
    int width = tt_part_digits(pp->nwindows - 1);
    tt_buf_printf(&b, ".w%0*lld", width < 3 ? 3 : width > 19 ? 19 : width, (long long)pp->window);
  }
  return b.data;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parts' tags, each part's at its index; dies before anything is
 * written if two were the same (they cannot be: see process_tag), as a
 * part written over another loses it. */
static char **process_tags(const tt_proc_key *keys, const tt_proc_plan *plan) {
  char **tags = tt_calloc(plan->nparts ? plan->nparts : 1, sizeof *tags);
  char **sorted = tt_calloc(plan->nparts ? plan->nparts : 1, sizeof *sorted);
  for (size_t i = 0; i < plan->nparts; i++) sorted[i] = tags[i] = process_tag(keys, &plan->parts[i]);
  qsort(sorted, plan->nparts, sizeof *sorted, cmp_str);
  for (size_t i = 1; i < plan->nparts; i++)
    if (strcmp(sorted[i - 1], sorted[i]) == 0)
      tt_die(2, "--split process: two parts would be named '%s'; nothing written", sorted[i]);
  free(sorted);
  return tags;
}

static void tags_free(char **tags, size_t n) {
  for (size_t i = 0; i < n; i++) free(tags[i]);
  free(tags);
}

static int cmp_pid(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* One pass per part, its process(es) pushed into SQL. */
int tt_write_processes(tt_part_writer *w, tt_readers *rd, hub_reader *r, hub_filter *f,
                       int bounded, int64_t t0, int64_t t1) {
  const tt_export_opts *o = w->o;
  size_t n = 0, npaths = 0;
  const char **paths = NULL;
  tt_proc_key *keys = process_keys(r, &n, &paths, &npaths);
  hub_reader *pr = r; /* the part's reader; r's processes first */
  tt_proc_plan plan = {0};
  char what[64] = "one per process";
  if (o->max_part_size) {
    if (tt_plan_processes(w->ex, o, f, keys, n, bounded, t0, t1, &plan) != 0) {
      process_keys_free(keys, n, paths, npaths);
      hub_reader_close(pr);
      return 1;
    }
    char sz[32];
    snprintf(what, sizeof what, "processes packed into parts of at most %s",
             tt_size_text(o->max_part_size, sz, sizeof sz));
  } else {
    plan.parts = tt_calloc(n ? n : 1, sizeof *plan.parts);
    for (size_t i = 0; i < n; i++) plan.parts[i] = (tt_proc_part){.first = i, .n = 1, .window = -1};
    plan.nparts = n;
  }
  int64_t count = (int64_t)plan.nparts;
  int rc = 0;
  if (o->count_parts) {
    tt_progress_stdout_begins();
    printf("%lld\n", (long long)count);
    goto done;
  }
  if (count > o->max_parts) {
    tt_proc_plan_free(&plan);
    process_keys_free(keys, n, paths, npaths);
    tt_parts_check_count(o, count, what); /* dies */
  }
  if (o->part >= count) {
    tt_proc_plan_free(&plan);
    process_keys_free(keys, n, paths, npaths);
    tt_die(2, "--part %lld: the split has %lld parts", (long long)o->part, (long long)count);
  }
  char **tags = process_tags(keys, &plan);
  for (int64_t i = 0; i < count; i++) {
    if (o->part >= 0 && i != o->part) continue;
    char *p = tt_part_writer_path(w, count, tags[i]);
    tt_cut_source *none = NULL;
    tt_parts_refuse_input(o, p, &none);
    free(p);
  }
  if (o->part < 0) tt_parts_say_count(count, what);
  int64_t *pids = NULL;
  for (int64_t i = 0; i < count && rc == 0; i++) {
    if (o->part >= 0 && i != o->part) continue;
    const tt_proc_part *pp = &plan.parts[i];
    hub_reader_close(pr);
    pr = NULL;
    hub_filter pf = *f;
    int64_t start = bounded ? t0 : INT64_MIN, end = bounded ? t1 : INT64_MAX;
    pf.pid = keys[pp->first].pid;
    pf.host = keys[pp->first].host; /* one process: its host's only */
    pf.start = bounded ? t0 : HUB_NULL;
    pf.end = bounded ? t1 : HUB_NULL;
    if (pp->window >= 0) {
      start = pf.start = pp->cuts[pp->window];
      end = pf.end = pp->cuts[pp->window + 1];
    }
    free(pids);
    pids = NULL;
    if (pp->n > 1) {
      pids = tt_calloc(pp->n, sizeof *pids);
      for (size_t k = 0; k < pp->n; k++) pids[k] = keys[pp->first + k].pid;
      qsort(pids, pp->n, sizeof *pids, cmp_pid);
      pf.pids = pids;
      pf.npids = pp->n;
      pf.pid = HUB_NULL; /* a pack holds one host's processes: pf.host stays */
    }
    if (o->max_part_size) {
      /* Only the part's databases, as its planning pass read them. */
      size_t ni;
      const char **in = part_inputs(keys, pp->first, pp->n, paths, npaths, &ni);
      pr = hub_reader_open(in, ni, &pf);
      free((void *)in);
    } else {
      pr = tt_readers_open(rd, &pf);
    }
    if (!pr) {
      rc = 1;
      break;
    }
    tt_part_name(w, i, count, start, end, keys[pp->first].pid, tags[i]);
    w->part.pids = pids;
    w->part.npids = pids ? pp->n : 0;
    w->part.host = keys[pp->first].host;
    if (tt_part_stream(w, pr) != 0 || tt_part_end(w, pr) != 0) rc = 1;
    if (rc == 0 && o->max_part_size) tt_part_check_size(o, i, pp->bytes, w->part_bytes, 0);
  }
  if (rc != 0) tt_part_abort(w, pr);
  /* The reader keeps the filter's pid array: closed before it is freed. */
  hub_reader_close(pr);
  pr = NULL;
  free(pids);
  tags_free(tags, (size_t)count);
done:
  hub_reader_close(pr); /* the count alone, or a plan that failed */
  tt_proc_plan_free(&plan);
  process_keys_free(keys, n, paths, npaths);
  return rc;
}

