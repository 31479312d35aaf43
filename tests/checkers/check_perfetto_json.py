#!/usr/bin/python3
"""check_perfetto_json.py - Chrome JSON as Perfetto's own importer reads it.

usage: check_perfetto_json.py [-q] FILE.json[.gz]...

check_chrome_json.py checks the Trace Event Format; this checks the rules
Perfetto's JSON importer (src/trace_processor/importers/json, which the
Perfetto UI and trace_processor run) applies on top of it, where breaking
one loses or moves data without failing the load:

  * times: the importer parses `ts` and `dur` as doubles and takes
    llround(value * 1000) ns (json_utils.cc, CoerceToTs). Each must give
    the exact ns its decimal text says (at absolute epoch µs a double has
    a 0.25 µs grid, and times move).
  * order: the importer sorts events by that ns time, keeping file order
    between equal times (TraceSorter). Everything below is checked in that
    order.
  * flows (s/t/f by cat, name and id): a flow's end met before its start
    is dropped (FlowTracker::End via JsonTraceParser, stat
    flow_end_without_start): every s must come first.
  * complete events (X) on one (pid, tid) nest or are disjoint: one that
    starts inside an open slice and ends after it is moved to another
    track (SliceTracker, stat slice_spill_overlapping_complete_event).
  * every (pid, tid) with events has a thread_name (else the thread shows
    as a bare number: ProcessTracker names it from the M event only), and
    no process_name names a pid without events (it shows as an empty
    process).

stdout: one JSON line of counts (slices: X with dur > 0, instants: X with
dur 0 and i/I, flows: s-f pairs bound, base: baseTimeNanoseconds, errors);
-q leaves it out. Problems go to stderr as "FILE: problem". Exit 0 valid,
1 problems found, 2 cannot read FILE.
"""
import collections
import decimal
import gzip
import json
import sys

import checker_cli



def exact_ns(text):
    """The ns the decimal text says, or None when not a whole ns."""
    d = decimal.Decimal(text) * 1000
    return int(d) if d == d.to_integral_value() else None


def double_ns(text):
    """The ns Perfetto takes: llround(double(text) * 1000)."""
    v = float(text) * 1000.0
    return int(v + 0.5) if v >= 0 else -int(-v + 0.5)


def check(path, quiet):
    problem = checker_cli.Problems(path)
    data = checker_cli.read_bytes(path)
    if data is None:
        return 2
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 25000))
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    try:
        # Numbers as their text: the checks below read it exactly.
        doc = json.loads(data, parse_float=str, parse_int=str)
    except (ValueError, RecursionError) as e:
        sys.stderr.write("%s: not valid JSON: %s\n" % (path, e))
        return 2
    del data
    events = doc if isinstance(doc, list) else doc.get("traceEvents", [])
    base = doc.get("baseTimeNanoseconds") if isinstance(doc, dict) else None

    named = set()
    named_pids = {}
    used = {}
    timed = []  # (ns, file index, event)
    for i, e in enumerate(events):
        ph = e.get("ph")
        thread = (str(e.get("pid")), str(e.get("tid")))
        if ph == "M":
            if e.get("name") == "thread_name":
                named.add(thread)
            elif e.get("name") == "process_name":
                named_pids.setdefault(thread[0], i)
            continue
        used.setdefault(thread, i)
        ns = None
        for key in ("ts", "dur"):
            if key not in e:
                continue
            text = str(e[key])
            want = exact_ns(text)
            got = double_ns(text)
            if want is None or got != want:
                problem("event %d (ph %s): %s %s is %s ns read as a double, not exact"
                        % (i, ph, key, text, got))
            if key == "ts":
                ns = got
        if ns is not None:
            dur = double_ns(str(e["dur"])) if ph == "X" and "dur" in e else 0
            timed.append((ns, i, dur, e))
    for thread, i in sorted(used.items(), key=lambda x: x[1]):
        if thread not in named:
            problem("pid %s tid %s has events (first: event %d) but no thread_name"
                    % (thread[0], thread[1], i))

    pids = set(t[0] for t in used)
    for pid, i in sorted(named_pids.items(), key=lambda x: x[1]):
        if pid not in pids:
            problem("event %d: process_name for pid %s, which has no events" % (i, pid))

    timed.sort(key=lambda x: (x[0], x[1]))
    open_x = collections.defaultdict(list)  # thread -> stack of end ns
    started = set()
    counts = collections.Counter()
    for ns, i, dur, e in timed:
        ph = e["ph"]
        thread = (str(e.get("pid")), str(e.get("tid")))
        if ph == "X":
            counts["slices" if dur > 0 else "instants"] += 1
            stack = open_x[thread]
            while stack and stack[-1] <= ns:
                stack.pop()
            if stack and ns + dur > stack[-1]:
                problem("event %d: X %r at %d ns on pid %s tid %s ends after the slice open "
                        "there (at %d ns): it does not nest"
                        % (i, e.get("name"), ns, thread[0], thread[1], stack[-1]))
            else:
                stack.append(ns + dur)
        elif ph in ("i", "I"):
            counts["instants"] += 1
        elif ph in ("s", "t", "f"):
            key = (str(e.get("cat", "")), str(e.get("name")), str(e.get("id")))
            if ph == "s":
                started.add(key)
            elif key not in started:
                problem("event %d: flow %s id %s (%s) at %d ns comes before its start"
                        % (i, ph, key[2], key[0], ns))
            elif ph == "f":
                counts["flows"] += 1
    return problem.finish(quiet, {"slices": counts["slices"], "instants": counts["instants"],
                                  "flows": counts["flows"],
                                  "base": None if base is None else int(base)})


if __name__ == "__main__":
    checker_cli.run(check, __doc__)
