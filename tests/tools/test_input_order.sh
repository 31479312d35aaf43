#!/usr/bin/env bash
# The order of the inputs on the command line changes nothing: `db2X a b`,
# `db2X b a` and `db2X merged` (dbmerge of them, either order) write the
# same bytes, for every exporter, read directly or in passes (many inputs
# under a low descriptor limit). The hubs are imported here from real
# fixtures of four importers.
source "$(dirname "$0")/lib.sh"

H="$TMP/h"
mkdir "$H"
rpd2db -q "$FIX/rocm/rpd_matmul_result.rpd" -o "$H/rpd.db"
rpd2db -q "$FIX/rocm/rpd_matmul_result_large.rpd" -o "$H/rpd_large.db"
kineto2db -q "$FIX/kineto/hta_triton_example.json.gz" -o "$H/triton.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$H/nsys.db"
nvvp2db -q "$FIX/nvprof/rasolca_output_file.nvprof" -o "$H/nvprof.db"
etprof2db -q "$FIX/executorch/et_tutorial_etdump.etdp" -o "$H/et.db"
A="$H/rpd.db" B="$H/triton.db"
expect_ok "dbmerge a b" dbmerge -q "$A" "$B" -o "$TMP/ab.db"
expect_ok "dbmerge b a" dbmerge -q "$B" "$A" -o "$TMP/ba.db"

# out TOOL OUTPUT INPUTS...: the tool's output, or for db2otf2 the sums of
# its archive's files (its anchor file records the time it was made).
out() {
  local tool=$1 o=$2; shift 2
  case $tool in
    db2otf2) $tool -q "$@" -o "$o" && (cd "$o" && find . -type f ! -name traces.otf2 | sort | xargs sha256sum) ;;
    *) $tool -q "$@" -o "$o" && sha256sum <"$o" ;;
  esac
}
for tool in db2json db2perfetto db2otf2 db2summary; do
  ab=$(out $tool "$TMP/o1.$tool" "$A" "$B")
  expect_eq "$tool b a = $tool a b" "$ab" "$(out $tool "$TMP/o2.$tool" "$B" "$A")"
  expect_eq "$tool of dbmerge a b = $tool a b" "$ab" "$(out $tool "$TMP/o3.$tool" "$TMP/ab.db")"
  expect_eq "$tool of dbmerge b a = $tool a b" "$ab" "$(out $tool "$TMP/o4.$tool" "$TMP/ba.db")"
done
# A split and a summary per process follow the same order.
db2json -q "$A" "$B" --split window --windows 3 -o "$TMP/w1.json"
db2json -q "$B" "$A" --split window --windows 3 -o "$TMP/w2.json"
expect_eq "db2json window split: b a = a b, part by part" \
  "$(cd "$TMP" && sha256sum w1.w*)" "$(cd "$TMP" && sha256sum w2.w* | sed 's/w2\.w/w1.w/')"
expect_eq "db2summary --by-process: b a = a b" \
  "$(db2summary -q --by-process "$A" "$B" -o - | sha256sum)" \
  "$(db2summary -q --by-process "$B" "$A" -o - | sha256sum)"

# Six hubs in three orders, directly and in passes (ulimit -n 24 leaves room
# for 5 open inputs): one output.
ALL=("$H"/rpd.db "$H"/rpd_large.db "$H"/triton.db "$H"/nsys.db "$H"/nvprof.db "$H"/et.db)
REV=("$H"/et.db "$H"/nvprof.db "$H"/nsys.db "$H"/triton.db "$H"/rpd_large.db "$H"/rpd.db)
MIX=("$H"/nsys.db "$H"/rpd.db "$H"/et.db "$H"/rpd_large.db "$H"/triton.db "$H"/nvprof.db)
mkdir "$TMP/passtmp"
for tool in db2json db2perfetto db2summary; do
  ref=$(out $tool "$TMP/all.$tool" "${ALL[@]}")
  expect_eq "$tool: six hubs in reverse order = in order" "$ref" "$(out $tool "$TMP/rev.$tool" "${REV[@]}")"
  got=$(ulimit -n 24; TMPDIR="$TMP/passtmp" out $tool "$TMP/mixp.$tool" "${MIX[@]}")
  expect_eq "$tool: six hubs shuffled, in passes (ulimit -n 24) = in order, directly" "$ref" "$got"
done
expect_eq "no temporary file left" "" "$(ls "$TMP/passtmp")"
