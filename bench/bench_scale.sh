#!/usr/bin/env bash
# Memory does not grow with the events: each tool's peak RSS on one input
# of BENCH_EVENTS events (default 1M) and of BENCH_SCALE times as many
# (default 10: 10M events), one run each. Rows (issue 14): peak RSS at
# most 64 MB at BENCH_EVENTS (the tools other benches do not cover:
# db2summary and dbmerge), and at BENCH_SCALE x the events within 10% of
# the figure at BENCH_EVENTS, for every exporter and dbmerge on gen_hub
# hubs, and for the importers whose inputs a generator writes here
# (etprof2db: tests/data/etprof_gen.py; kineto2db: bench/kineto_gen.py, about
# 4.4 GB of JSON at 10M events). Needs about 18 GB of disk at 10M.
# db2otf2 holds one 4 MiB event chunk per location, touched as the
# location's events fill it: on the shared hubs (8 threads and a GPU
# stream, 9 locations) the 8 threads write 2 MB each at 1M events, so
# the 1M figure has not reached that allowance (issue 14: "db2otf2 adds
# one chunk per location") and the 10M one has. Its flat-memory row
# compares like with like on gen_hub hubs of one thread (2 locations, each
# past its chunk from about 300k events on); on the 9-location hub at 10M
# it has a row of its own, against 64 MB.
#   BENCH_EVENTS=N  events of the small input (default 1000000)
#   BENCH_SCALE=K   the large input has K times as many (default 10)
set -eu
source "$(dirname "$0")/lib.sh"
EVENTS=${BENCH_EVENTS:-1000000}
BIG=$((EVENTS * SCALE))
SMALL_EVENTS=$EVENTS
for t in "$BIN/db2json" "$BIN/db2perfetto" "$BIN/db2otf2" "$BIN/db2summary" "$BIN/dbmerge" \
         "$BIN/etprof2db" "$BIN/kineto2db" "$GEN"; do
  [ -x "$t" ] || { echo "bench_scale: $t missing (make tools $GEN)" >&2; exit 2; }
done
# hub_of EVENTS [THREADS] -> path of a gen_hub hub of that many events
# (8 threads: the hub other benches share)
hub_of() {
  local th=${2:-8} db="$WORK/hub_$(($1 / 2)).db"
  [ "$th" = 8 ] || db="$WORK/hub_$(($1 / 2))_t$th.db"
  [ -s "$db" ] || { "$GEN" "$db.tmp" $(($1 / 2)) "$th" && mv "$db.tmp" "$db"; }
  echo "$db"
}
small=$(hub_of "$EVENTS")
big=$(hub_of "$BIG")
OUT="$WORK/scale.out"
# rss TOOL ARGS...: one run; sets KIB (its peak RSS) and SECS, removes the output.
rss() {
  read -r SECS KIB < <(measure "$@")
  rm -rf "$OUT" "$OUT".*
}
printf '%-12s %-28s %12s %12s %8s\n' tool input "RSS small" "RSS large" ratio
# scale_rows TOOL INPUT_NAME KIB_SMALL KIB_LARGE SECONDS_LARGE
scale_rows() {
  printf '%-12s %-28s %9d MB %9d MB %8s\n' "$1" "$2" $(($3 / 1024)) $(($4 / 1024)) "$(ratio "$4" "$3")"
  scale_row "$1" "$2" "$SMALL_EVENTS" "$3" "$BIG" "$4" "$5"
}
for tool in db2json db2perfetto db2otf2 db2summary; do
  rss "$BIN/$tool" -q "$small" -o "$OUT"; ks=$KIB ss=$SECS
  rss "$BIN/$tool" -q "$big" -o "$OUT"; kb=$KIB sb=$SECS
  if [ $tool = db2summary ]; then
    bench_row db2summary "gen_hub hub" "$EVENTS" "$ss" 0 "$ks" "$((ks / 1024))" '<=' 64 "MB peak RSS"
  fi
  if [ $tool = db2otf2 ]; then
    printf '%-12s %-28s %9d MB %9d MB %8s\n' "$tool" "gen_hub hub, 9 locations" $((ks / 1024)) $((kb / 1024)) "$(ratio "$kb" "$ks")"
    bench_row db2otf2 "gen_hub hub" "$BIG" "$sb" 0 "$kb" "$((kb / 1024))" '<=' 64 "MB peak RSS (9 locations)"
    continue
  fi
  scale_rows "$tool" "gen_hub hub" "$ks" "$kb" "$sb"
done
# db2otf2 on hubs of one thread: every location past its chunk (above).
small1=$(hub_of "$EVENTS" 1)
big1=$(hub_of "$BIG" 1)
rss "$BIN/db2otf2" -q "$small1" -o "$OUT"; ks=$KIB
rss "$BIN/db2otf2" -q "$big1" -o "$OUT"; kb=$KIB sb=$SECS
scale_rows db2otf2 "gen_hub hub, 2 locations" "$ks" "$kb" "$sb"
[ -n "${BENCH_KEEP:-}" ] || rm -f "$big1" "$small1"
# dbmerge copies one hub into a new file (the rows of one process).
rss "$BIN/dbmerge" -q "$small" -o "$OUT.db"; ks=$KIB ss=$SECS
rss "$BIN/dbmerge" -q "$big" -o "$OUT.db"; kb=$KIB sb=$SECS
bench_row dbmerge "gen_hub hub" "$EVENTS" "$ss" 0 "$ks" "$((ks / 1024))" '<=' 64 "MB peak RSS"
scale_rows dbmerge "gen_hub hub" "$ks" "$kb" "$sb"
[ -n "${BENCH_KEEP:-}" ] || rm -f "$big"

# Importers: inputs written here at both sizes, each removed once measured.
n=$(( EVENTS < 2000 ? 2000 : EVENTS / 1000 * 1000 )) # etprof: whole iterations of 1000
$PY "$ROOT/tests/data/etprof_gen.py" bench "$n" "$WORK/scale.bin"
rss "$BIN/etprof2db" -q "$WORK/scale.bin" -o "$OUT.db"; ks=$KIB
$PY "$ROOT/tests/data/etprof_gen.py" bench $((n * SCALE)) "$WORK/scale.bin"
rss "$BIN/etprof2db" -q "$WORK/scale.bin" -o "$OUT.db"; kb=$KIB sb=$SECS
rm -f "$WORK/scale.bin"
SMALL_EVENTS=$n BIG=$((n * SCALE)) scale_rows etprof2db "ExecuTorch legacy buffer" "$ks" "$kb" "$sb"

SRC="$ROOT/fixtures/kineto/kineto_tbplugin_resnet50_worker0.1623143089861.pt.trace.json.gz"
$PY "$ROOT/bench/kineto_gen.py" "$SRC" "$EVENTS" "$WORK/scale.json"
rss "$BIN/kineto2db" -q "$WORK/scale.json" -o "$OUT.db"; ks=$KIB
$PY "$ROOT/bench/kineto_gen.py" "$SRC" "$BIG" "$WORK/scale.json"
rss "$BIN/kineto2db" -q "$WORK/scale.json" -o "$OUT.db"; kb=$KIB sb=$SECS
rm -f "$WORK/scale.json"
scale_rows kineto2db "resnet50 JSON" "$ks" "$kb" "$sb"
