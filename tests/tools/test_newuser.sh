#!/usr/bin/env bash
# What a new user hits first (issue "What a new user hits"): each case
# reproduces one report. Expected values come from sqlite3 on the hub or
# from python reading the output, never from the tool under test.
source "$(dirname "$0")/lib.sh"
stats() { $PY "$ROOT/tests/checkers/json_stats.py" "$1"; }
field() { $PY "$ROOT/tests/checkers/json_field.py" - "$1"; }
nx() { stats "$1" | field "d['ph'].get('X', 0)"; }
sha() { sha256sum "$1" | cut -d' ' -f1; }
GEN="$ROOT/$BUILD/bench/gen_hub"

kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/alex.db"
"$GEN" "$TMP/g.db" 500 1 >/dev/null

# --- 1. an exporter never writes over its input ------------------------
for tool in db2json db2perfetto; do
  cp "$TMP/g.db" "$TMP/in.db"; h=$(sha "$TMP/in.db")
  expect_fail "$tool: -o naming the input is refused" "would overwrite the input" \
    $tool -q "$TMP/in.db" -o "$TMP/in.db"
  ln -sf "$TMP/in.db" "$TMP/link.db"
  expect_fail "$tool: -o naming a symlink to the input is refused" "would overwrite the input" \
    $tool -q "$TMP/in.db" -o "$TMP/link.db"
  cp "$TMP/g.db" "$TMP/o.w000.db"; h2=$(sha "$TMP/o.w000.db")
  expect_fail "$tool: a split part named like the input is refused" "would overwrite the input" \
    $tool -q "$TMP/o.w000.db" --split window --windows 2 -o "$TMP/o.db"
  expect_eq "$tool: the input is unchanged" "$h $h2" "$(sha "$TMP/in.db") $(sha "$TMP/o.w000.db")"
  expect_eq "$tool: no part written" "" "$(ls "$TMP"/o.w001.db 2>/dev/null)"
done

# --- 2. window sizes need a unit; the number of parts is bounded ---------
expect_fail "--window-size without a unit is refused" "unit" \
  db2json -q "$TMP/alex.db" --split window --window-size 10 -o "$TMP/ws.json"
span=$(q "$TMP/alex.db" "SELECT max(e) - min(s) FROM (SELECT min(start) s, max(\"end\") e FROM rocpd_region
  UNION ALL SELECT min(start), max(\"end\") FROM rocpd_kernel_dispatch UNION ALL SELECT min(start), max(\"end\") FROM rocpd_memory_copy
  UNION ALL SELECT min(timestamp), max(timestamp) FROM rocpd_sample)")
want_parts=$(( (span + 1 + 9999) / 10000 ))   # windows of 10 us
expect_fail "a split into more than 10000 parts is refused" "$want_parts parts.*--max-parts" \
  db2json -q "$TMP/alex.db" --split window --window-size 10us -o "$TMP/ws.json"
expect_eq "nothing written when refused" "" "$(ls "$TMP"/ws.* 2>/dev/null)"
expect_eq "--count-parts tells the number of parts" "$want_parts" \
  "$(db2json "$TMP/alex.db" --split window --window-size 10us --count-parts)"
expect_eq "--count-parts with --windows" "7" "$(db2json "$TMP/alex.db" --split window --windows 7 --count-parts)"
pids_with_events=$(q "$TMP/alex.db" "SELECT count(DISTINCT pid) FROM (SELECT pid FROM rocpd_region
  UNION SELECT pid FROM rocpd_kernel_dispatch UNION SELECT pid FROM rocpd_memory_copy
  UNION SELECT t.pid FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id)")
expect_eq "--count-parts with --split process" "$pids_with_events" \
  "$(db2json "$TMP/alex.db" --split process --count-parts)"
err=$(db2json "$TMP/g.db" --split window --windows 3 -o "$TMP/c3.json" 2>&1 >/dev/null)
if [[ "$err" =~ "3 parts" ]]; then pass "the part count is said before writing"; else fail "no part count: [$err]"; fi

# Empty windows: two hubs far apart in time leave the middle windows empty.
"$GEN" "$TMP/far.db" 500 1 >/dev/null
sfx=$(q "$TMP/far.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/far.db" "UPDATE rocpd_region$sfx SET pid=pid+1, start=start+10000000000, \"end\"=\"end\"+10000000000;
  UPDATE rocpd_kernel_dispatch$sfx SET pid=pid+1, start=start+10000000000, \"end\"=\"end\"+10000000000;
  UPDATE rocpd_info_process$sfx SET id=id+1, pid=pid+1;"
err=$(db2json "$TMP/g.db" "$TMP/far.db" --split window --windows 10 -o "$TMP/e.json" 2>&1 >/dev/null)
expect_eq "no file for an empty window" "e.w000.json e.w009.json" "$(cd "$TMP" && echo e.w*.json)"
if [[ "$err" =~ "8 empty" ]]; then pass "empty windows are stated"; else fail "empty windows not stated: [$err]"; fi
expect_eq "the two written windows hold every event" \
  "$(( $(q "$TMP/g.db" "SELECT count(*) FROM rocpd_region")*2 + $(q "$TMP/g.db" "SELECT count(*) FROM rocpd_kernel_dispatch")*2 ))" \
  "$(( $(nx "$TMP/e.w000.json") + $(nx "$TMP/e.w009.json") ))"
db2json -q "$TMP/g.db" --split window --windows 1500 --max-parts 2000 -o "$TMP/pad.json"
first=$(cd "$TMP" && ls pad.w*.json | head -1)
expect_eq "part numbers padded to sort (1500 parts: 4 digits)" "pad.w0000.json" "$first"

# --- 3. arrows only between slices that are written ----------------------
db2json -q "$TMP/alex.db" --category kernel -o "$TMP/k.json"
expect_eq "--category kernel: no flow end without its slice" "0" "$(stats "$TMP/k.json" | field "d['flows_unanchored']")"
expect_eq "--category kernel: no dangling arrow" "0" "$(stats "$TMP/k.json" | field "d['flows_dangling']")"
db2perfetto -q "$TMP/alex.db" --category kernel -o "$TMP/k.pftrace"
expect_eq "db2perfetto --category kernel: no stray flow instants" "0" \
  "$(protoc --decode=perfetto.protos.Trace -I "$ROOT/tests/data" "$ROOT/tests/data/perfetto_trace.proto" <"$TMP/k.pftrace" | grep -c TYPE_INSTANT)"
# launch -> kernel arrows whose both ends are kept: a kernel whose
# correlation is a cuda_runtime call's in its process (the hub's launch
# links; Kineto's ac2g ends that repeat them are folded at import).
want=$(q "$TMP/alex.db" "
SELECT count(*) FROM rocpd_kernel_dispatch k JOIN rocpd_event ke ON ke.id = k.event_id
  JOIN rocpd_string kc ON kc.id = ke.category_id
WHERE kc.string = 'kernel' AND EXISTS (SELECT 1 FROM rocpd_region r JOIN rocpd_event re ON re.id = r.event_id
  JOIN rocpd_string rc ON rc.id = re.category_id
  WHERE r.pid = k.pid AND re.correlation_id = ke.correlation_id AND rc.string = 'cuda_runtime')")
db2json -q "$TMP/alex.db" --category kernel --category cuda_runtime -o "$TMP/kr.json"
expect_eq "kernels + runtime: every launch arrow kept" "$want" "$(stats "$TMP/kr.json" | field "d['flows_paired']")"
expect_eq "kernels + runtime: no flow end without its slice" "0" "$(stats "$TMP/kr.json" | field "d['flows_unanchored']")"
db2json -q "$TMP/alex.db" --name 'aten::*' -o "$TMP/n.json"
expect_eq "--name: no flow end without its slice" "0" "$(stats "$TMP/n.json" | field "d['flows_unanchored']")"
expect_eq "--name: no dangling arrow" "0" "$(stats "$TMP/n.json" | field "d['flows_dangling']")"

# --- 4. categories: listed, matched case-insensitively, warned when empty --
want=$(q "$TMP/alex.db" "SELECT c.string || ' ' || count(*) FROM (SELECT event_id FROM rocpd_region UNION ALL
  SELECT event_id FROM rocpd_kernel_dispatch UNION ALL SELECT event_id FROM rocpd_memory_copy) x
  JOIN rocpd_event e ON e.id = x.event_id JOIN rocpd_string c ON c.id = e.category_id GROUP BY c.string ORDER BY c.string" | tr '\n' ';')
got=$(db2json "$TMP/alex.db" --list-categories | awk '$1 != "category" {print $1 " " $2}' | sort | tr '\n' ';')
# samples (instants, flow ends) have categories too: keep only interval categories for the comparison
got_iv=$(for c in $(echo "$want" | tr ';' '\n' | cut -d' ' -f1); do echo "$got" | tr ';' '\n' | grep "^$c " ; done | tr '\n' ';')
expect_eq "--list-categories counts every interval category" "$want" "$got_iv"
expect_fail "a category filter matching nothing is refused" "no event.*--list-categories" \
  db2json -q "$TMP/alex.db" --category nosuch -o "$TMP/none.json"
expect_eq "no output for a filter matching nothing" "" "$(ls "$TMP"/none.json 2>/dev/null)"
nvvp2db -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$TMP/nv.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/ns.db"
kineto2db -q "$FIX/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz" -o "$TMP/k21.db"
for db in alex nv ns k21; do
  want=$(q "$TMP/$db.db" "SELECT count(*) FROM (SELECT event_id FROM rocpd_kernel_dispatch UNION ALL SELECT event_id FROM rocpd_memory_copy) x
    JOIN rocpd_event e ON e.id = x.event_id JOIN rocpd_string c ON c.id = e.category_id
    WHERE lower(c.string) GLOB 'kernel*' OR lower(c.string) GLOB '*mem*'")
  db2json -q "$TMP/$db.db" --category 'kernel*' --category '*mem*' -o "$TMP/gpu-$db.json"
  got=$(nx "$TMP/gpu-$db.json")
  expect_eq "README's GPU-only example on the $db hub: every kernel and copy" "$want" "$got"
  [ "$want" -gt 0 ] && pass "$db: the GPU-only example is not empty" || fail "$db: the GPU-only example matched nothing"
done

# --- 5. no part for a process without events -------------------------------
db2json -q "$TMP/k21.db" --split process -o "$TMP/sp.json"
want=$(q "$TMP/k21.db" "SELECT group_concat(pid, ' ') FROM (SELECT DISTINCT pid FROM (SELECT pid FROM rocpd_region
  UNION SELECT pid FROM rocpd_kernel_dispatch UNION SELECT pid FROM rocpd_memory_copy
  UNION SELECT t.pid FROM rocpd_sample s JOIN rocpd_track t ON t.id = s.track_id) ORDER BY pid)")
got=$(cd "$TMP" && ls sp.p*.json | sed 's/sp\.p//; s/\.json//' | sort -n | tr '\n' ' ' | sed 's/ $//')
expect_eq "--split process: one part per process with events" "$want" "$got"
for p in "$TMP"/sp.p*.json; do
  n=$(stats "$p" | field "sum(v for k, v in d['ph'].items() if k != 'M')")
  [ "$n" -gt 0 ] && pass "$(basename "$p") holds events" || fail "$(basename "$p") holds only metadata"
done

# --- 6. the same hub twice ---------------------------------------------------
expect_fail "the same file twice is refused" "given twice" db2json -q "$TMP/g.db" "$TMP/g.db" -o "$TMP/d.json"
cp "$TMP/g.db" "$TMP/gcopy.db"
expect_fail "a copy of a hub (same uuid) is refused" "same hub" db2json -q "$TMP/g.db" "$TMP/gcopy.db" -o "$TMP/d.json"

# --- 7. .gz outputs are gzipped -----------------------------------------------
db2json -q "$TMP/g.db" -o "$TMP/z.json.gz"
expect_eq "-o x.json.gz writes gzip" "1f8b" "$(head -c2 "$TMP/z.json.gz" | od -An -tx1 | tr -d ' \n')"
db2json -q "$TMP/g.db" -o "$TMP/plain.json"
expect_eq "the gzip holds the same trace" "$(sha "$TMP/plain.json")" "$(gzip -dc "$TMP/z.json.gz" | sha256sum | cut -d' ' -f1)"
db2json -q "$TMP/g.db" --split window --windows 2 -o "$TMP/zs.json.gz"
expect_eq "split parts keep .json.gz" "zs.w000.json.gz zs.w001.json.gz" "$(cd "$TMP" && echo zs.w*)"
expect_eq "split parts are gzip" "1f8b" "$(head -c2 "$TMP/zs.w001.json.gz" | od -An -tx1 | tr -d ' \n')"
db2perfetto -q "$TMP/g.db" -o "$TMP/z.pftrace.gz"
expect_eq "db2perfetto -o x.pftrace.gz writes gzip" "1f8b" "$(head -c2 "$TMP/z.pftrace.gz" | od -An -tx1 | tr -d ' \n')"

# --- 8. -q silences warnings -----------------------------------------------------
err=$(nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/q.db" 2>&1)
expect_eq "nsys2db -q prints nothing" "" "$err"
err=$(nsys2db "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/q.db" 2>&1)
[[ "$err" =~ warning ]] && pass "without -q the warnings are shown" || fail "warnings lost without -q: [$err]"

# --- 9. messages that say what is wrong ----------------------------------------
err=$(db2json -q "$TMP/g.db" -o "$TMP/nodir/o.json" 2>&1)
[[ "$err" =~ "nodir/o.json: cannot create: No such file or directory" && ! "$err" =~ \.tmp[0-9] ]] \
  && pass "missing output directory: named, no temporary name" || fail "missing output directory: [$err]"
err=$(kineto2db -q "$FIX/kineto/hta_backward_thread.json" -o "$TMP/nodir/o.db" 2>&1)
[[ "$err" =~ "nodir/o.db: cannot create: No such file or directory" && ! "$err" =~ \.tmp[0-9] ]] \
  && pass "importer, missing output directory: named" || fail "importer, missing output directory: [$err]"
expect_fail "a directory as exporter input" "$TMP: is a directory" db2json -q "$TMP" -o "$TMP/x.json"
expect_fail "a directory as importer input" "$TMP: is a directory" kineto2db -q "$TMP" -o "$TMP/x.db"
expect_fail "a directory as nvvp2db input" "$TMP: is a directory" nvvp2db -q "$TMP" -o "$TMP/x.db"
expect_fail "a hub given to kineto2db" "rocpd hub.*db2json" kineto2db -q "$TMP/g.db" -o "$TMP/x.db"
expect_fail "a hub given to nvvp2db" "rocpd hub.*db2json" nvvp2db -q "$TMP/g.db" -o "$TMP/x.db"
expect_fail "JSON given to an exporter" "JSON.*kineto2db" db2json -q "$FIX/kineto/hta_backward_thread.json" -o "$TMP/x.json"
expect_fail "gzipped JSON given to an exporter" "kineto2db" db2perfetto -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/x.pftrace"
expect_fail "- as exporter input" "standard input is not supported" db2json -q - -o "$TMP/x.json"
expect_fail "- as importer input" "standard input is not supported" kineto2db -q - -o "$TMP/x.db"

# --- 10. the man page's parallel example works ------------------------------------
n=$(db2perfetto "$TMP/alex.db" --split window --window-size 500ms --count-parts)
seq 0 $((n - 1)) | xargs -P2 -I{} db2perfetto -q "$TMP/alex.db" --split window --window-size 500ms --part {} -o "$TMP/par.pftrace"
db2perfetto -q "$TMP/alex.db" --split window --window-size 500ms -o "$TMP/ser.pftrace"
same=1
for f in "$TMP"/ser.w*.pftrace; do cmp -s "$f" "${f/ser/par}" || same=0; done
expect_eq "parallel --part run (count from --count-parts) equals the serial split" "1 $(ls "$TMP"/ser.w*.pftrace | wc -l)" \
  "$same $(ls "$TMP"/par.w*.pftrace | wc -l)"
grep -q 'count\\-parts' "$ROOT/man/db2perfetto.1" && pass "man page example uses --count-parts" || fail "man example lacks --count-parts"

# --- 11. progress: percent, 100% at the end, a closing line --------------------------
err=$(db2json --progress "$TMP/alex.db" -o "$TMP/pr.json" 2>&1)
[[ "$err" =~ "100%" ]] && pass "progress ends at 100%" || fail "progress lacks 100%: [${err:0:300}]"
nev=$(stats "$TMP/pr.json" | field "sum(v for k, v in d['ph'].items() if k != 'M')")
[[ "$err" =~ "events" && "$err" =~ "wrote" ]] && pass "progress ends with what was written" || fail "no closing line: [${err:0:300}]"
err=$(kineto2db --progress "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/pr.db" 2>&1)
[[ "$err" =~ "100%" ]] && pass "kineto2db progress ends at 100%" || fail "kineto2db progress: [${err:0:300}]"
err=$(db2json -q --progress "$TMP/alex.db" -o "$TMP/pq.json" 2>&1)
expect_eq "-q wins over --progress" "" "$err"
if $PY -c 'import pty' 2>/dev/null; then
  out=$($PY - "$BIN/db2perfetto" "$TMP/g.db" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], sys.argv[2], "-o", "-"])
data = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    data += chunk
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), b"terminal" in data)
PY
)
  expect_eq "db2perfetto -o - refuses a terminal" "2 True" "$out"
fi

# --- 12. docs ------------------------------------------------------------------
make -s -C "$ROOT" BUILD="$BUILD" install DESTDIR="$TMP/inst" PREFIX=/usr >/dev/null 2>&1
n_in=$(find "$TMP/inst" -type f | wc -l)
make -s -C "$ROOT" BUILD="$BUILD" uninstall DESTDIR="$TMP/inst" PREFIX=/usr >/dev/null 2>&1
expect_eq "make uninstall removes what make install put" "0" "$(find "$TMP/inst" -type f | wc -l)"
[ "$n_in" -gt 0 ] && pass "make install installed files" || fail "make install installed nothing"
dates=$(grep -h '^\.TH' "$ROOT"/man/*.1 | awk '{print $4}' | sort -u | wc -l)
expect_eq "every man page has the same date" "1" "$dates"
tools=$(ls "$ROOT/converters")
for m in "$ROOT"/man/*.1; do
  see=$(sed -n '/^\.SH SEE ALSO/,/^\.SH/p' "$m" | grep -oE '[a-z0-9]+2[a-z0-9]+|dbmerge' | sort -u)
  bad=""
  for s in $see; do echo "$tools" | grep -qx "$s" || bad="$bad $s"; done
  missing=""
  for t in $tools; do [ "$t" = "$(basename "$m" .1)" ] && continue; echo "$see" | grep -qx "$t" || missing="$missing $t"; done
  expect_eq "$(basename "$m"): SEE ALSO names every other tool and no missing one" "" "$bad$missing"
done
for m in db2json db2perfetto; do
  grep -qi 'replaced' "$ROOT/man/$m.1" && pass "$m.1 says an existing output is replaced" || fail "$m.1 silent on replacing outputs"
done
