#!/usr/bin/env bash
# Recorded flow arrows (kineto's ac2g flows, a hub's `flow` tracks) in a hub
# without the hub's indexes (common/hub/hub_reader_inputs.c, flow_copies):
# a flow end finds its partner by correlation through the indexes every
# hub is written with, and through indexed TEMP copies of the flow rows
# when they were dropped. Either way every arrow of the input is drawn,
# the exports are byte-identical, and the input is left as it was (opened
# read-only, nothing created in it).
source "$(dirname "$0")/lib.sh"
SRC="$FIX/kineto/hta_alexnet_trace.json.gz"

# Arrows with both ends in the input, counted from the JSON itself.
want=$($PY -c '
import collections, gzip, json, sys
ends = collections.defaultdict(set)
for e in json.load(gzip.open(sys.argv[1], "rt"))["traceEvents"]:
    if e.get("ph") in ("s", "f"):
        ends[(e.get("cat"), e.get("id"))].add(e["ph"])
print(sum(1 for v in ends.values() if len(v) == 2))' "$SRC")
expect_eq "alexnet: the input holds 139 arrows with both ends" "139" "$want"
paired() {
  $PY "$ROOT/tests/checkers/json_stats.py" "$1" |
    $PY -c 'import json,sys; d=json.load(sys.stdin); print("%d|%d" % (d["flows_paired"], d["flows_dangling"]))'
}

kineto2db -q "$SRC" -o "$TMP/idx.db"
cp "$TMP/idx.db" "$TMP/noidx.db"
q "$TMP/noidx.db" "SELECT 'DROP INDEX \"' || name || '\";' FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL" >"$TMP/drop.sql"
q "$TMP/noidx.db" ".read $TMP/drop.sql"
expect_eq "noidx: no index left" "0" "$(q "$TMP/noidx.db" "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")"
chmod a-w "$TMP/noidx.db"
before=$(sha256sum <"$TMP/noidx.db")

for h in idx noidx; do
  expect_ok "$h: db2json" db2json -q "$TMP/$h.db" -o "$TMP/$h.json"
  expect_eq "$h: every arrow of the input is drawn, none dangles" "$want|0" "$(paired "$TMP/$h.json")"
  expect_ok "$h: db2perfetto" db2perfetto -q "$TMP/$h.db" -o "$TMP/$h.pftrace"
  expect_ok "$h: db2json by process" db2json -q "$TMP/$h.db" --split process -o "$TMP/$h-p.json"
  expect_ok "$h: db2json in 4 windows" db2json -q "$TMP/$h.db" --split window --windows 4 -o "$TMP/$h-w.json"
  # a filter: flow ends follow the slices they bind to (flow_anchor)
  expect_ok "$h: db2json --category 'cuda_*'" db2json -q "$TMP/$h.db" --category 'cuda_*' -o "$TMP/$h-c.json"
done
expect_eq "--category 'cuda_*': the same arrows as with indexes" \
  "$(paired "$TMP/idx-c.json")" "$(paired "$TMP/noidx-c.json")"
expect_ok "without indexes, filtered: the same JSON" cmp "$TMP/idx-c.json" "$TMP/noidx-c.json"
expect_ok "without indexes: the same JSON" cmp "$TMP/idx.json" "$TMP/noidx.json"
expect_ok "without indexes: the same Perfetto trace" cmp "$TMP/idx.pftrace" "$TMP/noidx.pftrace"
for f in "$TMP"/idx-p.*.json "$TMP"/idx-w.*.json; do
  g=${f/idx-/noidx-}
  expect_ok "without indexes: the same part $(basename "$g")" cmp "$f" "$g"
done
expect_eq "split by process: parts as with indexes" "$(ls "$TMP"/idx-p.*.json | wc -l)" "$(ls "$TMP"/noidx-p.*.json | wc -l)"
expect_eq "the input without indexes is unchanged" "$before" "$(sha256sum <"$TMP/noidx.db")"
expect_eq "nothing was created in it" "0" "$(q "$TMP/noidx.db" "SELECT count(*) FROM sqlite_master WHERE (type = 'index' AND sql IS NOT NULL) OR name GLOB 'tt_*'")"
