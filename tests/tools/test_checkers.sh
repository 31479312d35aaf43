#!/usr/bin/env bash
# The project's own trace checkers (tests/checkers/check_pftrace.py, check_otf2.py,
# tests/checkers/check_chrome_json.py) accept a valid trace and reject each kind of
# problem they claim to find, so a `validate` PASS elsewhere means something;
# and the helpers under them (each_file.py, the PNG reader of
# check_summary_html.py) give what they are given.
source "$(dirname "$0")/lib.sh"

# rejects DESC NAME PATTERN FILE: the checker exits 1 and says PATTERN.
rejects() {
  local out rc
  out=$(check_trace "$2" "$4" -q 2>&1); rc=$?
  if [ $rc -ne 1 ]; then fail "$1: exit $rc, expected 1 ($out)"
  elif [[ "$out" =~ $3 ]]; then pass "$1"
  else fail "$1: [$out] lacks /$3/"; fi
}

# --- Perfetto: traces built with the official schema's python classes -----
$PY - "$ROOT/tests/checkers" "$TMP" <<'EOF' || fail "building Perfetto cases"
import sys
sys.path.insert(0, sys.argv[1])
import check_pftrace
pb = check_pftrace.schema_module()
TE, TP = pb.TrackEvent, pb.TracePacket
CLEARED, NEEDS = TP.SEQ_INCREMENTAL_STATE_CLEARED, TP.SEQ_NEEDS_INCREMENTAL_STATE

def track(uuid, counter=False):
    p = TP(trusted_packet_sequence_id=1)
    p.track_descriptor.uuid = uuid
    p.track_descriptor.name = "t%d" % uuid
    if counter:
        p.track_descriptor.counter.SetInParent()
    return p

def ev(ts, kind, uuid=10, name="n", cat=None, flows=(), ends=(), iid=None):
    p = TP(timestamp=ts, trusted_packet_sequence_id=1)
    p.track_event.type = kind
    p.track_event.track_uuid = uuid
    if iid is None:
        p.track_event.name = name
    else:
        p.track_event.name_iid = iid
        p.sequence_flags = NEEDS
    if cat:
        p.track_event.categories.append(cat)
    p.track_event.flow_ids.extend(flows)
    p.track_event.terminating_flow_ids.extend(ends)
    return p

def clear():
    p = TP(trusted_packet_sequence_id=1, sequence_flags=CLEARED)
    e = p.interned_data.event_names.add(); e.iid = 1; e.name = "interned"
    return p

B, E, I, C = TE.TYPE_SLICE_BEGIN, TE.TYPE_SLICE_END, TE.TYPE_INSTANT, TE.TYPE_COUNTER
good = [clear(), track(10), track(11, True),
        ev(100, B, cat="a", flows=[7]), ev(150, B, iid=1), ev(160, E), ev(200, E),
        ev(210, B, uuid=10, cat="b", ends=[7]), ev(220, E), ev(230, I), ev(240, C, uuid=11)]
cases = {
    "good": good,
    "end_without_begin": [clear(), track(10), ev(1, E)],
    "undescribed_track": [clear(), ev(1, B, uuid=99), ev(2, E, uuid=99)],
    "open_begin": [clear(), track(10), ev(1, B)],
    "ts_back": [clear(), track(10), ev(5, B), ev(6, E), ev(4, B), ev(7, E)],
    "undefined_iid": [clear(), track(10), ev(1, B, iid=42), ev(2, E)],
    "dangling_flow": [clear(), track(10), ev(1, B, flows=[5]), ev(2, E)],
    "counter_on_slice_track": [clear(), track(10), ev(1, C)],
    "redefined_track": [clear(), track(10), track(10, True)],
}
for name, pkts in cases.items():
    tr = pb.Trace()
    tr.packet.extend(pkts)
    open("%s/%s.pftrace" % (sys.argv[2], name), "wb").write(tr.SerializeToString())
EOF
P="$TMP"
expect_ok "pftrace: a valid trace passes" check_trace pftrace-check "$P/good.pftrace" -q
expect_eq "pftrace: counts of the valid trace" \
  '{"categories":{"(none)":1,"a":1,"b":1},"counters":1,"dangling_flows":0,"errors":0,"flows":1,"instants":1,"packets":11,"root_descriptors":0,"slices":3,"ts_max":240,"ts_min":100}' \
  "$(check_trace pftrace-check "$P/good.pftrace")"
rejects "pftrace: END without BEGIN" pftrace-check "no open SLICE_BEGIN" "$P/end_without_begin.pftrace"
rejects "pftrace: track used before its descriptor" pftrace-check "used before its TrackDescriptor" "$P/undescribed_track.pftrace"
rejects "pftrace: BEGIN never ended" pftrace-check "never ended" "$P/open_begin.pftrace"
rejects "pftrace: timestamps going back on a track" pftrace-check "goes back on track 10" "$P/ts_back.pftrace"
rejects "pftrace: undefined interned name" pftrace-check "event name iid 42 is not defined" "$P/undefined_iid.pftrace"
rejects "pftrace: flow with one end" pftrace-check "flow id 5 has only one end" "$P/dangling_flow.pftrace"
rejects "pftrace: COUNTER on a slice track" pftrace-check "not a counter track" "$P/counter_on_slice_track.pftrace"
rejects "pftrace: uuid described twice differently" pftrace-check "described again differently" "$P/redefined_track.pftrace"
size=$(stat -c %s "$P/good.pftrace")
head -c $((size - 1)) "$P/good.pftrace" >"$P/cut.pftrace"
rejects "pftrace: truncated file" pftrace-check "truncated" "$P/cut.pftrace"
{ cat "$P/good.pftrace"; printf '\x12\x00'; } >"$P/tail.pftrace"
rejects "pftrace: trailing bytes that are not a packet" pftrace-check "not a Trace.packet tag" "$P/tail.pftrace"
: >"$P/empty.pftrace"
rejects "pftrace: empty file" pftrace-check "no packets" "$P/empty.pftrace"

# --- Chrome JSON ------------------------------------------------------------
J="$TMP"
cat >"$J/good.json" <<'EOF'
{"traceEvents": [
 {"ph":"M","name":"process_name","pid":1,"args":{"name":"p"}},
 {"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5},
 {"ph":"B","name":"b","pid":1,"tid":2,"ts":2},{"ph":"E","pid":1,"tid":2,"ts":3},
 {"ph":"s","cat":"f","name":"x","id":9,"pid":1,"tid":1,"ts":1},
 {"ph":"f","cat":"f","name":"x","id":9,"pid":1,"tid":2,"ts":2,"bp":"e"},
 {"ph":"C","name":"c","pid":1,"ts":4,"args":{"v":1.5}}]}
EOF
expect_ok "json: a valid trace passes" check_trace chrome-json-check "$J/good.json" -q
expect_eq "json: counts of the valid trace" \
  '{"events":7,"flows_paired":1,"errors":0,"ph":{"B":1,"C":1,"E":1,"M":1,"X":1,"f":1,"s":1}}' \
  "$(check_trace chrome-json-check "$J/good.json" | $PY -c 'import json,sys; d=json.load(sys.stdin); print(json.dumps({k:d[k] for k in ("events","flows_paired","errors","ph")}, separators=(",",":"), sort_keys=False))')"
gzip -c "$J/good.json" >"$J/good.json.gz"
expect_ok "json: gzipped trace passes" check_trace chrome-json-check "$J/good.json.gz" -q
jcase() { printf '%s' "$3" >"$J/$1.json"; rejects "json: $1" chrome-json-check "$2" "$J/$1.json"; }
jcase unknown_ph "unknown ph 'Q'" '[{"ph":"Q","ts":1}]'
jcase negative_dur "dur -1" '[{"ph":"X","ts":1,"dur":-1,"pid":1,"tid":1}]'
jcase missing_dur "dur None" '[{"ph":"X","ts":1,"pid":1,"tid":1}]'
jcase open_b "never ended" '[{"ph":"B","name":"a","ts":1,"pid":1,"tid":1}]'
jcase e_without_b "no open B" '[{"ph":"E","ts":1,"pid":1,"tid":1}]'
jcase e_before_b "before its B" '[{"ph":"B","ts":5,"pid":1,"tid":1},{"ph":"E","ts":4,"pid":1,"tid":1}]'
jcase lone_flow "1 start\(s\), 0 finish" '[{"ph":"s","cat":"c","name":"n","id":3,"ts":1,"pid":1,"tid":1}]'
jcase bad_ts "ts 'abc' is not a number" '[{"ph":"i","ts":"abc","pid":1,"tid":1}]'
jcase counter_args "counter args" '[{"ph":"C","ts":1,"pid":1,"args":{"v":"x"}}]'
jcase truncated "not valid JSON" '{"traceEvents": [{"ph":"X","ts":1,"dur'
jcase not_a_trace "neither an array" '{"events": []}'
jcase empty_trace "no trace events" '[]'

# Several files in one run (the schema loaded once): each is checked, the
# worst result is the exit code and a problem names its file.
expect_ok "pftrace: two valid files in one run pass" check_trace pftrace-check "$P/good.pftrace" -q "$P/good.pftrace"
out=$(check_trace pftrace-check "$P/good.pftrace" -q "$P/empty.pftrace" "$P/good.pftrace" 2>&1)
expect_eq "pftrace: a bad file among good ones: exit 1, the problem named by its file" \
  "1|$P/empty.pftrace: no packets" "$?|$out"
out=$(check_trace chrome-json-check "$J/good.json" -q "$J/open_b.json" 2>&1)
expect_eq "json: a bad file after a good one: exit 1, named" "1|yes" \
  "$?|$([[ "$out" == "$J/open_b.json: "*"never ended"* ]] && echo yes)"

# json_flows.py binds a flow end as a viewer does (the innermost enclosing
# slice of its thread: latest start, then the shortest), so an arrow into
# the wrong one of two kernels starting together is seen.
cat >"$TMP/flows.json" <<'JSON'
[{"ph":"X","name":"launch","ts":1,"dur":2,"pid":1,"tid":1},
 {"ph":"X","name":"long","ts":10,"dur":8,"pid":2,"tid":7},
 {"ph":"X","name":"short","ts":10,"dur":5,"pid":2,"tid":7},
 {"ph":"X","name":"inner","ts":12,"dur":1,"pid":2,"tid":7},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"ts":1,"pid":1,"tid":1},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"ts":10,"pid":2,"tid":7,"bp":"e"},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":2,"ts":2,"pid":1,"tid":1},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"ts":12,"pid":2,"tid":7,"bp":"e"},
 {"ph":"s","cat":"ac2g","name":"ac2g","id":3,"ts":2,"pid":1,"tid":1},
 {"ph":"f","cat":"ac2g","name":"ac2g","id":3,"ts":30,"pid":2,"tid":7,"bp":"e"}]
JSON
expect_eq "json_flows: ends bind to the innermost enclosing slice, '-' to none" \
  "launch -;launch inner;launch short;" \
  "$($PY "$ROOT/tests/checkers/json_flows.py" "$TMP/flows.json" | awk -F'\t' '{printf "%s %s;", $3, $6}')"

# --- OTF2: calling-context events never beside Enter/Leave (OTF2_EvtWriter.h) --
$PY - "$TMP" <<'PYEOF' || fail "building OTF2 cases"
import sys
import otf2


def build(name, mix):
    with otf2.writer.open(sys.argv[1] + "/" + name, timer_resolution=1000000000) as tr:
        d = tr.definitions
        group = d.location_group("proc", system_tree_parent=d.system_tree_node("machine"))
        w = tr.event_writer_from_location(d.location("Master thread", group=group))
        f = d.region("f")
        generator = d.interrupt_generator("timer", period=0)
        if mix:
            w.enter(1, f)
        w.calling_context_sample(2, d.calling_context(f, parent=None), 1, generator)
        if mix:
            w.leave(4, f)


build("cc_good", False)
build("cc_mixed", True)
PYEOF
expect_eq "check_otf2: an archive of calling-context samples alone is valid, its sample counted" 1 \
  "$(check_trace otf2-check "$TMP/cc_good/traces.otf2" | $PY -c 'import json,sys; print(json.load(sys.stdin)["samples"])')"
rejects "check_otf2: Enter/Leave beside calling-context events" otf2-check \
  "calling-context events and Enter/Leave in one trace" "$TMP/cc_mixed/traces.otf2"

# tests/checkers/each_file.py (lib.sh's shared_each, shared_verdict): a
# ../shared/tools validator run once over many files says which files it
# did not pass, each by name, as a run per file would. Stand-in
# validators here (SHARED_TOOLS is pointed at them), not the real ones.
V="$TMP/validators"
mkdir -p "$V/main" "$V/prog" "$V/broken"
cat >"$V/main/pftrace-check" <<'PY'
#!/usr/bin/python3
import sys
def main(argv):
    path = argv[-1]
    if "bad" in path:
        sys.stderr.write("%s: packet 3: a problem\n" % path)
        return 1
    if "boom" in path:
        raise RuntimeError("a bug in the validator")
    return 0
if __name__ == "__main__":
    sys.exit(main(sys.argv))
PY
printf '#!/bin/sh\ncase "$2" in *bad*) echo "$2: a problem"; exit 1 ;; esac\n' >"$V/prog/pftrace-check"
printf '#!/usr/bin/python3\nthis is not python\n' >"$V/broken/pftrace-check"
chmod +x "$V"/*/pftrace-check
for f in good bad boom; do : >"$TMP/ef_$f.pftrace"; done
verdicts() { # DIR: each file's verdict from one shared_each run, "file=verdict" joined by |
  SHARED_TOOLS=$1
  shared_each pftrace-check "$TMP/ef_good.pftrace" "$TMP/ef_bad.pftrace" "$TMP/ef_boom.pftrace"
  local f v out=
  for f in good bad boom; do
    v=$(shared_verdict "$TMP/ef_$f.pftrace")
    case $v in "") v=pass ;; *"a problem"*"exit 1") v="problem, exit 1" ;; *RuntimeError*"exit 2") v="traceback, exit 2" ;;
      *"exit 2: each_file.py: cannot load"*) v="not loaded" ;; *) v="other: $v" ;; esac
    out+="$f=$v|"
  done
  echo "$out"
}
expect_eq "each_file.py: a validator's main per file, each problem and exit named by its file" \
  "good=pass|bad=problem, exit 1|boom=traceback, exit 2|" "$(verdicts "$V/main")"
expect_eq "each_file.py: a validator without main(argv) runs as a program per file" \
  "good=pass|bad=problem, exit 1|boom=pass|" "$(verdicts "$V/prog")"
expect_eq "each_file.py: a validator that cannot be loaded passes no file" \
  "good=not loaded|bad=not loaded|boom=not loaded|" "$(verdicts "$V/broken")"
expect_eq "shared_each: no validator there, nothing to say" "good=pass|bad=pass|boom=pass|" "$(verdicts "$V/none")"

# check_summary_html.py png: every PNG row filter (None, Sub, Up, Average,
# Paeth) decoded to the pixels that were encoded, RGB and RGBA. The PNGs
# are written here, each row with its filter applied by hand (zlib only),
# and the expected counts are the pixels written.
for bpp in 3 4; do
  want=$($PY - "$TMP/filters$bpp.png" "$bpp" <<'PY'
import collections, random, struct, sys, zlib
path, bpp = sys.argv[1], int(sys.argv[2])
w, h = 37, 40
rnd = random.Random(7)
palette = [bytes(rnd.randrange(256) for _ in range(bpp)) for _ in range(5)]
rows = []
for y in range(h):
    if y % 7 == 3 and rows:
        rows.append(rows[-1])                     # a repeated row
        continue
    rows.append(b"".join(rnd.choice(palette) if rnd.random() < 0.8 else
                         bytes(rnd.randrange(256) for _ in range(bpp)) for _ in range(w)))
def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else b if pb <= pc else c
raw, prev = bytearray(), bytes(w * bpp)
for y, row in enumerate(rows):
    ft = y % 5
    raw.append(ft)
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        raw.append((x - (0, a, b, (a + b) >> 1, paeth(a, b, c))[ft]) & 255)
    prev = row
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
with open(path, "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2 if bpp == 3 else 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(bytes(raw))) + chunk(b"IEND", b""))
px = collections.Counter(r[i:i + 3] for r in rows for i in range(0, len(r), bpp))
bg, c1 = palette[0][:3], palette[1][:3]
print("%dx%d %.3f %.3f %d %d" % (w, h, 1 - px[bg] / (w * h), px[b"\xff\xff\xff"] / (w * h), len(px), px[c1]))
print(bg.hex(), c1.hex())
PY
)
  read -r bg c1 <<<"$(tail -1 <<<"$want")"
  expect_eq "png: every row filter decoded ($((bpp * 8))-bit pixels)" "$(head -1 <<<"$want")" \
    "$($PY "$ROOT/tests/checkers/check_summary_html.py" png "$TMP/filters$bpp.png" "$bg" "$c1")"
done
