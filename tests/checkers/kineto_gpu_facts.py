#!/usr/bin/env python3
"""Facts of a Kineto trace for db2diff's tests, read from the JSON itself
(never from the tool): its GPU ops (kernels, copies, memsets) and their ns,
its ProfilerStep#N durations, and each GPU op's launching op (the innermost
cpu_op / Operator around the launching call with the same correlation on
the same thread) with its Input Dims. Times are exact: the JSON's decimal
microseconds read as Decimal.

  kineto_gpu_facts.py [--totals] TRACE.json[.gz]  ->  one JSON object on stdout
--totals: the GPU ops and steps only (the launching ops' search is
quadratic per thread: for the small traces).
"""
import gzip, json, sys
from decimal import Decimal

GPU = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
OPS = {"cpu_op", "Operator"}
LAUNCH = {"cuda_runtime", "cuda_driver", "Runtime"}


def ns(v):
    return int(Decimal(v) * 1000)


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=Decimal)["traceEvents"]


def main():
    totals = sys.argv[1] == "--totals"
    ev = [e for e in load(sys.argv[-1]) if e.get("ph") == "X"]
    gpu = [e for e in ev if e.get("cat") in GPU]
    steps = sorted((ns(e["ts"]), ns(e["dur"])) for e in ev
                   if str(e.get("name", "")).startswith("ProfilerStep#") and e.get("cat") not in ("gpu_user_annotation",)
                   and "GPU" not in str(e.get("cat")))
    # the launching op of each correlation: innermost op on the call's thread
    ops_by_tid = {}
    for e in ev:
        if e.get("cat") in OPS:
            ops_by_tid.setdefault((e["pid"], e["tid"]), []).append(e)
    launch_op = {}
    for e in [] if totals else ev:
        if e.get("cat") not in LAUNCH:
            continue
        corr = (e.get("args") or {}).get("correlation")
        if corr is None:
            continue
        t0 = ns(e["ts"])
        best = None
        for o in ops_by_tid.get((e["pid"], e["tid"]), []):
            s, d = ns(o["ts"]), ns(o["dur"])
            if s <= t0 < s + d and (best is None or d < best[1] or (d == best[1] and s > best[0])):
                best = (s, d, o)
        if best:
            o = best[2]
            dims = (o.get("args") or {}).get("Input Dims")
            key = o["name"] + ("" if dims is None else " " + json.dumps(dims, separators=(",", ":")))
            launch_op[int(corr)] = key
    by_op = {}
    launched_ns = 0
    seq = []
    for e in sorted(gpu, key=lambda e: Decimal(e["ts"])):
        corr = (e.get("args") or {}).get("correlation")
        key = launch_op.get(int(corr)) if corr is not None else None
        d = ns(e["dur"])
        if key is not None:
            launched_ns += d
            by_op[key] = by_op.get(key, 0) + d
            seq.append(key)
    out = {
        "gpu_ns": sum(ns(e["dur"]) for e in gpu),
        "gpu_ops": len(gpu),
        "steps_ns": [d for _, d in steps],
        "launched_ns": launched_ns,
        "by_op": by_op,
        "op_sequence": seq,
    }
    json.dump(out, sys.stdout)


main()
