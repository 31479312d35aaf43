/* The collectives of one hub (hub_collectives.h). */
#include "hub/hub_collectives.h"

#include <stdio.h>
#include <string.h>

#include "base/hashmap.h"
#include "base/util.h"
#include "base/vec.h"
#include "hub/hub_reader.h"

/* The instance's name, hashed: "pg<US>group<US>seq" or "n<US>name<US>k". */
static uint64_t instance_key(tt_buf *b, const char *kind, const char *a, const char *c) {
  b->len = 0;
  tt_buf_printf(b, "%s\x1f%s\x1f%s", kind, a, c);
  return tt_hash_bytes(b->data, b->len);
}

/* The instance named by Kineto's args, 0 when the kernel has none. */
static uint64_t kineto_key(hub_reader *r, const hub_record *ev, tt_buf *b) {
  if (ev->event_id == HUB_NULL) return 0;
  char group[256] = "", seq[64] = "";
  hub_arg_view a;
  hub_args_begin(r, ev->db, ev->event_id);
  while (hub_args_next(r, &a) > 0) {
    if (strcmp(a.name, "Process Group Name") == 0) snprintf(group, sizeof group, "%s", a.value);
    else if (strcmp(a.name, "Seq") == 0) snprintf(seq, sizeof seq, "%s", a.value);
  }
  if (!group[0] || !seq[0]) return 0;
  return instance_key(b, "pg", group, seq);
}

int hub_collectives_read(const char *path, hub_collective_end **v, size_t *n, size_t *cap) {
  const char *names[] = {"*nccl*", "*rccl*"};
  hub_filter f = {.start = HUB_NULL, .end = HUB_NULL, .pid = HUB_NULL, .names = names,
                  .nnames = 2, .gpu_only = 1};
  hub_reader *r = hub_reader_open(&path, 1, &f);
  if (!r) return -1;
  tt_strmap order = {0}; /* "pid name" -> kernels of that name seen */
  tt_buf k = {0};
  hub_record ev;
  int rc;
  while ((rc = hub_reader_next(r, &ev)) > 0) {
    if (ev.kind != HUB_KERNEL) continue;
    uint64_t key = kineto_key(r, &ev, &k), name = 0;
    int64_t ord = 0;
    if (!key) {
      k.len = 0;
      tt_buf_printf(&k, "%lld\x1f%s", (long long)ev.pid, ev.name);
      int added;
      int64_t *seen = tt_strmap_add(&order, k.data, 0, &added);
      char num[32];
      ord = (*seen)++;
      snprintf(num, sizeof num, "%lld", (long long)ord);
      key = instance_key(&k, "n", ev.name, num);
      name = tt_hash_bytes(ev.name, strlen(ev.name)) | 1; /* never 0 */
    }
    tt_grow(*v, *n + 1, *cap);
    (*v)[(*n)++] = (hub_collective_end){key, name, ord, ev.start, ev.end};
  }
  tt_buf_free(&k);
  tt_strmap_free(&order);
  hub_reader_close(r);
  return rc < 0 ? -1 : 0;
}
