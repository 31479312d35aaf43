#!/usr/bin/python3
"""check_otf2.py - the project's own checker for OTF2 archives.

usage: check_otf2.py [-q] ARCHIVE/traces.otf2...

Reads the archive with libotf2's own Python reader (Debian python3-otf2)
and checks what Vampir and Scalasca rely on:

  * the archive opens and every event reads to the end;
  * per location, timestamps never decrease;
  * Enter/Leave (or CallingContextEnter/Leave, by their context's region)
    nest strictly per location: a Leave matches the innermost open Enter,
    none is left open at the end; the two kinds are never mixed in one
    trace (OTF2_EvtWriter.h);
  * every event lies within the ClockProperties range
    [global_offset, global_offset + trace_length];
  * each location's number_of_events equals the events read for it;
  * every ACCELERATOR location group has a creating PROCESS group, and
    every PROCESS group has a CPU_THREAD location.

stdout: one JSON line of counts (locations, enter, leave, samples
(CallingContextSample), events, ts_min, ts_max, errors); -q leaves it out.  Problems go to stderr as
"FILE: problem" (at most 20).  Exit 0 valid, 1 problems found, 2 cannot run.
"""
import collections
import json
import sys


def region_of(ev):
    """An Enter's region, or a CallingContextEnter's (its context's)."""
    cc = getattr(ev, "calling_context", None)
    return cc.region if cc is not None else ev.region


def check(path):
    import otf2
    problems = []
    counts = collections.Counter()
    with otf2.reader.open(path) as tr:
        d = tr.definitions
        locs = list(d.locations)
        counts["locations"] = len(locs)
        for g in d.location_groups:
            kind = str(g.location_group_type)
            if kind.endswith("ACCELERATOR"):
                c = g.creating_location_group
                if c is None or not str(c.location_group_type).endswith("PROCESS"):
                    problems.append("accelerator group %s has no creating process group" % g.name)
            if kind.endswith("PROCESS") and not any(
                    l.group == g and str(l.type).endswith("CPU_THREAD") for l in locs):
                problems.append("process group %s has no CPU_THREAD location" % g.name)
        cp = d.clock_properties
        lo, hi = cp.global_offset, cp.global_offset + cp.trace_length
        last, stacks, seen = {}, collections.defaultdict(list), collections.Counter()
        contexts_used = enter_leave_used = False
        tmin = tmax = None
        for loc, ev in tr.events:
            seen[loc] += 1
            counts["events"] += 1
            t = ev.time
            tmin = t if tmin is None else min(tmin, t)
            tmax = t if tmax is None else max(tmax, t)
            if loc in last and t < last[loc]:
                problems.append("%s: time goes back %d -> %d" % (loc.name, last[loc], t))
            last[loc] = t
            if t < lo or t > hi:
                problems.append("%s: event at %d outside the clock range [%d, %d]" % (loc.name, t, lo, hi))
            if isinstance(ev, otf2.events.CallingContextSample):
                counts["samples"] += 1
                contexts_used = True
            elif isinstance(ev, (otf2.events.Enter, otf2.events.CallingContextEnter)):
                counts["enter"] += 1
                stacks[loc].append(region_of(ev))
                if isinstance(ev, otf2.events.Enter):
                    enter_leave_used = True
                else:
                    contexts_used = True
            elif isinstance(ev, (otf2.events.Leave, otf2.events.CallingContextLeave)):
                counts["leave"] += 1
                if not stacks[loc] or stacks[loc][-1] != region_of(ev):
                    problems.append("%s: Leave of %s does not match the innermost Enter" %
                                    (loc.name, region_of(ev).name))
                else:
                    stacks[loc].pop()
        if contexts_used and enter_leave_used:
            # OTF2_EvtWriter.h: calling-context events "are mutually
            # exclusive with the Enter/Leave events in a trace"
            problems.append("calling-context events and Enter/Leave in one trace")
        for loc, st in stacks.items():
            if st:
                problems.append("%s: %d regions left open" % (loc.name, len(st)))
        for l in locs:
            if l.number_of_events != seen[l]:
                problems.append("%s: defines %d events, has %d" % (l.name, l.number_of_events, seen[l]))
    counts["ts_min"], counts["ts_max"] = tmin, tmax
    return problems, counts


def check_one(path, quiet):
    try:
        problems, counts = check(path)
    except ImportError as e:
        print("%s: cannot run: %s (install python3-otf2)" % (path, e), file=sys.stderr)
        return 2
    except Exception as e:  # the reader's own errors: the archive is broken
        problems, counts = ["otf2 library: %s" % e], collections.Counter()
    for p in problems[:20]:
        print("%s: %s" % (path, p), file=sys.stderr)
    if len(problems) > 20:
        print("%s: ... %d more" % (path, len(problems) - 20), file=sys.stderr)
    counts["errors"] = len(problems)
    if not quiet:
        print(json.dumps(counts, sort_keys=True))
    return 1 if problems else 0


def main(argv):
    """Each archive in turn (one process for many); the worst result."""
    quiet = "-q" in argv
    args = [a for a in argv if a != "-q"]
    if not args:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    return max(check_one(path, quiet) for path in args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
