/* A stream read once and replayed (hub_reader.h, hub_spool): a tap on a
 * reader writes each record it yields, in the format of
 * hub_reader_records.c, to an unlinked temporary file; a replay reader
 * reads them back with pread at an offset of its own, so any number of
 * readers, on any threads, read one spool at once. Both answer an event's
 * args and track name from the record itself, as the merge in passes
 * does, and ask their inputs (the tap's reader, the replay's info-only
 * open) for anything else: the args of an event held past its record,
 * the time span, counts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hub/hub_reader_internal.h"

struct hub_spool {
  FILE *out; /* written by its tap through this */
  int fd;    /* and read by replays with pread */
  int tapped, complete, failed;
  size_t ndbs;         /* the stream's inputs */
  int64_t start, end;  /* and its filter's time range: a replay must agree */
};

/* The record read last, with its payload, and the args being iterated
 * from it. */
typedef struct held {
  hr_disk_rec rec;
  tt_buf pay;
  int current;  /* rec is the record read last */
  int args_own; /* the args iterated are rec's */
  hr_rec_args args;
} held;

static int held_is(const held *h, int db, int64_t id, int by_track) {
  if (!h->current || h->rec.ev.db != db) return 0;
  return by_track ? h->rec.ev.track_id == id : id != HUB_NULL && h->rec.ev.event_id == id;
}

struct hr_tap {
  hub_spool *s;
  const hr_ops *inner; /* the reader's own reading */
  held h;
};

struct hr_replay {
  const hub_spool *s;
  off_t off; /* of the next byte to read into buf */
  char *buf;
  size_t pos, len;
  held h;
};

#define REPLAY_BUF (256u << 10)
#define SPOOL_BUF (1u << 20)

hub_spool *hub_spool_new(void) {
  hub_spool *s = tt_calloc(1, sizeof *s);
  s->fd = -1;
  return s;
}

int hub_spool_complete(const hub_spool *s) { return s && s->complete && !s->failed; }

void hub_spool_free(hub_spool *s) {
  if (!s) return;
  if (s->out) fclose(s->out);
  free(s);
}

/* Gives up the spool (the disk it took too): its readers read the inputs
 * again. */
static void spool_fail(hub_spool *s, const char *why) {
  if (s->failed) return;
  s->failed = 1;
  s->complete = 0;
  if (s->out) fclose(s->out);
  s->out = NULL;
  s->fd = -1;
  if (why) tt_warn("cannot keep the stream read in a temporary file (%s): reading it again instead",
                   why);
}

/* Whether TMPDIR has room for a spool of r's stream: a record takes
 * about what its rows take in the hub, or a few times that where names
 * are long (each record carries its own), so room for 4x the inputs'
 * bytes; a spool that fills the disk anyway is given up (spool_fail). */
static int spool_fits(const hub_reader *r) {
  uint64_t inputs = 0;
  for (size_t i = 0; i < r->ndbs; i++) {
    struct stat st;
    if (i > 0 && strcmp(r->dbs[i].path, r->dbs[i - 1].path) == 0) continue; /* a merged file */
    if (stat(r->dbs[i].path, &st) == 0) inputs += (uint64_t)st.st_size;
  }
  struct statvfs vfs;
  if (statvfs(hr_temp_dir(), &vfs) != 0) return 1; /* making the file will say */
  return (uint64_t)vfs.f_bavail * vfs.f_frsize / 4 >= inputs;
}

int hub_reader_spool_into(hub_reader *r, hub_spool *s) {
  if (r->passes || r->primed || r->tap || r->replay || s->tapped) return -1;
  s->tapped = 1;
  if (!spool_fits(r)) {
    s->failed = 1;
    tt_warn("%s: too little free space to keep the stream read (4x the inputs' bytes): reading "
            "it again instead", hr_temp_dir());
    return -1;
  }
  s->out = hr_temp_file();
  if (!s->out) {
    s->failed = 1;
    tt_warn("%s: cannot make a temporary file to keep the stream read (%s): reading it again "
            "instead", hr_temp_dir(), strerror(errno));
    return -1;
  }
  setvbuf(s->out, NULL, _IOFBF, SPOOL_BUF);
  s->fd = fileno(s->out);
  s->ndbs = r->ndbs;
  s->start = r->filter.start;
  s->end = r->filter.end;
  r->tap = tt_calloc(1, sizeof *r->tap);
  r->tap->s = s;
  r->tap->inner = r->ops;
  r->ops = &hr_tap_ops;
  return 0;
}

void hr_tap_free(hub_reader *r) {
  if (!r->tap) return;
  tt_buf_free(&r->tap->h.pay);
  free(r->tap);
  r->tap = NULL;
}

/* --- the tap ----------------------------------------------------------- */

static int tap_next(hub_reader *r, hub_record *ev) {
  struct hr_tap *t = r->tap;
  t->h.current = t->h.args_own = 0;
  int rc = t->inner->next(r, ev);
  if (t->s->failed || t->s->complete) return rc;
  if (rc > 0) {
    hr_rec_pack(r, t->inner, ev, &t->h.rec, &t->h.pay);
    t->h.current = 1;
    if (!hr_rec_write(t->s->out, &t->h.rec, &t->h.pay)) spool_fail(t->s, strerror(errno));
  } else if (rc == 0) {
    if (fflush(t->s->out) != 0) spool_fail(t->s, strerror(errno));
    else t->s->complete = 1;
  } else {
    spool_fail(t->s, NULL); /* the read failed, and said so */
  }
  return rc;
}

static void tap_args_begin(hub_reader *r, int db, int64_t event_id) {
  held *h = &r->tap->h;
  h->args_own = held_is(h, db, event_id, 0);
  if (h->args_own) hr_rec_args_begin(&h->args, &h->rec, h->pay.data);
  else r->tap->inner->args_begin(r, db, event_id);
}

static int tap_args_next(hub_reader *r, hub_arg_view *a) {
  held *h = &r->tap->h;
  return h->args_own ? hr_rec_args_next(&h->args, a) : r->tap->inner->args_next(r, a);
}

static const char *tap_track_name(hub_reader *r, int db, int64_t track_id) {
  held *h = &r->tap->h;
  if (held_is(h, db, track_id, 1)) return hr_rec_str(h->pay.data, 3);
  return r->tap->inner->track_name(r, db, track_id);
}

static int tap_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  return r->tap->inner->time_span(r, min_start, max_end);
}

static int tap_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  return r->tap->inner->process_has_events(r, host, pid);
}

static int64_t tap_row_count(hub_reader *r) { return r->tap->inner->row_count(r); }

static int tap_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  return r->tap->inner->category_counts(r, out, n);
}

/* In hr_ops's order (no two slots have one type: the compiler checks it). */
const hr_ops hr_tap_ops = {tap_next,       tap_args_begin,         tap_args_next,
                           tap_track_name, tap_time_span,          tap_process_has_events,
                           tap_row_count,  tap_category_counts};

/* --- the replay -------------------------------------------------------- */

int hr_replay_start(hub_reader *r) {
  const hub_spool *s = r->filter.replay;
  if (!hub_spool_complete(s) || s->ndbs != r->ndbs || s->start != r->filter.start ||
      s->end != r->filter.end) {
    tt_error("replaying a stream read before: it is not this reader's (a bug, please report it)");
    return -1;
  }
  r->replay = tt_calloc(1, sizeof *r->replay);
  r->replay->s = s;
  r->replay->buf = tt_malloc(REPLAY_BUF);
  r->ops = &hr_replay_ops;
  return 0;
}

void hr_replay_free(hub_reader *r) {
  if (!r->replay) return;
  free(r->replay->buf);
  tt_buf_free(&r->replay->h.pay);
  free(r->replay);
  r->replay = NULL;
}

/* n bytes into dst: 1, 0 at the end before any byte, -1 on an error or a
 * record cut short. */
static int replay_read(struct hr_replay *p, void *dst, size_t n) {
  char *out = dst;
  size_t got = 0;
  while (got < n) {
    if (p->pos == p->len) {
      ssize_t k = pread(p->s->fd, p->buf, REPLAY_BUF, p->off);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) return k == 0 && got == 0 ? 0 : -1;
      p->off += k;
      p->pos = 0;
      p->len = (size_t)k;
    }
    size_t c = n - got < p->len - p->pos ? n - got : p->len - p->pos;
    memcpy(out + got, p->buf + p->pos, c);
    p->pos += c;
    got += c;
  }
  return 1;
}

static int replay_next(hub_reader *r, hub_record *ev) {
  struct hr_replay *p = r->replay;
  held *h = &p->h;
  h->current = h->args_own = 0;
  if (r->failed) return -1;
  int rc = replay_read(p, &h->rec, sizeof h->rec);
  if (rc > 0) {
    tt_buf_clear(&h->pay);
    tt_buf_reserve(&h->pay, h->rec.payload + 1);
    rc = replay_read(p, h->pay.data, h->rec.payload) > 0 ? 1 : -1;
    h->pay.len = h->rec.payload;
    h->pay.data[h->pay.len] = '\0';
  }
  if (rc < 0) {
    tt_error("reading the stream read before from its temporary file: %s",
             errno ? strerror(errno) : "cut short");
    r->failed = 1;
    return -1;
  }
  if (rc == 0) return 0;
  hr_rec_view(&h->rec, h->pay.data, ev);
  h->current = 1;
  return 1;
}

/* An event's args from its record; another's (held past its record) by
 * the inputs' lookup by id. */
static void replay_args_begin(hub_reader *r, int db, int64_t event_id) {
  held *h = &r->replay->h;
  h->args_own = held_is(h, db, event_id, 0);
  if (h->args_own) hr_rec_args_begin(&h->args, &h->rec, h->pay.data);
  else hr_direct_args_begin(r, db, event_id);
}

static int replay_args_next(hub_reader *r, hub_arg_view *a) {
  held *h = &r->replay->h;
  return h->args_own ? hr_rec_args_next(&h->args, a) : hr_direct_args_next(r, a);
}

static const char *replay_track_name(hub_reader *r, int db, int64_t track_id) {
  held *h = &r->replay->h;
  if (held_is(h, db, track_id, 1)) return hr_rec_str(h->pay.data, 3);
  return hr_direct_ops.track_name(r, db, track_id);
}

static int replay_time_span(hub_reader *r, int64_t *min_start, int64_t *max_end) {
  return hr_direct_ops.time_span(r, min_start, max_end);
}

static int replay_process_has_events(hub_reader *r, const char *host, int64_t pid) {
  return hr_direct_ops.process_has_events(r, host, pid);
}

static int64_t replay_row_count(hub_reader *r) { return hr_direct_ops.row_count(r); }

static int replay_category_counts(hub_reader *r, hub_category_count **out, size_t *n) {
  return hr_direct_ops.category_counts(r, out, n);
}

const hr_ops hr_replay_ops = {replay_next,       replay_args_begin,         replay_args_next,
                              replay_track_name, replay_time_span,          replay_process_has_events,
                              replay_row_count,  replay_category_counts};
