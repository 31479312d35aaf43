"""make_rocprofsys_samples.py DB: a rocpd v3 database holding call-stack
samples as rocprof-sys's sampler writes them (rocprofiler-systems,
source/lib/rocprof-sys/library/sampling.cpp, rocpd_post_process_timer_data:
per thread a track "Thread N (S) TID" with extdata "{}"; one region
"samples [rocprof-sys]" over all samples with its sample row and a '{}'
call_stack; then per sample, per frame from the bottom of the stack
(backtrace.cpp reverses the unwound frames, "the bottom of the call-stack
on top") one rocpd_event of category timer_sampling with call_stack
{"name","pc","file"} and line_info, one rocpd_region [previous sample,
this sample] named after the frame, and one rocpd_sample at the region's
start). The stacks are fixed below; the test reads its expectations back
from the database with SQL, not from this script."""
import json
import os
import sqlite3
import sys

ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")
UUID = "5a3c0e00-1111-4222-8333-444455556666"
PID = 777
# (tid, stack bottom first, times it is sampled in a row)
SAMPLES = [(7001, ["_start", "main", "compute", "dgemm"], 3),
           (7001, ["_start", "main", "compute"], 2),
           (7002, ["start_thread", "worker", "spin"], 2),
           (7001, ["_start", "main", "io", "write"], 1),
           (7002, ["start_thread", "worker", "worker", "spin"], 1)]  # recursion


def main(db):
    sfx = "_" + UUID.replace("-", "_")
    with open(os.path.join(ROOT, "schema", "rocpd_v3.sql")) as f:
        schema = f.read()
    con = sqlite3.connect(db)
    con.executescript("BEGIN;" + schema.replace("{{uuid}}", sfx).replace("{{guid}}", UUID) + "COMMIT;")

    def ins(table, **cols):
        cols.setdefault("guid", UUID)
        names = ", ".join(f'"{c}"' for c in cols)
        marks = ", ".join("?" for _ in cols)
        cur = con.execute(f'INSERT INTO "{table}{sfx}" ({names}) VALUES ({marks})', list(cols.values()))
        return cur.lastrowid

    strings = {}

    def string(s):
        if s not in strings:
            strings[s] = ins("rocpd_string", string=s)
        return strings[s]

    # rocpd's table SQL (rocprofiler-sdk, which rocprof-sys writes with)
    # inserts ("uuid", "{{uuid}}") with the same {{uuid}} as the table
    # names, "_" included: rocpd's readers take the tables' base names by
    # cutting that value off (rocpd_region_<uuid> -> rocpd_region).
    con.execute(f'INSERT INTO "rocpd_metadata{sfx}" (tag, value) VALUES (?, ?), (?, ?), (?, ?)',
                ("schema_version", "3", "uuid", sfx, "guid", UUID))
    ins("rocpd_info_node", id=1, hash=1, machine_id="m1", hostname="nodeA")
    t0, step = 2_000_000_000, 1000
    ins("rocpd_info_process", id=PID, nid=1, ppid=1, pid=PID, init=t0, fini=t0 + 100 * step,
        start=t0, end=t0 + 100 * step, command="app")
    threads, tracks = {}, {}
    for seq, tid in enumerate(sorted({s[0] for s in SAMPLES})):
        threads[tid] = ins("rocpd_info_thread", nid=1, ppid=1, pid=PID, tid=tid, name="t%d" % tid,
                           start=t0, end=t0 + 100 * step)
        tracks[tid] = ins("rocpd_track", nid=1, pid=PID, tid=threads[tid],
                          name_id=string("Thread %d (S) %d" % (seq, tid)), extdata="{}")
    cat = string("timer_sampling")
    last = {tid: t0 for tid in threads}
    first = True
    ts = t0
    for tid, stack, times in SAMPLES:
        for _ in range(times):
            ts += step
            beg, end = last[tid], ts
            last[tid] = ts
            if first:  # the whole-span region and its sample (rocprof-sys writes it first)
                ev = ins("rocpd_event", category_id=cat, stack_id=0, parent_stack_id=0,
                         correlation_id=0, call_stack="{}", line_info="{}", extdata="{}")
                ins("rocpd_region", nid=1, pid=PID, tid=threads[tid], start=beg, end=t0 + 100 * step,
                    name_id=string("samples [rocprof-sys]"), event_id=ev)
                ins("rocpd_sample", track_id=tracks[tid], timestamp=beg, event_id=ev)
                first = False
            for depth, fn in enumerate(stack):
                pc = "0x%x" % (0x400000 + 16 * len(fn) + depth)
                ev = ins("rocpd_event", category_id=cat, stack_id=0, parent_stack_id=0, correlation_id=0,
                         call_stack=json.dumps({"name": fn, "pc": pc, "file": "/usr/bin/app"}),
                         line_info=json.dumps({"line_address": pc, "name": fn}), extdata="{}")
                ins("rocpd_region", nid=1, pid=PID, tid=threads[tid], start=beg, end=end,
                    name_id=string(fn), event_id=ev)
                ins("rocpd_sample", track_id=tracks[tid], timestamp=beg, event_id=ev)
    con.commit()
    con.close()


if __name__ == "__main__":
    main(sys.argv[1])
