#!/usr/bin/env bash
# kineto2db on the JSON PyTorch really writes (issue 26, items 6-8):
#   - strings JSON forbids (raw control characters, backslashes that start
#     no escape, invalid UTF-8) are kept, with one warning per kind;
#   - NaN, Infinity and numbers beyond int64 in args are kept as text;
#   - a trace cut short names --lenient, which imports every event complete
#     before the cut.
# Expected values come from Python, which knows what it wrote (the text of
# every string, the kind and count of every forbidden token) or parses the
# prefix of a cut trace itself; tests/checkers/kineto_expect.py gives the rows.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
K="$BIN/kineto2db"
EXPECT="$ROOT/tests/checkers/kineto_expect.py"

warnings() { q "$1" "SELECT value FROM rocpd_metadata WHERE tag = 'kineto2db.warnings'"; }

# ---- one small trace with every kind, checked value by value ----
printf '%s' '{"traceEvents":[{"ph":"X","cat":"cpu_op","name":"line1' >"$TMP/small.json"
printf '\nline2\ttab\x01' >>"$TMP/small.json"
printf '%s' '","pid":1,"tid":1,"ts":1,"dur":2,"args":{"stack":"torch\cuda\__init__.py(12)","user":"C:\users\x\u00e9","bad":"a' >>"$TMP/small.json"
printf '\xffb\xe2\x82c\xc0\xafd' >>"$TMP/small.json"
printf '%s' '","n":NaN,"pinf":Infinity,"ninf":-Infinity,"big":18446744073709551616,"nbig":-9223372036854775809,"max":9223372036854775807,"huge":1e400,"arr":[NaN,1]}}]}' >>"$TMP/small.json"
if "$K" "$TMP/small.json" -o "$TMP/small.db" 2>"$TMP/small.err"; then
  pass "small: a trace with each forbidden kind imports"
else
  fail "small: import: $(head -c 400 "$TMP/small.err")"
fi
expect_eq "small: raw newline, tab and \\x01 kept in the name" \
  "$(printf 'line1\nline2\ttab\x01' | od -An -tx1 | tr -d ' \n' | tr a-f A-F)" \
  "$(q "$TMP/small.db" "SELECT hex(s.string) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id")"
expect_eq "small: args kept as text, each with its type" \
  'stack|string|torch\cuda\__init__.py(12);user|string|C:\users\xé;bad|string|a�b��c��d;n|string|NaN;pinf|string|Infinity;ninf|string|-Infinity;big|string|18446744073709551616;nbig|string|-9223372036854775809;max|int|9223372036854775807;huge|string|1e400;arr|json|["NaN",1]' \
  "$(q "$TMP/small.db" "SELECT group_concat(name || '|' || type || '|' || value, ';') FROM (SELECT * FROM rocpd_arg ORDER BY position)")"
expect_eq "small: warning counts per kind in the metadata" \
  '{"control_chars":3,"bad_escapes":4,"invalid_utf8":5,"nan_infinity":4,"number_out_of_range":3}' \
  "$(warnings "$TMP/small.db")"
expect_eq "small: one warning line per kind on stderr" \
  "3 raw control characters|4 backslashes that start no valid escape|5 bytes of invalid UTF-8|4 NaN or Infinity|3 numbers beyond int64" \
  "$(grep -o '[0-9]* raw control characters\|[0-9]* backslashes that start no valid escape\|[0-9]* bytes of invalid UTF-8\|[0-9]* NaN or Infinity\|[0-9]* numbers beyond int64' "$TMP/small.err" | paste -sd'|')"
"$K" -q "$TMP/small.json" -o "$TMP/small-q.db" 2>"$TMP/small-q.err"
expect_eq "small: -q prints no warning" "" "$(cat "$TMP/small-q.err")"

# ---- every kind at every split by the reader's 64 KiB chunks ----
# 16 traces, the same events shifted by 0-15 bytes of leading space, with
# each kind of token placed 12 bytes before a chunk boundary
# (so that some shift splits it at each of its bytes) and every event
# carrying forbidden tokens at varying places. Writes $TMP/sN.json,
# $TMP/expected (hex of each event's name and args) and $TMP/counts.
"$PY" - "$TMP" <<'EOF'
import json, random, sys
d = sys.argv[1]
CHUNK = 65536
# (raw bytes inside a string, the text they stand for, counted kind)
IN_STRING = [
    (b"\n", "\n", "control_chars"), (b"\t", "\t", "control_chars"),
    (b"\x1f", "\x1f", "control_chars"), (b"\x00", "\ufffd", "control_chars"),
    (b"\\c", "\\c", "bad_escapes"), (b"\\_", "\\_", "bad_escapes"),
    (b"\\u12G4", "\\u12G4", "bad_escapes"), (b"\\x", "\\x", "bad_escapes"),
    (b"\xff", "\ufffd", "invalid_utf8"), (b"\xe2\x82", "\ufffd\ufffd", "invalid_utf8"),
    (b"\xc0\xaf", "\ufffd\ufffd", "invalid_utf8"), (b"\xed\xa0\x80", "\ufffd" * 3, "invalid_utf8"),
    (b'\\"', '"', None), (b"\\\\", "\\", None), (b"\\u00e9", "\u00e9", None),
    (b"\\ud83d\\ude00", "\U0001F600", None), ("\U0001F600".encode(), "\U0001F600", None),
    ("\u20ac".encode(), "\u20ac", None), (b"plain", "plain", None),
]
# (raw value outside strings, its type and text in the hub, counted kind)
VALUES = [
    (b"NaN", "string", "NaN", "nan_infinity"), (b"Infinity", "string", "Infinity", "nan_infinity"),
    (b"-Infinity", "string", "-Infinity", "nan_infinity"),
    (b"99999999999999999999", "string", "99999999999999999999", "number_out_of_range"),
    (b"-12", "int", "-12", None), (b"1.5", "double", "1.5", None),
]
rng = random.Random(26)
out, expected, counts = bytearray(), [], {}

def string(pieces):
    raw, text, kinds = bytearray(), "", []
    for b, t, kind in pieces:
        raw += b + b"."  # "." after each: no piece completes the one before it
        text += t + "."
        # one U+FFFD per byte of invalid UTF-8
        kinds.append((kind, t.count("\ufffd") if kind == "invalid_utf8" else 1))
    return bytes(raw), text, kinds

def build(i, name_pieces, s_pieces, val, pad, value_first):
    """One event: its bytes, its expected name and args, the kinds counted."""
    name_raw, name, k1 = string(name_pieces)
    s_raw, s, k2 = string(s_pieces)
    vraw, vtype, vtext, vkind = val
    raw = b'{"ph":"X","cat":"c","pid":1,"tid":1,"ts":%d,"dur":1,"args":{"pad":"%s",' % (i, b"p" * pad)
    sarg, varg = b'"s":"' + s_raw + b'"', b'"v":' + vraw
    raw += (varg + b"," + sarg if value_first else sarg + b"," + varg) + b'},"name":"' + name_raw + b'"}'
    args = [("s", "string", s), ("v", vtype, vtext)]
    if value_first:
        args.reverse()
    return raw, (name, [("pad", "string", "p" * pad)] + args), k1 + k2 + [(vkind, 1)]

def add(sep, ev):
    raw, exp, kinds = ev
    out.extend(sep + raw)
    expected.append(exp)
    for k, n in kinds:
        if k:
            counts[k] = counts.get(k, 0) + n

out += b'{"traceEvents":['
tokens = [(0, t) for t in IN_STRING] + [(1, v) for v in VALUES[:4] + [VALUES[4]]]
i = 0
for m, (kind, tok) in enumerate(tokens, 1):
    boundary = m * CHUNK
    while True:
        sep = b"," if i else b""
        pieces = [rng.choice(IN_STRING) for _ in range(3)]
        if len(out) + 600 < boundary:  # an ordinary event
            add(sep, build(i, [rng.choice(IN_STRING) for _ in range(4)], pieces, rng.choice(VALUES), 0, False))
            i += 1
            continue
        # the token 12 bytes before the boundary: the first piece of the
        # name, or the first arg value after the padding
        name = [tok] if kind == 0 else [IN_STRING[-1]]
        val = VALUES[4] if kind == 0 else tok
        marker = b'"name":"' if kind == 0 else b'"v":'
        raw = build(i, name, pieces, val, 0, kind == 1)[0]
        pad = boundary - 12 - (len(out) + len(sep) + raw.index(marker) + len(marker))
        add(sep, build(i, name, pieces, val, pad, kind == 1))
        assert out[boundary - 12:boundary - 12 + len(tok[0])] == tok[0], (boundary, tok)
        i += 1
        break
out += b"]}"
for shift in range(16):
    with open("%s/s%d.json" % (d, shift), "wb") as f:
        f.write(b" " * shift + out)
with open(d + "/expected", "w", encoding="utf-8") as f:
    for name, args in expected:
        f.write(name.encode().hex().upper() + "|" + ";".join(
            "%s,%s,%s" % (n, t, v.encode().hex().upper()) for n, t, v in args) + "\n")
with open(d + "/counts", "w") as f:
    f.write(json.dumps({k: counts[k] for k in
        ["control_chars", "bad_escapes", "invalid_utf8", "nan_infinity", "number_out_of_range"]},
        separators=(",", ":")))
EOF
exp_counts=$(cat "$TMP/counts")
# The block scan kineto2db chose (AVX2 where the CPU has it), then SSE2,
# then none (byte by byte): the same hub from each. Every hub is imported
# first, then one python3 writes each hub's names and args to HUB.got (a
# python3 start per hub was most of this test's time).
for simd in auto sse2 none; do
  for shift in $(seq 0 15); do
    f="$TMP/s$shift.json" db="$TMP/s$shift.$simd.db"
    rm -f "$db"
    TT_KINETO_SIMD=$simd "$K" -q "$f" -o "$db" 2>"$TMP/s$shift.$simd.err" || rm -f "$db"
  done
done
"$PY" - "$TMP"/s*.*.db <<'PY'
import sqlite3, sys
for path in sys.argv[1:]:
    db = sqlite3.connect(path)
    args = {}
    for ev, name, typ, val in db.execute("SELECT event_id, name, type, CAST(value AS BLOB) FROM rocpd_arg ORDER BY event_id, position"):
        args.setdefault(ev, []).append("%s,%s,%s" % (name, typ, val.hex().upper()))
    with open(path + ".got", "w") as out:
        for ev, name in db.execute("SELECT r.event_id, CAST(s.string AS BLOB) FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id ORDER BY r.start"):
            out.write(name.hex().upper() + "|" + ";".join(args.get(ev, [])) + "\n")
PY
for simd in auto sse2 none; do
ok=0
for shift in $(seq 0 15); do
  db="$TMP/s$shift.$simd.db"
  if [ ! -f "$db" ]; then
    fail "chunk splits ($simd), shift $shift: import: $(head -c 300 "$TMP/s$shift.$simd.err")"; continue
  fi
  got=$(<"$db.got")
  if [ "$got" != "$(cat "$TMP/expected")" ]; then
    fail "chunk splits ($simd), shift $shift: names/args differ: $(diff <(echo "$got") "$TMP/expected" | head -c 600)"; continue
  fi
  if [ "$(warnings "$db")" != "$exp_counts" ]; then
    fail "chunk splits ($simd), shift $shift: warnings $(warnings "$db"), expected $exp_counts"; continue
  fi
  ok=$((ok + 1))
done
expect_eq "every token split at every byte by a chunk boundary ($simd scan): names, args and counts exact (16 shifts)" 16 "$ok"
done
expect_eq "chunk splits: every event imported" "$(wc -l <"$TMP/expected")" "$(q "$TMP/s0.none.db" "SELECT count(*) FROM rocpd_region")"

# ---- a real trace cut short ----
# prefix_events SRC CUT OUT: the document as far as byte CUT of SRC's JSON,
# with the events complete there, written whole to OUT (Python's own
# parser); prints the number of those events.
prefix_events() {
  "$PY" - "$@" <<'EOF'
import gzip, json, sys
src, cut, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
data = (gzip.open(src) if src.endswith(".gz") else open(src, "rb")).read()[:cut].decode("utf-8", "replace")
dec = json.JSONDecoder()
def ws(i):
    while i < len(data) and data[i] in " \t\r\n":
        i += 1
    return i
doc, events = {}, []
i = ws(data.index("{") + 1)
try:
    while True:
        key, i = dec.raw_decode(data, i)
        i = ws(ws(i) + 1)  # the ':'
        if key == "traceEvents":
            i = ws(i + 1)  # the '['
            while True:
                ev, i = dec.raw_decode(data, i)
                events.append(ev)
                i = ws(i)
                if data[i] != ",":
                    break
                i = ws(i + 1)
            break
        val, i = dec.raw_decode(data, i)
        doc[key] = val
        i = ws(ws(i) + 1)  # the ','
except (ValueError, IndexError):
    pass
doc["traceEvents"] = events
with open(out, "w") as f:
    json.dump(doc, f)
print(len(events))
EOF
}

# cut_check NAME SRC CUT: SRC's JSON cut at byte CUT; --lenient imports the
# same hub as the complete events before the cut, warns with the byte.
cut_check() {
  local name=$1 src=$2 cut=$3 n desc sql want
  zcat -f "$src" | head -c "$cut" >"$TMP/$name.json"
  n=$(prefix_events "$src" "$cut" "$TMP/$name.expect.json")
  rm -rf "$TMP/out" && mkdir "$TMP/out"
  expect_fail "$name: without --lenient, the error names it and the byte" \
    "$name.json: parse error at byte $cut \(event $n\): premature EOF; the trace is cut short: --lenient imports the $n complete events before the cut" \
    "$K" "$TMP/$name.json" -o "$TMP/out/x.db"
  expect_eq "$name: without --lenient, no output left" "" "$(ls -A "$TMP/out")"
  if ! "$K" --lenient "$TMP/$name.json" -o "$TMP/$name.db" 2>"$TMP/err"; then
    fail "$name: --lenient import: $(head -c 300 "$TMP/err")"; return
  fi
  expect_eq "$name: --lenient warns with the byte and the count" \
    "the trace is cut short at byte $cut: imported the $n complete events before the cut" \
    "$(grep -o 'the trace is cut short.*before the cut' "$TMP/err")"
  expect_eq "$name: cut_at_byte in the metadata" "$cut" \
    "$(q "$TMP/$name.db" "SELECT json_extract(value, '$.cut_at_byte') FROM rocpd_metadata WHERE tag = 'kineto2db.warnings'")"
  while IFS=$'\t' read -r desc sql want; do
    expect_eq "$name ($n events): $desc" "$want" "$(q "$TMP/$name.db" "$sql")"
  done < <("$PY" "$EXPECT" "$TMP/$name.expect.json")
}
ALEX="$FIX/kineto/hta_alexnet_trace.json.gz"
size=$(zcat "$ALEX" | wc -c)
for pct in 3 27 50 81 99; do
  cut_check "alexnet-cut$pct" "$ALEX" $((size * pct / 100 + 7))
done
# Inside a string, inside a number, right after an event's closing brace.
cut_check "alexnet-cut-in-name" "$ALEX" "$(zcat "$ALEX" | grep -bo '"name": "aten::' | sed -n 200p | cut -d: -f1 | awk '{print $1 + 14}')"
cut_check "alexnet-cut-after-brace" "$ALEX" "$(zcat "$ALEX" | grep -bo '}, *$' | sed -n 300p | cut -d: -f1 | awk '{print $1 + 1}')"

# A .json.gz whose gzip stream ends early: the same, at the decompressed byte.
head -c $(($(stat -c %s "$ALEX") / 2)) "$ALEX" >"$TMP/alexnet-gzcut.json.gz"
gzcut=$("$PY" -c 'import sys, zlib; d = zlib.decompressobj(31); print(len(d.decompress(open(sys.argv[1], "rb").read())))' "$TMP/alexnet-gzcut.json.gz")
n=$(prefix_events "$ALEX" "$gzcut" "$TMP/gzcut.expect.json")
rm -rf "$TMP/out" && mkdir "$TMP/out"
expect_fail "truncated gzip: without --lenient, the error names it" \
  "alexnet-gzcut.json.gz: gzip error at byte [0-9]+ of the decompressed data, byte [0-9]+ of the file \(event $n\): unexpected end of file; the trace is cut short: --lenient imports the $n complete" \
  "$K" "$TMP/alexnet-gzcut.json.gz" -o "$TMP/out/x.db"
expect_eq "truncated gzip: no output left" "" "$(ls -A "$TMP/out")"
if "$K" --lenient "$TMP/alexnet-gzcut.json.gz" -o "$TMP/gzcut.db" 2>"$TMP/err"; then
  expect_eq "truncated gzip --lenient: the decompressed byte of the cut" \
    "the trace is cut short at byte $gzcut: imported the $n complete events before the cut" \
    "$(grep -o 'the trace is cut short.*before the cut' "$TMP/err")"
  while IFS=$'\t' read -r desc sql want; do
    expect_eq "truncated gzip ($n events): $desc" "$want" "$(q "$TMP/gzcut.db" "$sql")"
  done < <("$PY" "$EXPECT" "$TMP/gzcut.expect.json")
else
  fail "truncated gzip --lenient import: $(head -c 300 "$TMP/err")"
fi

# --lenient changes nothing on a complete trace, and refuses what is not cut.
"$K" -q "$FIX/kineto/hta_backward_thread.json" -o "$TMP/full.db"
"$K" -q --lenient "$FIX/kineto/hta_backward_thread.json" -o "$TMP/full-lenient.db"
dump() { sqlite3 "$1" .dump | sed -E 's/[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}/UUID/g'; }
expect_eq "--lenient on a complete trace: the same hub (.dump, uuid aside)" "$(dump "$TMP/full.db" | md5sum)" \
  "$(dump "$TMP/full-lenient.db" | md5sum)"
printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]} trailing' >"$TMP/trailing.json"
expect_fail "--lenient still refuses garbage after the document" "trailing.json: parse error at byte [0-9]+" \
  "$K" --lenient "$TMP/trailing.json" -o "$TMP/x.db"
: >"$TMP/empty.json"
expect_fail "--lenient still refuses an empty file" "empty.json: is empty \(0 bytes\)" \
  "$K" --lenient "$TMP/empty.json" -o "$TMP/x.db"
expect_ok "--help names --lenient" bash -c "'$K' --help | grep -q -- --lenient"
