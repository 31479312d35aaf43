#!/usr/bin/python3
"""Prints what a Kineto trace's arrows should be, from python's json on
the input alone: "LINKS RECORDED CALLS FIRST_MIN".

  LINKS     GPU work (a kernel, copy, memset or wait on a stream: the
            categories Kineto gives GPU work, or an event on a device's
            pid with its device and stream in args) whose correlation is
            a call's (a host event's): one arrow each, from the call;
  RECORDED  recorded flow ends ("f" or "t" with an "s" of their id and
            category) not at such GPU work: arrows drawn as recorded
            (Kineto's fwdbwd, or MTIA's runtime call to a device's call);
  CALLS     the calls whose first GPU work (by start) is not a copy or a
            wait (Kineto's cuda_sync);
  FIRST_MIN the smallest (first GPU work's start - call start) of those,
            in ns ("-" when none): what launch latency measures.

usage: kineto_arrows.py TRACE.json[.gz]"""
import gzip
import json
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "cuda_profiler_range", "Kernel", "Memcpy",
            "Memset", "mtia_ccp_events"}
COPY_CATS = {"gpu_memcpy", "Memcpy"}
ns = lambda e: int(Decimal(e["ts"]) * 1000)


def as_int(v):
    """v as an int when it is one (a Decimal too: kineto_roundtrip parses
    every number so), else None."""
    if isinstance(v, Decimal) and v.is_finite() and v == v.to_integral_value():
        return int(v)
    return v if isinstance(v, int) and not isinstance(v, bool) else None


def is_gpu(e):
    a = e.get("args") if isinstance(e.get("args"), dict) else {}
    if e.get("cat") in GPU_CATS:
        return True
    pid, dev = as_int(e.get("pid")), as_int(a.get("device"))
    return "stream" in a and pid is not None and pid == dev


def corr(e):
    return as_int((e.get("args") if isinstance(e.get("args"), dict) else {}).get("correlation"))


def launches(ev):
    """(calls, gpu): each correlation's first call's start (ns, as the
    trace gives it), and the GPU work whose correlation is a call's."""
    xs = [e for e in ev if e.get("ph") == "X" and "ts" in e and e.get("cat") != "gpu_user_annotation"]
    calls = {}
    for e in xs:
        if not is_gpu(e) and corr(e) is not None:
            calls.setdefault(corr(e), ns(e))
    return calls, [e for e in xs if is_gpu(e) and corr(e) in calls]


def main():
    path = sys.argv[1]
    doc = json.load((gzip.open if path.endswith(".gz") else open)(path, "rt"), parse_float=Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls, gpu = launches(ev)
    at_gpu = {(corr(e), ns(e)) for e in gpu}
    started = {(e.get("cat"), json.dumps(e.get("id"))) for e in ev if e.get("ph") == "s"}
    recorded = sum(1 for e in ev if e.get("ph") in ("f", "t") and "ts" in e
                   and (e.get("cat"), json.dumps(e.get("id"))) in started
                   and (as_int(e.get("id")), ns(e)) not in at_gpu)
    first = {}
    for e in gpu:
        if corr(e) not in first or ns(e) < ns(first[corr(e)]):
            first[corr(e)] = e
    lat = [ns(e) - calls[c] for c, e in first.items() if e.get("cat") not in COPY_CATS | {"cuda_sync"}]
    print(len(gpu), recorded, len(lat), min(lat) if lat else "-")


if __name__ == "__main__":
    main()
