#!/usr/bin/python3
"""Prints one line per PerfSample of a Perfetto trace, sorted: its stack's
function names, leaf first, joined by " < " (the leaf called from the
next), resolved as the trace processor resolves them (InternedData
function_names, frames and callstacks per packet sequence, cleared by
SEQ_INCREMENTAL_STATE_CLEARED); an unresolvable id is printed as ?iid.
With --calls: one line per track event with a callstack_iid (a call's
backtrace), "NAME: STACK". Read with classes protoc generates from the
official schema copy, not the writer's code.

usage: pftrace_samples.py [--calls] PROTO_DIR FILE.pftrace...
(several files: each one's lines in turn, each resolved on its own, as if
run once per file; the schema is loaded once)"""
import sys

import pftrace_load


def sample_stacks(schema, path, calls):
    trace = pftrace_load.read(schema, path)
    state = {}
    rows = []
    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & 1:
            state[seq] = ({}, {}, {}, {})
        fns, frames, stacks, names = state.setdefault(seq, ({}, {}, {}, {}))
        if p.HasField("interned_data"):
            d = p.interned_data
            for s in d.function_names:
                fns[s.iid] = s.str.decode("utf-8", "replace")
            for f in d.frames:
                frames[f.iid] = f.function_name_id
            for c in d.callstacks:
                stacks[c.iid] = list(c.frame_ids)
            for e in d.event_names:
                names[e.iid] = e.name
        if calls:
            if not p.HasField("track_event") or not p.track_event.HasField("callstack_iid"):
                continue
            iid, head = p.track_event.callstack_iid, names.get(p.track_event.name_iid, "?") + ": "
        else:
            if not p.HasField("perf_sample"):
                continue
            iid, head = p.perf_sample.callstack_iid, ""
        ids = stacks.get(iid)
        if ids is None:
            rows.append(head + "?stack%d" % iid)
            continue
        rows.append(head + " < ".join(fns.get(frames.get(i), "?%d" % i) for i in reversed(ids)))
    return sorted(rows)


calls = sys.argv[1] == "--calls"
args = sys.argv[2:] if calls else sys.argv[1:]
schema = pftrace_load.schema(args[0])
for path in args[1:]:
    for r in sample_stacks(schema, path, calls):
        print(r)
