#!/usr/bin/python3
"""Prints one line per Trace Event Format sample of a JSON trace, sorted:
each "P" event's stack (its "sf" resolved through the file's stackFrames
dictionary, parent by parent), function names leaf first joined by " < ";
an id missing from stackFrames is printed as ?ID.

usage: json_samples.py FILE.json"""
import json
import sys

with open(sys.argv[1]) as f:
    d = json.load(f)
frames = d.get("stackFrames", {})
rows = []
for e in d.get("traceEvents", []):
    if e.get("ph") != "P":
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
    rows.append(" < ".join(names))
for r in sorted(rows):
    print(r)
