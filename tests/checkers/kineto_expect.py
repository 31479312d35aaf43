#!/usr/bin/python3
"""Expected hub contents for one Kineto trace, computed from the JSON alone
(Python's json/gzip/decimal, nothing of kineto2db's code).

Prints one check per line:  DESCRIPTION <TAB> SQL <TAB> EXPECTED
tests/tools/test_kineto.sh runs each SQL on the database kineto2db wrote and
compares its one-line answer with EXPECTED.

The mapping followed is schema/MAPPING-kineto.md: X events are rows of
rocpd_region / rocpd_kernel_dispatch / rocpd_memory_copy joined to
rocpd_event for their category; i/I/n are samples on "instants" tracks;
s/t/f are samples on "flow" tracks; C args are samples on counter tracks;
timestamps are baseTimeNanoseconds + the microsecond text, exact to the ns.
"""
import gzip
import json
import sys
from collections import Counter
from decimal import Decimal, ROUND_HALF_UP

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation",
            "cuda_profiler_range", "Kernel", "Memcpy", "Memset", "mtia_ccp_events"}
COPY_CATS = {"gpu_memcpy", "Memcpy"}
# GPU-side annotations are the user's ranges seen from the stream, not
# kernels: regions on the thread that stands for their GPU stream.
ANNOTATION = "gpu_user_annotation"
KNOWN = {"ph", "cat", "name", "pid", "tid", "ts", "dur", "args", "id", "bp", "s"}
COMMON = {"ph", "pid", "tid", "ts"}
USED = {  # event fields each phase maps; others become "kineto.*" args
    "X": COMMON | {"cat", "name", "dur"},
    "B": COMMON | {"cat", "name"},
    "E": COMMON,
    "i": COMMON | {"cat", "name", "s"},
}

# The union of the three interval tables, with each row's category.
INTERVALS = (
    "(SELECT r.start AS start, r.\"end\" AS \"end\", e.category_id AS cat, e.correlation_id AS corr"
    " FROM rocpd_region r JOIN rocpd_event e ON e.id = r.event_id"
    " UNION ALL SELECT k.start, k.\"end\", e.category_id, e.correlation_id"
    " FROM rocpd_kernel_dispatch k JOIN rocpd_event e ON e.id = k.event_id"
    " UNION ALL SELECT c.start, c.\"end\", e.category_id, e.correlation_id"
    " FROM rocpd_memory_copy c JOIN rocpd_event e ON e.id = c.event_id)")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        # Decimal keeps the number's text exact ("1212075548353.304").
        return json.load(f, parse_float=Decimal)


def ns(v):
    """Microseconds (int, Decimal or numeric string) → integer ns, rounding
    half away from zero like a decimal reading of the text would."""
    d = Decimal(str(v)) * 1000
    return int(d.quantize(Decimal(1), rounding=ROUND_HALF_UP))


def as_int(v):
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, Decimal) and v == v.to_integral_value():
        return int(v)
    if isinstance(v, str) and v.lstrip("-").isdigit() and v not in ("", "-"):
        return int(v)
    return None


def sql_str(s):
    return "'" + s.replace("'", "''") + "'"


def main():
    path = sys.argv[1]
    doc = load(path)
    if isinstance(doc, dict):
        events = doc.get("traceEvents", [])
        meta_keys = [k for k in doc if k not in ("traceEvents", "deviceProperties")]
        devprops = doc.get("deviceProperties", [])
        base = int(doc.get("baseTimeNanoseconds", 0))
    else:
        events, meta_keys, devprops, base = doc, [], [], 0
    objs = [e for e in events if isinstance(e, dict)]
    checks = []
    # deviceProperties ids are Kineto's GPU pids (in every fixture they come
    # before traceEvents, so the importer knows them when flows arrive)
    device_ids = set()
    for i, d in enumerate(devprops if isinstance(devprops, list) else []):
        n = as_int(d.get("id")) if isinstance(d, dict) else None
        device_ids.add(str(n if n is not None else i))

    def check(desc, sql, expected):
        checks.append((desc, sql, str(expected)))

    x_cat = Counter()
    starts, ends = [], []
    n_corr = 0
    n_args = 0
    n_copies = n_kernels = n_regions = n_annotations = 0
    instants = 0
    flows = Counter()
    flow_ids = set()
    flow_ends = []     # (ph, cat, id, ts ns) of every s/t/f
    call_starts = set()  # (correlation, start) of every call (non-GPU X)
    gpu_starts = {}      # (correlation, start) of every kernel or copy → 1
    counter_samples = 0
    be_open = {}
    proc_name = {}    # pid key → name from M process_name (last wins)
    thread_name = {}  # (pid key, numeric tid) → name from M thread_name (last wins)
    pid_keys = set()
    gpu_pids = set()      # pid keys of GPU pseudo-processes (labels or GPU work)
    cpu_pids = set()      # numeric pid keys with CPU-side work or a CPU label
    threaded_pids = set() # pid keys that own a thread row
    first = None
    # The latest time of any timed event: where a B never closed ends.
    last = max([base + ns(e["ts"]) + (ns(e.get("dur", 0)) if e.get("ph") == "X" else 0)
                for e in objs if "ts" in e and e.get("ph") != "M"] or [0])

    def pid_key(v):
        n = as_int(v)
        if n is not None:
            return str(n)
        return "label:" + (v if isinstance(v, str) else json.dumps(v))

    def count_args(e, used):
        a = e.get("args")
        n = len(a) if isinstance(a, dict) else 0
        n += sum(1 for k in e if k not in KNOWN or (k not in used and k != "args"))
        n += 1 if ("args" in e and not isinstance(a, dict)) else 0
        return n

    for e in objs:
        ph = e.get("ph")
        if "pid" in e:
            pid_keys.add(pid_key(e["pid"]))
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        cat = e.get("cat", "")
        if ph == "X" and "ts" in e:
            start = base + ns(e["ts"])
            end = start + ns(e.get("dur", 0))
            if first is None:
                first = start
            starts.append(start)
            ends.append(end)
            x_cat[cat] += 1
            if as_int(args.get("correlation")) is not None:
                n_corr += 1
            n_args += count_args(e, USED["X"])
            gpu = cat in GPU_CATS or (
                "device" in args and "stream" in args and as_int(e.get("pid")) is not None
                and as_int(e.get("pid")) == as_int(args.get("device")))
            if gpu:
                gpu_pids.add(pid_key(e.get("pid")))
            elif as_int(e.get("pid")) is not None:
                cpu_pids.add(pid_key(e.get("pid")))
            if not gpu:
                threaded_pids.add(pid_key(e.get("pid")))
            c = as_int(args.get("correlation"))
            if c is not None and gpu and cat != ANNOTATION:
                gpu_starts[(c, start)] = 1
            elif c is not None and not gpu:
                call_starts.add((c, start))
            if gpu and cat in COPY_CATS:
                n_copies += 1
            elif gpu and cat == ANNOTATION:
                n_regions += 1
                n_annotations += 1
            elif gpu:
                n_kernels += 1
            else:
                n_regions += 1
        elif ph == "B":
            be_open.setdefault((pid_key(e.get("pid")), str(e.get("tid"))), []).append(e)
            if first is None:
                first = base + ns(e["ts"])
            n_regions += 1
            x_cat[cat] += 1
            n_args += count_args(e, USED["B"])
        elif ph == "E":
            stack = be_open.get((pid_key(e.get("pid")), str(e.get("tid"))))
            if stack:
                b = stack.pop()
                starts.append(base + ns(b["ts"]))
                ends.append(base + ns(e["ts"]))
                n_args += count_args(e, USED["E"])
        elif ph in ("i", "I", "n"):
            instants += 1
            n_args += count_args(e, USED["i"])
        elif ph in ("s", "t", "f"):
            # a flow end on a pid not (yet) known as a GPU's is on a thread
            if pid_key(e.get("pid")) not in gpu_pids | device_ids:
                threaded_pids.add(pid_key(e.get("pid")))
            flow_ends.append((ph, e.get("cat"), e.get("id"), base + ns(e["ts"])))
        elif ph == "C":
            counter_samples += sum(1 for v in args.values()
                                   if isinstance(v, (int, Decimal)) and not isinstance(v, bool))
        elif ph == "M":
            if e.get("name") == "process_name" and isinstance(args.get("name"), str):
                proc_name[pid_key(e.get("pid"))] = args["name"]
            if e.get("name") in ("thread_name", "thread_sort_index"):
                threaded_pids.add(pid_key(e.get("pid")))
            if e.get("name") == "process_labels" and isinstance(args.get("labels"), str):
                if args["labels"].startswith("GPU"):
                    gpu_pids.add(pid_key(e.get("pid")))
                if args["labels"] == "CPU":
                    cpu_pids.add(pid_key(e.get("pid")))
            if e.get("name") == "thread_name" and isinstance(args.get("name"), str):
                tid = as_int(e.get("tid"))
                if tid is not None:
                    thread_name[(pid_key(e.get("pid")), tid)] = args["name"]
        else:
            instants += 1  # unknown phases are kept as instants
            n_args += count_args(e, USED["i"])

    for stack in be_open.values():  # B events never closed
        for b in stack:
            starts.append(base + ns(b["ts"]))
            ends.append(max(last, starts[-1]))

    # Interval rows, per category and in total.
    for cat, n in sorted(x_cat.items()):
        check("X/B events of category '%s'" % cat,
              "SELECT count(*) FROM %s WHERE cat IS (SELECT id FROM rocpd_string WHERE string=%s)"
              % (INTERVALS, sql_str(cat)), n)
    check("interval rows in total", "SELECT count(*) FROM " + INTERVALS, sum(x_cat.values()))
    check("regions", "SELECT count(*) FROM rocpd_region", n_regions)
    check("kernel dispatches", "SELECT count(*) FROM rocpd_kernel_dispatch", n_kernels)
    check("memory copies", "SELECT count(*) FROM rocpd_memory_copy", n_copies)
    check("GPU annotations: regions on a GPU stream's lane thread",
          "SELECT count(*) FROM rocpd_region r JOIN rocpd_info_thread t ON t.id = r.tid "
          "JOIN rocpd_event e ON e.id = r.event_id JOIN rocpd_string c ON c.id = e.category_id "
          "WHERE c.string = '%s' AND json_extract(t.extdata, '$.kind') = 'gpu_lane' "
          "AND json_extract(t.extdata, '$.stream_id') IS NOT NULL" % ANNOTATION, n_annotations)
    check("interval rows carrying a correlation id",
          "SELECT count(*) FROM %s WHERE corr IS NOT NULL" % INTERVALS, n_corr)

    # Timestamps, exact to the ns.
    if starts:
        m = min(starts)
        check("first X event's start (base + exact decimal ts)",
              "SELECT count(*) > 0 FROM %s WHERE start = %d" % (INTERVALS, first), 1)
        check("earliest start", "SELECT min(start) FROM " + INTERVALS, m)
        check("latest end", "SELECT max(\"end\") FROM " + INTERVALS, max(ends))
        check("sum of durations (ns)", "SELECT sum(\"end\" - start) FROM " + INTERVALS,
              sum(b - a for a, b in zip(starts, ends)))
        check("sum of starts relative to the earliest (ns)",
              "SELECT sum(start - %d) FROM %s" % (m, INTERVALS), sum(s - m for s in starts))

    # Flow ends that repeat a launch link (an end at the start of a kernel
    # or copy carrying its id, that id a call's; a start at that call when
    # every end it had was one) are drawn from the correlation: the hub
    # keeps the others (docs/hub.md, "Launch arrows").
    call_corrs = {c for c, _ in call_starts}
    linked = {k for k in gpu_starts if k[0] in call_corrs}
    dup_end = lambda ph, i, t: ph != "s" and as_int(i) is not None and (as_int(i), t) in linked
    ends_of = {}
    for ph, cat, i, t in flow_ends:
        if ph != "s":
            ends_of.setdefault((cat, json.dumps(i)), []).append(dup_end(ph, i, t))
    for ph, cat, i, t in flow_ends:
        if ph == "s":
            e = ends_of.get((cat, json.dumps(i)), [])
            dup = as_int(i) is not None and (as_int(i), t) in call_starts and e and all(e)
        else:
            dup = dup_end(ph, i, t)
        if not dup:
            flows[ph] += 1
            flow_ids.add(json.dumps(i))

    # Samples: instants, flow ends, counters.
    check("instant events", "SELECT count(*) FROM rocpd_sample s JOIN rocpd_track t "
          "ON t.id = s.track_id WHERE t.name_id = (SELECT id FROM rocpd_string WHERE string='instants')",
          instants)
    for ph in "stf":
        check("flow events ph=%s" % ph,
              "SELECT count(*) FROM rocpd_sample s JOIN rocpd_event e ON e.id = s.event_id "
              "JOIN rocpd_track t ON t.id = s.track_id WHERE json_extract(t.extdata,'$.kind')='flow' "
              "AND json_extract(e.extdata,'$.ph')='%s'" % ph, flows[ph])
    check("distinct flow ids",
          "SELECT count(DISTINCT e.correlation_id) FROM rocpd_sample s JOIN rocpd_event e "
          "ON e.id = s.event_id JOIN rocpd_track t ON t.id = s.track_id "
          "WHERE json_extract(t.extdata,'$.kind')='flow'", len(flow_ids) if sum(flows.values()) else 0)
    check("counter samples", "SELECT count(*) FROM rocpd_sample s JOIN rocpd_track t "
          "ON t.id = s.track_id WHERE json_extract(t.extdata,'$.kind')='counter'", counter_samples)

    # Args: every arg of every X/B/E/instant event, plus unknown keys.
    check("args in total", "SELECT count(*) FROM rocpd_arg", n_args)

    # Names from M events and from pid labels. With one CPU process, GPU
    # pseudo-processes fold into it; those left without threads are kept
    # as metadata rows instead of empty processes. Kineto's own
    # pseudo-processes (string pids: "Spans", "Traces", "") fold into it
    # too, threads and all (#46), and are kept as metadata rows as well.
    folded = set()
    if len(cpu_pids - gpu_pids) == 1:
        folded = (gpu_pids - threaded_pids) | {k for k in pid_keys if k.startswith("label:")}
    check("GPU pseudo-processes kept as metadata",
          "SELECT count(*) FROM rocpd_metadata WHERE tag GLOB 'merged_process.*'", len(folded))
    expected_procs = []
    for key in pid_keys - folded:
        name = proc_name.get(key, key[len("label:"):] if key.startswith("label:") else "")
        expected_procs.append(key + "=" + name)
    check("process names (M process_name, else the pid label)",
          "SELECT group_concat(k, '|') FROM (SELECT CASE WHEN json_extract(extdata,'$.kineto_pid') "
          "IS NOT NULL THEN 'label:' || json_extract(extdata,'$.kineto_pid') ELSE pid END || '=' || "
          "command AS k FROM rocpd_info_process "
          "ORDER BY k)", "|".join(sorted(expected_procs)))
    if thread_name:
        # Two processes' threads may share a tid (a GPU's "stream 0" and a
        # process's thread 0): the distinct (tid, name) pairs.
        tids = ",".join(str(t) for t in sorted({t for _, t in thread_name}))
        check("thread names (M thread_name)",
              "SELECT group_concat(k, '|') FROM (SELECT DISTINCT tid || '=' || name AS k FROM "
              "rocpd_info_thread WHERE tid IN (%s) ORDER BY k)" % tids,
              "|".join(sorted({"%d=%s" % (t, n) for (_, t), n in thread_name.items()})))

    # Top level: agents from deviceProperties, other keys as metadata.
    check("GPU agents from deviceProperties",
          "SELECT count(*) FROM rocpd_info_agent WHERE type='GPU' AND json_extract(extdata,'$.id') IS NOT NULL",
          len(devprops))
    check("top-level keys kept as metadata",
          "SELECT count(*) FROM rocpd_metadata WHERE tag LIKE 'kineto.%'", len(meta_keys))
    check("every element of traceEvents read",
          "SELECT value FROM rocpd_metadata WHERE tag='kineto2db.events'", len(events))

    for desc, sql, exp in checks:
        assert "\t" not in sql and "\n" not in exp and "\t" not in exp
        print("%s\t%s\t%s" % (desc, sql, exp))


if __name__ == "__main__":
    main()
