/* Recorded launch flows folded into the hub's launch links, once at
 * hub_writer_finish.
 *
 * A hub links a launching call to the GPU work it launched by correlation
 * id, as rocprofv3 writes it, one arrow per GPU work: a cudaGraphLaunch
 * that ran 339 kernels has 339. Kineto also records these links as flows
 * (`ac2g`, the 2021 schema's `async` "launch"): one `s` on the call and an
 * `f` at the start of each GPU work, all with the call's correlation id as
 * their id, so one id has many ends, which viewers draw as one arrow or a
 * chain (tests/tools/test_launch_arrows.sh). Where Kineto wrote no flow
 * (hipGraphLaunch's kernels on ROCm) the correlation still links them.
 *
 * So a recorded end that repeats a launch link is dropped here: an end
 * (`f`, `t`) at the start of GPU work carrying its id, whose process has a
 * call with that id (the reader's launch), and an `s` at that call whose
 * every other end was such an end. The hub is tagged
 * HUB_LAUNCH_ARROWS_TAG, and the reader then draws arrows from the
 * correlation on every launch and the recorded flows left (fwdbwd, a call
 * linked to a call) as recorded. A flow end whose GPU work is missing is
 * kept, so no arrow the source drew is lost. Flow ends carry no args
 * (hub_flow_end writes none), so their events go with them. */
#include "hub/hub.h"
#include "hub/hub_writer_internal.h"

#define FLOW_ROWS                                                                               \
  "SELECT s.id, e.id, e.correlation_id, e.category_id, json_extract(e.extdata, '$.ph'), "      \
  "s.timestamp, t.pid FROM \"rocpd_sample{{uuid}}\" s JOIN \"rocpd_track{{uuid}}\" t ON t.id " \
  "= s.track_id JOIN \"rocpd_event{{uuid}}\" e ON e.id = s.event_id WHERE json_valid(t.extdata) " \
  "AND json_extract(t.extdata, '$.kind') = '" HUB_WORD_FLOW "' AND e.correlation_id IS NOT NULL"

/* GPU work the reader links (kernels and copies, as hub_reader.c's
 * take_launch), with the (process, correlation) of a launching call. */
#define LINKED_GPU(table)                                                                      \
  "SELECT e.correlation_id, m.start FROM \"" table "{{uuid}}\" m JOIN \"rocpd_event{{uuid}}\" " \
  "e ON e.id = m.event_id WHERE e.correlation_id IS NOT NULL AND EXISTS (SELECT 1 FROM "        \
  "tt_call c WHERE c.pid = m.pid AND c.corr = e.correlation_id)"

void hw_fold_launch_flows(hub_writer *w) {
  hw_sql_exec(w,
              "CREATE TEMP TABLE tt_flow (sid INTEGER PRIMARY KEY, eid INTEGER, corr INTEGER, "
              "cat INTEGER, ph TEXT, ts INTEGER, pid INTEGER, dup INTEGER DEFAULT 0);"
              "INSERT INTO tt_flow (sid, eid, corr, cat, ph, ts, pid) " FLOW_ROWS ";"
              "CREATE INDEX temp.tt_flow_corr ON tt_flow (corr, cat);"
              "CREATE TEMP TABLE tt_call (pid INTEGER, corr INTEGER, start INTEGER, PRIMARY KEY "
              "(pid, corr, start)) WITHOUT ROWID;"
              "INSERT OR IGNORE INTO tt_call SELECT r.pid, e.correlation_id, r.start FROM "
              "\"rocpd_region{{uuid}}\" r JOIN \"rocpd_event{{uuid}}\" e ON e.id = r.event_id "
              "WHERE e.correlation_id IN (SELECT corr FROM tt_flow);"
              "CREATE TEMP TABLE tt_gpu (corr INTEGER, start INTEGER, PRIMARY KEY (corr, start)) "
              "WITHOUT ROWID;"
              "INSERT OR IGNORE INTO tt_gpu " LINKED_GPU("rocpd_kernel_dispatch") ";"
              "INSERT OR IGNORE INTO tt_gpu " LINKED_GPU("rocpd_memory_copy") ";"
              /* Ends at GPU work of their id: the link draws them. */
              "UPDATE tt_flow SET dup = 1 WHERE ph IS NOT 's' AND EXISTS (SELECT 1 FROM tt_gpu g "
              "WHERE g.corr = tt_flow.corr AND g.start = tt_flow.ts);"
              /* A start at the launching call, when every end it had went. */
              "UPDATE tt_flow SET dup = 1 WHERE ph IS 's' AND EXISTS (SELECT 1 FROM tt_call c "
              "WHERE c.pid = tt_flow.pid AND c.corr = tt_flow.corr AND c.start = tt_flow.ts) AND "
              "EXISTS (SELECT 1 FROM tt_flow o WHERE o.corr = tt_flow.corr AND o.cat IS "
              "tt_flow.cat AND o.ph IS NOT 's' AND o.dup) AND NOT EXISTS (SELECT 1 FROM tt_flow o "
              "WHERE o.corr = tt_flow.corr AND o.cat IS tt_flow.cat AND o.ph IS NOT 's' AND NOT "
              "o.dup);"
              "DELETE FROM \"rocpd_sample{{uuid}}\" WHERE id IN (SELECT sid FROM tt_flow WHERE "
              "dup);"
              "DELETE FROM \"rocpd_event{{uuid}}\" WHERE id IN (SELECT eid FROM tt_flow WHERE "
              "dup);"
              "DROP TABLE temp.tt_flow; DROP TABLE temp.tt_call; DROP TABLE temp.tt_gpu;");
}
