#!/usr/bin/env python3
"""align_truth.py TRUTH.json FORMAT SRCDIR ALIGNED.json BOUND_NS: checks an
aligned db2json export of gen_multinode.py's run against the generator's
truth, independently of the tools: each rank's CPU slices (their starts,
as recorded: sqlite3 on the rocprofv3-shaped hub, or the Kineto JSON with
Decimal) mapped back to the reference clock with the truth's offset and
drift, t_ref = t0 + (t_h - offset - t0) / (1 + drift), must be where the
export put them, within BOUND_NS. The ranks are found by the export's
process names ("[rank N]", a GPU's "GPU ..." group left out). Prints the largest error per host."""
import collections
import gzip
import json
import re
import sqlite3
import sys
from decimal import Decimal


def raw_starts(fmt, src, rank):
    if fmt == "rocprof":
        con = sqlite3.connect(f"file:{src}/rank{rank:03d}.db?mode=ro", uri=True)
        return sorted(r[0] for r in con.execute("SELECT start FROM rocpd_region"))
    d = json.load(open(f"{src}/rank{rank:03d}.json"), parse_float=Decimal)
    base = int(d["baseTimeNanoseconds"])
    return sorted(base + int(Decimal(e["ts"]) * 1000) for e in d["traceEvents"]
                  if e.get("ph") == "X" and e.get("pid") == e.get("tid"))


def main():
    truth_path, fmt, src, out_path, bound = sys.argv[1:6]
    truth = json.load(open(truth_path))
    t0 = truth["ref_t0_ns"][fmt]
    out = json.load(open(out_path), parse_float=Decimal)
    base = int(out["baseTimeNanoseconds"])
    rank_of = {}
    for e in out["traceEvents"]:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            # A rank's CPU process; its GPUs' groups name the rank too.
            m = re.search(r"\[rank (\d+)\]", e["args"]["name"])
            if m and not e["args"]["name"].startswith("GPU "): rank_of[e["pid"]] = int(m.group(1))
    got = collections.defaultdict(list)
    for e in out["traceEvents"]:
        if e.get("ph") == "X" and e.get("pid") in rank_of:
            got[rank_of[e["pid"]]].append(base + int(Decimal(e["ts"]) * 1000))
    worst, fails = {}, 0
    for h in truth["hosts"]:
        off, ppm = h[fmt]["offset_ns"], Decimal(str(h[fmt]["drift_ppm"])) / 1000000
        err = 0
        for r in h["ranks"]:
            raw = raw_starts(fmt, src, r)
            mine = sorted(got[r])
            if len(raw) != len(mine) or not raw:
                print(f"rank {r}: {len(mine)} slices exported, {len(raw)} recorded", file=sys.stderr)
                fails += 1
                continue
            for t_h, t in zip(raw, mine):
                exp = t0 + (Decimal(t_h - off - t0) / (1 + ppm))
                err = max(err, abs(Decimal(t) - exp))
        worst[h["host"]] = int(err)
    print(json.dumps({"max_error_ns": worst, "bound_ns": int(bound)}))
    if fails or max(worst.values()) > int(bound):
        print("an aligned time is further from the truth than the bound", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
