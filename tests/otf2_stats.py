#!/usr/bin/python3
"""Reads an OTF2 archive with libotf2's own Python reader (python3-otf2)
and prints one line of JSON the tests compare with the hub:

  problems     order/nesting/count violations found (list of strings)
  enter/leave  Enter and Leave records
  rma_get/rma_put/rma_complete, metric (records)
  loc_types    locations per type; accel_names: ACCELERATOR_STREAM names
  group_types  location groups per type; accel_groups_ok: every
               ACCELERATOR group has a creating PROCESS group and an
               ACCELERATOR_DEVICE system-tree parent
  process_threads_ok: every PROCESS group has a CPU_THREAD location
  corr_enters  Enter records with a "correlation" attribute
  regions      "PARADIGM/ROLE" -> count; metric_names; metric_max
  enter_names  region name -> Enter count
  ts_min, ts_max, clock_offset, clock_length

Usage: otf2_stats.py ARCHIVE/traces.otf2
"""
import collections
import json
import sys

import otf2


def ltype(loc):
    # OTF2_LOCATION_TYPE_GPU is the deprecated alias of ACCELERATOR_STREAM
    t = str(loc.type).split(".")[-1]
    return "ACCELERATOR_STREAM" if t == "GPU" else t


def main(path):
    out = {"problems": []}
    probs = out["problems"]
    with otf2.reader.open(path) as tr:
        d = tr.definitions
        locs = list(d.locations)
        out["loc_types"] = dict(collections.Counter(ltype(l) for l in locs))
        out["accel_names"] = sorted(l.name for l in locs
                                    if ltype(l) == "ACCELERATOR_STREAM")
        groups = list(d.location_groups)
        out["group_types"] = dict(collections.Counter(
            str(g.location_group_type).split(".")[-1] for g in groups))
        ok = True
        for g in groups:
            if str(g.location_group_type).endswith("ACCELERATOR"):
                c = g.creating_location_group
                p = g.system_tree_parent
                if c is None or not str(c.location_group_type).endswith("PROCESS"):
                    ok = False
                doms = [str(x.system_tree_node_domain) for x in d.system_tree_node_domains
                        if x.system_tree_node == p]
                if not any(x.endswith("ACCELERATOR_DEVICE") for x in doms):
                    ok = False
        out["accel_groups_ok"] = ok
        threads = collections.Counter(l.group.name for l in locs
                                      if str(l.type).endswith("CPU_THREAD"))
        out["process_threads_ok"] = all(
            threads[g.name] > 0 for g in groups
            if str(g.location_group_type).endswith("PROCESS"))
        out["regions"] = dict(collections.Counter(
            "%s/%s" % (str(r.paradigm).split(".")[-1], str(r.region_role).split(".")[-1])
            for r in d.regions))
        cp = d.clock_properties
        out["clock_offset"] = cp.global_offset
        out["clock_length"] = cp.trace_length
        last = {}
        stacks = collections.defaultdict(list)
        seen = collections.Counter()
        c = collections.Counter()
        names = collections.Counter()
        metric_names = collections.Counter()
        metric_max = {}
        tmin, tmax = None, None
        for loc, ev in tr.events:
            seen[loc] += 1
            t = ev.time
            tmin = t if tmin is None else min(tmin, t)
            tmax = t if tmax is None else max(tmax, t)
            if loc in last and t < last[loc] and len(probs) < 20:
                probs.append("%s: time goes back %d -> %d" % (loc.name, last[loc], t))
            last[loc] = t
            if isinstance(ev, otf2.events.Enter):
                c["enter"] += 1
                names[ev.region.name] += 1
                stacks[loc].append(ev.region)
                if any(a.name == "correlation" for a in (ev.attributes or {})):
                    c["corr_enters"] += 1
            elif isinstance(ev, otf2.events.Leave):
                c["leave"] += 1
                if not stacks[loc] or stacks[loc][-1] != ev.region:
                    if len(probs) < 20:
                        probs.append("%s: leave of %s does not match" % (loc.name, ev.region.name))
                else:
                    stacks[loc].pop()
            elif isinstance(ev, otf2.events.RmaGet):
                c["rma_get"] += 1
            elif isinstance(ev, otf2.events.RmaPut):
                c["rma_put"] += 1
            elif isinstance(ev, otf2.events.RmaOpCompleteBlocking):
                c["rma_complete"] += 1
            elif isinstance(ev, otf2.events.Metric):
                c["metric"] += 1
                m = ev.metric
                cls = getattr(m, "metric_class", m)
                for member, v in zip(cls.members, ev.values):
                    metric_names[member.name] += 1
                    metric_max[member.name] = max(metric_max.get(member.name, v), v)
            else:
                c["other"] += 1
        for loc, st in stacks.items():
            if st:
                probs.append("%s: %d regions left open" % (loc.name, len(st)))
        for l in locs:
            if l.number_of_events != seen[l]:
                probs.append("%s: defines %d events, has %d" % (l.name, l.number_of_events, seen[l]))
        if tmin is not None and (tmin < cp.global_offset or
                                 tmax > cp.global_offset + cp.trace_length):
            probs.append("events outside the clock range")
        for k in ("enter", "leave", "rma_get", "rma_put", "rma_complete", "metric", "other",
                  "corr_enters"):
            out[k] = c[k]
        out["enter_names"] = dict(names)
        out["metric_names"] = dict(metric_names)
        out["metric_max"] = metric_max
        out["ts_min"], out["ts_max"] = tmin, tmax
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
