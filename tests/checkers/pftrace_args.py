#!/usr/bin/python3
"""Prints, one per line and sorted, "name<TAB>value" for every string-valued
debug annotation of a Perfetto trace, with interned annotation names and
interned string values (InternedData.debug_annotation_names and
debug_annotation_string_values) resolved per packet sequence as the trace
processor does, independently of the writer.

usage: pftrace_args.py PROTO_DIR FILE.pftrace
PROTO_DIR holds perfetto_trace.proto (the official schema copy in tests/)."""
import os, subprocess, sys, tempfile

proto_dir, path = sys.argv[1], sys.argv[2]
out = tempfile.mkdtemp()
subprocess.run(["protoc", "-I", proto_dir, "--python_out", out,
                os.path.join(proto_dir, "perfetto_trace.proto")], check=True)
sys.path.insert(0, out)
import perfetto_trace_pb2 as pb  # noqa: E402

data = open(path, "rb").read()
trace = pb.Trace()
trace.ParseFromString(data)
names, values = {}, {}
rows = []
for p in trace.packet:
    seq = p.trusted_packet_sequence_id
    if p.sequence_flags & 1:  # SEQ_INCREMENTAL_STATE_CLEARED
        names[seq], values[seq] = {}, {}
    if p.HasField("interned_data"):
        for e in p.interned_data.debug_annotation_names:
            names.setdefault(seq, {})[e.iid] = e.name
        for e in p.interned_data.debug_annotation_string_values:
            values.setdefault(seq, {})[e.iid] = e.str.decode("utf-8", "replace")
    if not p.HasField("track_event"):
        continue
    for a in p.track_event.debug_annotations:
        name = names[seq][a.name_iid] if a.HasField("name_iid") else a.name
        if a.HasField("string_value_iid"):
            rows.append((name, values[seq][a.string_value_iid]))
        elif a.HasField("string_value"):
            rows.append((name, a.string_value))
for n, v in sorted(rows):
    print("%s\t%s" % (n, v))
