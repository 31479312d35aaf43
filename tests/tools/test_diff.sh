#!/usr/bin/env bash
# db2diff on real pairs (fixtures/PROVENANCE-kineto.md), every expected
# value read from the Kineto JSON itself by tests/checkers/kineto_gpu_facts.py
# (GPU ops and their ns, ProfilerStep durations, each op's launching op):
# a run against itself, one model on H100 and on MI300X, ResNet-50 with
# two data-loader settings, a different world size, --fail-above both ways,
# every format, bad input.
source "$(dirname "$0")/lib.sh"

K="$FIX/kineto"
H100="$K/tracelens_h100_bert-small-uncased.json.gz"
MI300="$K/tracelens_mi300_bert-small-uncased.json.gz"
R0="$K/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
R4="$K/pairs/kineto_tbplugin_resnet50_workers4_worker0.1623212756351.pt.trace.json.gz"
kineto2db -q "$H100" -o "$TMP/h100.db" & kineto2db -q "$MI300" -o "$TMP/mi300.db" &
kineto2db -q "$R0" -o "$TMP/r0.db" & kineto2db -q "$R4" -o "$TMP/r4.db" &
FACTS="$ROOT/tests/checkers/kineto_gpu_facts.py"
$PY "$FACTS" "$H100" > "$TMP/h100.facts" & $PY "$FACTS" "$MI300" > "$TMP/mi300.facts" &
$PY "$FACTS" --totals "$R0" > "$TMP/r0.facts" & $PY "$FACTS" --totals "$R4" > "$TMP/r4.facts" &
wait
# jf FILE EXPR: json_field.py's answer, from one json_field.py --serve for
# the whole test (a python3 start per answer was most of its checks' time);
# FILE -, an EXPR of more than one line, or a pipeline (bash closes a
# coprocess's descriptors in its parts) runs json_field.py itself.
coproc JF { "$PY" -u "$ROOT/tests/checkers/json_field.py" --serve; }
jf() {
  if [ "$1" = - ] || [[ "$2" == *$'\n'* ]] || ! { : >&"${JF[1]:-}"; } 2>/dev/null; then
    $PY "$ROOT/tests/checkers/json_field.py" "$@"; return
  fi
  local line out=
  printf '%s\n%s\n' "$1" "$2" >&"${JF[1]}"
  while IFS= read -r line <&"${JF[0]}" && [ "$line" != $'\x1e' ]; do out+=$line$'\n'; done
  printf '%s' "$out"
}

# --- a run against itself: every change zero, neutral, exit 0 ----------
db2diff "$TMP/h100.db" "$TMP/h100.db" --format json -o "$TMP/self.json"; rc=$?
expect_eq "self: exit 0" 0 $rc
expect_eq "self: verdict" neutral "$(jf "$TMP/self.json" 'd["verdict"]')"
expect_eq "self: every group unchanged" 0 "$(jf "$TMP/self.json" 'sum(abs(g["change_ns"]) for g in d["groups"])')"
expect_eq "self: nothing one side only" 0 \
  "$(jf "$TMP/self.json" 'len([g for g in d["groups"] if g["match"] not in ("op+shapes",)])')"
expect_eq "self: GPU ns (the trace's kernels, copies, memsets)" "$(jf "$TMP/h100.facts" 'd["gpu_ns"]')" \
  "$(jf "$TMP/self.json" 'd["base"]["gpu_ns"]')"
expect_eq "self: GPU ops" "$(jf "$TMP/h100.facts" 'd["gpu_ops"]')" "$(jf "$TMP/self.json" 'd["candidate"]["kernels"]')"
expect_eq "self: step (ProfilerStep#6)" "$(jf "$TMP/h100.facts" 'd["steps_ns"]')" \
  "$(jf "$TMP/self.json" '[d["base"]["steps"]["median_ns"]]')"
expect_eq "self: matched share" "1.0 1.0" "$(jf "$TMP/self.json" 'd["matched_share"]["base"], d["matched_share"]["candidate"]' | tr -d '(),')"
expect_eq "self: breakdown adds up to the step" "$(jf "$TMP/self.json" 'd["base"]["steps"]["median_ns"]')" \
  "$(jf "$TMP/self.json" 'sum(d["base"]["steps"]["median_breakdown"].values())')"
# One step a side: a spread of 0 is no measure of noise, and it says so.
expect_eq "self: one warning, that one step measures no noise" \
  "['too few steps to measure noise: 1 in base, 1 in candidate (the spread needs 3)']" \
  "$(jf "$TMP/self.json" 'd["warnings"]')"

# --- one model, two vendors: ops paired by their launching op ------------
db2diff "$TMP/h100.db" "$TMP/mi300.db" --format json --instances -o "$TMP/vendor.json"
expect_eq "vendors: the traces launch the same op sequence (python)" True \
  "$($PY -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(a["op_sequence"]==b["op_sequence"] and len(a["op_sequence"])==a["gpu_ops"])' "$TMP/h100.facts" "$TMP/mi300.facts")"
expect_eq "vendors: all GPU time matched by launching op" "1.0 1.0" \
  "$(jf "$TMP/vendor.json" 'd["matched_share_by_op"]["base"], d["matched_share_by_op"]["candidate"]' | tr -d '(),')"
expect_eq "vendors: each side's GPU ns" "$(jf "$TMP/h100.facts" 'd["gpu_ns"]') $(jf "$TMP/mi300.facts" 'd["gpu_ns"]')" \
  "$(jf "$TMP/vendor.json" 'd["base"]["gpu_ns"], d["candidate"]["gpu_ns"]' | tr -d '(),')"
# every op group's GPU ns, per side, as the JSON's launching ops give it
for side in base candidate; do
  f=$TMP/h100.facts; [ $side = candidate ] && f=$TMP/mi300.facts
  expect_eq "vendors: $side's GPU ns per launching op and shapes" "$(jf "$f" 'sorted(d["by_op"].items())')" \
    "$(jf "$TMP/vendor.json" "sorted((g['key'], g['$side']['gpu_ns']) for g in d['groups'])")"
done
expect_eq "vendors: flash attention is cutlass's flash_fwd on one side, attn_fwd on the other" "True attn_fwd" \
  "$(jf "$TMP/vendor.json" '[("flash_fwd" in g["base"]["kernel_names"][0]["name"], g["candidate"]["kernel_names"][0]["name"]) for g in d["groups"] if g["key"].startswith("aten::_flash_attention_forward")][0]' | tr -d "(),'")"
expect_eq "vendors: one instance row per GPU op pair" "$(jf "$TMP/h100.facts" 'len(set(d["op_sequence"])) and d["gpu_ops"]')" \
  "$(jf "$TMP/vendor.json" 'sum(i["base"]["kernels"] for i in d["instances"])')"
expect_eq "vendors: the device models warned of" 1 \
  "$(jf "$TMP/vendor.json" 'len([w for w in d["warnings"] if w.startswith("devices differ") and "H100" in w])')"

# --- each fallback, on a pair made from the H100 trace (not a real pair: --
# the edits below are this test's, to give each rule one op to pair)
# base: the first aten::eq renamed aten::cudnn_eq; candidate: it renamed
# aten::miopen_eq, the first aten::gelu with other Input Dims, the first
# aten::native_layer_norm renamed (its parent aten::layer_norm kept), the
# kernel of aten::all and its launch dropped, the op aten::_local_scalar_dense
# dropped (its copy's launch then sits in aten::item, whose parent differs).
$PY - "$H100" "$TMP/edit_base.json" "$TMP/edit_cand.json" > "$TMP/edit.facts" <<'PYEOF'
import gzip, json, re, sys
from decimal import Decimal
def load():
    return json.load(gzip.open(sys.argv[1], "rt"), parse_float=Decimal)
def dump(doc, path):  # the JSON's decimals written back exactly as read
    text = json.dumps(doc, default=lambda d: "@decimal@%s@" % d)
    open(path, "w").write(re.sub('"@decimal@([-0-9.Ee+]*)@"', r"\1", text))
def first(ev, name):
    return next(e for e in ev if e.get("cat") == "cpu_op" and e["name"] == name)
def ns(v): return int(v * 1000)
base, cand = load(), load()
first(base["traceEvents"], "aten::eq")["name"] = "aten::cudnn_eq"
ev = cand["traceEvents"]
first(ev, "aten::eq")["name"] = "aten::miopen_eq"
first(ev, "aten::gelu")["args"]["Input Dims"] = [[1, 141, 4096], []]
first(ev, "aten::native_layer_norm")["name"] = "aten::native_layer_norm_fused"
op = first(ev, "aten::all")
inside = lambda e: e["tid"] == op["tid"] and op["ts"] <= e["ts"] < op["ts"] + op["dur"]
corr = next(e["args"]["correlation"] for e in ev if e.get("cat") == "cuda_runtime" and inside(e)
            and e["name"] == "cudaLaunchKernel")
dropped = [e for e in ev if e.get("cat") in ("kernel", "cuda_runtime", "ac2g") and
           (e.get("args") or {}).get("correlation") == corr or e.get("cat") == "ac2g" and e.get("id") == corr]
kernel_ns = sum(ns(e["dur"]) for e in dropped if e.get("cat") == "kernel")
ev[:] = [e for e in ev if not any(e is d for d in dropped)]
ev.remove(first(ev, "aten::_local_scalar_dense"))
dump(base, sys.argv[2]); dump(cand, sys.argv[3])
print(json.dumps({"dropped_kernel_ns": kernel_ns}))
PYEOF
kineto2db -q "$TMP/edit_base.json" -o "$TMP/edit_base.db" && kineto2db -q "$TMP/edit_cand.json" -o "$TMP/edit_cand.db"
db2diff "$TMP/edit_base.db" "$TMP/edit_cand.db" --format json -o "$TMP/edit.json"
expect_eq "fallbacks: each edit paired by its rule, the rest by op and shapes" \
  "[('base only', 'aten::all [[1,141]]'), ('category', 'copy'), ('op', 'aten::gelu'), ('parent op', 'aten::layer_norm'), ('vendor names', 'aten::dnn_eq')]" \
  "$(jf "$TMP/edit.json" 'sorted((g["match"], g["key"].split(" ")[0] if g["match"] == "category" else g["key"]) for g in d["groups"] if g["match"] != "op+shapes")')"
expect_eq "fallbacks: the ops after each edit still pair, unchanged" 0 \
  "$(jf "$TMP/edit.json" 'sum(abs(g["change_ns"]) for g in d["groups"] if g["match"] == "op+shapes")')"
expect_eq "fallbacks: the candidate lacks the dropped kernel's ns" \
  "$(( $(jf "$TMP/h100.facts" 'd["gpu_ns"]') - $(jf "$TMP/edit.facts" 'd["dropped_kernel_ns"]') ))" \
  "$(jf "$TMP/edit.json" 'd["candidate"]["gpu_ns"]')"

# --- ResNet-50, data loader num_workers 0 -> 4: step faster, GPU time not --
db2diff "$TMP/r0.db" "$TMP/r4.db" --format json -o "$TMP/loader.json"; rc=$?
expect_eq "loader: exit 0" 0 $rc
expect_eq "loader: GPU ns each side" "$(jf "$TMP/r0.facts" 'd["gpu_ns"]') $(jf "$TMP/r4.facts" 'd["gpu_ns"]')" \
  "$(jf "$TMP/loader.json" 'd["base"]["gpu_ns"], d["candidate"]["gpu_ns"]' | tr -d '(),')"
expect_eq "loader: GPU time within 2% (python)" True \
  "$($PY -c 'import json,sys; a,b=(json.load(open(f))["gpu_ns"] for f in sys.argv[1:]); print(abs(b-a)/a < 0.02)' "$TMP/r0.facts" "$TMP/r4.facts")"
MED='import json,sys; v=sorted(json.load(open(sys.argv[1]))["steps_ns"]); n=len(v); print(v[n//2] if n%2 else (v[n//2-1]+v[n//2])//2)'
expect_eq "loader: step medians" "$($PY -c "$MED" "$TMP/r0.facts") $($PY -c "$MED" "$TMP/r4.facts")" \
  "$(jf "$TMP/loader.json" 'd["base"]["steps"]["median_ns"], d["candidate"]["steps"]["median_ns"]' | tr -d '(),')"
expect_eq "loader: each step" "$(jf "$TMP/r4.facts" 'd["steps_ns"]')" "$(jf "$TMP/loader.json" '[s["ns"] for s in d["candidate"]["steps"]["each"]]')"
expect_eq "loader: the step is faster" improvement "$(jf "$TMP/loader.json" 'd["verdict"]')"
expect_eq "loader: every op paired by its launching op and shapes" "1.0 1.0" \
  "$(jf "$TMP/loader.json" 'd["matched_share_by_op"]["base"], d["matched_share_by_op"]["candidate"]' | tr -d '(),')"
expect_eq "loader: each step's breakdown adds up to it" True \
  "$(jf "$TMP/loader.json" 'all(sum(s["breakdown"].values()) == s["ns"] for x in ("base","candidate") for s in d[x]["steps"]["each"])')"
expect_eq "loader: same devices, steps, world size: no warning" "[]" "$(jf "$TMP/loader.json" 'd["warnings"]')"
db2diff "$TMP/r0.db" "$TMP/r4.db" --steps 2:3 --format json -o "$TMP/steps23.json"
expect_eq "--steps 2:3: the second and third steps" "$(jf "$TMP/r4.facts" 'd["steps_ns"][1:3]')" \
  "$(jf "$TMP/steps23.json" '[s["ns"] for s in d["candidate"]["steps"]["each"]]')"

# --- --step NAME: an NVTX range as the step (nvprof's ONNX Runtime training run) ---
nvvp2db -q "$FIX/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp" -o "$TMP/ort.db"
db2diff "$TMP/ort.db" "$TMP/ort.db" --step "Batch- Forward" --format json -o "$TMP/ort.json"
ORT_STEPS="SELECT r.end - r.start FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id WHERE s.string = 'Batch- Forward' ORDER BY r.start"
expect_eq "--step: each NVTX range 'Batch- Forward' is a step (sqlite3)" "$(q "$TMP/ort.db" "$ORT_STEPS" | tr '\n' ' ')" \
  "$(jf "$TMP/ort.json" '" ".join(str(s["ns"]) for s in d["base"]["steps"]["each"])') "
expect_eq "--step: against itself, neutral and unchanged" "neutral 0" \
  "$(jf "$TMP/ort.json" 'd["verdict"], sum(abs(g["change_ns"]) for g in d["groups"])' | tr -d "(),'")"
expect_eq "--step: no ops in an nvprof run: its kernels paired by their NVTX range" True \
  "$(jf "$TMP/ort.json" 'any(g["match"] == "annotation" for g in d["groups"]) and not any(g["match"].startswith("op") for g in d["groups"])')"

# --- --fail-above: exit 3 in the slower direction only, beyond the noise ---
# expected from the facts: change of the step median, noise the two sides'
# median absolute deviations, over the base's median
EXPECT='import json,sys
def med(v):
    v=sorted(v); n=len(v); return v[n//2] if n%2 else (v[n//2-1]+v[n//2])//2
b,c=(json.load(open(f))["steps_ns"] for f in sys.argv[1:3]); pct=float(sys.argv[3])
mb,mc=med(b),med(c); noise=(med([abs(x-mb) for x in b])+med([abs(x-mc) for x in c]))/mb*100
print(3 if (mc-mb)/mb*100 > pct+noise else 0)'
for pct in 5 35; do
  db2diff "$TMP/r4.db" "$TMP/r0.db" --fail-above $pct -o "$TMP/slower.txt" 2>/dev/null; rc=$?
  expect_eq "--fail-above $pct, candidate slower" "$($PY -c "$EXPECT" "$TMP/r4.facts" "$TMP/r0.facts" $pct)" $rc
done
db2diff "$TMP/r0.db" "$TMP/r4.db" --fail-above 5 -o "$TMP/faster.txt"; rc=$?
expect_eq "--fail-above 5, candidate faster" 0 $rc
expect_eq "--fail-above 5 fails and 35 is within the noise (python)" "3 0" \
  "$($PY -c "$EXPECT" "$TMP/r4.facts" "$TMP/r0.facts" 5) $($PY -c "$EXPECT" "$TMP/r4.facts" "$TMP/r0.facts" 35)"
db2diff "$TMP/h100.db" "$TMP/h100.db" --fail-above 0 -o /dev/null; rc=$?
expect_eq "--fail-above 0 against itself" 0 $rc

# --- a different world size: a directory of two processes' hubs ----------
mkdir "$TMP/run2"
cp "$TMP/h100.db" "$TMP/run2/rank0.db"; kineto2db -q "$H100" -o "$TMP/run2/rank1.db" # a hub of its own
db2diff "$TMP/run2" "$TMP/h100.db" --format json -o "$TMP/world.json"
expect_eq "directory: both hubs read" 2 "$(jf "$TMP/world.json" 'len(d["base"]["inputs"])')"
expect_eq "world size: warned" 1 "$(jf "$TMP/world.json" 'len([w for w in d["warnings"] if w.startswith("world size differs")])')"
expect_eq "directory: twice the GPU ns" "$(jf "$TMP/h100.facts" '2*d["gpu_ns"]')" "$(jf "$TMP/world.json" 'd["base"]["gpu_ns"]')"
db2diff "$TMP/run2/rank0.db,$TMP/run2/rank1.db" "$TMP/h100.db" --format json -o "$TMP/world2.json"
expect_eq "comma list: as the directory" "$(jf "$TMP/world.json" 'd["base"]["gpu_ns"], d["warnings"]')" \
  "$(jf "$TMP/world2.json" 'd["base"]["gpu_ns"], d["warnings"]')"

mkdir "$TMP/run2c"
cp "$TMP/mi300.db" "$TMP/run2c/rank0.db"; kineto2db -q "$MI300" -o "$TMP/run2c/rank1.db"
db2diff "$TMP/run2" "$TMP/run2c" --format json -o "$TMP/world22.json"
expect_eq "two processes a side: each process's ops paired by launching op, no world-size warning" \
  "1.0 1.0 $(jf "$TMP/h100.facts" '2*d["gpu_ns"]') $(jf "$TMP/mi300.facts" '2*d["gpu_ns"]') 0" \
  "$(jf "$TMP/world22.json" 'd["matched_share_by_op"]["base"], d["matched_share_by_op"]["candidate"], d["base"]["gpu_ns"], d["candidate"]["gpu_ns"], len([w for w in d["warnings"] if w.startswith("world size")])' | tr -d '(),')"

# --- formats ---------------------------------------------------------------
db2diff "$TMP/r0.db" "$TMP/r4.db" > "$TMP/loader.txt"
expect_eq "text: the verdict line" 1 "$(grep -c '^verdict: improvement (step time' "$TMP/loader.txt")"
expect_eq "text: regressions first" 1 "$(grep -n '^top ' "$TMP/loader.txt" | head -1 | grep -c regressions)"
db2diff "$TMP/r0.db" "$TMP/r4.db" --format csv -o "$TMP/loader.csv"
expect_eq "csv: one row per group, as json" "$(jf "$TMP/loader.json" 'sorted((g["key"], g["match"], g["base"]["gpu_ns"], g["candidate"]["gpu_ns"]) for g in d["groups"])')" \
  "$($PY -c 'import csv,sys; print(sorted((r["key"], r["match"], int(r["base_gpu_ns"]), int(r["candidate_gpu_ns"])) for r in csv.DictReader(open(sys.argv[1]))))' "$TMP/loader.csv")"
db2diff "$TMP/h100.db" "$TMP/mi300.db" --format csv --instances -o "$TMP/vendor.csv"
expect_eq "csv --instances: a row per instance" "$(jf "$TMP/vendor.json" 'len(d["instances"])')" \
  "$($PY -c 'import csv,sys; print(len(list(csv.DictReader(open(sys.argv[1])))))' "$TMP/vendor.csv")"
db2diff "$TMP/h100.db" "$TMP/mi300.db" --format markdown -o "$TMP/vendor.md"
expect_eq "markdown: the verdict" 1 "$(grep -c '^\*\*Verdict: ' "$TMP/vendor.md")"

db2diff "$TMP/r0.db" "$TMP/r4.db" --format html -o "$TMP/loader.html"
expect_eq "html: the verdict in its title, a table row per group, a bar per changed group (at most 20)" \
  "improvement $(jf "$TMP/loader.json" 'len(d["groups"])') $(jf "$TMP/loader.json" 'min(20, len([g for g in d["groups"] if g["change_ns"]]))')" \
  "$($PY -c '
import html.parser, sys
class P(html.parser.HTMLParser):
    title, rows, bars, where = "", 0, 0, []
    def handle_starttag(self, t, a):
        self.where.append(t)
        if t == "tr": self.rows += 1
        if t == "rect" and dict(a).get("fill") in ("#d1495b", "#1a9e8f"): self.bars += 1
    def handle_endtag(self, t):
        while self.where and self.where.pop() != t: pass
    def handle_data(self, d):
        if self.where and self.where[-1] == "title" and "db2diff:" in d: self.title = d.split(": ")[1]
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
print(p.title, p.rows - 1 - 3 - 3, p.bars)' "$TMP/loader.html")"

# --- bad input ---------------------------------------------------------------
expect_fail "one operand: usage" "expected two runs" db2diff "$TMP/h100.db"
db2diff "$TMP/h100.db" 2>/dev/null; expect_eq "one operand: exit 2" 2 $?
db2diff --format xml "$TMP/h100.db" "$TMP/h100.db" 2>/dev/null; expect_eq "--format xml: exit 2" 2 $?
db2diff --steps 3:2 "$TMP/h100.db" "$TMP/h100.db" 2>/dev/null; expect_eq "--steps 3:2: exit 2" 2 $?
mkdir "$TMP/empty"
expect_fail "a directory without hubs" "empty: no hub \(\*\.db\) in this directory" db2diff "$TMP/empty" "$TMP/h100.db"
db2diff "$TMP/empty" "$TMP/h100.db" 2>/dev/null; expect_eq "a directory without hubs: exit 1" 1 $?
expect_fail "a Kineto trace given as a hub" "tracelens_h100_bert-small-uncased.json.gz" db2diff "$H100" "$TMP/h100.db"
db2diff "$TMP/missing.db" "$TMP/h100.db" -o "$TMP/none.json" 2>/dev/null; expect_eq "a missing hub: exit 1" 1 $?
expect_eq "a missing hub: no output" no "$([ -e "$TMP/none.json" ] && echo yes || echo no)"
expect_fail "the output naming an input" "would overwrite the input" db2diff "$TMP/h100.db" "$TMP/mi300.db" -o "$TMP/mi300.db"
