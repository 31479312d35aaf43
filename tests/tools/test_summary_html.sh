#!/usr/bin/env bash
# db2summary --format html: one self-contained report. On every test hub
# (three rocprofv3-shaped processes read as one, real Kineto, Nsight
# Systems, rocprofiler RPD and ExecuTorch hubs, a time window, names that
# need escaping, an empty hub): the html parses, every svg is well-formed
# XML, nothing is fetched from outside, and every figure equals
# --format json's (tests/checkers/check_summary_html.py). The chart figures json
# gains (busy bins per device and per process, processes side by side,
# copies by direction, the launch latency histogram) are checked against
# python on the hubs' own rows. Then the demo's reports are rendered in
# headless Chromium and the screenshots looked at: not blank, the charts'
# colours there, nothing wider than the window.
source "$(dirname "$0")/lib.sh"
CHK="$ROOT/tests/checkers/check_summary_html.py"

HUBS=()
for p in 100 200 300; do
  $PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/h$p.db" "0000${p}0-aaaa-4bbb-8ccc-dddddddddddd" "$p" "$p" 70 $((1000000000 + p * 1000))
  HUBS+=("$TMP/h$p.db")
done

# check NAME ARGS...: the html and json of the same input and options agree
check() {
  local name=$1 r
  shift
  if ! db2summary -q --format html "$@" -o "$TMP/$name.html" 2>"$TMP/$name.err"; then
    fail "$name: db2summary --format html failed: $(head -c 300 "$TMP/$name.err")"
    return
  fi
  db2summary -q --format json "$@" -o "$TMP/$name.json"
  r=$($PY "$CHK" structure "$TMP/$name.html")
  [[ $r == ok* ]] && pass "$name: the html parses, its ${r#ok } svg are well-formed XML, no external URL" ||
    fail "$name: $r"
  r=$($PY "$CHK" same "$TMP/$name.html" "$TMP/$name.json")
  [[ $r == ok* ]] && pass "$name: every table, overview number and chart value equals json's (${r#ok } drawn values)" ||
    fail "$name: html and json differ: $r"
}

check three "${HUBS[@]}"
check three_by_process --by-process --top 3 "${HUBS[@]}"

# --- the chart figures against python on the hubs' rows -------------------
$PY - "$TMP/three.json" "${HUBS[@]}" >"$TMP/expect.txt" <<'EOF'
import json, math, sqlite3, sys
d = json.load(open(sys.argv[1]), parse_float=str, parse_int=str)
K, M, ALL = [], [], []   # (pid, agent, start, end[, name, size])
for path in sys.argv[2:]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tab = lambda p: con.execute(f"SELECT name FROM sqlite_master WHERE type='table' AND name GLOB '{p}_*'").fetchone()[0]
    k, m = tab("rocpd_kernel_dispatch"), tab("rocpd_memory_copy")
    s, r, a = tab("rocpd_string"), tab("rocpd_region"), tab("rocpd_memory_allocate")
    K += con.execute(f"SELECT pid, agent_id, start, end FROM {k}").fetchall()
    M += con.execute(f"SELECT x.pid, x.dst_agent_id, x.start, x.end, n.string, x.size FROM {m} x JOIN {s} n ON n.id = x.name_id").fetchall()
    for t in (k, m, r, a):
        ALL += con.execute(f"SELECT pid, start, end FROM {t}").fetchall()
lo, hi = min(x[1] for x in ALL), max(x[2] for x in ALL)
width = -(-(hi - lo + 1) // 400)
def union(iv):
    out = []
    for s, e in sorted(iv):
        if out and s <= out[-1][1]: out[-1][1] = max(out[-1][1], e)
        else: out.append([s, e])
    return out
def bins(iv):
    b = [0] * 400
    for s, e in union(iv):
        while s < e:
            i = (s - lo) // width
            edge = lo + (i + 1) * width
            b[i] += min(e, edge) - s
            s = min(e, edge)
    return ["0" if v == 0 else "%.2f" % (100.0 * v / width) for v in b]
busy = lambda iv: sum(e - s for s, e in union(iv))
print("bins", lo, width)
for pid in sorted({x[0] for x in K}):
    gpu = [(x[2], x[3]) for x in K + M if x[0] == pid]
    print("activity", pid, " ".join(bins(gpu)))
    kern = [(x[2], x[3]) for x in K if x[0] == pid]
    ev = [x for x in ALL if x[0] == pid]
    span = max(x[2] for x in ev) - min(x[1] for x in ev)
    print("process", pid, len(ev), span, busy(kern), busy(gpu) - busy(kern), span - busy(gpu), " ".join(bins(gpu)))
for name in sorted({x[4] for x in M}):
    c = [x for x in M if x[4] == name]
    print("direction", name, len(c), sum(x[5] for x in c), sum(x[3] - x[2] for x in c))
EOF
$PY - "$TMP/three.json" >"$TMP/got.txt" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]), parse_float=str, parse_int=str)
T = {t["table"]: t["rows"] for t in d["tables"]}
print("bins", d["bin_start_ns"], d["bin_ns"])
for r in sorted(T["gpu_activity"], key=lambda r: int(r["pid"])):
    print("activity", r["pid"], " ".join(map(str, r["bins"])))
for r in sorted(T["processes"], key=lambda r: int(r["pid"])):
    print("process", r["pid"], r["events"], r["span_ns"], r["kernel_busy_ns"], r["copy_busy_ns"], r["idle_ns"], " ".join(map(str, r["bins"])))
for r in sorted(T["copies_by_direction"], key=lambda r: r["name"]):
    print("direction", r["name"], r["calls"], r["bytes"], r["total_ns"])
EOF
expect_eq "json: the bins start at the first event and are 400 of ceil(span / 400) ns" \
  "$(grep ^bins "$TMP/expect.txt")" "$(grep ^bins "$TMP/got.txt")"
expect_eq "json: each GPU's busy percent per bin = the union of its kernels and copies cut at the bins' edges" \
  "$(grep ^activity "$TMP/expect.txt")" "$(grep ^activity "$TMP/got.txt")"
expect_eq "json: per process events, span, kernel busy (union), copy busy outside kernels, idle, bins" \
  "$(grep ^process "$TMP/expect.txt")" "$(grep ^process "$TMP/got.txt")"
expect_eq "json: copies by direction: calls, bytes, time" \
  "$(grep ^direction "$TMP/expect.txt")" "$(grep ^direction "$TMP/got.txt")"
expect_eq "json: some bins are partly busy (the test sees fractions)" yes \
  "$(grep ^activity "$TMP/got.txt" | tr ' ' '\n' | grep -qE '^[0-9]+\.[0-9]+$' && echo yes || echo no)"

# launch latency: kernel start - start of the call with its correlation id,
# counted in quarter-octave bins ([4,5) [5,6) [6,7) [7,8) [8,10) ... ns)
$PY - "$TMP/three.json" "${HUBS[@]}" >"$TMP/lat.txt" <<'EOF'
import json, sqlite3, sys
d = json.load(open(sys.argv[1]), parse_float=str, parse_int=str)
lat = []
for path in sys.argv[2:]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tab = lambda p: con.execute(f"SELECT name FROM sqlite_master WHERE type='table' AND name GLOB '{p}_*'").fetchone()[0]
    k, r, e = tab("rocpd_kernel_dispatch"), tab("rocpd_region"), tab("rocpd_event")
    lat += [x for (x,) in con.execute(
        f"SELECT k.start - r.start FROM {k} k JOIN {e} ke ON ke.id = k.event_id JOIN {e} re ON re.correlation_id = ke.correlation_id "
        f"JOIN {r} r ON r.event_id = re.id AND r.pid = k.pid")]
def lo(v):
    if v < 4: return max(v, 0)
    e = v.bit_length() - 1
    return (4 + ((v >> (e - 2)) & 3)) << (e - 2)
want = {}
for v in lat: want[lo(v)] = want.get(lo(v), 0) + 1
got = {int(r["lo_ns"]): int(r["launches"]) for t in d["tables"] if t["table"] == "launch_latency_histogram" for r in t["rows"] if r["launches"] != "0"}
print(len(lat), "ok" if want == got else f"{sorted(want.items())[:6]} vs {sorted(got.items())[:6]}")
EOF
expect_eq "json: launch latency histogram counts = python's on the exact latencies" "210 ok" "$(cat "$TMP/lat.txt")"

# --- real hubs, a window, several windows ---------------------------------
kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$TMP/alexnet.db"
nsys2db -q "$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite" -o "$TMP/saxpy.db" 2>/dev/null
etprof2db -q "$FIX/executorch/et_tutorial_etdump.etdp" -o "$TMP/et.db"
rpd2db -q "$FIX/rocm/rpd_matmul_result.rpd" -o "$TMP/rpd.db"
check alexnet "$TMP/alexnet.db"
check saxpy "$TMP/saxpy.db"
check executorch "$TMP/et.db"
check rpd "$TMP/rpd.db"
expect_eq "ExecuTorch: the tax chart is drawn" 1 "$(grep -c 'data-chart="executorch_tax"' "$TMP/executorch.html")"
expect_eq "nsys: the launch latency histogram is drawn with its 5 launches" 5 \
  "$($PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(sum(r['launches'] for t in d['tables'] if t['table']=='launch_latency_histogram' for r in t['rows']))" "$TMP/saxpy.json")"
lo=$($PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['span_start_ns'] + 2000, d['span_start_ns'] + 40000)" "$TMP/three.json")
check window --start "${lo% *}" --end "${lo#* }" "${HUBS[@]}"
expect_eq "--start/--end: the bins cover the range asked for" "${lo% *}|95" \
  "$($PY -c "import json,sys; d=json.load(open(sys.argv[1])); print(d['bin_start_ns'], d['bin_ns'], sep='|')" "$TMP/window.json")"
db2summary -q --format html --split window --windows 2 "${HUBS[@]}" -o "$TMP/split.html"
for f in "$TMP"/split.w*.html; do
  expect_eq "--split window: $(basename "$f") is a complete report" ok "$($PY "$CHK" structure "$f" | cut -d' ' -f1)"
done

# --- names that need escaping; a name of 10 kB ----------------------------
cp "${HUBS[0]}" "$TMP/names.db"
sym=$(q "$TMP/names.db" "SELECT name FROM sqlite_master WHERE name GLOB 'rocpd_info_kernel_symbol_*'")
tmpl='void f<int, std::vector<float> >(A&, char const* "q", '"'"'c'"'"')'
long=$($PY -c "print('void k<' + 'x' * 10240 + '>()')")
q "$TMP/names.db" "UPDATE $sym SET display_name = CASE id % 2 WHEN 0 THEN '${tmpl//\'/\'\'}' ELSE '$long' END"
check names "$TMP/names.db"
printf '%s' "$tmpl" >"$TMP/tmpl.txt"
printf '%s' "$long" >"$TMP/long.txt"
expect_eq "a C++ template name (<, >, &, quotes) is escaped everywhere, whole in its title" ok \
  "$($PY "$CHK" name "$TMP/names.html" "$TMP/tmpl.txt")"
expect_eq "a kernel name of 10 kB: cut with an ellipsis, whole in its title" ok \
  "$($PY "$CHK" name "$TMP/names.html" "$TMP/long.txt")"

# --- an empty hub: as the other formats ----------------------------------
cp "${HUBS[0]}" "$TMP/empty.db"
for t in $(q "$TMP/empty.db" "SELECT name FROM sqlite_master WHERE type='table' AND (name GLOB 'rocpd_region_*' OR name GLOB 'rocpd_kernel_dispatch_*' OR name GLOB 'rocpd_memory_*' OR name GLOB 'rocpd_sample_*')"); do
  q "$TMP/empty.db" "DELETE FROM $t"
done
db2summary -q --format text "$TMP/empty.db" -o "$TMP/empty.txt" 2>/dev/null
rc_text=$?
db2summary -q --format html "$TMP/empty.db" -o "$TMP/empty.html" 2>/dev/null
rc_html=$?
expect_eq "an empty hub: html exits as text does" "$rc_text" "$rc_html"
if [ "$rc_html" = 0 ]; then
  expect_eq "an empty hub: the report still parses and says there is nothing" "ok|0" \
    "$($PY "$CHK" structure "$TMP/empty.html" | cut -d' ' -f1)|$(grep -o 'data-k="events" data-v="[0-9]*"' "$TMP/empty.html" | sed 's/.*data-v="\([0-9]*\)"/\1/')"
else
  expect_eq "an empty hub: no html left behind" "" "$(ls "$TMP"/empty.html 2>/dev/null)"
fi

# --- a hub that records no host (issue 35): "unknown", not "0 hosts" ---------
"$ROOT/$BUILD/bench/gen_hub" "$TMP/nohost.db" 50 1 >/dev/null || fail "gen_hub"
db2summary -q --format json "$TMP/nohost.db" -o "$TMP/nohost.json" || fail "db2summary json"
db2summary -q --format html "$TMP/nohost.db" -o "$TMP/nohost.html" || fail "db2summary html"
expect_eq "no host recorded: json says 0 hosts, the card says unknown" "0|unknown|hosts (none recorded)" \
  "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["hosts"])' "$TMP/nohost.json")|$(grep -o 'data-k="hosts" data-v="0">[^<]*</b><span>[^<]*' "$TMP/nohost.html" | sed 's/.*">\([^<]*\)<\/b><span>\(.*\)/\1|\2/')"

# --- the demo's reports in a real browser ---------------------------------
if demo_run "$TMP/demo" "$TMP/demo.log"; then
  pass "scripts/demo.sh runs"
else
  fail "scripts/demo.sh: $(tail -n 5 "$TMP/demo.log")"
fi
n_db=$(ls "$TMP"/demo/*.db | wc -l)
expect_eq "make demo writes one <name>.summary.html per demo hub" "$n_db" "$(ls "$TMP"/demo/*.summary.html | grep -vc '/ranks.summary.html')"
expect_eq "make demo writes ranks.summary.html over its 8 rank hubs read as one" 8 \
  "$(grep -o 'data-k="processes" data-v="[0-9]*"' "$TMP/demo/ranks.summary.html" | sed 's/.*data-v="\([0-9]*\)"/\1/')"
expect_eq "make demo says how to open the reports" 1 "$(grep -c 'summary.html  reports with charts' "$TMP/demo.log")"
for f in "$TMP"/demo/*.summary.html; do
  expect_eq "demo $(basename "$f"): structure" ok "$($PY "$CHK" structure "$f" | cut -d' ' -f1)"
done

# Two hosts, each with its GPU 0 and a process of rank 0 and 4 whose command
# is longer than a chart label (issue 35): the GPU devices table tells the
# hosts apart, and a cut label keeps its rank and host.
LONGCMD="python3 -m torch.distributed.run --nproc-per-node 4 train.py"
for i in 0 4; do
  $PY "$ROOT/tests/data/make_rocprof_hub.py" "$TMP/h$i.db" "0000000$i-aaaa-4bbb-8ccc-dddddddddddd" 1000 $i 200
  host=nodeA; [ $i = 4 ] && host=nodeB
  node=$(q "$TMP/h$i.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_node%'")
  proc=$(q "$TMP/h$i.db" "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rocpd_info_process%'")
  q "$TMP/h$i.db" "UPDATE \"$node\" SET hostname = '$host'; UPDATE \"$proc\" SET command = '$LONGCMD', extdata = '{\"rank\":$i}'"
done
gpu=$(q "$TMP/h0.db" "SELECT product_name FROM rocpd_info_agent WHERE type = 'GPU' LIMIT 1")
db2summary -q "$TMP/h0.db" "$TMP/h4.db" --format csv --table gpu_busy >"$TMP/hosts.csv"
expect_eq "two hosts' GPU 0: the GPU devices table names each with its rank and host" \
  "GPU 0 $gpu [rank 0] nodeA|GPU 0 $gpu [rank 4] nodeB" \
  "$(awk -F, 'NR > 1 {print $NF}' "$TMP/hosts.csv" | sort | paste -sd'|')"
db2summary -q "$TMP/h0.db" "$TMP/h4.db" --format html -o "$TMP/hosts.html"
# the chart labels as written (the svg text of the processes' bars)
labels=$($PY -c '
import re, sys, html
s = open(sys.argv[1]).read()
svg = re.search(r"<svg[^>]*data-chart=\"process_bars\".*?</svg>", s, re.S).group(0)
print("|".join(sorted(html.unescape(t) for t in re.findall(r"text-anchor=\"end\">([^<]*)</text>", svg))))' "$TMP/hosts.html")
# 30 characters on a chart: the command cut to 14 and its ellipsis, then
# " [rank R] host"; the pid (in the table and the tooltip) gives way.
expect_eq "a process label cut on a chart keeps its rank and host (the command is cut)" \
  "python3 -m tor… [rank 0] nodeA|python3 -m tor… [rank 4] nodeB" "$labels"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
# shot HTML PNG [WxH]: a headless screenshot (a fresh profile, no network)
shot() {
  local prof
  prof=$(mktemp -d "$TMP/chrome.XXXXXX")
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
    --user-data-dir="$prof" --screenshot="$2" --window-size="${3:-1280,2400}" "file://$1" >/dev/null 2>&1
}
# measured HTML: the page's DOM after two scripts measured it in a 1280 px
# window (its scroll width as data-sw; for layout below, data-layout), one
# Chromium run per page however many of its measures are read.
measured() {
  local prof dom="$TMP/dom.$(printf '%s' "$1" | md5sum | cut -c1-16)"
  if [ ! -s "$dom" ]; then
    prof=$(mktemp -d "$TMP/chrome.XXXXXX")
    $PY -c '
import sys
js = ("<script>document.body.setAttribute(\"data-sw\",document.documentElement.scrollWidth)</script>"
      "<script>let c=0;for(const t of document.querySelectorAll(\"svg.chart text\"))"
      "if(t.getBBox().x<-0.5)c++;let o=[];for(const d of document.querySelectorAll(\".tw\"))"
      "if(d.scrollWidth>d.clientWidth+1)o.push(d.firstChild.getAttribute(\"data-table\"));"
      "document.body.setAttribute(\"data-layout\",c+\" \"+(o.join(\",\")||\"none\"))</script></body>")
sys.stdout.write(open(sys.argv[1]).read().replace("</body>", js))' "$1" >"$TMP/m.html"
    timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$prof" --window-size=1280,1000 --dump-dom "file://$TMP/m.html" 2>/dev/null >"$dom"
  fi
  cat "$dom"
}
# width HTML: the page's scroll width in a 1280 px window
width() { measured "$1" | grep -o 'data-sw="[0-9]*"' | grep -o '[0-9]*'; }
if [ -z "$CHROMIUM" ]; then
  fail "chromium is not installed (scripts/install-deps.sh installs it): the reports were not looked at"
else
  # colours: kernels, API, copies, latency; the page background. Not blank:
  # most pixels are not the page's background (the sections are white
  # panels on it), yet the page is not all white, and has many colours.
  K=2f6fdf API=8a5cc7 C=f28e2b LAT=1a9e8f BG=e9edf2
  # (3200 px tall: the processes' chart stands above their table, and the
  # latency chart comes after both)
  shot "$TMP/demo/saxpy_nsys.summary.html" "$TMP/saxpy.png" 1280,3200
  read -r size share white ncol k api c lat < <($PY "$CHK" png "$TMP/saxpy.png" $BG $K $API $C $LAT)
  expect_eq "saxpy report in Chromium: a 1280x3200 screenshot" 1280x3200 "$size"
  expect_eq "saxpy report: not blank ($share not page background, $white white, $ncol colours)" yes \
    "$($PY -c "import sys; s,w,n=map(float,sys.argv[1:]); print('yes' if s > 0.5 and w < 0.9 and n >= 100 else 'no')" "$share" "$white" "$ncol")"
  expect_eq "saxpy report: kernel, API, copy and latency colours drawn (>= 300 px each: $k $api $c $lat)" yes \
    "$([ "$k" -ge 300 ] && [ "$api" -ge 300 ] && [ "$c" -ge 300 ] && [ "$lat" -ge 300 ] && echo yes || echo no)"
  shot "$TMP/demo/ranks.summary.html" "$TMP/ranks.png" 1280,2400
  read -r size share white ncol k api c < <($PY "$CHK" png "$TMP/ranks.png" $BG $K $API $C)
  expect_eq "ranks report: not blank, its strips and bars in the charts' colours ($share not background, $white white; $k $api $c px)" yes \
    "$($PY -c "import sys; s,w,k,a,c=map(float,sys.argv[1:]); print('yes' if s > 0.5 and w < 0.9 and k >= 3000 and a >= 300 and c >= 300 else 'no')" "$share" "$white" "$k" "$api" "$c")"
  # docs/summary-html.png is the top of this report (TT_UPDATE_DOCS=1 writes it again)
  if [ -n "${TT_UPDATE_DOCS:-}" ]; then mkdir -p "$ROOT/docs" && shot "$TMP/demo/ranks.summary.html" "$ROOT/docs/summary-html.png" 1280,1500; fi
  sw=$(width "$TMP/names.html")
  expect_eq "a 10 kB kernel name does not widen the page (scroll width $sw px in a 1280 px window)" yes \
    "$([ -n "$sw" ] && [ "$sw" -le 1280 ] && echo yes || echo no)"
  sw=$(width "$TMP/demo/resnet50.summary.html")
  expect_eq "the resnet50 report fits a 1280 px window (scroll width $sw px)" yes \
    "$([ -n "$sw" ] && [ "$sw" -le 1280 ] && echo yes || echo no)"
  # layout HTML: "CLIPPED OVER": chart labels whose box starts left of their
  # svg, and the data tables wider than their box (columns behind a
  # scroll bar), measured by a script in a 1280 px window (measured, above)
  layout() { measured "$1" | grep -o 'data-layout="[^"]*"' | sed 's/data-layout="\(.*\)"/\1/'; }
  for f in "$TMP/demo/resnet50.summary.html" "$TMP/hosts.html"; do
    read -r clipped over < <(layout "$f")
    expect_eq "$(basename "$f"): no chart label cut off on the left at 1280 px" 0 "$clipped"
    expect_eq "$(basename "$f"): the processes table shows every column at 1280 px (tables scrolled: $over)" no \
      "$([[ ",$over," == *,processes,* ]] && echo yes || echo no)"
  done
fi
