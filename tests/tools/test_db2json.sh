#!/usr/bin/env bash
# kineto2db -> db2json on every real Kineto fixture: every X event, name
# and timestamp to the ns, every flow that had both ends; the independent
# validator reports no error. Then db2json on the NVIDIA imports.
source "$(dirname "$0")/lib.sh"
# Every JSON is validated at the end, by one checker run for them all
# (validate_each: a checker's start cost more than checking most files).
each=()
for src in "$FIX"/kineto/*.json "$FIX"/kineto/*.json.gz; do
  [ -f "$src" ] || continue
  b=$(basename "$src"); b=${b%.gz}; b=${b%.json}
  if ! kineto2db -q "$src" -o "$TMP/$b.db"; then fail "$b: kineto2db"; continue; fi
  if ! db2json -q "$TMP/$b.db" -o "$TMP/$b.json"; then fail "$b: db2json"; continue; fi
  $PY "$ROOT/tests/checkers/kineto_roundtrip.py" "$src" "$TMP/$b.json" | sed "s/^\(PASS\|FAIL\): /\1: $b: /"
  each+=("$b: chrome-json-check" "$TMP/$b.json")
  rm -f "$TMP/$b.db"
done
for src in "$FIX"/nvprof/* "$FIX"/nsys/*; do
  [ -f "$src" ] || continue
  case "$src" in *.md) continue ;; esac
  b=$(basename "$src")
  tool=nvvp2db; case "$src" in */nsys/*) tool=nsys2db ;; esac
  command -v "$tool" >/dev/null || { fail "$b: no $tool"; continue; }
  if ! $tool -q "$src" -o "$TMP/$b.db"; then fail "$b: $tool"; continue; fi
  expect_ok "$b: db2json" db2json -q "$TMP/$b.db" -o "$TMP/$b.json"
  want=$(q "$TMP/$b.db" "SELECT (SELECT count(*) FROM $HUB_REGIONS)+(SELECT count(*) FROM rocpd_kernel_dispatch)+(SELECT count(*) FROM rocpd_memory_copy)+(SELECT count(*) FROM rocpd_memory_allocate)")
  expect_eq "$b: every interval row becomes an X event" "$want" \
    "$($PY "$ROOT/tests/checkers/json_stats.py" "$TMP/$b.json" | $PY "$ROOT/tests/checkers/json_field.py" - "d['ph'].get('X', 0)")"
  each+=("$b: chrome-json-check" "$TMP/$b.json")
done
validate_each chrome-json-check "${each[@]}"
for ((i = 1; i < ${#each[@]}; i += 2)); do rm -f "${each[$i]}"; done

# Hostile strings survive as valid JSON: control characters, quotes,
# backslashes, invalid UTF-8, in names and args.
"$ROOT/$BUILD/bench/gen_hub" "$TMP/h.db" 10 1
sfx=$(q "$TMP/h.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/h.db" "UPDATE rocpd_string$sfx SET string = 'a\"b\\c' || char(1) || char(10) || CAST(x'ff' AS TEXT) || '</script>' WHERE string = 'cudaLaunchKernel';
  UPDATE rocpd_arg$sfx SET type = 'json', value = '{broken' WHERE id = (SELECT min(id) FROM rocpd_arg$sfx);
  UPDATE rocpd_arg$sfx SET type = 'int', value = '12abc' WHERE id = (SELECT max(id) FROM rocpd_arg$sfx);"
expect_ok "hostile strings: db2json" db2json -q "$TMP/h.db" -o "$TMP/h.json"
expect_eq "hostile strings: output parses, names intact" "$(printf 'a"b\\c\x01\n\xef\xbf\xbd</script>')" \
  "$($PY -c "import json,sys; e=[e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('cat')=='cuda_runtime']; sys.stdout.write(e[0]['name'])" "$TMP/h.json")"
expect_eq "hostile args: invalid JSON/number values become strings" "{broken 12abc" \
  "$($PY -c "import json,sys; e=[e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('cat')=='cuda_runtime']; print(e[0]['args']['correlation'], e[-1]['args']['correlation'])" "$TMP/h.json")"
