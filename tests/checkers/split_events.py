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
import json, os, sys

fmt, parts = sys.argv[1], sys.argv[2:]
seen = set()
if fmt == "json":
    for path in parts:
        for e in json.load(open(path))["traceEvents"]:
            if e.get("ph") == "X":
                seen.add((e["name"], e.get("args", {}).get("correlation")))
elif fmt == "pftrace":
    import pftrace_load
    pb = pftrace_load.schema(os.environ.get(
        "TT_PROTO_DIR", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")))
    for path in parts:
        for _, te, name in pftrace_load.named_events(pftrace_load.read(pb, path)):
            if te.type not in (1, 3):  # SLICE_BEGIN, INSTANT
                continue
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
