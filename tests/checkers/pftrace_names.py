#!/usr/bin/python3
"""Prints, sorted, one line per process and thread descriptor of a Perfetto
trace: "process<TAB>pid<TAB>name" and "thread<TAB>pid<TAB>tid<TAB>name",
read with classes protoc generates from the official schema copy, not by
the writer's code.

usage: pftrace_names.py PROTO_DIR FILE.pftrace"""
import os, subprocess, sys, tempfile

proto_dir, path = sys.argv[1], sys.argv[2]
out = tempfile.mkdtemp()
subprocess.run(["protoc", "-I", proto_dir, "--python_out", out,
                os.path.join(proto_dir, "perfetto_trace.proto")], check=True)
sys.path.insert(0, out)
import perfetto_trace_pb2 as pb  # noqa: E402

trace = pb.Trace()
trace.ParseFromString(open(path, "rb").read())
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
