#include "export_pipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hashmap.h"
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
  tt_i64map index; /* (db, event id) -> record, built at the first lookup */
  int indexed;
} batch;

enum { REQ_NONE, REQ_ARGS, REQ_TRACK };

struct tt_pipe {
  hub_reader *r, *view;
  hub_served served;
  int no_args, by_id;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t to_reader, to_main;
  batch slots[PIPE_SLOTS];
  uint64_t head, tail; /* batches published; batches released by the main thread */
  int stop, done;
  tt_buf capture; /* the reader thread's messages, moved into batches */
  /* A lookup the main thread asked the reader thread for. */
  atomic_int req_flag;
  int req, req_db, req_done;
  int64_t req_id;
  tt_buf req_out, req_msgs;
  uint32_t req_n;
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

/* Does a lookup the main thread is waiting for. */
static void serve(tt_pipe *p) {
  pthread_mutex_lock(&p->mu);
  int kind = p->req, db = p->req_db;
  int64_t id = p->req_id;
  pthread_mutex_unlock(&p->mu);
  tt_buf_clear(&p->req_out);
  uint32_t n = 0;
  if (kind == REQ_ARGS) {
    hub_arg_view a;
    hub_args_begin(p->r, db, id);
    for (; hub_args_next(p->r, &a); n++) {
      put_str(&p->req_out, a.name);
      put_str(&p->req_out, a.type);
      put_str(&p->req_out, a.value);
    }
  } else {
    put_str(&p->req_out, hub_reader_track_name(p->r, db, id));
  }
  pthread_mutex_lock(&p->mu);
  tt_buf_clear(&p->req_msgs);
  if (p->capture.len) tt_buf_append(&p->req_msgs, p->capture.data, p->capture.len);
  tt_buf_clear(&p->capture);
  p->req_n = n;
  p->req = REQ_NONE;
  atomic_store(&p->req_flag, 0);
  p->req_done = 1;
  pthread_cond_broadcast(&p->to_main);
  pthread_mutex_unlock(&p->mu);
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
  /* Args are copied unless the sink never asks (then a request looks them
   * up by id); a reader in passes gives them for the record read last
   * only, so there they are always copied. */
  if (ev->event_id != HUB_NULL && (!p->no_args || !p->by_id)) {
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
  if (!p->by_id && ev->track_id != HUB_NULL) {
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
  if (b->indexed) tt_i64map_free(&b->index);
  b->indexed = 0;
  for (;;) {
    hub_record ev;
    int rc = hub_reader_next(p->r, &ev);
    take_messages(p, b, b->n);
    if (rc <= 0) return rc < 0 ? -1 : 0;
    add_record(p, b, &ev);
    take_messages(p, b, b->n - 1);
    if (atomic_load(&p->req_flag)) serve(p);
    if (b->n >= PIPE_BATCH || b->arena.len >= PIPE_ARENA) return 1;
  }
}

static void *reader_main(void *arg) {
  tt_pipe *p = arg;
  tt_capture_messages(&p->capture);
  pthread_mutex_lock(&p->mu);
  while (!p->stop) {
    if (p->req != REQ_NONE) {
      pthread_mutex_unlock(&p->mu);
      serve(p);
      pthread_mutex_lock(&p->mu);
      continue;
    }
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
    /* The batch before the current one stays for lookups. */
    p->tail = p->cur ? p->cur - 1 : 0;
    pthread_cond_signal(&p->to_reader);
    while (p->head <= p->cur) pthread_cond_wait(&p->to_main, &p->mu);
    pthread_mutex_unlock(&p->mu);
    p->have_cur = 1;
    p->pos = 0;
    p->next_msg = 0;
  }
}

/* Asks the reader thread for a lookup and waits for it. */
static void request(tt_pipe *p, int kind, int db, int64_t id) {
  pthread_mutex_lock(&p->mu);
  p->req = kind;
  p->req_db = db;
  p->req_id = id;
  p->req_done = 0;
  atomic_store(&p->req_flag, 1);
  pthread_cond_signal(&p->to_reader);
  while (!p->req_done) pthread_cond_wait(&p->to_main, &p->mu);
  pthread_mutex_unlock(&p->mu);
  if (p->req_msgs.len) fwrite(p->req_msgs.data, 1, p->req_msgs.len, stderr);
}

static int64_t rec_key(int db, int64_t event_id) {
  return (int64_t)tt_hash_mix(tt_hash_mix(0x9e3779b97f4a7c15ULL, (uint64_t)db),
                              (uint64_t)event_id);
}

/* A record of batch b with these args, whose args were copied. */
static const prec *find_in(batch *b, int db, int64_t event_id) {
  if (!b->indexed) {
    for (size_t i = 0; i < b->n; i++)
      if (b->recs[i].has_args)
        tt_i64map_put(&b->index, rec_key(b->recs[i].ev.db, b->recs[i].ev.event_id), (int64_t)i);
    b->indexed = 1;
  }
  int64_t *ix = tt_i64map_get(&b->index, rec_key(db, event_id));
  if (!ix) return NULL;
  const prec *c = &b->recs[*ix];
  return c->ev.db == db && c->ev.event_id == event_id ? c : NULL;
}

static void view_args_begin(void *ctx, int db, int64_t event_id) {
  tt_pipe *p = ctx;
  p->args_left = 0;
  if (event_id == HUB_NULL) return;
  const prec *c = p->last;
  const batch *home = p->have_cur ? current(p) : NULL;
  if (!(c && c->has_args && c->ev.db == db && c->ev.event_id == event_id)) {
    /* A reader in passes has the args of the record read last only. */
    if (!p->by_id) return;
    c = home ? find_in(current(p), db, event_id) : NULL;
    if (!c && home && p->cur > 0) {
      home = &p->slots[(p->cur - 1) % PIPE_SLOTS];
      c = find_in(&p->slots[(p->cur - 1) % PIPE_SLOTS], db, event_id);
    }
  }
  if (c) {
    p->args_at = home->arena.data + c->args;
    p->args_left = c->nargs;
    return;
  }
  request(p, REQ_ARGS, db, event_id);
  p->args_at = p->req_out.data;
  p->args_left = p->req_n;
}

static int view_args_next(void *ctx, hub_arg_view *a) {
  tt_pipe *p = ctx;
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
  if (!p->by_id) {
    const prec *c = p->last;
    if (!c || !c->has_track || c->ev.db != db || c->ev.track_id != track_id) return "";
    return current(p)->arena.data + c->track;
  }
  request(p, REQ_TRACK, db, track_id);
  return p->req_out.data;
}

tt_pipe *tt_pipe_start(hub_reader *r, int no_args) {
  tt_pipe *p = tt_calloc(1, sizeof *p);
  p->r = r;
  p->no_args = no_args;
  p->by_id = hub_reader_lookups_by_id(r);
  p->served = (hub_served){view_args_begin, view_args_next, view_track_name, p};
  p->view = hub_reader_view(r, &p->served);
  atomic_init(&p->req_flag, 0);
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
  for (size_t s = 0; s < PIPE_SLOTS; s++) {
    batch *b = &p->slots[s];
    free(b->recs);
    tt_buf_free(&b->arena);
    tt_buf_free(&b->msgs);
    free(b->msg_at);
    free(b->msg_end);
    tt_i64map_free(&b->index);
  }
  tt_buf_free(&p->capture);
  tt_buf_free(&p->req_out);
  tt_buf_free(&p->req_msgs);
  hub_reader_view_free(p->view);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->to_reader);
  pthread_cond_destroy(&p->to_main);
  free(p);
}
