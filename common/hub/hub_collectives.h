/* The collectives of one hub, for --align collectives (issue 38): the end
 * time of every NCCL/RCCL kernel, with a key naming the collective
 * instance so the same one is found on every rank:
 *   - Kineto's args on the kernel ("Process Group Name", "Seq"), as
 *     PyTorch's process groups number their collectives;
 *   - else the kernel's name and its order among the kernels of that name
 *     in its process (rocprofv3's RCCL kernels: every rank runs a group's
 *     collectives in one order). Such an order is only as good as the
 *     profiles' starts: one that starts late, or a warm-up collective on
 *     one rank, shifts it, so these keep the name and order apart for the
 *     matching to search the shift (hub_align_fit.c).
 * Kernel ends (the starts kept to judge a fit: hub_clock_fit.h), not the CPU ops: a collective's kernel ends
 * on every rank when the data has gone round, a few µs apart; it starts
 * when its rank arrives (ms apart), and the CPU op returns once enqueued. */
#ifndef TT_HUB_COLLECTIVES_H
#define TT_HUB_COLLECTIVES_H
#include <stddef.h>
#include <stdint.h>

typedef struct hub_collective_end {
  uint64_t key;   /* hash of the instance's name */
  uint64_t name;  /* name-and-order keys: hash of the kernel's name, else 0 */
  int64_t ord;    /* name-and-order keys: its order among that name's (0...) */
  int64_t start, end; /* as recorded, in the hub's clock */
} hub_collective_end;

/* Appends path's collectives to *v (n, cap: its count and capacity; one
 * pass over the hub's kernels). 0, or -1 after saying why. */
int hub_collectives_read(const char *path, hub_collective_end **v, size_t *n, size_t *cap);

#endif
