#!/usr/bin/python3
"""Prints one line per PerfSample of a Perfetto trace, sorted: its stack's
function names, leaf first, joined by " < " (the leaf called from the
next), resolved as the trace processor resolves them (InternedData
function_names, frames and callstacks per packet sequence, cleared by
SEQ_INCREMENTAL_STATE_CLEARED); an unresolvable id is printed as ?iid.
Read with classes protoc generates from the official schema copy, not
the writer's code.

usage: pftrace_samples.py PROTO_DIR FILE.pftrace"""
import sys

import pftrace_load

trace = pftrace_load.read(pftrace_load.schema(sys.argv[1]), sys.argv[2])
state = {}
rows = []
for p in trace.packet:
    seq = p.trusted_packet_sequence_id
    if p.sequence_flags & 1:
        state[seq] = ({}, {}, {})
    fns, frames, stacks = state.setdefault(seq, ({}, {}, {}))
    if p.HasField("interned_data"):
        d = p.interned_data
        for s in d.function_names:
            fns[s.iid] = s.str.decode("utf-8", "replace")
        for f in d.frames:
            frames[f.iid] = f.function_name_id
        for c in d.callstacks:
            stacks[c.iid] = list(c.frame_ids)
    if not p.HasField("perf_sample"):
        continue
    ids = stacks.get(p.perf_sample.callstack_iid)
    if ids is None:
        rows.append("?stack%d" % p.perf_sample.callstack_iid)
        continue
    names = [fns.get(frames.get(i), "?%d" % i) for i in reversed(ids)]
    rows.append(" < ".join(names))
for r in sorted(rows):
    print(r)
