#!/usr/bin/python3
"""Prints how many distinct events the parts of a split hold together: an
event clipped into two parts counts once. An event is its name and its
correlation id (both sides of a launch carry the id, under two names), as
each format stores them, read independently of the writer:

  json     X events: name and args.correlation
  pftrace  SLICE_BEGIN / INSTANT: interned name and correlation_id
  otf2     Enter records: region name and the "correlation" attribute

usage: split_events.py json|pftrace|otf2 PART...   (otf2: ARCHIVE/traces.otf2)
PFTRACE needs TT_PROTO_DIR (the directory of tests/data/perfetto_trace.proto)."""
import json, os, subprocess, sys, tempfile

fmt, parts = sys.argv[1], sys.argv[2:]
seen = set()
if fmt == "json":
    for path in parts:
        for e in json.load(open(path))["traceEvents"]:
            if e.get("ph") == "X":
                seen.add((e["name"], e.get("args", {}).get("correlation")))
elif fmt == "pftrace":
    out = tempfile.mkdtemp()
    proto = os.environ.get("TT_PROTO_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
    subprocess.run(["protoc", "-I", proto, "--python_out", out,
                    os.path.join(proto, "perfetto_trace.proto")], check=True)
    sys.path.insert(0, out)
    import perfetto_trace_pb2 as pb  # noqa: E402
    for path in parts:
        trace = pb.Trace()
        trace.ParseFromString(open(path, "rb").read())
        names = {}
        for p in trace.packet:
            seq = p.trusted_packet_sequence_id
            if p.sequence_flags & 1:  # SEQ_INCREMENTAL_STATE_CLEARED
                names[seq] = {}
            if p.HasField("interned_data"):
                for e in p.interned_data.event_names:
                    names.setdefault(seq, {})[e.iid] = e.name
            if not p.HasField("track_event"):
                continue
            te = p.track_event
            if te.type not in (1, 3):  # SLICE_BEGIN, INSTANT
                continue
            name = names[seq][te.name_iid] if te.HasField("name_iid") else te.name
            seen.add((name, te.correlation_id if te.HasField("correlation_id") else None))
elif fmt == "otf2":
    import otf2
    for path in parts:
        with otf2.reader.open(path) as tr:
            for _loc, ev in tr.events:
                if isinstance(ev, otf2.events.Enter):
                    corr = None
                    for a, v in (ev.attributes or {}).items():
                        if a.name == "correlation":
                            corr = v
                    seen.add((ev.region.name, corr))
else:
    sys.exit("split_events.py: format json, pftrace or otf2")
print(len(seen))
