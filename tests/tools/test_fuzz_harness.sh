#!/usr/bin/env bash
# The fuzz harnesses run the tools' own code: each, built without libFuzzer
# ($BUILD/fuzz/fuzz_*: fuzz/replay.c runs each input named once), runs on
# an input, and an importer's harness writes, into the hub TT_FUZZ_HUB
# names (fuzz/fuzz_hub.h), the rows the tool writes from the same bytes.
# The Kineto harness once had its own copy of the import's setup, without
# `rank = HUB_NULL`: every trace it imported was rank 0.
source "$(dirname "$0")/lib.sh"
FZ="$ROOT/$BUILD/fuzz"

# dump DB: every row of the hub, but the metadata naming the input file
# (tt_import_run's tracetools_source) and the hub's own uuid; the
# harness's input is a file named after its pid, so its name is replaced.
dump() {
  local meta
  meta=$(q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_metadata_%'")
  {
    sqlite3 -batch "$1" .dump | grep -v "^INSERT INTO \(\"\?$meta\"\?\|sqlite_sequence\) "
    q "$1" "SELECT tag, value FROM \"$meta\" WHERE tag NOT IN ('uuid', 'guid', 'tracetools_source')
            ORDER BY tag"
  } | sed -E 's/[0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}/UUID/g;
              s/fuzz-[a-z0-9]+-[0-9]+\.in/INPUT/g; s/input\.[a-z]+/INPUT/g'
}

# same_hub NAME HARNESS INPUT TOOL [TOOL OPTIONS...]: the harness's hub of
# INPUT has the rows the tool's hub of it has.
same_hub() {
  local name=$1 harness=$2 input=$3 tool=$4
  shift 4
  local ext=${input##*.}
  cp "$input" "$TMP/input.$ext"
  if ! TT_FUZZ_HUB="$TMP/$name.fuzz.db" "$FZ/$harness" "$TMP/input.$ext" 2>"$TMP/$name.err"; then
    fail "$name: $harness on $(basename "$input"): $(head -c 300 "$TMP/$name.err")"
    return
  fi
  "$BIN/$tool" -q "$@" "$TMP/input.$ext" -o "$TMP/$name.tool.db" >/dev/null ||
    { fail "$name: $tool failed"; return; }
  dump "$TMP/$name.fuzz.db" >"$TMP/$name.fuzz.sql"
  dump "$TMP/$name.tool.db" >"$TMP/$name.tool.sql"
  local rows
  rows=$(grep -c '^INSERT' "$TMP/$name.tool.sql")
  if [ "$rows" -gt 0 ] && cmp -s "$TMP/$name.fuzz.sql" "$TMP/$name.tool.sql"; then
    pass "$name: $harness writes the $rows rows $tool writes"
  else
    fail "$name: $harness and $tool differ ($rows rows): $(diff "$TMP/$name.fuzz.sql" "$TMP/$name.tool.sql" | head -c 400)"
  fi
}

# 1. Kineto: a trace without distributedInfo has no rank; one with it has
#    its rank (read here with python's json) on its CPU processes.
zcat "$FIX/kineto/hta_triton_example.json.gz" >"$TMP/no_rank.json"
expect_eq "triton_example has no distributedInfo" "None" \
  "$($PY -c 'import json, sys; print(json.load(open(sys.argv[1])).get("distributedInfo"))' "$TMP/no_rank.json")"
same_hub kineto_no_rank fuzz_kineto2db "$TMP/no_rank.json" kineto2db
expect_eq "kineto harness: no process has a rank without distributedInfo" "0" \
  "$(q "$TMP/kineto_no_rank.fuzz.db" "SELECT count(*) FROM rocpd_info_process
                                     WHERE json_extract(extdata, '$.rank') IS NOT NULL")"
# the processes of its CPU events (numeric pids), from the JSON
cpu_pids() {
  $PY -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
cpu = ("cpu_op", "user_annotation", "cuda_runtime", "cuda_driver", "python_function")
print(" ".join(str(p) for p in sorted({e["pid"] for e in ev if e.get("cat") in cpu and type(e["pid"]) is int})))' "$1"
}
expect_eq "kineto harness: the trace's CPU processes are there" "$(cpu_pids "$TMP/no_rank.json")" \
  "$(q "$TMP/kineto_no_rank.fuzz.db" "SELECT pid FROM rocpd_info_process WHERE pid IN ($(cpu_pids "$TMP/no_rank.json" | tr ' ' ,))
                                     ORDER BY pid" | tr '\n' ' ' | sed 's/ $//')"

zcat "$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz" >"$TMP/rank.json"
rank=$($PY -c 'import json, sys; print(json.load(open(sys.argv[1]))["distributedInfo"]["rank"])' "$TMP/rank.json")
same_hub kineto_rank fuzz_kineto2db "$TMP/rank.json" kineto2db
expect_eq "kineto harness: distributedInfo's rank $rank on the CPU processes, only" \
  "$(for p in $(cpu_pids "$TMP/rank.json"); do printf '%s|%s\n' "$p" "$rank"; done)" \
  "$(q "$TMP/kineto_rank.fuzz.db" "SELECT pid, json_extract(extdata, '$.rank') FROM rocpd_info_process
                                  WHERE json_extract(extdata, '$.rank') IS NOT NULL ORDER BY pid")"

# 2. The file importers' harnesses, with the options each runs with.
same_hub rpd fuzz_rpd2db "$FIX/rocm/rpd_matmul_result.rpd" rpd2db
same_hub nvprof fuzz_nvvp2db "$FIX/nvprof/rasolca_output_file.nvprof" nvvp2db
same_hub nsys fuzz_nsys2db "$FIX/nsys/flameox_nsight-2025.5.2.sqlite" nsys2db
same_hub etdump fuzz_etprof2db_etdump "$FIX/executorch/et_tutorial_etdump.etdp" etprof2db \
  --format etdump --lenient --summary
$PY "$ROOT/tests/data/etprof_gen.py" main "$TMP/legacy.bin" >/dev/null
same_hub legacy fuzz_etprof2db_legacy "$TMP/legacy.bin" etprof2db --format legacy --lenient --summary

# 3. The exporters' harnesses on bytes that build a hub of every record
#    kind: each runs the exporter (exit 0, nothing left behind).
$PY -c "import random, sys; r = random.Random(37); sys.stdout.buffer.write(bytes(r.randrange(256) for _ in range(1200)))" \
  >"$TMP/stream.bin"
for h in fuzz_db2json fuzz_db2perfetto fuzz_db2otf2 fuzz_db2summary_html; do
  expect_ok "$h runs its exporter on a built hub" "$FZ/$h" "$TMP/stream.bin"
done

