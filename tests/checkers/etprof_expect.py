#!/usr/bin/python3
"""Expected etprof2db results, computed here from the inputs' own values,
independently of the C code:
  - a legacy buffer: the generator's spec (tests/data/etprof_gen.py ... SPEC.json)
  - an ETDump: `flatc --json --strict-json --size-prefixed --raw-binary` of
    the file, with the schema's defaults applied here (the schema table in
    schema/executorch/etdump_schema_flatcc.fbs).

  etprof_expect.py KIND FILE WHAT [SCALE [HZ]]
    KIND  legacy | etdump
    WHAT  regions  block|iteration|name|start_ns|end_ns|chain|instr|flags
          allocs   block|iteration|allocator|allocator_id|size|ts_ns
          summary  the lines `etprof2db --summary` prints after its title
          counts   events allocations debug_events
"""
import json, math, sys

SCALE = {"ns": 1, "us": 1000, "ms": 1000000}


def to_ns(t, scale, hz):
    if scale == "cycles":
        return (t * 10**9 + hz // 2) // hz
    return t * SCALE[scale]


def iterations(kind, path):
    """[(block, iteration, run, events, allocs, alloc_ts_ticks, debug)], events as
    dicts with name, chain, instr, start, end (ticks), unfinished, wrapped."""
    doc = json.load(open(path))
    out, seen = [], {}
    if kind == "legacy":
        names = {}
        for b in doc["blocks"]:
            for a in b["allocators"]:
                names[a[1]] = a[0]
        for b in doc["blocks"]:
            it = seen.get(b["name"], 0)
            seen[b["name"]] = it + 1
            evs = [dict(name=e[0], chain=e[1], instr=e[2], start=e[3], end=e[4] if e[4] else e[3],
                        unfinished=e[4] == 0, wrapped=False) for e in b["events"]]
            ts = b["events"][0][3] if b["events"] else None
            allocs = [(names[m[0]], m[0], m[1]) for m in b["allocations"]]
            out.append((b["name"], it, None, evs, allocs, ts, 0))
        return out
    for run, rd in enumerate(doc.get("run_data", [])):
        name = rd.get("name", "")
        it = seen.get(name, 0)
        seen[name] = it + 1
        allocators = [a.get("name", "") for a in rd.get("allocators", [])]
        evs, allocs, debug = [], [], 0
        for e in rd.get("events", []):
            if "profile_event" in e:
                p = e["profile_event"]
                s, t = p.get("start_time", 0), p.get("end_time", 0)
                wrapped = s > t
                if wrapped:
                    t = s + (2**32 - 1 - s) + t
                # the Inspector's naming: a delegate debug id (int first) names the event
                dint, dstr = p.get("delegate_debug_id_int", -1), p.get("delegate_debug_id_str", "")
                nm = str(dint) if dint != -1 else dstr if dstr else p.get("name", "")
                evs.append(dict(name=nm, chain=p.get("chain_index", 0),
                                instr=p.get("instruction_id", -1), start=s, end=t,
                                unfinished=False, wrapped=wrapped))
            if "allocation_event" in e:
                a = e["allocation_event"]
                i = a.get("allocator_id", 0)
                allocs.append((allocators[i - 1], i, a.get("allocation_size", 0)))
            if "debug_event" in e:
                debug += 1
        ts = min((x["start"] for x in evs), default=None)
        out.append((name, it, run, evs, allocs, ts, debug))
    return out


def main():
    kind, path, what = sys.argv[1:4]
    scale = sys.argv[4] if len(sys.argv) > 4 else "ns"
    hz = int(sys.argv[5]) if len(sys.argv) > 5 else 0
    its = iterations(kind, path)
    ns = lambda t: to_ns(t, scale, hz)
    if what == "counts":
        print(sum(len(i[3]) for i in its), sum(len(i[4]) for i in its), sum(i[6] for i in its))
    elif what == "regions":
        rows = []
        for block, it, run, evs, _, _, _ in its:
            for e in evs:
                flags = ("u" if e["unfinished"] else "") + ("w" if e["wrapped"] else "")
                rows.append("%s|%d|%s|%d|%d|%d|%d|%s" % (block, it, e["name"], ns(e["start"]),
                                                       ns(e["end"]), e["chain"], e["instr"], flags))
        print("\n".join(sorted(rows)))
    elif what == "allocs":
        rows = []
        last = 0
        for block, it, run, evs, allocs, ts, _ in its:
            t = ns(ts) if ts is not None else last
            for name, aid, size in allocs:
                rows.append("%s|%d|%s|%d|%d|%d" % (block, it, name, aid, size, t))
            for e in evs:
                last = max(last, ns(e["end"]), ns(e["start"]))
        print("\n".join(sorted(rows)))
    elif what == "summary":
        lines, taxes, groups, agroups = [], [], {}, {}
        for block, it, run, evs, allocs, ts, _ in its:
            E, K = None, 0
            for idx, e in enumerate(evs):
                s = ns(e["start"])
                if e["unfinished"]:
                    lines.append("event\t%s\t%d\t%d\t%s\t%d\t%d\t%d\tunfinished" % (
                        block, it, idx, e["name"], e["chain"], e["instr"], s))
                    continue
                d = ns(e["end"]) - s
                lines.append("event\t%s\t%d\t%d\t%s\t%d\t%d\t%d\t%d" % (
                    block, it, idx, e["name"], e["chain"], e["instr"], s, d))
                if "Method::execute" in e["name"]:
                    E = d if E is None else max(E, d)
                if "native_call" in e["name"] or "delegate_execute" in e["name"]:
                    K += d
                groups.setdefault((block, e["name"]), []).append(d)
            if E:
                taxes.append("tax\t%s\t%d\t%d\t%d\t%.2f" % (block, it, E, K,
                                                             round((E - K) / E, 4) * 100))
            for name, aid, size in allocs:
                g = agroups.setdefault((block, name), [0, 0])
                g[0] += 1
                g[1] += size
        print("# event\tblock\titeration\tindex\tname\tchain\tinstr\tstart_ns\tduration_ns")
        for l in lines: print(l)
        print("# tax\tblock\titeration\texecute_ns\tkernel_ns\ttax_percent")
        for l in taxes: print(l)
        print("# stat\tblock\tname\tcount\tmin_us\tp10_us\tp50_us\tp90_us\tavg_us\tmax_us")

        def pct(d, q):
            idx = q / 100 * (len(d) - 1)
            lo = math.floor(idx)
            hi = min(lo + 1, len(d) - 1)
            return d[lo] + (d[hi] - d[lo]) * (idx - lo)
        for (block, name), d in groups.items():
            d = sorted(d)
            vals = [d[0], pct(d, 10), pct(d, 50), pct(d, 90), sum(d) / len(d), d[-1]]
            print("stat\t%s\t%s\t%d\t%s" % (block, name, len(d),
                                            "\t".join("%.3f" % (v / 1000.0) for v in vals)))
        print("# alloc\tblock\tallocator\tcount\ttotal_bytes")
        for (block, name), (n, total) in agroups.items():
            print("alloc\t%s\t%s\t%d\t%d" % (block, name, n, total))


main()
