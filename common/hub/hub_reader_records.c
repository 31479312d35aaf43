/* A reader's records on disk: the format of the merge in passes'
 * temporary streams (hub_reader_passes.c) and of a spool
 * (hub_reader_spool.c). A record is its fixed part (hr_disk_rec) and a
 * payload of NUL-terminated strings: name, kernel_name, category, track
 * name, link starts, then name, type and value of each arg. Files are
 * unlinked as soon as they are made: nothing is left behind, on success,
 * error or crash. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hub/hub_reader_internal.h"
#include "hub/hub_reader_records.h"

const char *hr_temp_dir(void) {
  const char *dir = getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

int hr_temp_fd(void) {
  char *path = sqlite3_mprintf("%s/tt-records-XXXXXX", hr_temp_dir());
  int fd = path ? mkstemp(path) : -1;
  if (fd >= 0) unlink(path); /* gone with the descriptor, whatever happens */
  sqlite3_free(path);
  return fd;
}

FILE *hr_temp_file(void) {
  int fd = hr_temp_fd();
  FILE *f = fd >= 0 ? fdopen(fd, "w+b") : NULL;
  if (fd >= 0 && !f) {
    int e = errno;
    close(fd);
    errno = e;
  }
  return f;
}

static void put_str(tt_buf *b, const char *s) { tt_buf_append(b, s, strlen(s) + 1); }

void hr_rec_pack(hr_source *src, const hub_record *ev, hr_disk_rec *d, tt_buf *pay) {
  memset(d, 0, sizeof *d); /* no stray padding bytes on disk */
  /* Bytes as the reader left them (it zeroes each record first). */
  memcpy(&d->ev, ev, sizeof *ev);
  d->ev.name = d->ev.kernel_name = d->ev.category = d->ev.link_starts = NULL;
  tt_buf_clear(pay);
  put_str(pay, ev->name);
  put_str(pay, ev->kernel_name);
  put_str(pay, ev->category);
  put_str(pay, ev->track_id != HUB_NULL ? src->ops->track_name(src, ev->db, ev->track_id) : "");
  put_str(pay, ev->link_starts);
  if (ev->event_id != HUB_NULL) {
    hub_arg_view a;
    src->ops->args_begin(src, ev->db, ev->event_id);
    while (src->ops->args_next(src, &a)) {
      put_str(pay, a.name);
      put_str(pay, a.type);
      put_str(pay, a.value);
      d->nargs++;
    }
  }
  d->payload = (uint32_t)pay->len;
}

int hr_rec_write(FILE *f, const hr_disk_rec *d, const tt_buf *pay) {
  return fwrite(d, sizeof *d, 1, f) == 1 &&
         (d->payload == 0 || fwrite(pay->data, d->payload, 1, f) == 1);
}

int hr_rec_read(FILE *f, hr_disk_rec *d, tt_buf *pay) {
  size_t n = fread(d, sizeof *d, 1, f);
  if (n != 1) return ferror(f) ? -1 : 0;
  tt_buf_clear(pay);
  tt_buf_reserve(pay, d->payload + 1);
  if (d->payload && fread(pay->data, d->payload, 1, f) != 1) return -1;
  pay->len = d->payload;
  pay->data[pay->len] = '\0';
  return 1;
}

const char *hr_rec_str(const char *payload, unsigned k) {
  while (k--) payload += strlen(payload) + 1;
  return payload;
}

void hr_rec_view(const hr_disk_rec *d, const char *payload, hub_record *ev) {
  *ev = d->ev;
  const char *at = payload;
  ev->name = at;
  at += strlen(at) + 1;
  ev->kernel_name = at;
  at += strlen(at) + 1;
  ev->category = at;
  at += strlen(at) + 1;
  at += strlen(at) + 1; /* track name */
  ev->link_starts = at;
}

void hr_rec_args_begin(hr_rec_args *it, const hr_disk_rec *d, const char *payload) {
  it->at = hr_rec_str(payload, 5);
  it->left = d->nargs;
}

int hr_rec_args_next(hr_rec_args *it, hub_arg_view *a) {
  if (!it->left) return 0;
  it->left--;
  a->name = it->at;
  it->at += strlen(it->at) + 1;
  a->type = it->at;
  it->at += strlen(it->at) + 1;
  a->value = it->at;
  it->at += strlen(it->at) + 1;
  return 1;
}
