#!/usr/bin/env bash
# scripts/fuzz-to-case.sh: a fuzzer artifact becomes a tests/data/bad case line
# whose input, exit code and message are those of the tool run the way the
# harness runs it; a tool that still crashes gives no case.
source "$(dirname "$0")/lib.sh"
F2C="$ROOT/scripts/fuzz-to-case.sh"
D="$TMP/cases"
export FUZZ_CASES_DIR="$D"
sha8() { $PY -c 'import hashlib, sys; print(hashlib.sha1(open(sys.argv[1], "rb").read()).hexdigest()[:8])' "$1"; }

# 1. A Kineto artifact: exit 1 and the parse error's place.
art="$TMP/fuzz_kineto2db-crash-0001"
printf '{"traceEvents":{"ph":"X"}}' >"$art"
name="kineto2db-$(sha8 "$art").json"
expect_ok "fuzz-to-case makes a kineto2db case" bash "$F2C" "$art"
expect_eq "the input is copied byte for byte" "$(sha256sum <"$art")" "$(sha256sum <"$D/fuzz/$name")"
line=$(grep -v '^#' "$D/fuzz.cases")
expect_eq "one case line" 1 "$(grep -c '^bad ' "$D/fuzz.cases")"
read -r _ spec nm rc _ <<<"$line"
expect_eq "tool, name and exit of the case" "kineto2db $name 1" "$spec $nm $rc"
# The line, sourced as tests/tools/test_bad_inputs.sh sources it, gives the
# pattern back unquoted; it must match the message at its place.
bad() { got_spec=$1 got_rc=$3 got_pattern=$4 got_src=$6; }
BAD="$D"
eval "$line"
expect_eq "the case copies the committed input" "$D/fuzz/$name" "$got_src"
err=$(kineto2db "$D/fuzz/$name" -o "$TMP/k.db" 2>&1 >/dev/null)
[[ "$err" =~ $got_pattern ]] && [[ "$got_pattern" == *"byte 16 \(event 0\): traceEvents is not an array"* ]] &&
  pass "the pattern is the message's place, escaped: $got_pattern" ||
  fail "pattern [$got_pattern] vs message [$err]"
expect_fail "the same artifact twice is refused" "already a case" bash "$F2C" "$art"

# 2. An etprof2db legacy artifact, harness named: its options go with it;
#    an accepted input has exit 0 and no pattern.
art2="$TMP/saved-input"
$PY -c "import sys; sys.path.insert(0, '$ROOT/tests/data')
from etprof_gen import block_bytes
b = {'name': 'default', 'maxp': 1, 'maxa': 0, 'maxm': 0, 'allocators': [], 'allocations': [],
     'events': [['Method::execute', -1, 0, 10, 20]]}
open(sys.argv[1], 'wb').write(block_bytes(b))" "$art2"
expect_ok "fuzz-to-case with the harness given" bash "$F2C" "$art2" fuzz_etprof2db_legacy
expect_eq "options, name, exit 0, empty pattern" \
  "bad etprof2db,--format,legacy,--lenient,--summary etprof2db_legacy-$(sha8 "$art2").bin 0 ''" \
  "$(grep -F "etprof2db_legacy-" "$D/fuzz.cases" | cut -d' ' -f1-5)"

# 3. An exporter artifact: the hub its event stream builds, in 1 KiB pages.
art3="$TMP/fuzz_db2json-crash-0003"
$PY -c "import random, sys; r = random.Random(7); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(600)))" >"$art3"
expect_ok "fuzz-to-case makes a db2json case" bash "$F2C" "$art3"
hub="$D/fuzz/db2json-$(sha8 "$art3").db"
expect_eq "the hub is repacked in 1 KiB pages" 1024 "$(q "$hub" "PRAGMA page_size")"
"$ROOT/$BUILD/fuzz/stream_hub" "$art3" "$TMP/direct.db"
regions() { q "$1" "SELECT count(*) FROM \"$(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_region_%'")\""; }
n=$(regions "$TMP/direct.db")
[ "$n" -gt 0 ] && expect_eq "with the rows stream_hub writes ($n regions)" "$n" "$(regions "$hub")" ||
  fail "stream_hub wrote no regions"
expect_eq "db2json reads it (exit 0 in the case)" 0 "$(grep -F "db2json-" "$D/fuzz.cases" | cut -d' ' -f4)"

# 4. A tool that still crashes: no case, no input copied.
mkdir -p "$TMP/stub"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$TMP/stub/kineto2db"
chmod +x "$TMP/stub/kineto2db"
before=$(sha256sum <"$D/fuzz.cases")
printf '[1,2' >"$TMP/fuzz_kineto2db-crash-0004"
expect_fail "a tool that still crashes gives no case" "still fails on .*fix it first" \
  env TT_BIN="$TMP/stub" bash "$F2C" "$TMP/fuzz_kineto2db-crash-0004"
expect_eq "the cases file is unchanged" "$before" "$(sha256sum <"$D/fuzz.cases")"
expect_eq "no input copied" 3 "$(ls "$D/fuzz" | wc -l)"
expect_fail "an unknown harness is refused" "not a harness" bash "$F2C" "$art" fuzz_nothing
