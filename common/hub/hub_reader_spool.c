/* A stream read once and replayed (hub_reader.h, hub_spool): a tap on a
 * reader writes each record it yields, in the format of
 * hub_reader_records.c, to an unlinked temporary file; a replay reader
 * reads them back with pread at an offset of its own, so any number of
 * readers, on any threads, read one spool at once, even while it is
 * written (hub_spool_fill: they wait for what is not written yet). Both
 * answer an event's args and track name from the record itself, as the
 * merge in passes does, and ask their inputs (the tap's reader, the
 * replay's info-only open) for anything else: the args of an event held
 * past its record, the time span, counts. A spool given up (the disk is
 * full) is emptied at once; a replay then reads its inputs, from where it
 * was. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "hub/hub_reader_internal.h"
#include "hub/hub_reader_args.h"
#include "hub/hub_reader_records.h"

/* The spool's state: written to, complete, given up (its disk freed:
 * replays read their inputs instead), or ended by its reader's error
 * (said by the reader: replays fail). */
enum { SPOOL_OPEN, SPOOL_COMPLETE, SPOOL_GIVEN_UP, SPOOL_READ_FAILED };

struct hub_spool {
  int fd;          /* the file: written by its tap, read by replays (pread) */
  tt_buf wbuf;     /* the tap's records not yet written */
  int tapped;
  size_t ndbs;        /* the stream's inputs */
  int64_t start, end; /* and its filter's time range: a replay must agree */
  pthread_mutex_t mu; /* guards visible; state changes under it too */
  pthread_cond_t grew;
  int64_t visible; /* bytes written, which replays may read */
  _Atomic int state; /* read without mu: the tap asks at every record */
  /* Each input's rocpd_arg order, as the tap's reader checked it
   * (hr_args_prepare), for replays that look an event's args up (one held
   * past its record): they need not scan rocpd_arg again. Under mu. */
  hr_db_args *orders;
  unsigned char *ordered_known;
  /* hub_spool_fill's thread, reading fill_r to its end. */
  pthread_t filler; /* joined by hub_spool_free (a tool that exits early,
                     * tt_die, ends it with the process) */
  int filling;
  int filled; /* under mu: the thread touches s no more */
  atomic_int stop;
  hub_reader *fill_r;
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

/* A tap: a source wrapping the reader's own (base.inner), writing each
 * record it reads into the spool. */
struct hr_tap {
  hr_source base;
  hub_spool *s;
  held h;
};

/* A replay: a source of the spool's records; base.inner is the reader's
 * own source, asked only what the records do not hold (a direct reader's
 * lookups, or a reader in passes' groups). */
struct hr_replay {
  hr_source base;
  hub_spool *s;
  off_t off; /* of the next byte to read into buf */
  char *buf;
  size_t pos, len;
  uint64_t records; /* handed out: skipped when reading the inputs instead */
  held h;
};

static const hr_source_ops tap_ops, replay_ops;

#define REPLAY_BUF (256u << 10)
#define SPOOL_BUF (1u << 20)

hub_spool *hub_spool_new(void) {
  hub_spool *s = tt_calloc(1, sizeof *s);
  s->fd = -1;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->grew, NULL);
  atomic_init(&s->stop, 0);
  atomic_init(&s->state, SPOOL_OPEN);
  return s;
}

static int spool_state(hub_spool *s) { return atomic_load(&s->state); }

static void set_state(hub_spool *s, int st) {
  pthread_mutex_lock(&s->mu);
  if (s->state == SPOOL_OPEN) s->state = st;
  pthread_cond_broadcast(&s->grew);
  pthread_mutex_unlock(&s->mu);
}

int hub_spool_usable(hub_spool *s) {
  if (!s || !s->tapped) return 0;
  int st = spool_state(s);
  return st == SPOOL_COMPLETE || (st == SPOOL_OPEN && s->filling);
}

void hub_spool_free(hub_spool *s) {
  if (!s) return;
  if (s->filling) {
    /* Joined, not only waited for: its last unlock of mu may still be
     * under way when it says filled, and mu is destroyed below. */
    atomic_store(&s->stop, 1);
    pthread_join(s->filler, NULL);
  }
  /* Closed here, once filled, not on its thread: SQLite leaves the
   * descriptor of a connection closed while another holds a lock on the
   * file for the last one to close, which may be this thread's. */
  hub_reader_close(s->fill_r);
  if (s->fd >= 0) close(s->fd);
  tt_buf_free(&s->wbuf);
  free(s->orders);
  free(s->ordered_known);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->grew);
  free(s);
}

/* Gives the spool up and frees its disk (the file is emptied, not closed:
 * a replay may be reading it); replays read their inputs instead. */
static void spool_give_up(hub_spool *s, const char *why) {
  if (spool_state(s) != SPOOL_OPEN) return;
  /* Given up before it is emptied: a replay whose read finds it empty
   * then knows why (else it would take it for a read error). */
  set_state(s, SPOOL_GIVEN_UP);
  if (s->fd >= 0 && ftruncate(s->fd, 0) != 0) {
    /* the space stays taken until the spool is freed */
  }
  if (why) tt_warn("cannot keep the stream read in a temporary file (%s): reading it again instead",
                   why);
}

/* Writes the records gathered, then lets replays read them. */
static int spool_flush(hub_spool *s) {
  size_t done = 0;
  while (done < s->wbuf.len) {
    ssize_t k = write(s->fd, s->wbuf.data + done, s->wbuf.len - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      spool_give_up(s, k < 0 ? strerror(errno) : "nothing written");
      return -1;
    }
    done += (size_t)k;
  }
  tt_buf_clear(&s->wbuf);
  pthread_mutex_lock(&s->mu);
  s->visible += (int64_t)done;
  pthread_cond_broadcast(&s->grew);
  pthread_mutex_unlock(&s->mu);
  return 0;
}

/* Whether TMPDIR has room for a spool of r's stream: a record takes
 * about what its rows take in the hub, or a few times that where names
 * are long (each record carries its own), so room for 4x the inputs'
 * bytes; a spool that fills the disk anyway is given up. */
static int spool_fits(const hub_reader *r) {
  uint64_t inputs = 0;
  for (size_t i = 0; i < r->in.ndbs; i++) {
    struct stat st;
    if (i > 0 && strcmp(r->in.dbs[i].path, r->in.dbs[i - 1].path) == 0) continue; /* a merged file */
    if (stat(r->in.dbs[i].path, &st) == 0) inputs += (uint64_t)st.st_size;
  }
  struct statvfs vfs;
  if (statvfs(hr_temp_dir(), &vfs) != 0) return 1; /* making the file will say */
  return (uint64_t)vfs.f_bavail * vfs.f_frsize / 4 >= inputs;
}

int hub_reader_spool_into(hub_reader *r, hub_spool *s) {
  if (r->merge.primed || r->tap || r->replay || s->tapped) return -1;
  if (!spool_fits(r)) {
    tt_warn("%s: too little free space to keep the stream read (4x the inputs' bytes): reading "
            "it again instead", hr_temp_dir());
    return -1;
  }
  s->fd = hr_temp_fd();
  if (s->fd < 0) {
    tt_warn("%s: cannot make a temporary file to keep the stream read (%s): reading it again "
            "instead", hr_temp_dir(), strerror(errno));
    return -1;
  }
  s->tapped = 1;
  s->ndbs = r->in.ndbs;
  s->orders = tt_calloc(r->in.ndbs ? r->in.ndbs : 1, sizeof *s->orders);
  s->ordered_known = tt_calloc(r->in.ndbs ? r->in.ndbs : 1, 1);
  s->start = r->filter.start;
  s->end = r->filter.end;
  struct hr_tap *t = tt_calloc(1, sizeof *t);
  t->base = (hr_source){.ops = &tap_ops, .r = r, .inner = r->src};
  t->s = s;
  r->tap = t;
  r->src = &t->base; /* wraps the reader's source */
  return 0;
}

/* --- reading the inputs into it on a thread of its own ------------------- */

/* A tt_die on the filling thread (out of memory) ends that thread only
 * (tt_die_ends_thread): its replays then fail. */
static void filler_gone(void *arg) {
  hub_spool *s = arg;
  pthread_mutex_lock(&s->mu);
  if (s->state == SPOOL_OPEN) s->state = SPOOL_READ_FAILED;
  s->filled = 1;
  pthread_cond_broadcast(&s->grew);
  pthread_mutex_unlock(&s->mu);
}

static void *fill(void *arg) {
  hub_spool *s = arg;
  tt_die_ends_thread();
  pthread_cleanup_push(filler_gone, s);
  hub_record ev;
  while (!atomic_load(&s->stop) && hub_reader_next(s->fill_r, &ev) > 0) {
  }
  if (atomic_load(&s->stop)) spool_give_up(s, NULL); /* nobody reads it any more */
  pthread_cleanup_pop(1); /* filled: the last touch of s */
  return NULL; /* fill_r is closed by the caller's thread (hub_spool_free) */
}

int hub_spool_fill(hub_spool *s, hub_reader *r) {
  /* A reader in passes read its inputs when it opened: merging its
   * streams on a thread would save little, and a replay in passes cannot
   * go back to its inputs if the spool is given up. */
  if (!r->tap || r->tap->s != s || r->passes) return -1;
  s->fill_r = r;
  /* Signals go to the caller's thread, whose handlers remove the parts. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&s->filler, NULL, fill, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) { /* the caller reads r itself */
    s->fill_r = NULL;
    return -1;
  }
  s->filling = 1;
  return 0;
}

/* --- the tap ----------------------------------------------------------- */

static int tap_next(hr_source *src, hub_record *ev) {
  struct hr_tap *t = (struct hr_tap *)src;
  hub_spool *s = t->s;
  hub_reader *r = src->r;
  t->h.current = t->h.args_own = 0;
  int rc = src->inner->ops->next(src->inner, ev);
  if (spool_state(s) != SPOOL_OPEN) return rc;
  if (rc > 0) {
    hr_rec_pack(src->inner, ev, &t->h.rec, &t->h.pay);
    t->h.current = 1;
    hub_db *d = &r->in.dbs[ev->db];
    if (d->args.checked && !s->ordered_known[ev->db]) { /* the check its args needed */
      pthread_mutex_lock(&s->mu);
      hr_args_order_copy(&s->orders[ev->db], &d->args);
      s->ordered_known[ev->db] = 1;
      pthread_mutex_unlock(&s->mu);
    }
    tt_buf_append(&s->wbuf, (const char *)&t->h.rec, sizeof t->h.rec);
    tt_buf_append(&s->wbuf, t->h.pay.data, t->h.rec.payload);
    if (s->wbuf.len >= SPOOL_BUF) spool_flush(s);
  } else if (rc == 0) {
    if (spool_flush(s) == 0) set_state(s, SPOOL_COMPLETE);
  } else {
    set_state(s, SPOOL_READ_FAILED); /* the read failed, and said so */
  }
  return rc;
}

/* A tap closed before the end of its stream leaves it incomplete. */
static void tap_free(hr_source *src) {
  struct hr_tap *t = (struct hr_tap *)src;
  if (spool_state(t->s) == SPOOL_OPEN) spool_give_up(t->s, NULL);
  tt_buf_free(&t->h.pay);
  if (src->inner) src->inner->ops->free(src->inner);
  if (src->r->tap == t) src->r->tap = NULL;
  free(t);
}

/* --- the replay -------------------------------------------------------- */

int hr_replay_start(hub_reader *r) {
  hub_spool *s = r->filter.replay;
  if (!hub_spool_usable(s) || s->ndbs != r->in.ndbs || s->start != r->filter.start ||
      s->end != r->filter.end) {
    tt_error("replaying a stream read before: it is not this reader's (a bug, please report it)");
    return -1;
  }
  struct hr_replay *p = tt_calloc(1, sizeof *p);
  p->base = (hr_source){.ops = &replay_ops, .r = r, .inner = r->src};
  p->s = s;
  p->buf = tt_malloc(REPLAY_BUF);
  r->replay = p;
  r->src = &p->base;
  return 0;
}

static void replay_free(hr_source *src) {
  struct hr_replay *p = (struct hr_replay *)src;
  free(p->buf);
  tt_buf_free(&p->h.pay);
  if (src->inner) src->inner->ops->free(src->inner);
  if (src->r->replay == p) src->r->replay = NULL;
  free(p);
}

hr_source *hr_replay_end(hub_reader *r, uint64_t *records) {
  struct hr_replay *p = r->replay;
  hr_source *inner = p->base.inner;
  *records = p->records;
  p->base.inner = NULL;
  replay_free(&p->base);
  return inner;
}

/* What replay_read found. */
enum { READ_END, READ_OK, READ_ERROR, READ_FAILED, READ_GIVEN_UP };

/* n bytes into dst, waiting for a spool being written: READ_OK, READ_END
 * at its end before any byte, READ_ERROR on a read error or a record cut
 * short (errno set), READ_FAILED when its reader failed, READ_GIVEN_UP. */
static int replay_read(struct hr_replay *p, void *dst, size_t n) {
  char *out = dst;
  size_t got = 0;
  hub_spool *s = p->s;
  while (got < n) {
    if (p->pos == p->len) {
      pthread_mutex_lock(&s->mu);
      while (s->visible == p->off && s->state == SPOOL_OPEN) pthread_cond_wait(&s->grew, &s->mu);
      int64_t avail = s->visible - p->off;
      int st = s->state;
      pthread_mutex_unlock(&s->mu);
      if (st == SPOOL_GIVEN_UP) return READ_GIVEN_UP;
      if (avail <= 0) {
        if (st == SPOOL_READ_FAILED) return READ_FAILED;
        errno = 0;
        return got == 0 ? READ_END : READ_ERROR;
      }
      size_t want = avail < (int64_t)REPLAY_BUF ? (size_t)avail : REPLAY_BUF;
      ssize_t k = pread(s->fd, p->buf, want, p->off);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        if (spool_state(s) == SPOOL_GIVEN_UP) return READ_GIVEN_UP; /* emptied meanwhile */
        if (k == 0) errno = 0;
        return READ_ERROR;
      }
      p->off += k;
      p->pos = 0;
      p->len = (size_t)k;
    }
    size_t c = n - got < p->len - p->pos ? n - got : p->len - p->pos;
    memcpy(out + got, p->buf + p->pos, c);
    p->pos += c;
    got += c;
  }
  return READ_OK;
}

static int replay_next(hr_source *src, hub_record *ev) {
  struct hr_replay *p = (struct hr_replay *)src;
  hub_reader *r = src->r;
  held *h = &p->h;
  h->current = h->args_own = 0;
  if (r->failed) return -1;
  int rc = replay_read(p, &h->rec, sizeof h->rec);
  if (rc == READ_OK) {
    tt_buf_clear(&h->pay);
    tt_buf_reserve(&h->pay, h->rec.payload + 1);
    rc = replay_read(p, h->pay.data, h->rec.payload);
    if (rc == READ_END) rc = READ_ERROR;
    h->pay.len = h->rec.payload;
    h->pay.data[h->pay.len] = '\0';
  }
  if (rc == READ_GIVEN_UP) return HR_SOURCE_GIVEN_UP; /* its reader reads its inputs instead */
  if (rc == READ_ERROR)
    tt_error("reading the stream kept in a temporary file: %s",
             errno ? strerror(errno) : "a record cut short");
  if (rc == READ_ERROR || rc == READ_FAILED) { /* READ_FAILED: said by its reader */
    r->failed = 1;
    return -1;
  }
  if (rc == READ_END) return 0;
  hr_rec_view(&h->rec, h->pay.data, ev);
  h->current = 1;
  p->records++;
  return 1;
}

/* --- what a tap and a replay answer beside the records ------------------ */

/* The record a tap or a replay read last: an event's args and track name
 * come from its record; anything else (another event's args, held past
 * its record) from the source it wraps. */
static held *front_held(hr_source *src) {
  return src->ops == &tap_ops ? &((struct hr_tap *)src)->h : &((struct hr_replay *)src)->h;
}

static void front_args_begin(hr_source *src, int db, int64_t event_id) {
  held *h = front_held(src);
  hub_reader *r = src->r;
  h->args_own = held_is(h, db, event_id, 0);
  if (h->args_own) {
    hr_rec_args_begin(&h->args, &h->rec, h->pay.data);
    return;
  }
  hub_db *d = db >= 0 && (size_t)db < r->in.ndbs ? &r->in.dbs[db] : NULL;
  if (src->ops == &replay_ops && d && d->conn && !d->args.checked) {
    /* Its tap checked rocpd_arg's order when it read the event. */
    hub_spool *s = ((struct hr_replay *)src)->s;
    pthread_mutex_lock(&s->mu);
    if (s->ordered_known[db]) hr_args_order_copy(&d->args, &s->orders[db]);
    pthread_mutex_unlock(&s->mu);
  }
  src->inner->ops->args_begin(src->inner, db, event_id);
}

static int front_args_next(hr_source *src, hub_arg_view *a) {
  held *h = front_held(src);
  return h->args_own ? hr_rec_args_next(&h->args, a) : src->inner->ops->args_next(src->inner, a);
}

static const char *front_track_name(hr_source *src, int db, int64_t track_id) {
  held *h = front_held(src);
  if (held_is(h, db, track_id, 1)) return hr_rec_str(h->pay.data, 3);
  return src->inner->ops->track_name(src->inner, db, track_id);
}

static const hr_source_ops tap_ops = {tap_next, front_args_begin, front_args_next,
                                      front_track_name, tap_free};
static const hr_source_ops replay_ops = {replay_next, front_args_begin, front_args_next,
                                         front_track_name, replay_free};
