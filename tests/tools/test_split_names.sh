#!/usr/bin/env bash
# Splits that lost data or counted wrong (issue 34, issue 35): part names
# are unique by (host, pid) in every split (eight ranks on two hosts with
# the same pids, packed by --max-part-size, once wrote two files for four
# parts), a pack is one host's processes (a dbmerge output holds every
# host's pid 1000), a long host name is cut and hashed, a size split of one
# part writes the plain name, and the counts said are the counts written.
# Expected values come from sqlite3 on the hubs and Python's json on the
# outputs.
source "$(dirname "$0")/lib.sh"
MAKE_HUB="$ROOT/tests/data/make_rocprof_hub.py"
GEN="$ROOT/$BUILD/bench/gen_hub"

# r0..r3 on nodeA, r4..r7 on nodeB, each rank's pid 1000 + rank % 4.
# sethost DB HOST: the node row's hostname.
sethost() {
  local t; t=$(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_node%'")
  q "$1" "UPDATE \"$t\" SET hostname = '$2'"
}
# rows DB...: the events the hubs hold (regions, kernels, copies, allocations).
rows() {
  local n=0 h
  for h in "$@"; do
    n=$((n + $(q "$h" "SELECT (SELECT count(*) FROM rocpd_region) + (SELECT count(*) FROM rocpd_kernel_dispatch) + (SELECT count(*) FROM rocpd_memory_copy) + (SELECT count(*) FROM rocpd_memory_allocate)")))
  done
  echo $n
}
# json_x FILE: its complete (X) events; json_procs FILE: its process names.
json_x() { $PY -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'X'))" "$1"; }
json_procs() {
  $PY -c "
import json,sys
d = json.load(open(sys.argv[1]))['traceEvents']
print('|'.join(sorted(e['args']['name'] for e in d if e.get('name') == 'process_name' and 'pid' in e['args']['name'])))" "$1"
}
R=()
for i in 0 1 2 3 4 5 6 7; do
  $PY "$MAKE_HUB" "$TMP/r$i.db" "0000000$i-aaaa-4bbb-8ccc-dddddddddddd" $((1000 + i % 4)) $i 300
  host=nodeA; [ $i -ge 4 ] && host=nodeB
  sethost "$TMP/r$i.db" $host
  R+=("$TMP/r$i.db")
done
expect_eq "eight ranks: pid 1000-1003 on nodeA and on nodeB" \
  "nodeA 1000|nodeA 1001|nodeA 1002|nodeA 1003|nodeB 1000|nodeB 1001|nodeB 1002|nodeB 1003" \
  "$(for h in "${R[@]}"; do q "$h" "SELECT n.hostname || ' ' || p.pid FROM rocpd_info_process p JOIN rocpd_info_node n ON p.nid = n.id"; done | paste -sd'|')"

# --- item 4: packs across hosts with the same pids ---------------------------
# Each rank's JSON is about 220 KB: 500K packs two ranks of one host.
for spec in "db2json json 500K" "db2perfetto pftrace 100K" "db2otf2 otf2 90K"; do
  read -r tool ext size <<<"$spec"
  d="$TMP/pk-$tool"; mkdir -p "$d"
  n=$($tool "${R[@]}" --split process --max-part-size $size --count-parts)
  err=$($tool "${R[@]}" --split process --max-part-size $size -o "$d/t.$ext" 2>&1); rc=$?
  expect_eq "$tool --split process --max-part-size $size over two hosts: exit 0" 0 "$rc"
  [ "$n" -ge 4 ] && pass "$tool: $n packs" || fail "$tool: $n packs (expected 4 or more: $err)"
  expect_eq "$tool: as many parts written as counted" "$n" "$(ls "$d" | wc -l)"
  expect_eq "$tool: as many parts said as counted" "$n parts" "$(sed -n 's/.*: \([0-9]* parts\) (processes packed.*/\1/p' <<<"$err")"
  expect_eq "$tool: every part named by its host (pids repeat across hosts)" "$n" \
    "$(ls "$d" | grep -cE "^t\.node[AB]\.p10[0-3][0-9](-10[0-3][0-9])?\.$ext$")"
  expect_eq "$tool: a part for each host" "nodeA nodeB" "$(ls "$d" | cut -d. -f2 | sort -u | paste -sd' ')"
done
expect_eq "db2json: two ranks a pack, one host's" \
  "t.nodeA.p1000-1001.json t.nodeA.p1002-1003.json t.nodeB.p1000-1001.json t.nodeB.p1002-1003.json" \
  "$(ls "$TMP/pk-db2json" | paste -sd' ')"
for p in nodeA.p1000-1001:0:1 nodeA.p1002-1003:2:3 nodeB.p1000-1001:4:5 nodeB.p1002-1003:6:7; do
  IFS=: read -r name a b <<<"$p"
  f="$TMP/pk-db2json/t.$name.json"
  expect_eq "db2json pack $name: the events of r$a and r$b, each once" \
    "$(rows "$TMP/r$a.db" "$TMP/r$b.db")" "$(json_x "$f")"
  host=${name%%.*}
  expect_eq "db2json pack $name: its host's two processes" \
    "train$((1000 + a % 4)) $host (pid $((1000 + a % 4)))|train$((1000 + b % 4)) $host (pid $((1000 + b % 4)))" "$(json_procs "$f")"
done
args=()
for f in "$TMP"/pk-db2perfetto/*; do args+=("db2perfetto pack $(basename "$f") valid alone" "$f"); done
validate_each pftrace-check "${args[@]}"

# --- item 5: --split process on a dbmerge output ----------------------------
dbmerge -q "$TMP/r0.db" "$TMP/r1.db" "$TMP/r4.db" -o "$TMP/merged.db"
for spec in "db2json json 700K" "db2perfetto pftrace 150K" "db2otf2 otf2 120K"; do
  read -r tool ext size <<<"$spec"
  for mode in "" "--max-part-size $size"; do
    d="$TMP/mg-$tool-${mode:+pk}"; mkdir -p "$d"
    # shellcheck disable=SC2086
    expect_ok "$tool --split process $mode on a merged hub" $tool -q "$TMP/merged.db" --split process $mode -o "$d/m.$ext"
    # shellcheck disable=SC2086
    expect_eq "$tool --split process $mode on a merged hub: the parts counted" \
      "$($tool "$TMP/merged.db" --split process $mode --count-parts)" "$(ls "$d" | wc -l)"
  done
done
expect_eq "merged hub, one part per process: nodeA's and nodeB's pid 1000, pid 1001" \
  "m.nodeA.p1000.json m.nodeB.p1000.json m.p1001.json" "$(ls "$TMP/mg-db2json-" | paste -sd' ')"
expect_eq "merged hub, packed: nodeA's two ranks, nodeB's one" \
  "m.nodeA.p1000-1001.json m.nodeB.p1000.json" "$(ls "$TMP/mg-db2json-pk" | paste -sd' ')"
expect_eq "merged hub, nodeA's pack: r0's and r1's events only" \
  "$(rows "$TMP/r0.db" "$TMP/r1.db")" "$(json_x "$TMP/mg-db2json-pk/m.nodeA.p1000-1001.json")"
expect_eq "merged hub, nodeA's pack: nodeA's processes only" \
  "train1000 nodeA (pid 1000)|train1001 nodeA (pid 1001)" "$(json_procs "$TMP/mg-db2json-pk/m.nodeA.p1000-1001.json")"
expect_eq "merged hub, nodeB's part: r4's events only" \
  "$(rows "$TMP/r4.db")" "$(json_x "$TMP/mg-db2json-pk/m.nodeB.p1000.json")"

# --- item 11: a host name longer than a file name ----------------------------
long=$(printf 'h%.0s' $(seq 1 300))
cp "$TMP/r0.db" "$TMP/l0.db"; sethost "$TMP/l0.db" "${long}a"
cp "$TMP/r4.db" "$TMP/l4.db"; sethost "$TMP/l4.db" "${long}b"
mkdir -p "$TMP/long"
err=$(db2json "$TMP/l0.db" "$TMP/l4.db" --split process -o "$TMP/long/t.json" 2>&1)
expect_eq "two 301-character hosts, the same pid: exit 0" 0 "$?"
expect_eq "two 301-character hosts: two parts, each 48 characters of its host, '+' and a hash" 2 \
  "$(ls "$TMP/long" | grep -cE "^t\.h{48}\+[0-9a-f]{16}\.p1000\.json$")"
expect_eq "two 301-character hosts: each part its host's events" "$(rows "$TMP/l0.db") $(rows "$TMP/l4.db")" \
  "$(for f in "$TMP"/long/*.json; do json_procs "$f" | grep -q "${long}a" && json_x "$f"; done) $(for f in "$TMP"/long/*.json; do json_procs "$f" | grep -q "${long}b" && json_x "$f"; done)"
mkdir -p "$TMP/odd"
cp "$TMP/r0.db" "$TMP/o0.db"; sethost "$TMP/o0.db" "node/1"
cp "$TMP/r4.db" "$TMP/o4.db"; sethost "$TMP/o4.db" "node_1"
db2json -q "$TMP/o0.db" "$TMP/o4.db" --split process -o "$TMP/odd/t.json"
expect_eq "hosts 'node/1' and 'node_1': two names, the changed one hashed" \
  "t.node_1+[0-9a-f]{16}.p1000.json t.node_1.p1000.json" \
  "$(ls "$TMP/odd" | sed -E 's/\+[0-9a-f]{16}/+[0-9a-f]{16}/' | paste -sd' ')"

# --- issue 35: a size split that needs one part ------------------------------
mkdir -p "$TMP/one"
for spec in "db2json json" "db2perfetto pftrace"; do
  read -r tool ext <<<"$spec"
  err=$($tool "$TMP/r0.db" --max-part-size auto -o "$TMP/one/a.$ext" 2>&1)
  expect_eq "$tool --max-part-size auto, one part: the plain name" "a.$ext" "$(ls "$TMP/one" | grep "^a\..*$ext$" | paste -sd' ')"
  [[ "$err" == *": 1 part (parts of at most "*" MiB)"* ]] && pass "$tool: '1 part', in MiB" || fail "$tool: [$err]"
done
db2otf2 -q "$TMP/r0.db" --max-part-size 1G -o "$TMP/one/a.otf2"
expect_ok "db2otf2: a one-part size split replaces the archive of that name" \
  db2otf2 -q "$TMP/r0.db" --max-part-size 1G -o "$TMP/one/a.otf2"
expect_eq "db2otf2 --max-part-size 1G, one part, twice: the plain name" "a.otf2" "$(ls "$TMP/one" | grep "otf2$" | paste -sd' ')"
expect_ok "--part 0 of a one-part size split" db2json -q "$TMP/r0.db" --max-part-size 200M --part 0 -o "$TMP/one/k.json"
expect_eq "--part 0 of a one-part size split: the serial run's file, plain name" same \
  "$(cmp -s "$TMP/one/k.json" "$TMP/one/a.json" && echo same)"
err=$(TT_AUTO_MAX_PART_SIZE=102400 db2json "$TMP/r0.db" -o "$TMP/one/big.json" 2>&1)
[[ "$err" == *"more than chrome://tracing opens (100 KiB): --max-part-size auto"* ]] &&
  pass "the viewer's limit said once, in the unit of the sizes" || fail "warning: [$err]"
[[ "$(db2json --help)" == *"'auto': 200 MiB, what chrome://tracing opens"* ]] &&
  pass "--help: auto is 200 MiB" || fail "--help: $(db2json --help | grep -A1 auto)"

# --- item 12: the counts said ------------------------------------------------
kineto2db -q "$FIX/kineto/kineto_tbplugin_gpu_metrics_input.json" -o "$TMP/gm.db"
# json_events FILE: events drawn (not metadata, not a flow arrow's end).
json_events() { $PY -c "import json,sys; print(sum(1 for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') not in ('M', 's', 't', 'f')))" "$1"; }
err=$(db2json "$TMP/gm.db" --name 'volta_sgemm*' -o "$TMP/v.json" 2>&1)
expect_eq "--name 'volta_sgemm*': the kernels of that name" \
  "$(q "$TMP/gm.db" "SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_info_kernel_symbol s ON k.kernel_id = s.id WHERE s.kernel_name LIKE 'volta_sgemm%'")" \
  "$(json_x "$TMP/v.json")"
expect_eq "--name 'volta_sgemm*': the events said are the events written" \
  "wrote $(json_events "$TMP/v.json") events" "$(grep -o 'wrote [0-9]* events' <<<"$err")"
err=$(db2json "$TMP/gm.db" -o "$TMP/gm.json" 2>&1)
n=$(json_events "$TMP/gm.json")
expect_eq "db2json: the events said are the events written" "wrote $n events" "$(grep -o 'wrote [0-9]* events' <<<"$err")"
err=$(db2summary "$TMP/gm.db" -o "$TMP/gm.txt" 2>&1)
expect_eq "db2summary: the events said are db2json's" "wrote $n events" "$(grep -o 'wrote [0-9]* events' <<<"$err")"
expect_eq "db2summary's summary counts as db2json" "Summary: $n events" "$(head -1 "$TMP/gm.txt" | grep -o 'Summary: [0-9]* events')"
# An archive replaced: its bytes counted too.
db2otf2 -q "$TMP/r0.db" -o "$TMP/a.otf2"
err=$(db2otf2 "$TMP/r0.db" -o "$TMP/a.otf2" 2>&1)
expect_eq "db2otf2 replacing an archive: the bytes written said" \
  "$(find "$TMP/a.otf2" -type f -printf '%s\n' | awk '{s += $1} END {print s}') bytes" \
  "$(grep -o '[0-9]* bytes$' <<<"$err")"
# An interrupted split says what it removed.
"$GEN" "$TMP/A.db" 20000 1 >/dev/null
mkdir -p "$TMP/int"
set -- $($PY "$ROOT/tests/checkers/interrupt_when.py" INT "$TMP/int/x.w002.json" 0 \
  sh -c "exec db2json -q '$TMP/A.db' --split window --windows 5 -o '$TMP/int/x.json' 2>'$TMP/int.err'")
if [ "$2" = sent ]; then
  expect_eq "a split interrupted after part 2: ended by SIGINT, no part left" "-2 " "$1 $(ls "$TMP/int")"
  grep -qE "^db2json: interrupted: removed the [3-5] parts this run had finished" "$TMP/int.err" &&
    pass "the interrupted split says it removed its parts" || fail "not said: [$(cat "$TMP/int.err")]"
else
  fail "the split ended before the signal: $1 $2"
fi
