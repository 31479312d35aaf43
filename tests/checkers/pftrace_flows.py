#!/usr/bin/python3
"""Prints, sorted, what a Perfetto trace's slices and arrows join, read
with classes protoc generates from the official schema copy, not by the
writer's code:
  "slice<TAB>PID<TAB>NAME": each slice with the pid of the process its
      track belongs to (a thread's pid, or the process descriptor above
      its track);
  "arrow<TAB>OUT_PID<TAB>OUT_TID<TAB>OUT_NAME<TAB>IN_PID<TAB>IN_NAME":
      each flow id's start slice (its thread's pid and tid, "-" for a
      track that is no thread) and its terminating slice.
Event names interned per packet sequence (InternedData.event_names) are
resolved as the trace processor does.

usage: pftrace_flows.py PROTO_DIR FILE.pftrace"""
import sys

import pftrace_load

def rows(pb, path):
    """The sorted rows of the file (the format above), with the schema's
    classes pb (pftrace_load.schema)."""
    trace = pftrace_load.read(pb, path)
    tracks = {}  # uuid -> descriptor
    for p in trace.packet:
        if p.HasField("track_descriptor"):
            tracks[p.track_descriptor.uuid] = p.track_descriptor

    def owner(uuid):
        """(pid, tid or "-") of a track: its thread's, else its process's."""
        tid = "-"
        seen = set()
        while uuid in tracks and uuid not in seen:
            seen.add(uuid)
            d = tracks[uuid]
            if d.HasField("thread"):
                return d.thread.pid, d.thread.tid if tid == "-" else tid
            if d.HasField("process"):
                return d.process.pid, tid
            uuid = d.parent_uuid
        return "-", tid

    starts, finishes, out = {}, {}, []
    BEGIN = pb.TrackEvent.TYPE_SLICE_BEGIN
    for _, te, name in pftrace_load.named_events(trace):
        if te.type != BEGIN:
            continue
        pid, tid = owner(te.track_uuid)
        out.append("slice\t%s\t%s" % (pid, name))
        for f in te.flow_ids:
            starts[f] = (pid, tid, name)
        for f in te.terminating_flow_ids:
            finishes[f] = (pid, name)
    for f, (pid, tid, name) in starts.items():
        if f in finishes:
            out.append("arrow\t%s\t%s\t%s\t%s\t%s" % (pid, tid, name, *finishes[f]))
    return sorted(out)


if __name__ == "__main__":
    for r in rows(pftrace_load.schema(sys.argv[1]), sys.argv[2]):
        print(r)
