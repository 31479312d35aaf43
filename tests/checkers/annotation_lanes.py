#!/usr/bin/python3
"""annotation_lanes.py SOURCE.json[.gz] OUT.json OUT.pftrace.txt : checks that
Kineto's GPU annotations (cat gpu_user_annotation) are drawn on the lane of
the GPU stream they were recorded on, in db2json's and db2perfetto's output
(the latter as `protoc --decode` text): the lane where the kernels of that
same source (pid, tid) are drawn. Events are matched to the source by name
and start. Prints PASS/FAIL lines."""
import collections, gzip, json, re, sys
from decimal import Decimal, ROUND_HALF_UP

ANN = "gpu_user_annotation"
GPU_WORK = {"kernel", "gpu_memset", "Kernel", "Memset"}


def ns(us):
    return int((Decimal(str(us)) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def load(path):
    op = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with op(path, "rt") as f:
        return json.load(f, parse_float=Decimal)


src = load(sys.argv[1])
base = int(src.get("baseTimeNanoseconds", 0))
sev = [e for e in src["traceEvents"] if e.get("ph") == "X"]
# (name, start ns) -> source lane, for annotations and for GPU work
ann = {(e["name"], base + ns(e["ts"])): (e["pid"], e["tid"]) for e in sev if e.get("cat") == ANN}
work = {(e["name"], base + ns(e["ts"])): (e["pid"], e["tid"]) for e in sev if e.get("cat") in GPU_WORK}
src_lanes = set(ann.values())

# db2json: output (pid, tid) of each matched event; its times are relative
# to its own baseTimeNanoseconds, and an overlap lane ("NAME (overlap N)")
# counts as the lane of its thread NAME.
doc = load(sys.argv[2])
out, out_base = doc["traceEvents"], int(doc.get("baseTimeNanoseconds", 0))
thread_names = {(e["pid"], e["tid"]): e["args"]["name"] for e in out
                if e.get("ph") == "M" and e.get("name") == "thread_name"}
by_name = {(pid, nm): tid for (pid, tid), nm in thread_names.items()}
def lane(e):
    nm = re.sub(r" \(overlap \d+\)$", "", thread_names.get((e["pid"], e["tid"]), ""))
    return (e["pid"], by_name.get((e["pid"], nm), e["tid"]))
lane_of_src = collections.defaultdict(set)
got = {}
for e in out:
    if e.get("ph") != "X":
        continue
    key = (e["name"], out_base + ns(e["ts"]))
    if key in work and work[key] in src_lanes:
        lane_of_src[work[key]].add(lane(e))
    if e.get("cat") == ANN and key in ann:
        got[key] = lane(e)
ok = len(got) == len(ann) and all(
    lane_of_src[ann[k]] == {got[k]} for k in ann)
print("%s: db2json: %d GPU annotations on their stream's lane, with its kernels%s" % (
    "PASS" if ok else "FAIL", len(ann), "" if ok else " (got %s, kernels on %s)" % (
        got, dict(lane_of_src))))

# db2perfetto: the slice's track name, without an overflow suffix.
names, tracks, slices = {}, {}, []
uuid = name = None
text = open(sys.argv[3]).read()
for packet in text.split("\npacket {")[1:]:
    if re.search(r"sequence_flags: (1|3)\n", packet):
        names = {}
    for iid, nm in re.findall(r'event_names \{\s*iid: (\d+)\s*name: "((?:[^"\\]|\\.)*)"', packet):
        names[iid] = nm
    m = re.search(r"track_descriptor \{\s*uuid: (\d+)\s*name: \"((?:[^\"\\]|\\.)*)\"", packet)
    if m:
        tracks[m.group(1)] = re.sub(r" \(overlap \d+\)$", "", m.group(2))
    if "TYPE_SLICE_BEGIN" in packet:
        ts = int(re.search(r"timestamp: (\d+)", packet).group(1))
        tu = re.search(r"track_uuid: (\d+)", packet)
        ni = re.search(r"\n    name_iid: (\d+)", packet)  # the event's, not an annotation's
        nm = re.search(r'\n    name: "((?:[^"\\]|\\.)*)"', packet)
        slices.append((names.get(ni.group(1)) if ni else (nm.group(1) if nm else None),
                       ts, tu.group(1) if tu else None))
lane_of_src = collections.defaultdict(set)
got = {}
for nm, ts, tu in slices:
    key = (nm, ts)
    if key in work and work[key] in src_lanes:
        lane_of_src[work[key]].add(tracks.get(tu))
    if key in ann:
        got[key] = tracks.get(tu)
ok = len(got) == len(ann) and all(lane_of_src[ann[k]] == {got[k]} for k in ann)
print("%s: db2perfetto: %d GPU annotations on their stream's track, with its kernels%s" % (
    "PASS" if ok else "FAIL", len(ann), "" if ok else " (got %s, kernels on %s)" % (
        got, dict(lane_of_src))))
