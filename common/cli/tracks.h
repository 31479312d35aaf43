/* Track layout shared by every exporter: where an event is drawn.
 *   CPU work  -> process (pid) -> thread (tid)
 *   GPU work  -> device (host, process, index: hub_agent_view.gpu_view)
 *                -> stream or queue
 * GPU groups sort after every CPU process. Plus the nesting helper that
 * moves intervals overlapping without nesting to overflow sub-lanes,
 * because Perfetto and OTF2 need strict nesting per track. */
#ifndef TT_TRACKS_H
#define TT_TRACKS_H
#include <stdint.h>

#include "hub/hub_reader.h"

/* GPU groups get this sort index + the GPU's index: after any pid. A
 * device whose index another host or process has too (gpu_view n > 0)
 * gets TT_GPU_SORT_BASE + TT_GPU_VIEW_BASE + n: after the first ones. */
#define TT_GPU_SORT_BASE 100000000LL
#define TT_GPU_VIEW_BASE 1000LL

typedef struct tt_track_ref {
  int is_gpu;
  int64_t group;      /* pid, or the device's group for GPU work (above) */
  int64_t lane;       /* tid, or the stream/queue number (from its name), as
                       * written: tt_written_tid of the recorded one */
  int64_t recorded_lane; /* the tid or number as the hub holds it */
  int64_t gpu_index;  /* GPU work: agent index */
  /* GPU work: "GPU 0", with " · HOST [rank R]" when another host or
   * process has a GPU 0 too (hub_agent_view.owner_label); "" otherwise.
   * Valid until next call. */
  const char *gpu_label;
  const char *group_name; /* "python3", "GPU 0" ... (valid until next call) */
  const char *lane_name;  /* thread name, "stream 7" ... */
  int64_t group_sort, lane_sort;
} tt_track_ref;

void tt_track_of(hub_reader *r, const hub_record *ev, tt_track_ref *out);

/* The tid an exporter writes for a recorded one. Kineto records pthread
 * ids that overflowed a 32-bit int as negative numbers (-1029147072), and
 * Perfetto's JSON importer folds negative tids into the process's main
 * thread: a negative tid is written as its unsigned 32-bit value
 * (3265820224), above any Linux tid (pid_max <= 4194304), the same in
 * every format and every part. The hub keeps what was recorded, and the
 * written thread's name says it ("thread 3 [tid -1029147072]"). */
int64_t tt_written_tid(int64_t tid);

/* Number that a stream/queue name ends with ("stream 7" -> 7), else id. */
int64_t tt_lane_number(const char *name, int64_t fallback);

/* Strict-nesting placement per lane: returns the sub-lane (0 = the lane
 * itself) where [start, end) nests under what is open there. Events must
 * be placed in start order. Memory: open intervals only. */
typedef struct tt_nesting tt_nesting;
tt_nesting *tt_nesting_new(void);
int tt_nesting_place(tt_nesting *n, uint64_t lane_key, int64_t start, int64_t end);
void tt_nesting_free(tt_nesting *n);

#endif
