#!/usr/bin/python3
"""Prints one line per flow arrow of a Chrome/Perfetto JSON trace, sorted:
"OUT_PID<TAB>OUT_TID<TAB>OUT_NAME<TAB>IN_PID<TAB>IN_TID<TAB>IN_NAME": the
complete events each end binds to, found as a viewer binds them, not from
the writer's code: a flow end at (pid, tid, ts) binds to the innermost X
slice of that thread enclosing ts (latest start, then the shortest), the
"enclosing slice" binding of the s end and of an f with "bp": "e". An end
that binds to nothing prints "-" for its slice.

usage: json_flows.py FILE.json"""
import json, sys
from decimal import Decimal


def arrows(path):
    """The sorted rows of the file's arrows (the format above)."""
    events = json.load(open(path), parse_float=Decimal)
    if isinstance(events, dict):
        events = events["traceEvents"]
    slices = {}  # (pid, tid) -> [(start, end, name)]
    ends = {}    # (cat, name, id) -> {"s": (pid, tid, ts), "f": ...}
    for e in events:
        ph = e.get("ph")
        if ph == "X":
            ts, dur = Decimal(e["ts"]), Decimal(e.get("dur", 0))
            slices.setdefault((e["pid"], e["tid"]), []).append((ts, ts + dur, e["name"]))
        elif ph in ("s", "f"):
            ends.setdefault((e.get("cat"), e.get("name"), e["id"]), {})[ph] = (
                e["pid"], e["tid"], Decimal(e["ts"]))

    def bind(end):
        pid, tid, ts = end
        best = None
        for s, t, name in slices.get((pid, tid), []):
            if s <= ts < t or s == ts == t:
                if best is None or (s, -(t - s)) > (best[0], -(best[1] - best[0])):
                    best = (s, t, name)
        return "%s\t%s\t%s" % (pid, tid, best[2] if best else "-")

    return sorted(bind(e["s"]) + "\t" + bind(e["f"]) for e in ends.values() if "s" in e and "f" in e)


if __name__ == "__main__":
    for r in arrows(sys.argv[1]):
        print(r)
