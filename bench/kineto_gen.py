#!/usr/bin/env python3
"""A Kineto trace of N events for bench/bench_kineto.sh, made from a real
one (the resnet50 fixture): its traceEvents repeated, each copy shifted
past the previous one in time, with flow ids, correlations and external
ids offset so they stay unique, in the source's own layout (one event per
line, ", " and ": " separators). Metadata (ph M) events are written once.
Usage: kineto_gen.py SOURCE.json[.gz] N OUT.json"""
import gzip
import json
import sys

src, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
with (gzip.open if src.endswith(".gz") else open)(src, "rt") as f:
    doc = json.load(f)
events = doc.pop("traceEvents")
meta = [e for e in events if e.get("ph") == "M"]
body = [e for e in events if e.get("ph") != "M"]
times = [e["ts"] for e in body if isinstance(e.get("ts"), (int, float))]
span = int(max(times) - min(times)) + 1000
ID_KEYS = ("correlation", "External id", "external id")
with open(out, "w") as o:
    o.write("{\n")
    for k, v in doc.items():
        o.write("  %s: %s,\n" % (json.dumps(k), json.dumps(v)))
    o.write('  "traceEvents": [\n')
    written = 0
    first = True
    for e in meta:
        if written >= n:
            break
        o.write(("" if first else ",\n") + "  " + json.dumps(e))
        first = False
        written += 1
    copy = 0
    while written < n:
        for e in body:
            if written >= n:
                break
            if copy:
                e = dict(e)
                if isinstance(e.get("ts"), (int, float)):
                    e["ts"] = e["ts"] + copy * span
                if isinstance(e.get("id"), int):
                    e["id"] = e["id"] + copy * 10000000
                if isinstance(e.get("args"), dict):
                    a = dict(e["args"])
                    for key in ID_KEYS:
                        if isinstance(a.get(key), int) and a[key] >= 0:
                            a[key] = a[key] + copy * 10000000
                    e["args"] = a
            o.write(("" if first else ",\n") + "  " + json.dumps(e))
            first = False
            written += 1
        copy += 1
    o.write("\n  ]\n}\n")
