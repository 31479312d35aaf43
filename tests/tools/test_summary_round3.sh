#!/usr/bin/env bash
# db2summary, issue #45 items 1-7, on real Kineto traces: a CUDA one
# (hta_sampled_rank-0: 1154 kernels of 194 names, 53 cutlass GEMMs, 10
# memsets) and a ROCm one (hta_mi250_rocm6_2_kineto: hip* calls filed under
# cuda_runtime, user_annotation ranges). Every expected figure is counted
# from the JSON with python, not by the code under test.
source "$(dirname "$0")/lib.sh"

CUDA="$FIX/kineto/hta_sampled_rank-0.json.gz"
ROCM="$FIX/kineto/hta_mi250_rocm6_2_kineto.json.gz"
kineto2db -q "$CUDA" -o "$TMP/cuda.db" || fail "kineto2db $CUDA"
kineto2db -q "$ROCM" -o "$TMP/rocm.db" || fail "kineto2db $ROCM"

# fromjson FILE EXPR : EXPR over the trace's complete events X (python)
fromjson() {
  $PY - "$1" "$2" <<'EOF'
import collections, gzip, json, re, sys
X = [e for e in json.load(gzip.open(sys.argv[1]))["traceEvents"] if e.get("ph") == "X"]
cat = lambda c: [e for e in X if e.get("cat") == c]
print(eval(sys.argv[2]))
EOF
}

# --- 1. --truncate-kernels: the short name, never two kernels in one row -----
# (read from json, so these checks need no other item's options)
tablecsv() { # tablecsv TABLE OUT.csv DB OPTION... : the json table TABLE as csv
  local t=$1 out=$2; shift 2
  db2summary -q --format json "$@" | $PY -c '
import csv, json, sys
rows = [r for t in json.load(sys.stdin)["tables"] if t["table"] == sys.argv[1] for r in t["rows"]]
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0]) if rows else ["name"])
w.writeheader(); w.writerows(rows)' "$t" "$out"
}
tablecsv kernels "$TMP/tk.csv" "$TMP/cuda.db" --truncate-kernels --top 0
expect_eq "1: one row per kernel name: shortening merges none (rows = distinct names)" \
  "$(fromjson "$CUDA" 'len(set(e["name"] for e in cat("kernel")))')" "$(tail -n +2 "$TMP/tk.csv" | wc -l)"
expect_eq "1: every kernel call counted once" "$(fromjson "$CUDA" 'len(cat("kernel"))')" \
  "$($PY -c 'import csv,sys; print(sum(int(r["calls"]) for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/tk.csv")"
expect_eq "1: void (anonymous namespace)::softmax_warp_forward<...>(...) -> (anonymous namespace)::softmax_warp_forward" \
  "$(fromjson "$CUDA" 'sum(1 for e in cat("kernel") if e["name"].startswith("void (anonymous namespace)::softmax_warp_forward<"))')" \
  "$($PY -c 'import csv,sys; print(sum(int(r["calls"]) for r in csv.DictReader(open(sys.argv[1])) if r["name"].split(" [")[0] == "(anonymous namespace)::softmax_warp_forward"))' "$TMP/tk.csv")"
expect_eq "1: at::native::vectorized_elementwise_kernel<4, ...> -> at::native::vectorized_elementwise_kernel" \
  "$(fromjson "$CUDA" 'sum(1 for e in cat("kernel") if e["name"].startswith("void at::native::vectorized_elementwise_kernel<"))')" \
  "$($PY -c 'import csv,sys; print(sum(int(r["calls"]) for r in csv.DictReader(open(sys.argv[1])) if r["name"].split(" [")[0] == "at::native::vectorized_elementwise_kernel"))' "$TMP/tk.csv")"
expect_eq "1: the 53 cutlass GEMMs: 53 rows cutlass::Kernel [n of 53]" \
  "$(fromjson "$CUDA" 'len(set(e["name"] for e in cat("kernel") if e["name"].startswith("void cutlass::Kernel<")))')" \
  "$($PY -c 'import csv,re,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if re.fullmatch(r"cutlass::Kernel \[\d+ of 53\]", r["name"])))' "$TMP/tk.csv")"
expect_eq "1: no row named by a return type or a namespace alone (void, at::native::)" 0 \
  "$($PY -c 'import csv,sys; print(sum(1 for r in csv.DictReader(open(sys.argv[1])) if r["name"].startswith("void") or r["name"].endswith("::")))' "$TMP/tk.csv")"
expect_eq "1: Memset (Device) stays whole (in its table, or wherever it is listed)" "Memset (Device)" \
  "$(db2summary -q --format json "$TMP/cuda.db" --truncate-kernels --top 0 | $PY -c 'import json,sys; print(" ".join(sorted(set(r["name"] for t in json.load(sys.stdin)["tables"] if t["table"] in ("kernels", "memsets") for r in t["rows"] if r["name"].startswith("Memset")))))')"

# --- 2. text fits the width; csv, json, markdown keep whole names ------------
db2summary -q "$TMP/cuda.db" --top 0 -o "$TMP/t.txt"
expect_eq "2: text to a file: no line over 100 columns" yes \
  "$([ "$(wc -L <"$TMP/t.txt")" -le 100 ] && echo yes || wc -L <"$TMP/t.txt")"
db2summary -q "$TMP/cuda.db" --top 0 --width 80 -o "$TMP/t80.txt"
expect_eq "2: --width 80: no line over 80 columns" yes \
  "$([ "$(wc -L <"$TMP/t80.txt")" -le 80 ] && echo yes || wc -L <"$TMP/t80.txt")"
expect_eq "2: a cut name is marked (...)" yes "$(grep -q '\.\.\.' "$TMP/t80.txt" && echo yes || echo no)"
expect_eq "2: --width 0: the longest kernel name whole" \
  "$(fromjson "$CUDA" 'max(len(e["name"]) for e in cat("kernel"))')" \
  "$(db2summary -q "$TMP/cuda.db" --top 0 --width 0 | sed -n '/^Kernels/,/^$/p' | sed 's/^.*[0-9]  //' | awk '{ if (length > m) m = length } END {print m}')"
longest=$(fromjson "$CUDA" 'max(len(e["name"]) for e in cat("kernel"))')
db2summary -q "$TMP/cuda.db" --top 0 --format csv --table kernels -o "$TMP/k.csv"
expect_eq "2: csv keeps the whole longest kernel name" "$longest" \
  "$($PY -c 'import csv,sys; print(max(len(r["name"]) for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/k.csv")"
expect_eq "2: json keeps the whole longest kernel name" "$longest" \
  "$(db2summary -q "$TMP/cuda.db" --top 0 --format json | $PY -c 'import json,sys; print(max(len(r["name"]) for t in json.load(sys.stdin)["tables"] if t["table"] == "kernels" for r in t["rows"]))')"
expect_eq "2: markdown keeps the whole longest kernel name" "$longest" \
  "$(db2summary -q "$TMP/cuda.db" --top 0 --format markdown | $PY -c '
import re, sys
md = sys.stdin.read().split("### Kernels")[1].split("###")[0]
names = [re.sub(r"\\(.)", r"\1", l.rstrip().rstrip("|").rsplit("| ", 1)[1]).rstrip() for l in md.splitlines() if l.startswith("| ") and not l.startswith("| calls")]
print(max(len(n) for n in names))')"

# --- 3. csv: one table per file, loadable ------------------------------------
expect_fail "3: csv to stdout without --table is refused, naming the tables" \
  "--table NAME.*kernels, copies, memsets" db2summary -q "$TMP/cuda.db" --format csv
expect_fail "3: --table of no such table names the tables" "no such table.*kernels" \
  db2summary -q "$TMP/cuda.db" --format csv --table nope -o "$TMP/nope.csv"
expect_eq "3: nothing left behind when refused" "" "$(ls "$TMP" | grep nope || true)"
db2summary -q "$TMP/cuda.db" --top 0 --format csv -o "$TMP/all.csv"
expect_eq "3: without --table: an index with one row per table, each in its own file" ok \
  "$($PY - "$TMP/all.csv" <<'EOF'
import csv, os, sys
ix = list(csv.DictReader(open(sys.argv[1])))
bad = []
for r in ix:
    rows = list(csv.reader(open(os.path.join(os.path.dirname(sys.argv[1]), r["file"]))))
    if len(rows) - 1 != int(r["rows"]): bad.append(r["table"] + " rows")
    if any(len(x) != len(rows[0]) for x in rows): bad.append(r["table"] + " ragged")
print("ok" if ix and not bad and ix[0]["table"] == "kernels" else bad or "empty")
EOF
)"
expect_eq "3: sqlite3 .import loads the kernels csv: its calls add up to the trace's kernels" \
  "$(fromjson "$CUDA" 'len(cat("kernel"))')" \
  "$(sqlite3 :memory: ".import --csv $TMP/all.kernels.csv k" "SELECT sum(calls) FROM k")"
expect_eq "3: --table kernels on stdout = the kernels file" \
  "$(sha256sum <"$TMP/all.kernels.csv")" "$(db2summary -q "$TMP/cuda.db" --top 0 --format csv --table kernels | sha256sum)"

# --- 4. memsets are not kernels -----------------------------------------------
db2summary -q "$TMP/cuda.db" --top 0 --format json -o "$TMP/c.json"
expect_eq "4: json events by kind: kernel and memset apart" \
  "$(fromjson "$CUDA" 'len(cat("kernel"))') $(fromjson "$CUDA" 'len(cat("gpu_memset"))')" \
  "$($PY -c 'import json,sys; d={r["kind"]: r["events"] for t in json.load(open(sys.argv[1]))["tables"] if t["table"] == "event_counts" for r in t["rows"]}; print(d.get("kernel"), d.get("memset"))' "$TMP/c.json")"
expect_eq "4: json: the memsets table (name, calls)" \
  "$(fromjson "$CUDA" '"|".join("%s|%d" % kv for kv in collections.Counter(e["name"] for e in cat("gpu_memset")).items())')" \
  "$($PY -c 'import json,sys; print("|".join("%s|%s" % (r["name"], r["calls"]) for t in json.load(open(sys.argv[1]))["tables"] if t["table"] == "memsets" for r in t["rows"]))' "$TMP/c.json")"
for f in text markdown json csv; do
  if [ $f = csv ]; then out=$(cat "$TMP/all.kernels.csv"); else out=$(db2summary -q "$TMP/cuda.db" --top 0 --format $f | sed -n '/Kernels/,/Memory copies/p'); fi
  expect_eq "4: $f: no memset among the kernels" 0 "$(echo "$out" | grep -c 'Memset')"
done
expect_eq "4: text: a Memsets table with the memsets' calls" "$(fromjson "$CUDA" 'len(cat("gpu_memset"))')" \
  "$(db2summary -q "$TMP/cuda.db" | sed -n '/^Memsets$/,/^$/p' | awk '$1 ~ /^[0-9]+$/ {s += $1} END {print s}')"

# --- 5. ROCm: tables named by what they hold ----------------------------------
db2summary -q "$TMP/rocm.db" --top 0 -o "$TMP/r.txt"
expect_eq "5: hip* calls under HIP runtime API (calls per name)" \
  "$(fromjson "$ROCM" '" ".join("%s=%d" % kv for kv in sorted(collections.Counter(e["name"] for e in cat("cuda_runtime")).items()))')" \
  "$(sed -n '/^HIP runtime API$/,/^$/p' "$TMP/r.txt" | awk '$1 ~ /^[0-9]+$/ {print $NF "=" $1}' | sort | paste -sd' ')"
expect_eq "5: no CUDA runtime API table for a ROCm trace" 0 "$(grep -c 'CUDA runtime API' "$TMP/r.txt")"
expect_eq "5: user_annotation ranges in their own table, not Markers (ROCTX/NVTX)" \
  "$(fromjson "$ROCM" 'len(cat("user_annotation"))') 0" \
  "$(sed -n '/^User annotations (PyTorch record_function)$/,/^$/p' "$TMP/r.txt" | awk '$1 ~ /^[0-9]+$/ {s += $1} END {print s}') $(grep -c 'ROCTX/NVTX' "$TMP/r.txt")"

# --- 6. two unrelated runs -------------------------------------------------------
err=$(db2summary "$TMP/cuda.db" "$TMP/rocm.db" --by-process --top 1 2>&1 >"$TMP/two.txt")
days=$($PY - "$CUDA" "$ROCM" <<'EOF'
import gzip, json, sys
def span(p):  # in us; ts counts from baseTimeNanoseconds where the trace has one
    d = json.load(gzip.open(p))
    base = d.get("baseTimeNanoseconds", 0) / 1000
    X = [e for e in d["traceEvents"] if e.get("ph") == "X"]
    return base + min(float(e["ts"]) for e in X), base + max(float(e["ts"]) + float(e.get("dur", 0)) for e in X)
(a0, a1), (b0, b1) = span(sys.argv[1]), span(sys.argv[2])
print("%.1f" % ((max(a0, b0) - min(a1, b1)) / 86400e6))
EOF
)
expect_eq "6: warns that the inputs are not one run, naming both and the gap in days" yes \
  "$([[ "$err" == *"db and "*".db do not look like one run"*"$days days apart"*"one at a time"* && "$err" == *cuda.db* && "$err" == *rocm.db* ]] && echo yes || echo "$err")"
expect_eq "6: --by-process names each process by its input (a kernels table of each run)" "yes yes" \
  "$(grep -q '^Kernels, .* from cuda\.db$' "$TMP/two.txt" && echo yes || echo no) $(grep -q '^Kernels, .* from rocm\.db$' "$TMP/two.txt" && echo yes || echo no)"
expect_eq "6: one run: no warning" "" "$(db2summary "$TMP/cuda.db" -o "$TMP/one.txt" 2>&1 | grep 'one run' || true)"

# --- 7. the html report --------------------------------------------------------
# kernel labels on the chart: one per row and all different (the MI250's
# GEMMs read alike for 26 characters)
for h in cuda rocm; do
  db2summary -q "$TMP/$h.db" --format html -o "$TMP/$h.html"
  expect_eq "7: $h: the kernels chart's labels tell its rows apart" \
    "$(db2summary -q "$TMP/$h.db" --format csv --table kernels | tail -n +2 | wc -l) distinct" \
    "$($PY - "$TMP/$h.html" <<'PY'
import html, re, sys
m = re.search(r'data-chart="kernels".*?</svg>', open(sys.argv[1], encoding="utf-8").read(), re.S).group(0)
l = [html.unescape(x) for x in re.findall(r'text-anchor="end">([^<]*)</text>', m)]
print(len(l), "distinct" if len(set(l)) == len(l) else "alike: %d" % (len(l) - len(set(l))))
PY
)"
done
# ranks in rank order: two imports of the trace (each hub its own uuid);
# the one the reader takes first (its uuid sorts first) is made rank 1 and
# the busier (rank 0 loses half its kernels), so neither the inputs' order
# nor busy time puts rank 0 first
kineto2db -q "$CUDA" -o "$TMP/a.db"
kineto2db -q "$CUDA" -o "$TMP/b.db"
ptab() { q "$1" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_process_%'"; }
if [[ "$(ptab "$TMP/a.db")" < "$(ptab "$TMP/b.db")" ]]; then mv "$TMP/a.db" "$TMP/r1.db"; mv "$TMP/b.db" "$TMP/r0.db"
else mv "$TMP/b.db" "$TMP/r1.db"; mv "$TMP/a.db" "$TMP/r0.db"; fi
q "$TMP/r1.db" "UPDATE \"$(ptab "$TMP/r1.db")\" SET extdata = json_set(extdata, '\$.rank', 1) WHERE json_extract(extdata, '\$.rank') = 0"
kd=$(q "$TMP/r0.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_kernel_dispatch_%'")
q "$TMP/r0.db" "DELETE FROM \"$kd\" WHERE id % 2 = 0"
db2summary -q "$TMP/r1.db" "$TMP/r0.db" --format html -o "$TMP/ranks.html"
expect_eq "7: the report's title names the inputs in rank order" "r0.db, r1.db" \
  "$(grep -o '<title>GPU profile summary: [^<]*' "$TMP/ranks.html" | sed 's/.*summary: //')"
expect_eq "7: the processes table in rank order" "0 1" \
  "$(db2summary -q "$TMP/r1.db" "$TMP/r0.db" --format json | $PY -c 'import json,re,sys; print(" ".join(re.search(r"\[rank (\d+)\]", r["name"]).group(1) for t in json.load(sys.stdin)["tables"] if t["table"] == "processes" for r in t["rows"] if "[rank" in r["name"]))')"
# laid out by headless chromium at 1280 px: no table scrolls sideways, no
# percentile label leaves its chart
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  fail "7: chromium is not installed (scripts/install-deps.sh installs it): the reports were not laid out"
else
  for h in cuda rocm; do
    cat "$TMP/$h.html" - >"$TMP/$h.probe.html" <<'EOF2'
<script>
window.addEventListener('load', function () {
  var r = {page: document.documentElement.scrollWidth, scroll: 0, pct: 0, clipped: 0};
  document.querySelectorAll('.tw').forEach(function (e) { if (e.scrollWidth > e.clientWidth + 1) r.scroll++; });
  document.querySelectorAll('svg .pct text').forEach(function (t) {
    var vb = t.ownerSVGElement.viewBox.baseVal, b = t.getBBox();
    r.pct++;
    if (b.x < vb.x || b.x + b.width > vb.x + vb.width || b.y < vb.y) r.clipped++;
  });
  document.body.setAttribute('data-probe', (r.page <= 1280 ? 'fits' : 'wide') + ' scroll=' +
                             r.scroll + ' pct=' + r.pct + ' clipped=' + r.clipped);
});
</script>
EOF2
    dom=$(timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --window-size=1280,2000 \
      --virtual-time-budget=3000 --dump-dom "file://$TMP/$h.probe.html" 2>/dev/null | grep -o 'data-probe="[^"]*"')
    expect_eq "7: $h at 1280 px: the page fits, no table scrolls sideways, the 3 percentile labels whole" \
      'data-probe="fits scroll=0 pct=3 clipped=0"' "$dom"
  done
fi
