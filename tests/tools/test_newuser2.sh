#!/usr/bin/env bash
# What a new user meets, round 2 (issue 26 items 1, 4, 5, 9-14, 16; issue 27
# defects 2 and 3): empty time ranges, leftovers of interrupted runs, a
# failed split, messages. Expected values come from sqlite3 on the inputs
# or from the files written, never from the tool under test.
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
NSY="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
RPD="$FIX/rocm/rpd_matmul_result.rpd"

"$GEN" "$TMP/g.db" 500 1 >/dev/null
sfx=$(q "$TMP/g.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
# The hub's time span, as the exporters define it: first start, last end.
lo=$(q "$TMP/g.db" "SELECT min(s) FROM (SELECT min(start) s FROM rocpd_region UNION ALL
  SELECT min(start) FROM rocpd_kernel_dispatch UNION ALL SELECT min(start) FROM rocpd_memory_copy)")
hi=$(q "$TMP/g.db" "SELECT max(e) FROM (SELECT max(\"end\") e FROM rocpd_region UNION ALL
  SELECT max(\"end\") FROM rocpd_kernel_dispatch UNION ALL SELECT max(\"end\") FROM rocpd_memory_copy)")
# A run interrupted at any moment leaves nothing or its complete output
# (the signal may come after the rename): leftover DIR FILE... prints what
# else DIR holds, or "" when it is empty or holds exactly FILE...
leftover() {
  local d=$1; shift
  local have; have=$(cd "$d" && ls -A | sort | xargs)
  [ -z "$have" ] || [ "$have" = "$(printf '%s\n' "$@" | sort | xargs)" ] || echo "$have"
}
# only DIR FILE... : DIR holds exactly the files named
only() { local d=$1; shift; expect_eq "$DESC" "$(printf '%s\n' "$@" | sort | xargs)" "$(cd "$d" && ls -A | sort | xargs)"; }

# --- 1. a time range with no event: an error, nothing written ------------------
for tool in db2json db2perfetto db2summary db2otf2; do
  d="$TMP/empty-$tool"; mkdir -p "$d"
  expect_fail "$tool: a range with no event exits 1 and gives the inputs' span" \
    "no event in the time range \[5, 10\) ns: the inputs span \[$lo, $hi\] ns" \
    $tool "$TMP/g.db" --start 5 --end 10 -o "$d/x.out"
  DESC="$tool: nothing written for the empty range" only "$d"
  expect_fail "$tool: an empty range in a window split exits 1" "no event in the time range" \
    $tool "$TMP/g.db" --start 5 --end 10 --split window --windows 5 -o "$d/w.out"
  expect_fail "$tool: an empty range in a process split exits 1" "no event in the time range" \
    $tool "$TMP/g.db" --start 5 --end 10 --split process -o "$d/p.out"
  DESC="$tool: nothing written by the empty splits" only "$d"
done
expect_fail "a range whose events the filters all drop exits 1" "no event matched the filters in the time range" \
  db2json "$TMP/g.db" --start 10% --end 20% --category no-such-category -o "$TMP/empty-db2json/f.json"
expect_ok "a range with events still exits 0" db2json -q "$TMP/g.db" --start 10% --end 20% -o "$TMP/r.json"

# --- 13. a percentage out of range says so ---------------------------------------
expect_fail "--start 200% is out of the 0-100% range" "'200%' is out of the 0-100% range" \
  db2json "$TMP/g.db" --start 200% -o "$TMP/p.json"
expect_fail "--end -5% is out of the 0-100% range" "'-5%' is out of the 0-100% range" \
  db2json "$TMP/g.db" --end=-5% -o "$TMP/p.json"
expect_fail "--start abc% is not a percentage" "not a percentage: 'abc%'" \
  db2json "$TMP/g.db" --start abc% -o "$TMP/p.json"

# --- 4. an interrupted run leaves nothing, at any moment -------------------------
# Interrupts at chosen moments (a file of the run has appeared and grown
# to N bytes: tests/checkers/interrupt_when.py) and after fixed delays.
intr() { $PY "$ROOT/tests/checkers/interrupt_when.py" "$@"; }
gzip -c "$RPD" >"$TMP/r.rpd.gz" # unpacked beside the output by rpd2db
"$GEN" "$TMP/A.db" 20000 1 >/dev/null
"$GEN" "$TMP/B.db" 20000 1 >/dev/null
d="$TMP/merge"; mkdir -p "$d"
left=""
check_merge() { # what is wrong with $d after a dbmerge that exited $1
  local l; l=$(leftover "$d" m.db)
  [ "$1" -ne 0 ] || [ -f "$d/m.db" ] || l="exit 0 without m.db"
  [ ! -f "$d/m.db" ] || [ "$(q "$d/m.db" "PRAGMA integrity_check")" = ok ] || l="m.db not intact"
  echo "$l"
}
for sig in INT TERM HUP; do
  for bytes in 0 1000000 4000000 8000000 12000000; do
    rm -f "$d"/*
    set -- $(intr $sig "$d/m.db.tmp*" $bytes dbmerge -q "$TMP/A.db" "$TMP/B.db" -o "$d/m.db")
    l=$(check_merge "$1"); [ -z "$l" ] || left="$left [$sig at $bytes bytes ($2): $l]"
  done
done
for delay in 0.01 0.05 0.1 0.2 0.4; do
  rm -f "$d"/*
  timeout -s INT $delay dbmerge -q "$TMP/A.db" "$TMP/B.db" -o "$d/m.db"
  l=$(check_merge $?); [ -z "$l" ] || left="$left [INT after $delay s: $l]"
done
expect_eq "dbmerge interrupted (SIGINT, SIGTERM, SIGHUP, anywhere) leaves no temporary, no journal" "" "$left"
for spec in "kineto2db $FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz" \
            "nsys2db $NSY" "nvvp2db $FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" "rpd2db $RPD" \
            "rpd2db $TMP/r.rpd.gz"; do
  set -- $spec
  tool=$1 input=$2
  d="$TMP/int-$tool"; mkdir -p "$d"; left=""
  for threads in 1 2; do
    for bytes in -1 0 100000 400000 1000000; do
      rm -f "$d"/*
      set -- $(intr INT "$d/o.db.tmp*" $bytes $tool -q --threads $threads "$input" -o "$d/o.db")
      l=$(leftover "$d" o.db)
      [ "$1" -ne 0 ] || [ -f "$d/o.db" ] || l="exit 0 without o.db"
      [ -z "$l" ] || left="$left [threads $threads at $bytes bytes ($2): $l]"
    done
  done
  expect_eq "$tool on $(basename "$input") interrupted anywhere leaves nothing" "" "$left"
done

# --- 5. a split that fails part-way removes the parts it finished ----------------
# A region row whose start is text sorts after every time: the reader
# refuses it after the other windows are written.
cp "$TMP/g.db" "$TMP/bad.db"
q "$TMP/bad.db" "UPDATE rocpd_region$sfx SET start = 'abc' WHERE id = (SELECT max(id) FROM rocpd_region$sfx)"
for tool in db2json db2perfetto db2summary db2otf2; do
  d="$TMP/split-$tool"; mkdir -p "$d"
  err=$($tool "$TMP/bad.db" --split window --windows 5 -o "$d/x.out" 2>&1); rc=$?
  expect_eq "$tool: a split refused part-way exits 1" "1" "$rc"
  [[ "$err" =~ "wrote $d/x.w000.out" && "$err" =~ "removed the 4 parts this run had finished" ]] \
    && pass "$tool: the removal of the 4 finished parts is said" || fail "$tool: removal not said: [$err]"
  DESC="$tool: a failed split leaves none of its parts" only "$d"
done
# Interrupted once 1 or 3 parts are written: all parts or none, never some.
for tool in db2json db2otf2; do
  d="$TMP/split-int-$tool"; mkdir -p "$d"; left=""
  for k in 0 2; do
    for sig in INT TERM; do
      rm -rf "$d"/*
      set -- $(intr $sig "$d/x.w00$k.out" 0 $tool -q "$TMP/A.db" "$TMP/B.db" --split window --windows 5 -o "$d/x.out")
      l=$(leftover "$d" x.w000.out x.w001.out x.w002.out x.w003.out x.w004.out)
      [ "$1" -ne 0 ] || [ -e "$d/x.w004.out" ] || l="exit 0 without the parts"
      [ -z "$l" ] || left="$left [$sig after part $k ($2): $l]"
    done
  done
  expect_eq "$tool: a split interrupted after some parts leaves all its parts or none" "" "$left"
done
# A part done alone (--part K) stays: it is the whole run.
d="$TMP/part"; mkdir -p "$d"
expect_ok "--part of a good hub is written" db2json -q "$TMP/g.db" --split window --windows 5 --part 1 -o "$d/k.json"
[ -s "$d/k.w001.json" ] && pass "--part K leaves its part" || fail "--part K: no k.w001.json"

# --- 9. a failed db2otf2 run never says "wrote" ------------------------------------
err=$(db2otf2 "$TMP/bad.db" -o "$TMP/c2.otf2" 2>&1); rc=$?
[[ $rc -eq 1 && "$err" =~ "is not an integer time" && ! "$err" =~ wrote ]] \
  && pass "db2otf2 on a bad hub: the error, no \"wrote\"" || fail "db2otf2 on a bad hub (exit $rc): [$err]"
[ ! -e "$TMP/c2.otf2" ] && pass "db2otf2 on a bad hub: no archive" || fail "db2otf2 left $TMP/c2.otf2"

# --- 10. the bytes said are the bytes written, or none are said --------------------
err=$(db2json "$TMP/g.db" -o - 2>&1 >/dev/null)
[[ "$err" =~ "wrote 1000 events in 1 part" && ! "$err" =~ bytes ]] \
  && pass "db2json -o -: no byte count" || fail "db2json -o -: [$err]"
err=$(db2summary "$TMP/g.db" 2>&1 >/dev/null)
[[ "$err" =~ "wrote 1000 events in 1 part" && ! "$err" =~ bytes ]] \
  && pass "db2summary to stdout: no byte count" || fail "db2summary to stdout: [$err]"
err=$(db2json "$TMP/g.db" -o "$TMP/b.json" 2>&1)
expect_eq "db2json to a file: its size" "wrote 1000 events in 1 part, $(stat -c %s "$TMP/b.json") bytes" \
  "$(echo "$err" | grep -o 'wrote 1000 events.*')"
err=$(db2otf2 "$TMP/g.db" -o "$TMP/new.otf2" 2>&1)
expect_eq "db2otf2 to a new archive: the size of its files" \
  "wrote 1000 events in 1 part, $(find "$TMP/new.otf2" -type f -printf '%s\n' | awk '{s+=$1} END {print s}') bytes" \
  "$(echo "$err" | grep -o 'wrote 1000 events.*')"
mkdir -p "$TMP/old.otf2"
err=$(db2otf2 "$TMP/g.db" -o "$TMP/old.otf2" 2>&1)
[[ "$err" =~ "wrote 1000 events in 1 part" && ! "$err" =~ " 0 bytes" ]] \
  && pass "db2otf2 replacing an empty directory: no \"0 bytes\"" || fail "db2otf2 into an empty directory: [$err]"
[ -f "$TMP/old.otf2/traces.otf2" ] && pass "db2otf2 replaced the empty directory" || fail "no $TMP/old.otf2/traces.otf2"

# --- 11. an output directory that refuses: the output and the reason --------------
ro_run() { # runs "$@" with $TMP/ro a read-only directory; prints stderr
  if unshare -rm true 2>/dev/null; then
    mkdir -p "$TMP/ro"
    unshare -rm sh -c 'mount -t tmpfs -o ro tmpfs "$1/ro" && shift && "$@" 2>&1' sh "$TMP" "$@"
  elif [ "$(id -u)" != 0 ]; then
    mkdir -p "$TMP/ro"; chmod 555 "$TMP/ro"; "$@" 2>&1; chmod 755 "$TMP/ro"
  else
    echo "SKIP"
  fi
}
for spec in "kineto2db $FIX/kineto/hta_backward_thread.json" "nsys2db $NSY" "rpd2db $RPD"; do
  set -- $spec
  err=$(ro_run "$1" -q "$2" -o "$TMP/ro/a.db")
  if [ "$err" = SKIP ]; then skip "$1: no read-only directory to try (root without unshare)"; continue; fi
  [[ "$err" =~ "ro/a.db: cannot create: "(Read-only file system|Permission denied) && ! "$err" =~ \.tmp[0-9] ]] \
    && pass "$1 into a read-only directory: the output and the reason" || fail "$1 read-only: [$err]"
done
err=$(ro_run dbmerge -q "$TMP/g.db" -o "$TMP/ro/m.db")
[[ "$err" = SKIP || ( "$err" =~ "ro/m.db: cannot create: "(Read-only file system|Permission denied) && ! "$err" =~ \.tmp[0-9] ) ]] \
  && pass "dbmerge into a read-only directory: the output and the reason" || fail "dbmerge read-only: [$err]"

# --- 12. a warning never lands on a progress line ---------------------------------
cp "$RPD" "$TMP/w.rpd"; chmod u+w "$TMP/w.rpd"
q "$TMP/w.rpd" "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
  INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, \"end\", value)
  SELECT 'gpu', 0, 'temp', 8306014165212251 + i, 8306014165212252 + i, '50' FROM n;
  INSERT INTO rocpd_monitor(deviceType, deviceId, monitorType, start, \"end\", value)
  VALUES ('gpu', 0, 'temp', 8306014165300000, 8306014165300001, 'n/a');"
err=$(rpd2db --progress "$TMP/w.rpd" -o "$TMP/w.db" 2>&1)
[[ "$err" =~ $'\r'"rpd2db: 4096 rows" ]] && pass "rpd2db --progress drew a progress line" || fail "no progress line: [$err]"
expect_eq "rpd2db --progress: each warning on a line of its own" \
  "rpd2db: warning: $TMP/w.rpd: 1 rocpd_monitor rows (first: id $(q "$TMP/w.rpd" "SELECT max(id) FROM rocpd_monitor")) hold no number in value: not imported" \
  "$(printf '%s\n' "$err" | grep 'warning:')"

# --- 14. nsys2db: older nsys versions' META_DATA_EXPORT ----------------------------
cp "$NSY" "$TMP/old.sqlite"; chmod u+w "$TMP/old.sqlite"
q "$TMP/old.sqlite" "ALTER TABLE EXPORT_META_DATA RENAME TO META_DATA_EXPORT; CREATE TABLE ONE_ROW(a); INSERT INTO ONE_ROW VALUES (1);"
# --verbose: the line per table (issue 45 item 11 sums them up without it)
err=$(nsys2db --verbose "$TMP/old.sqlite" -o "$TMP/old.db" 2>&1)
expect_eq "nsys2db imports META_DATA_EXPORT as export metadata" \
  "$(q "$NSY" "SELECT count(*) || ' ' || max(CASE name WHEN 'EXPORT_PRODUCT_VERSION' THEN value END) FROM EXPORT_META_DATA")" \
  "$(q "$TMP/old.db" "SELECT count(*) || ' ' || max(CASE tag WHEN 'nsys.EXPORT_PRODUCT_VERSION' THEN value END) FROM rocpd_metadata WHERE tag LIKE 'nsys.EXPORT\_%' ESCAPE '\\'")"
[[ ! "$err" =~ META_DATA_EXPORT ]] && pass "META_DATA_EXPORT is not reported as not imported" || fail "[$err]"
[[ "$err" =~ "table ONE_ROW (1 row) has no hub mapping" ]] && pass "one row is \"1 row\"" || fail "1 row: [$err]"

# --- 27.2: grid x block past int64 refused by both CUPTI importers ------------------
cp "$NSY" "$TMP/grid.sqlite"; chmod u+w "$TMP/grid.sqlite"
row=$(q "$TMP/grid.sqlite" "SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL")
q "$TMP/grid.sqlite" "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET gridX = 4611686018427387904, blockX = 4 WHERE rowid = $row"
expect_fail "nsys2db refuses gridX 2^62 x blockX 4, naming table and row" \
  "grid.sqlite: table CUPTI_ACTIVITY_KIND_KERNEL row rowid $row: grid or shared memory size out of range \(gridX 4611686018427387904 x blockX 4\)" \
  nsys2db -q "$TMP/grid.sqlite" -o "$TMP/grid.db"
[ ! -e "$TMP/grid.db" ] && pass "nsys2db: no hub for the refused input" || fail "nsys2db wrote $TMP/grid.db"
expect_ok "the fixture's kernels still import" nsys2db -q "$NSY" -o "$TMP/nsys.db"
expect_eq "nsys2db: grid_size_x = gridX x blockX for every kernel" \
  "$(q "$NSY" "SELECT group_concat((gridX * blockX) || ',' || (gridY * blockY) || ',' || (gridZ * blockZ), ' ') FROM (SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY start, rowid)")" \
  "$(q "$TMP/nsys.db" "SELECT group_concat(grid_size_x || ',' || grid_size_y || ',' || grid_size_z, ' ') FROM (SELECT * FROM rocpd_kernel_dispatch ORDER BY start, id)")"

# --- 16. help and man pages say what the tools do --------------------------------
expect_fail "db2otf2 refuses an output name ending in .gz" "n.otf2.gz: .*without .gz" \
  db2otf2 "$TMP/g.db" -o "$TMP/n.otf2.gz"
[ ! -e "$TMP/n.otf2.gz" ] && pass "db2otf2: nothing made for the .gz name" || fail "db2otf2 made $TMP/n.otf2.gz"
db2otf2 --help | grep -q 'gzip' && fail "db2otf2 --help promises gzip" || pass "db2otf2 --help promises no gzip"
db2json --help | grep -q 'gzip' && pass "db2json --help says .gz is compressed" || fail "db2json --help lost the .gz line"
for opt in count-parts max-parts list-categories; do
  grep -q "^\.B.* \\\\-\\\\-${opt//-/\\\\-}" "$ROOT/man/db2otf2.1" && pass "db2otf2.1 documents --$opt" || fail "db2otf2.1 lacks --$opt"
done
expect_fail "db2summary refuses --no-args (a summary has no arguments)" "--no-args" db2summary --no-args "$TMP/g.db"
db2summary --help | grep -q 'no-args' && fail "db2summary --help offers --no-args" || pass "db2summary --help offers no --no-args"
sed -n '/^\.SH CATEGORIES/,/^\.SH EXAMPLES/p' "$ROOT/man/db2json.1" | grep -q '^\.B rpd2db' \
  && pass "db2json.1 lists rpd2db's categories" || fail "db2json.1 CATEGORIES lacks rpd2db"
# Every category rpd2db gave the fixture is named there.
rpd2db -q "$RPD" -o "$TMP/rpd.db"
cats=$(sed -n '/^\.B rpd2db/,/^\.TP/p' "$ROOT/man/db2json.1")
missing=""
for c in $(q "$TMP/rpd.db" "SELECT DISTINCT s.string FROM rocpd_event e JOIN rocpd_string s ON s.id = e.category_id"); do
  [[ "$cats" == *"$c"* ]] || missing="$missing $c"
done
expect_eq "db2json.1 names every category of the RPD fixture's hub" "" "$missing"

# --- 27.3: the hub writer's header says what its calls return ---------------------
grep -q '^void hub_writer_finish(hub_writer \*w);' "$ROOT/common/hub/hub_writer.h" \
  && pass "hub_writer_finish returns nothing to check (it dies on failure)" \
  || fail "hub_writer_finish still declared to return a status it never gives"
grep -q 'Errors in library code' "$ROOT/common/base/util.h" && pass "util.h states the error policy" \
  || fail "no error policy in util.h"
