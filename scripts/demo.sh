#!/usr/bin/env bash
# `make demo`: imports bundled real profiles into rocpd hub databases,
# converts them for the viewers, splits one into time windows, and says
# where everything is and how to open it.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${BUILD:=build}"
BIN="$BUILD/bin"
: "${OUT:=out/demo}" # a test runs it elsewhere
rm -rf "$OUT"
mkdir -p "$OUT"
have() { [ -x "$BIN/$1" ]; }
run() { echo "+ $*" | sed "s|$BIN/||g"; "$@"; }

echo "== importing real profiles into rocpd hub databases ($OUT/*.db)"
if have kineto2db; then
  run "$BIN/kineto2db" -q fixtures/kineto/hta_alexnet_trace.json.gz -o "$OUT/alexnet.db"
  run "$BIN/kineto2db" -q fixtures/kineto/hta_mi250_rocm6_2_kineto.json.gz -o "$OUT/mi250.db"
  run "$BIN/kineto2db" -q fixtures/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz -o "$OUT/resnet50.db"
fi
if have nvvp2db; then
  run "$BIN/nvvp2db" -q fixtures/nvprof/onnxcustom_bench_ortmodule_nn_gpu.nvvp -o "$OUT/onnx_nvprof.db"
fi
if have nsys2db; then
  run "$BIN/nsys2db" -q fixtures/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite -o "$OUT/saxpy_nsys.db"
fi
if have etprof2db; then
  run "$BIN/etprof2db" -q fixtures/executorch/et_tutorial_etdump.etdp -o "$OUT/executorch.db"
  run "$BIN/etprof2db" -q --summary fixtures/executorch/et_tutorial_etdump.etdp | grep -E '^(# tax|tax|# stat|stat)' > "$OUT/executorch.summary.tsv"
fi
if have rpd2db; then
  run "$BIN/rpd2db" -q fixtures/rocm/rpd_matmul_result.rpd -o "$OUT/matmul_rpd.db"
fi

echo
echo "== exporting"
for db in "$OUT"/*.db; do
  base="${db%.db}"
  have db2json && run "$BIN/db2json" -q "$db" -o "$base.json"
  have db2perfetto && run "$BIN/db2perfetto" -q "$db" -o "$base.pftrace"
  have db2otf2 && run "$BIN/db2otf2" -q "$db" -o "$base.otf2"
  have db2summary && run "$BIN/db2summary" -q "$db" -o "$base.summary.txt"
  have db2summary && run "$BIN/db2summary" -q --format html "$db" -o "$base.summary.html"
done

echo
echo "== ranks side by side: 8 rocprofv3-shaped per-rank hubs (made by tests/data/make_rocprof_hub.py), read as one"
if have db2summary && command -v python3 >/dev/null; then
  mkdir -p "$OUT/ranks"
  run python3 tests/data/make_rocprof_hub.py --many "$OUT/ranks" 8 300
  run "$BIN/db2summary" -q --format html "$OUT"/ranks/h*.db -o "$OUT/ranks.summary.html"
fi

echo
echo "== merging every hub into one file, and its flat profile"
if have dbmerge; then
  mkdir -p "$OUT/merged"
  run "$BIN/dbmerge" -q "$OUT"/*.db -o "$OUT/merged/all.db"
  have db2summary && run "$BIN/db2summary" -q --top 5 --by-process "$OUT/merged/all.db" -o "$OUT/merged/all.summary.md" --format markdown
fi

echo
echo "== two runs compared op by op: bert-small on an H100 and on an MI300X (public TraceLens traces)"
if have db2diff && have kineto2db; then
  mkdir -p "$OUT/diff"
  run "$BIN/kineto2db" -q fixtures/kineto/tracelens_h100_bert-small-uncased.json.gz -o "$OUT/diff/h100.db"
  run "$BIN/kineto2db" -q fixtures/kineto/tracelens_mi300_bert-small-uncased.json.gz -o "$OUT/diff/mi300.db"
  run "$BIN/db2diff" -q "$OUT/diff/h100.db" "$OUT/diff/mi300.db" -o "$OUT/diff/h100_vs_mi300.txt"
  run "$BIN/db2diff" -q --format html "$OUT/diff/h100.db" "$OUT/diff/mi300.db" -o "$OUT/diff/h100_vs_mi300.html"
fi

echo
echo "== splitting the largest profile (resnet50, 35 MB of JSON) into 4 time windows"
if [ -f "$OUT/resnet50.db" ]; then
  mkdir -p "$OUT/split"
  have db2json && run "$BIN/db2json" -q "$OUT/resnet50.db" --split window --windows 4 -o "$OUT/split/resnet50.json"
  have db2perfetto && run "$BIN/db2perfetto" -q "$OUT/resnet50.db" --split window --windows 4 -o "$OUT/split/resnet50.pftrace"
  have db2otf2 && run "$BIN/db2otf2" -q "$OUT/resnet50.db" --split window --windows 4 -o "$OUT/split/resnet50.otf2"
fi

echo
echo "== outputs"
# An OTF2 archive is a directory (traces.otf2, traces.def, traces/): one line.
{ find "$OUT" -path '*.otf2' -prune -o -type f -print; find "$OUT" -type d -name '*.otf2'; } | sort |
  while read -r f; do
    if [ -d "$f" ]; then
      printf '  %-52s %10s bytes\n' "$f/" "$(du -sb "$f" | cut -f1)"
    else
      printf '  %-52s %10s bytes\n' "$f" "$(stat -c %s "$f")"
    fi
  done
echo
echo "How to open them:"
have db2perfetto && echo "  *.pftrace  Perfetto UI: https://ui.perfetto.dev -> \"Open trace file\""
have db2json && echo "  *.json     chrome://tracing (Load), or the Perfetto UI (it reads Chrome JSON too)"
have db2otf2 && echo "  *.otf2/    OTF2 archives: in Vampir, File -> Open -> <archive>/traces.otf2;"
have db2otf2 && echo "             or print one: otf2-print $OUT/alexnet.otf2/traces.otf2 | less"
have db2summary && echo "  *.summary.* flat profiles (text or markdown): any pager or Markdown viewer"
have db2summary && echo "  *.summary.html  reports with charts, one file each, no network needed: open in any"
have db2summary && echo "             browser, e.g. xdg-open $OUT/ranks.summary.html (or file://$(cd "$OUT" && pwd)/ranks.summary.html)"
have db2diff && echo "  diff/h100_vs_mi300.*  what changed between two runs, op by op (text; html: any browser)"
echo "  *.db       rocpd hub databases: sqlite3 $OUT/alexnet.db 'SELECT * FROM rocpd_region LIMIT 5',"
echo "             or any tool that reads rocprofv3's rocpd output"
echo "Every file (and archive) under $OUT/split is a complete trace on its own (one time window each)."
