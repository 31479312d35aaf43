#!/usr/bin/python3
"""check_chrome_json.py - the project's own checker for Chrome trace-event JSON.

usage: check_chrome_json.py [-q] FILE.json[.gz]...

Loads FILE with python's json (gunzipped first when it starts with the gzip
magic), accepts {"traceEvents": [...]} or a bare array, and checks the rules
of the Trace Event Format that viewers (chrome://tracing, Perfetto UI)
depend on:

  * every element is an object with a known phase `ph`;
  * `ts` is a number (or numeric string) on every event but metadata (M);
  * complete events (X) have a numeric `dur` >= 0;
  * duration events B/E balance per (pid, tid), innermost first, an E never
    before its B, and a named E matches its B;
  * flow events s/t/f pair up by (cat, name, id): each flow has a start and
    a finish; bind_id flows have a flow_out and a flow_in end;
  * counters (C) carry a non-empty object of numeric args;
  * process_name/thread_name metadata carry a string args.name;
  * no tid is negative: Perfetto's JSON importer folds a negative tid into
    its process's main thread, so it would not be a thread of its own.

stdout: one JSON line of counts (events, ph, flows_paired, errors); -q
leaves it out.  Problems go to stderr as "FILE: problem".  Exit 0 valid,
1 problems found, 2 cannot read FILE.
"""
import gzip
import json
import sys

import checker_cli

KNOWN_PH = set("BEXiICbneSTpFsftPONDMRVvcG()")


def number(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return None
    return None


def check(path, quiet):
    problems = checker_cli.Problems(path)
    problem = problems  # problem(msg) records one
    data = checker_cli.read_bytes(path)
    if data is None:
        return 2
    # kineto2db keeps args nested up to 10000 levels; json's C scanner
    # counts each level against the recursion limit.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 25000))
    zipped = data[:2] == b"\x1f\x8b"
    doc = None
    try:
        doc = json.loads(gzip.decompress(data) if zipped else data)
    except (OSError, EOFError, ValueError, RecursionError) as e:
        problem("not valid JSON%s: %s" % (" after gunzip" if zipped else "", e))
    del data
    if isinstance(doc, list):
        events = doc
    elif isinstance(doc, dict) and isinstance(doc.get("traceEvents"), list):
        events = doc["traceEvents"]
    else:
        if doc is not None:
            problem('top level is neither an array nor {"traceEvents": [...]}')
        events = []

    by_ph = {}
    open_b = {}     # (pid, tid) -> [(name, ts, index)]
    flows = {}      # (cat, name, id) -> [starts, finishes]
    binds = {}      # bind_id -> [outs, ins]
    negative = set()  # (pid, tid) with a negative tid, reported once
    for i, e in enumerate(events):
        if not isinstance(e, dict):
            problem("event %d is not an object" % i)
            continue
        ph = e.get("ph")
        if not isinstance(ph, str) or ph not in KNOWN_PH:
            problem("event %d: unknown ph %r" % (i, ph))
            continue
        by_ph[ph] = by_ph.get(ph, 0) + 1
        args = e.get("args")
        tid = e.get("tid")
        if isinstance(tid, int) and not isinstance(tid, bool) and tid < 0 \
                and (e.get("pid"), tid) not in negative:
            negative.add((e.get("pid"), tid))
            problem("event %d: pid %r tid %d is negative (Perfetto's JSON importer folds it "
                    "into the process's main thread)" % (i, e.get("pid"), tid))
        if ph == "M":
            if e.get("name") in ("process_name", "thread_name") and not (
                    isinstance(args, dict) and isinstance(args.get("name"), str)):
                problem("event %d: %s metadata without a string args.name" % (i, e.get("name")))
            continue
        ts = number(e.get("ts"))
        if ts is None:
            problem("event %d (ph %s): ts %r is not a number" % (i, ph, e.get("ts")))
            continue
        thread = (e.get("pid"), e.get("tid"))
        if ph == "X":
            dur = number(e.get("dur"))
            if dur is None or dur < 0:
                problem("event %d: X with dur %r (must be a number >= 0)" % (i, e.get("dur")))
        elif ph == "B":
            open_b.setdefault(thread, []).append((e.get("name"), ts, i))
        elif ph == "E":
            stack = open_b.get(thread)
            if not stack:
                problem("event %d: E on pid %r tid %r with no open B" % (i, thread[0], thread[1]))
            else:
                name, bts, bi = stack.pop()
                if ts < bts:
                    problem("event %d: E at %s before its B (event %d) at %s" % (i, ts, bi, bts))
                if e.get("name") not in (None, "", name):
                    problem("event %d: E %r closes B %r (event %d)" % (i, e.get("name"), name, bi))
        elif ph == "C":
            if not isinstance(args, dict) or not args or \
                    any(number(v) is None for v in args.values()):
                problem("event %d: counter args %r are not a non-empty object of numbers"
                        % (i, args))
        if ph in ("s", "t", "f"):
            if "id" not in e and "id2" not in e:
                problem("event %d: flow event %s without an id" % (i, ph))
            key = (str(e.get("cat", "")), str(e.get("name")),
                   json.dumps(e.get("id", e.get("id2")), sort_keys=True))
            ends = flows.setdefault(key, [0, 0])
            if ph == "s":
                ends[0] += 1
            elif ph == "f":
                ends[1] += 1
        if "bind_id" in e or e.get("flow_out") or e.get("flow_in"):
            ends = binds.setdefault(json.dumps(e.get("bind_id")), [0, 0])
            ends[0] += 1 if e.get("flow_out") else 0
            ends[1] += 1 if e.get("flow_in") else 0

    for thread, stack in open_b.items():
        for name, ts, i in stack[:3]:
            problem("event %d: B %r at %s on pid %r tid %r is never ended"
                    % (i, name, ts, thread[0], thread[1]))
    paired = 0
    for (cat, name, fid), (s, f) in sorted(flows.items()):
        if s and f:
            paired += 1
        else:
            problem("flow cat=%r name=%r id=%s: %d start(s), %d finish(es)" % (cat, name, fid, s, f))
    for bid, (o, n) in sorted(binds.items()):
        if bid == "null":
            problem("%d event(s) with flow_out/flow_in but no bind_id" % (o + n))
        elif o and n:
            paired += 1
        else:
            problem("bind_id %s: %d flow_out end(s), %d flow_in end(s)" % (bid, o, n))
    if not events and not problems:
        problem("no trace events")
    return problems.finish(quiet, {"events": len(events), "ph": by_ph, "flows_paired": paired})


if __name__ == "__main__":
    checker_cli.run(check, __doc__)
