/* Private to the hub reader's files: the merge's order, and records on
 * disk as the merge in passes and a spool keep them
 * (hub_reader_records.c). */
#ifndef TT_HUB_READER_RECORDS_H
#define TT_HUB_READER_RECORDS_H

#include <stdint.h>
#include <stdio.h>

#include "base/util.h"
#include "hub/hub_reader_order.h"
#include "hub/hub_record.h"

struct hr_source;
/* hub_reader_records.c: a record on disk, as the merge in passes and a
 * spool keep them: this fixed part, then `payload` bytes of
 * NUL-terminated strings (name, kernel_name, category, track name, link
 * starts, then name, type and value of each of its nargs args). */
typedef struct hr_disk_rec {
  hr_merge_key key; /* in passes: key.db the index in all inputs */
  hub_record ev;    /* every field as read; the strings NULL (the payload) */
  uint32_t nargs, payload;
} hr_disk_rec;
/* An unlinked temporary file in hr_temp_dir() (TMPDIR, else /tmp); NULL
 * when none can be made (errno says why). */
FILE *hr_temp_file(void);
int hr_temp_fd(void); /* the same as a descriptor, -1 */
const char *hr_temp_dir(void);
/* d and pay from ev, the record src read last: its track name and args
 * read through src. d->key is zero. */
void hr_rec_pack(struct hr_source *src, const hub_record *ev, hr_disk_rec *d, tt_buf *pay);
int hr_rec_write(FILE *f, const hr_disk_rec *d, const tt_buf *pay); /* 1 ok, 0 error */
int hr_rec_read(FILE *f, hr_disk_rec *d, tt_buf *pay); /* 1, 0 at the end, -1 error */
/* ev from d, its strings pointing into payload. */
void hr_rec_view(const hr_disk_rec *d, const char *payload, hub_record *ev);
/* String k of a payload (0 name ... 3 track name, 4 link starts, 5 on: args). */
const char *hr_rec_str(const char *payload, unsigned k);
/* The args of a record on disk, one after the other. */
typedef struct hr_rec_args {
  const char *at;
  uint32_t left;
} hr_rec_args;
void hr_rec_args_begin(hr_rec_args *it, const hr_disk_rec *d, const char *payload);
int hr_rec_args_next(hr_rec_args *it, hub_arg_view *a);

#endif
