#include "export_pipe.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite_setup.h"
#include "util.h"

/* A record copied out of the reader: its strings (and args, as name, type,
 * value triples) at offsets in the batch's arena. */
typedef struct prec {
  hub_record ev; /* string pointers set when the batch is published */
  size_t name, kernel_name, category, track, args;
  uint32_t nargs;
  uint8_t has_args;  /* its args were copied */
  uint8_t has_track; /* its track name was copied (readers in passes) */
} prec;

typedef struct batch {
  prec *recs;
  size_t n, cap;
  tt_buf arena;
  int status; /* after the records: 1 more batches follow, 0 end, -1 error */
  /* Messages the reader printed: message k is msgs[from .. end[k]),
   * printed before record at[k] (n: after the last). */
  tt_buf msgs;
  size_t *msg_at, *msg_end, nmsgs, cap_msgs;
} batch;

struct tt_pipe {
  hub_reader *r, *view;
  hub_served served;
  int by_id;
  /* Lookups by id, on the main thread: a second reader of the same
   * inputs, opened at the first lookup (never stepped). */
  const char *const *paths;
  size_t npaths;
  hub_filter filter;
  hub_reader *lookup;
  int lookup_failed;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t to_reader, to_main;
  batch slots[PIPE_SLOTS];
  uint64_t head, tail; /* batches published; batches released by the main thread */
  int stop, done;
  tt_buf capture; /* the reader thread's messages, moved into batches */
  /* The main thread's side. */
  uint64_t cur; /* batch being read */
  int have_cur;
  size_t pos, next_msg;
  const prec *last; /* the record taken last, NULL after the end */
  const char *args_at;
  uint32_t args_left;
};

/* --- the reader thread ------------------------------------------------ */

static size_t put_str(tt_buf *b, const char *s) {
  size_t off = b->len;
  tt_buf_append(b, s, strlen(s) + 1);
  return off;
}

static void take_messages(tt_pipe *p, batch *b, size_t at) {
  if (!p->capture.len) return;
  if (b->nmsgs == b->cap_msgs) {
    b->cap_msgs = b->cap_msgs ? 2 * b->cap_msgs : 4;
    b->msg_at = tt_realloc(b->msg_at, b->cap_msgs * sizeof *b->msg_at);
    b->msg_end = tt_realloc(b->msg_end, b->cap_msgs * sizeof *b->msg_end);
  }
  tt_buf_append(&b->msgs, p->capture.data, p->capture.len);
  b->msg_at[b->nmsgs] = at;
  b->msg_end[b->nmsgs++] = b->msgs.len;
  tt_buf_clear(&p->capture);
}

static void add_record(tt_pipe *p, batch *b, const hub_record *ev) {
  if (b->n == b->cap) {
    b->cap = b->cap ? 2 * b->cap : 256;
    b->recs = tt_realloc(b->recs, b->cap * sizeof *b->recs);
  }
  prec *c = &b->recs[b->n++];
  c->ev = *ev;
  c->name = put_str(&b->arena, ev->name);
  c->kernel_name = ev->kernel_name[0] ? put_str(&b->arena, ev->kernel_name) : (size_t)-1;
  c->category = ev->category[0] ? put_str(&b->arena, ev->category) : (size_t)-1;
  c->nargs = 0;
  c->has_args = c->has_track = 0;
  /* A reader merging in passes gives args and track names for the record
   * read last only: they travel with it. (A direct reader's are looked up
   * by id on the main thread.) */
  if (p->by_id) return;
  if (ev->event_id != HUB_NULL) {
    hub_arg_view a;
    c->args = b->arena.len;
    c->has_args = 1;
    hub_args_begin(p->r, ev->db, ev->event_id);
    while (hub_args_next(p->r, &a)) {
      put_str(&b->arena, a.name);
      put_str(&b->arena, a.type);
      put_str(&b->arena, a.value);
      c->nargs++;
    }
  }
  if (ev->track_id != HUB_NULL) {
    c->track = put_str(&b->arena, hub_reader_track_name(p->r, ev->db, ev->track_id));
    c->has_track = 1;
  }
}

/* The record's strings, now that the arena no longer moves. */
static void publish(batch *b) {
  const char *a = b->arena.data;
  for (size_t i = 0; i < b->n; i++) {
    prec *c = &b->recs[i];
    c->ev.name = a + c->name;
    c->ev.kernel_name = c->kernel_name == (size_t)-1 ? "" : a + c->kernel_name;
    c->ev.category = c->category == (size_t)-1 ? "" : a + c->category;
  }
}

/* Reads one batch: its status (1 full, 0 end of stream, -1 error). */
static int fill(tt_pipe *p, batch *b) {
  b->n = 0;
  tt_buf_clear(&b->arena);
  tt_buf_clear(&b->msgs);
  b->nmsgs = 0;
  for (;;) {
    hub_record ev;
    int rc = hub_reader_next(p->r, &ev);
    take_messages(p, b, b->n);
    if (rc <= 0) return rc < 0 ? -1 : 0;
    add_record(p, b, &ev);
    take_messages(p, b, b->n - 1);
    if (b->n >= PIPE_BATCH || b->arena.len >= PIPE_ARENA) return 1;
  }
}

static void *reader_main(void *arg) {
  tt_pipe *p = arg;
  tt_capture_messages(&p->capture);
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    if (p->done || p->head - p->tail >= PIPE_SLOTS) {
      pthread_cond_wait(&p->to_reader, &p->mu);
      continue;
    }
    batch *b = &p->slots[p->head % PIPE_SLOTS];
    pthread_mutex_unlock(&p->mu);
    int status = fill(p, b);
    publish(b);
    pthread_mutex_lock(&p->mu);
    b->status = status;
    if (status != 1) p->done = 1;
    p->head++;
    pthread_cond_broadcast(&p->to_main);
  }
  pthread_mutex_unlock(&p->mu);
  tt_capture_messages(NULL);
  return NULL;
}

/* --- the main thread -------------------------------------------------- */

static batch *current(tt_pipe *p) { return &p->slots[p->cur % PIPE_SLOTS]; }

static void print_messages(const batch *b, size_t from, size_t to) {
  size_t start = from ? b->msg_end[from - 1] : 0;
  if (to > from) fwrite(b->msgs.data + start, 1, b->msg_end[to - 1] - start, stderr);
}

int tt_pipe_next(tt_pipe *p, hub_record *ev) {
  for (;;) {
    if (p->have_cur) {
      batch *b = current(p);
      size_t m = p->next_msg;
      while (m < b->nmsgs && b->msg_at[m] <= p->pos) m++;
      print_messages(b, p->next_msg, m);
      p->next_msg = m;
      if (p->pos < b->n) {
        p->last = &b->recs[p->pos++];
        *ev = p->last->ev;
        return 1;
      }
      if (b->status != 1) {
        p->last = NULL;
        return b->status;
      }
    }
    pthread_mutex_lock(&p->mu);
    if (p->have_cur) p->cur++;
    p->tail = p->cur;
    pthread_cond_signal(&p->to_reader);
    while (p->head <= p->cur) pthread_cond_wait(&p->to_main, &p->mu);
    pthread_mutex_unlock(&p->mu);
    p->have_cur = 1;
    p->pos = 0;
    p->next_msg = 0;
  }
}

/* The main thread's reader for lookups by id (NULL if it cannot open). */
static hub_reader *lookup_reader(tt_pipe *p) {
  if (!p->lookup && !p->lookup_failed) {
    p->lookup = hub_reader_open(p->paths, p->npaths, &p->filter);
    p->lookup_failed = !p->lookup;
    if (p->lookup) hub_reader_hold_read(p->lookup);
  }
  return p->lookup;
}

static void view_args_begin(void *ctx, int db, int64_t event_id) {
  tt_pipe *p = ctx;
  p->args_left = 0;
  if (p->by_id) {
    hub_reader *l = lookup_reader(p);
    if (l) hub_args_begin(l, db, event_id);
    return;
  }
  /* In passes: the args of the record read last only, as the reader. */
  const prec *c = p->last;
  if (event_id == HUB_NULL || !c || !c->has_args || c->ev.db != db || c->ev.event_id != event_id)
    return;
  p->args_at = current(p)->arena.data + c->args;
  p->args_left = c->nargs;
}

static int view_args_next(void *ctx, hub_arg_view *a) {
  tt_pipe *p = ctx;
  if (p->by_id) return p->lookup ? hub_args_next(p->lookup, a) : 0;
  if (!p->args_left) return 0;
  p->args_left--;
  a->name = p->args_at;
  p->args_at += strlen(p->args_at) + 1;
  a->type = p->args_at;
  p->args_at += strlen(p->args_at) + 1;
  a->value = p->args_at;
  p->args_at += strlen(p->args_at) + 1;
  return 1;
}

static const char *view_track_name(void *ctx, int db, int64_t track_id) {
  tt_pipe *p = ctx;
  if (p->by_id) {
    hub_reader *l = lookup_reader(p);
    return l ? hub_reader_track_name(l, db, track_id) : "";
  }
  const prec *c = p->last;
  if (!c || !c->has_track || c->ev.db != db || c->ev.track_id != track_id) return "";
  return current(p)->arena.data + c->track;
}

void tt_pipe_sqlite_mode(void) {
  /* tt_sqlite_setup picks single-thread mode (no mutexes) for the tools
   * that use one thread; configuring after it, still before SQLite
   * initializes at the first open, replaces that choice. */
  tt_sqlite_setup();
  sqlite3_config(SQLITE_CONFIG_MULTITHREAD);
}

tt_pipe *tt_pipe_start(hub_reader *r, const char *const *paths, size_t npaths,
                       const hub_filter *f) {
  tt_pipe *p = tt_calloc(1, sizeof *p);
  p->r = r;
  p->paths = paths;
  p->npaths = npaths;
  p->filter = *f;
  p->by_id = hub_reader_lookups_by_id(r);
  p->served = (hub_served){view_args_begin, view_args_next, view_track_name, p};
  p->view = hub_reader_view(r, &p->served);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->to_reader, NULL);
  pthread_cond_init(&p->to_main, NULL);
  if (pthread_create(&p->thread, NULL, reader_main, p) != 0) {
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->to_reader);
    pthread_cond_destroy(&p->to_main);
    hub_reader_view_free(p->view);
    free(p);
    return NULL;
  }
  return p;
}

hub_reader *tt_pipe_view(tt_pipe *p) { return p->view; }

void tt_pipe_stop(tt_pipe *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_signal(&p->to_reader);
  pthread_mutex_unlock(&p->mu);
  pthread_join(p->thread, NULL);
  /* Messages of a batch read ahead and never taken are not printed: a
   * single-threaded run would not have read it. */
  hub_reader_close(p->lookup);
  for (size_t s = 0; s < PIPE_SLOTS; s++) {
    batch *b = &p->slots[s];
    free(b->recs);
    tt_buf_free(&b->arena);
    tt_buf_free(&b->msgs);
    free(b->msg_at);
    free(b->msg_end);
  }
  tt_buf_free(&p->capture);
  hub_reader_view_free(p->view);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->to_reader);
  pthread_cond_destroy(&p->to_main);
  free(p);
}
