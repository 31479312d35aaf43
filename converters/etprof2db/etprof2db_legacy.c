/* The legacy ExecuTorch profiler buffer (prof_result.bin, written raw from
 * runtime/platform/profiler.cpp): a sequence of fixed-size blocks, each
 *   prof_header_t (64 B: name[32], prof_ver, max_prof_entries, prof_entries,
 *                  max_allocator_entries, allocator_entries,
 *                  max_mem_prof_entries, mem_prof_entries, 4 B padding)
 *   prof_event_t[max_prof_entries]        (56 B: name[32], int32 chain_idx,
 *                                          uint32 instruction_idx, uint64
 *                                          start_time, uint64 end_time)
 *   prof_allocator_t[max_allocator_entries] (40 B: name[32], uint64 id)
 *   mem_prof_event_t[max_mem_prof_entries]  (8 B: uint32 allocator_id,
 *                                            uint32 allocation_size)
 * little-endian, of which the first *_entries of each array are used.
 * Every header is checked (version, counts within capacities, the block
 * within the file) before any of its entries is read. The file is read
 * block by block with pread: memory holds one chunk of entries and, per
 * block name, the first iteration's entry names (the sanity checks
 * ExecuTorch's parse_profiler_results.py makes compare every iteration
 * with them). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/vec.h"
#include "etprof2db.h"
#include "base/progress.h"

#define HDR_SIZE 64u
#define EV_SIZE 56u
#define AL_SIZE 40u
#define MM_SIZE 8u
#define NAME_LEN 32u
#define PROF_VER 1u
#define CHUNK 1024u /* entries read at a time */

static uint32_t le32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32; }

/* A 32-byte name: NUL-padded, not NUL-terminated when it fills all 32. */
static void name32(const uint8_t *p, char out[NAME_LEN + 1]) {
  const uint8_t *z = memchr(p, 0, NAME_LEN);
  size_t n = z ? (size_t)(z - p) : NAME_LEN;
  memcpy(out, p, n);
  out[n] = 0;
}

typedef struct legacy {
  etp *c;
  int fd;
  uint64_t size;
  uint8_t *buf;
  /* allocator id -> name, from every allocator table read so far (the
   * Python parser keeps one such table for the whole file) */
  tt_i64map alloc_ids; /* id -> index into alloc_names */
  char **alloc_names;
  size_t nalloc_names, cap_alloc_names;
} legacy;

static int read_at(legacy *L, uint64_t off, size_t n) {
  size_t done = 0;
  while (done < n) {
    ssize_t r = pread(L->fd, L->buf + done, n - done, (off_t)(off + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      tt_error("%s: byte %llu: read failed: %s", L->c->path, (unsigned long long)(off + done),
               r < 0 ? strerror(errno) : "unexpected end of file");
      return -1;
    }
    done += (size_t)r;
  }
  return 0;
}

static const char *allocator_name(legacy *L, uint64_t id) {
  int64_t *i = tt_i64map_get(&L->alloc_ids, (int64_t)id);
  return i ? L->alloc_names[*i] : NULL;
}

static void set_allocator(legacy *L, uint64_t id, const char *name) {
  int64_t *i = tt_i64map_get(&L->alloc_ids, (int64_t)id);
  if (i) {
    free(L->alloc_names[*i]);
    L->alloc_names[*i] = tt_strdup(name);
    return;
  }
  tt_grow(L->alloc_names, L->nalloc_names + 1, L->cap_alloc_names);
  L->alloc_names[L->nalloc_names] = tt_strdup(name);
  tt_i64map_put(&L->alloc_ids, (int64_t)id, (int64_t)L->nalloc_names++);
}

typedef struct hdr {
  char name[NAME_LEN + 1];
  uint32_t ver, maxp, np, maxa, na, maxm, nm;
  uint64_t off, ev_off, al_off, mm_off, end;
} hdr;

/* Reads and checks the header of block `no` at `off`. */
static int read_header(legacy *L, int64_t no, uint64_t off, hdr *h) {
  etp *c = L->c;
  if (L->size - off < HDR_SIZE) {
    tt_error("%s: byte %llu: truncated in the header of block %lld (%u bytes, %llu left in the "
             "file)",
             c->path, (unsigned long long)off, (long long)no, HDR_SIZE,
             (unsigned long long)(L->size - off));
    return -1;
  }
  if (read_at(L, off, HDR_SIZE)) return -1;
  const uint8_t *p = L->buf;
  name32(p, h->name);
  h->ver = le32(p + 32);
  h->maxp = le32(p + 36);
  h->np = le32(p + 40);
  h->maxa = le32(p + 44);
  h->na = le32(p + 48);
  h->maxm = le32(p + 52);
  h->nm = le32(p + 56);
  if (h->ver != PROF_VER) {
    tt_error("%s: byte %llu: block %lld has prof_ver %u, expected %u (not an ExecuTorch "
             "profiler buffer, or another version)",
             c->path, (unsigned long long)(off + 32), (long long)no, h->ver, PROF_VER);
    return -1;
  }
  static const char *const what[3][2] = {{"prof_entries", "max_prof_entries"},
                                         {"allocator_entries", "max_allocator_entries"},
                                         {"mem_prof_entries", "max_mem_prof_entries"}};
  const uint32_t n[3] = {h->np, h->na, h->nm}, cap[3] = {h->maxp, h->maxa, h->maxm};
  for (int i = 0; i < 3; i++)
    if (n[i] > cap[i]) {
      tt_error("%s: byte %llu: block %lld ('%s'): %s %u exceeds %s %u", c->path,
               (unsigned long long)(off + 40 + 8 * (uint64_t)i), (long long)no, h->name,
               what[i][0], n[i], what[i][1], cap[i]);
      return -1;
    }
  h->off = off;
  h->ev_off = off + HDR_SIZE;
  h->al_off = h->ev_off + (uint64_t)h->maxp * EV_SIZE;
  h->mm_off = h->al_off + (uint64_t)h->maxa * AL_SIZE;
  h->end = h->mm_off + (uint64_t)h->maxm * MM_SIZE;
  if (h->end > L->size) {
    const char *region = L->size < h->al_off   ? "event table"
                         : L->size < h->mm_off ? "allocator table"
                                               : "allocation table";
    tt_error("%s: byte %llu: truncated in the %s of block %lld ('%s'): its capacities need "
             "bytes %llu..%llu, the file has %llu",
             c->path, (unsigned long long)L->size, region, (long long)no, h->name,
             (unsigned long long)off, (unsigned long long)h->end, (unsigned long long)L->size);
    return -1;
  }
  return 0;
}

static int read_events(legacy *L, int64_t no, const hdr *h, etp_block *b, int64_t iteration,
                       int first) {
  etp *c = L->c;
  if (!first && h->np != b->nnames &&
      etp_inconsistent(c, "byte %llu: block %lld ('%s', iteration %lld) has %u entries, its "
                          "iteration 0 had %zu",
                       (unsigned long long)(h->off + 40), (long long)no, h->name,
                       (long long)iteration, h->np, b->nnames))
    return -1;
  if (first) b->names = tt_calloc(h->np ? h->np : 1, sizeof *b->names), b->nnames = h->np;
  etp_ev e;
  memset(&e, 0, sizeof e);
  e.category = "executorch";
  e.chain_arg = "chain_idx";
  e.instr_arg = "instruction_idx";
  char name[NAME_LEN + 1];
  e.name = name;
  for (uint32_t i0 = 0; i0 < h->np; i0 += CHUNK) {
    uint32_t n = h->np - i0 < CHUNK ? h->np - i0 : CHUNK;
    if (read_at(L, h->ev_off + (uint64_t)i0 * EV_SIZE, (size_t)n * EV_SIZE)) return -1;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t i = i0 + k;
      const uint8_t *p = L->buf + (size_t)k * EV_SIZE;
      uint64_t at = h->ev_off + (uint64_t)i * EV_SIZE;
      name32(p, name);
      uint64_t start = le64(p + 40), end = le64(p + 48);
      e.chain = (int32_t)le32(p + 32);
      e.instr = le32(p + 36);
      e.index = i;
      e.unfinished = end == 0;
      if (!e.unfinished && end < start) {
        tt_error("%s: byte %llu: entry %u ('%s') of block %lld ends (%llu) before it starts "
                 "(%llu)",
                 c->path, (unsigned long long)(at + 48), i, name, (long long)no,
                 (unsigned long long)end, (unsigned long long)start);
        return -1;
      }
      if (etp_ticks_to_ns(c, start, at + 40, &e.start)) return -1;
      if (e.unfinished) {
        e.end = e.start;
        c->unfinished++;
        etp_warn(c, "byte %llu: entry %u ('%s') of block %lld began and never ended (end_time "
                    "0): kept with no duration, marked unfinished",
                 (unsigned long long)(at + 48), i, name, (long long)no);
      } else if (etp_ticks_to_ns(c, end, at + 48, &e.end)) {
        return -1;
      }
      if (first) {
        b->names[i] = tt_strdup(name);
      } else if (i < b->nnames && strcmp(b->names[i], name) != 0 &&
                 etp_inconsistent(c, "byte %llu: entry %u of block %lld ('%s', iteration %lld) "
                                     "is '%s', in iteration 0 it is '%s'",
                                  (unsigned long long)at, i, (long long)no, h->name,
                                  (long long)iteration, name, b->names[i])) {
        return -1;
      }
      etp_emit_event(c, b, iteration, -1, &e);
    }
  }
  return 0;
}

static int read_allocators(legacy *L, const hdr *h) {
  etp *c = L->c;
  if (!h->na) return 0;
  if (read_at(L, h->al_off, (size_t)h->na * AL_SIZE)) return -1;
  char name[NAME_LEN + 1];
  for (uint32_t i = 0; i < h->na; i++) {
    const uint8_t *p = L->buf + (size_t)i * AL_SIZE;
    name32(p, name);
    uint64_t id = le64(p + 32);
    set_allocator(L, id, name);
    etp_allocator(c, h->name, (int64_t)id, name);
  }
  return 0;
}

static int read_allocations(legacy *L, int64_t no, const hdr *h, etp_block *b,
                            int64_t iteration, int first, int64_t ts) {
  etp *c = L->c;
  if (first) {
    b->allocs = tt_calloc(2 * (size_t)h->nm + 1, sizeof *b->allocs);
    b->nallocs = h->nm;
  } else if (h->nm != b->nallocs &&
             etp_inconsistent(c, "byte %llu: block %lld ('%s', iteration %lld) has %u "
                                 "allocations, its iteration 0 had %zu",
                              (unsigned long long)(h->off + 56), (long long)no, h->name,
                              (long long)iteration, h->nm, b->nallocs)) {
    return -1;
  }
  char fallback[48];
  for (uint32_t i0 = 0; i0 < h->nm; i0 += CHUNK) {
    uint32_t n = h->nm - i0 < CHUNK ? h->nm - i0 : CHUNK;
    if (read_at(L, h->mm_off + (uint64_t)i0 * MM_SIZE, (size_t)n * MM_SIZE)) return -1;
    for (uint32_t k = 0; k < n; k++) {
      uint32_t i = i0 + k;
      uint64_t at = h->mm_off + (uint64_t)i * MM_SIZE;
      uint32_t id = le32(L->buf + (size_t)k * MM_SIZE), size = le32(L->buf + (size_t)k * MM_SIZE + 4);
      if (first) {
        b->allocs[2 * i] = id;
        b->allocs[2 * i + 1] = size;
      } else if (i < b->nallocs &&
                 (b->allocs[2 * i] != id || b->allocs[2 * i + 1] != size) &&
                 etp_inconsistent(c, "byte %llu: allocation %u of block %lld ('%s', iteration "
                                     "%lld) is allocator %u, %u bytes; in iteration 0 it is "
                                     "allocator %u, %u bytes",
                                  (unsigned long long)at, i, (long long)no, h->name,
                                  (long long)iteration, id, size, b->allocs[2 * i],
                                  b->allocs[2 * i + 1])) {
        return -1;
      }
      const char *an = allocator_name(L, id);
      if (!an) {
        snprintf(fallback, sizeof fallback, "allocator %u", id);
        if (etp_inconsistent(c, "byte %llu: allocation %u of block %lld ('%s') names allocator "
                                "id %u, which no allocator table defines",
                             (unsigned long long)at, i, (long long)no, h->name, id))
          return -1;
        an = fallback;
      }
      etp_emit_alloc(c, b, iteration, -1, ts, an, id, size);
    }
  }
  return 0;
}

int etp_read_legacy(etp *c) {
  legacy L;
  memset(&L, 0, sizeof L);
  L.c = c;
  L.fd = open(c->path, O_RDONLY | O_CLOEXEC);
  if (L.fd < 0) {
    tt_error("%s: cannot open: %s", c->path, strerror(errno));
    return -1;
  }
  struct stat st;
  if (fstat(L.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    tt_error("%s: not a regular file", c->path);
    close(L.fd);
    return -1;
  }
  L.size = (uint64_t)st.st_size;
  L.buf = tt_malloc((size_t)CHUNK * EV_SIZE);
  int rc = 0;
  if (L.size == 0) {
    tt_error("%s: byte 0: empty file (a profiler buffer starts with a 64-byte block header)",
             c->path);
    rc = -1;
  }
  int64_t no = 0;
  for (uint64_t off = 0; !rc && off < L.size; no++) {
    hdr h;
    if ((rc = read_header(&L, no, off, &h))) break;
    etp_block *b = etp_block_get(c, h.name);
    int64_t iteration = b->iterations++;
    int first = iteration == 0;
    int64_t before = c->last_ns;
    c->last_ns = INT64_MIN;
    if ((rc = read_events(&L, no, &h, b, iteration, first))) break;
    /* Allocations carry no time: they are placed at the iteration's
     * first event (entries are in the order they began). */
    int64_t ts = before == INT64_MIN ? 0 : before;
    if (h.np) {
      if (read_at(&L, h.ev_off + 40, 8)) { rc = -1; break; }
      if ((rc = etp_ticks_to_ns(c, le64(L.buf), h.ev_off + 40, &ts))) break;
    }
    if (c->last_ns < before) c->last_ns = before;
    if ((rc = read_allocators(&L, &h))) break;
    if ((rc = read_allocations(&L, no, &h, b, iteration, first, ts))) break;
    etp_iteration_end(c, b, iteration);
    off = h.end;
    tt_progress("bytes", off, L.size);
  }
  for (size_t i = 0; i < L.nalloc_names; i++) free(L.alloc_names[i]);
  free(L.alloc_names);
  tt_i64map_free(&L.alloc_ids);
  free(L.buf);
  close(L.fd);
  return rc;
}
