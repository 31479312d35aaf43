#!/usr/bin/python3
"""Prints one line per Trace Event Format sample of a JSON trace, sorted:
each "P" event's stack (its "sf" resolved through the file's stackFrames
dictionary, parent by parent), function names leaf first joined by " < ";
an id missing from stackFrames is printed as ?ID. With --calls: one line
per other event with an "sf" (a call's backtrace), "NAME: STACK".

usage: json_samples.py [--calls] FILE.json...
(several files: each one's lines in turn, each resolved through its own
stackFrames, as if run once per file)"""
import json
import sys


def sample_stacks(path, calls):
    with open(path) as f:
        d = json.load(f)
    frames = d.get("stackFrames", {})
    rows = []
    for e in d.get("traceEvents", []):
        if (e.get("ph") == "P") == calls or "sf" not in e:
            continue
        names, sf, seen = [], e.get("sf"), set()
        while sf is not None and sf not in seen:
            seen.add(sf)
            fr = frames.get(str(sf))
            if fr is None:
                names.append("?%s" % sf)
                break
            names.append(fr["name"])
            sf = fr.get("parent")
        rows.append((e["name"] + ": " if calls else "") + " < ".join(names))
    return sorted(rows)


calls = sys.argv[1] == "--calls"
for path in sys.argv[2 if calls else 1:]:
    for r in sample_stacks(path, calls):
        print(r)
