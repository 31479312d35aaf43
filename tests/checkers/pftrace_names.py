#!/usr/bin/python3
"""Prints, sorted, one line per process and thread descriptor of a Perfetto
trace: "process<TAB>pid<TAB>name" and "thread<TAB>pid<TAB>tid<TAB>name",
read with classes protoc generates from the official schema copy, not by
the writer's code.

usage: pftrace_names.py PROTO_DIR FILE.pftrace"""
import sys

import pftrace_load

trace = pftrace_load.read(pftrace_load.schema(sys.argv[1]), sys.argv[2])
rows = set()
for p in trace.packet:
    if not p.HasField("track_descriptor"):
        continue
    d = p.track_descriptor
    if d.HasField("process"):
        rows.add("process\t%d\t%s" % (d.process.pid, d.process.process_name))
    if d.HasField("thread"):
        rows.add("thread\t%d\t%d\t%s" % (d.thread.pid, d.thread.tid, d.thread.thread_name))
for r in sorted(rows):
    print(r)
