#!/usr/bin/python3
"""Reads an OTF2 archive with libotf2's own Python reader (python3-otf2)
and prints one line of JSON the tests compare with the hub. Validity
(per-location order, strict nesting, event counts, clock range, process
and accelerator groups) is tests/checkers/check_otf2.py's; this adds what db2otf2's
tests count:

  problems     check_otf2's problems, plus accelerator groups whose
               system-tree parent is not an ACCELERATOR_DEVICE node
  enter/leave  Enter and Leave records (CallingContextEnter/Leave counted
               too; cc_enter: those alone)
  samples      CallingContextSample records
  rma_get/rma_put/rma_complete, metric (records), other
  loc_types    locations per type; accel_names: ACCELERATOR_STREAM names
  group_types  location groups per type
  corr_enters  Enter records with a "correlation" attribute
  regions      "PARADIGM/ROLE" -> count; enter_names: region -> Enters
  metric_names, metric_max: samples and largest value per metric member
  ts_min, ts_max, clock_offset, clock_length

Usage: otf2_stats.py ARCHIVE/traces.otf2
"""
import collections
import json
import os
import sys

import otf2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_otf2  # noqa: E402


def ltype(loc):
    # OTF2_LOCATION_TYPE_GPU is the deprecated alias of ACCELERATOR_STREAM
    t = str(loc.type).split(".")[-1]
    return "ACCELERATOR_STREAM" if t == "GPU" else t


def main(path):
    problems, _ = check_otf2.check(path)
    out = {"problems": problems[:20]}
    with otf2.reader.open(path) as tr:
        d = tr.definitions
        locs = list(d.locations)
        out["loc_types"] = dict(collections.Counter(ltype(l) for l in locs))
        out["accel_names"] = sorted(l.name for l in locs if ltype(l) == "ACCELERATOR_STREAM")
        groups = list(d.location_groups)
        out["group_types"] = dict(collections.Counter(
            str(g.location_group_type).split(".")[-1] for g in groups))
        for g in groups:
            if str(g.location_group_type).endswith("ACCELERATOR"):
                doms = [str(x.system_tree_node_domain) for x in d.system_tree_node_domains
                        if x.system_tree_node == g.system_tree_parent]
                if not any(x.endswith("ACCELERATOR_DEVICE") for x in doms):
                    out["problems"].append("%s: parent is not an accelerator device" % g.name)
        out["regions"] = dict(collections.Counter(
            "%s/%s" % (str(r.paradigm).split(".")[-1], str(r.region_role).split(".")[-1])
            for r in d.regions))
        cp = d.clock_properties
        out["clock_offset"] = cp.global_offset
        out["clock_length"] = cp.trace_length
        c = collections.Counter()
        names = collections.Counter()
        metric_names = collections.Counter()
        metric_max = {}
        tmin, tmax = None, None
        for loc, ev in tr.events:
            t = ev.time
            tmin = t if tmin is None else min(tmin, t)
            tmax = t if tmax is None else max(tmax, t)
            if isinstance(ev, (otf2.events.Enter, otf2.events.CallingContextEnter)):
                c["enter"] += 1
                c["cc_enter"] += isinstance(ev, otf2.events.CallingContextEnter)
                names[check_otf2.region_of(ev).name] += 1
                if any(a.name == "correlation" for a in (ev.attributes or {})):
                    c["corr_enters"] += 1
            elif isinstance(ev, (otf2.events.Leave, otf2.events.CallingContextLeave)):
                c["leave"] += 1
            elif isinstance(ev, otf2.events.CallingContextSample):
                c["samples"] += 1
            elif isinstance(ev, otf2.events.RmaGet):
                c["rma_get"] += 1
            elif isinstance(ev, otf2.events.RmaPut):
                c["rma_put"] += 1
            elif isinstance(ev, otf2.events.RmaOpCompleteBlocking):
                c["rma_complete"] += 1
            elif isinstance(ev, otf2.events.Metric):
                c["metric"] += 1
                cls = getattr(ev.metric, "metric_class", ev.metric)
                for member, v in zip(cls.members, ev.values):
                    metric_names[member.name] += 1
                    metric_max[member.name] = max(metric_max.get(member.name, v), v)
            else:
                c["other"] += 1
        for k in ("enter", "leave", "rma_get", "rma_put", "rma_complete", "metric", "other",
                  "corr_enters", "cc_enter", "samples"):
            out[k] = c[k]
        out["enter_names"] = dict(names)
        out["metric_names"] = dict(metric_names)
        out["metric_max"] = metric_max
        out["ts_min"], out["ts_max"] = tmin, tmax
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1:][0])
