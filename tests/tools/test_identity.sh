#!/usr/bin/env bash
# Who did what: threads are keyed by (pid, tid), so two processes' tid 5
# are two thread rows with their own names, in the hub and in every export;
# a GPU lane's thread (Kineto's stream 7) of two devices likewise.
source "$(dirname "$0")/lib.sh"

# --- threads keyed by (pid, tid) -------------------------------------------
cat >"$TMP/two.json" <<'JSON'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"p1"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"p2"}},
{"ph":"M","name":"thread_name","pid":1,"tid":5,"args":{"name":"main-of-1"}},
{"ph":"M","name":"thread_name","pid":2,"tid":5,"args":{"name":"main-of-2"}},
{"ph":"X","cat":"cpu_op","name":"a","pid":1,"tid":5,"ts":10,"dur":5},
{"ph":"X","cat":"cpu_op","name":"b","pid":2,"tid":5,"ts":12,"dur":5}
]}
JSON
kineto2db -q "$TMP/two.json" -o "$TMP/two.db"
expect_eq "kineto2db: two processes' tid 5 are two thread rows, each named by its process" \
  "1|5|main-of-1 2|5|main-of-2" \
  "$(q "$TMP/two.db" "SELECT pid, tid, name FROM rocpd_info_thread ORDER BY pid" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "kineto2db: each region's tid is its own process's thread row" \
  "a|main-of-1 b|main-of-2" \
  "$(q "$TMP/two.db" "SELECT s.string, t.name FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id JOIN rocpd_info_thread t ON t.id = r.tid AND t.pid = r.pid ORDER BY r.start" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "thread row ids are unique (the second tid 5 gets an id of its own)" "2" \
  "$(q "$TMP/two.db" "SELECT count(DISTINCT id) FROM rocpd_info_thread")"
expect_ok "rocpd's regions view sees both regions" test \
  "$(q "$TMP/two.db" "SELECT count(*) FROM rocpd_region r JOIN rocpd_info_thread t ON t.id = r.tid")" = 2

db2json -q "$TMP/two.db" -o "$TMP/two.out.json"
expect_eq "db2json: thread names per (pid, tid)" "1 5 main-of-1;2 5 main-of-2;" \
  "$($PY -c '
import json,sys
d = json.load(open(sys.argv[1]))
print("".join("%d %d %s;" % (e["pid"], e["tid"], e["args"]["name"]) for e in sorted(d["traceEvents"], key=lambda e: e["pid"]) if e.get("name") == "thread_name"))' "$TMP/two.out.json")"
expect_eq "db2json: each slice on its process's tid 5" "a 1 5;b 2 5;" \
  "$($PY -c '
import json,sys
d = json.load(open(sys.argv[1]))
print("".join("%s %d %d;" % (e["name"], e["pid"], e["tid"]) for e in d["traceEvents"] if e.get("ph") == "X"))' "$TMP/two.out.json")"
db2perfetto -q "$TMP/two.db" -o "$TMP/two.pftrace"
validate "db2perfetto of two processes' tid 5 is valid" pftrace-check "$TMP/two.pftrace"
expect_eq "db2perfetto: a thread descriptor per (pid, tid), each with its name" \
  "1 5 main-of-1;2 5 main-of-2;" \
  "$($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/two.pftrace" | awk -F'\t' '$1 == "thread" {printf "%s %s %s;", $2, $3, $4}')"

# --- Kineto GPU lanes: stream 7 of two devices ------------------------------
cat >"$TMP/ann.json" <<'JSON'
{"traceEvents":[
{"ph":"M","name":"process_name","pid":100,"tid":0,"args":{"name":"python3"}},
{"ph":"M","name":"thread_name","pid":0,"tid":7,"args":{"name":"stream 7 dev0"}},
{"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"stream 7 dev1"}},
{"ph":"X","cat":"cpu_op","name":"op","pid":100,"tid":100,"ts":1,"dur":50},
{"ph":"X","cat":"gpu_user_annotation","name":"ann0","pid":0,"tid":7,"ts":10,"dur":5,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"gpu_user_annotation","name":"ann1","pid":1,"tid":7,"ts":12,"dur":5,"args":{"device":1,"stream":7}},
{"ph":"X","cat":"kernel","name":"k0","pid":0,"tid":7,"ts":11,"dur":2,"args":{"device":0,"stream":7}},
{"ph":"X","cat":"kernel","name":"k1","pid":1,"tid":7,"ts":13,"dur":2,"args":{"device":1,"stream":7}}
]}
JSON
kineto2db -q "$TMP/ann.json" -o "$TMP/ann.db"
expect_eq "kineto2db: stream 7 of devices 0 and 1 are two thread rows, each with its name" \
  "0|7|stream 7 dev0 1|7|stream 7 dev1" \
  "$(q "$TMP/ann.db" "SELECT pid, tid, name FROM rocpd_info_thread WHERE tid = 7 ORDER BY pid" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "kineto2db: each GPU annotation on its own device's lane" "ann0|GPU 0 stream 7 ann1|GPU 1 stream 7" \
  "$(q "$TMP/ann.db" "SELECT s.string, t.name FROM rocpd_region r JOIN rocpd_string s ON s.id = r.name_id JOIN rocpd_info_thread t ON t.id = r.tid WHERE s.string LIKE 'ann%' ORDER BY r.start" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "thread row ids unique with GPU lanes" \
  "$(q "$TMP/ann.db" "SELECT count(*) FROM rocpd_info_thread")" \
  "$(q "$TMP/ann.db" "SELECT count(DISTINCT id) FROM rocpd_info_thread")"

# rpd2db: an RPD whose calls alternate between two pids on one tid.
cp "$FIX/rocm/rpd_matmul_result.rpd" "$TMP/two.rpd"
sqlite3 "$TMP/two.rpd" "UPDATE rocpd_api SET pid = pid + 1 WHERE id % 2 = 0"
rpd2db -q "$TMP/two.rpd" -o "$TMP/tworpd.db"
expect_eq "rpd2db: calls per (pid, tid) as in the RPD, each on its process's thread row" \
  "$(q "$TMP/two.rpd" "SELECT pid, tid, count(*) FROM rocpd_api GROUP BY 1, 2 ORDER BY 1, 2" | paste -sd' ')" \
  "$(q "$TMP/tworpd.db" "SELECT t.pid, t.tid, count(*) FROM rocpd_region r JOIN rocpd_info_thread t ON t.id = r.tid AND t.pid = r.pid GROUP BY 1, 2 ORDER BY 1, 2" | paste -sd' ')"

# --- hosts and ranks -------------------------------------------------------
# The form every exporter names a process with: "CMD [rank R] HOST (pid P)".
label() { # label CMD RANK HOST PID (RANK/HOST may be empty)
  local s=$1
  [ -n "$2" ] && s="${s:+$s }[rank $2]"
  [ -n "$3" ] && s="${s:+$s }$3"
  echo "$s (pid $4)"
}
# json_process_names FILE: "pid<TAB>name" of every process_name record
json_process_names() {
  $PY -c '
import json,sys
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "M" and e.get("name") == "process_name":
        print("%d\t%s" % (e["pid"], e["args"]["name"]))' "$1"
}

# nsys: TARGET_INFO_SYSTEM_ENV's Hostname, read here from the report itself.
NSYS="$FIX/nsys/pipit_saxpy-mpi-cuda_nsys_perlmutter0.sqlite"
H=$(q "$NSYS" "SELECT value FROM TARGET_INFO_SYSTEM_ENV WHERE name = 'Hostname'")
expect_ok "the nsys fixture names its host" test -n "$H"
nsys2db -q "$NSYS" -o "$TMP/nsys.db"
expect_eq "nsys2db: the node row is the report's host (hostname, machine_id)" "$H|$H" \
  "$(q "$TMP/nsys.db" "SELECT hostname, machine_id FROM rocpd_info_node")"
expect_eq "nsys2db: every process on that node" "0" \
  "$(q "$TMP/nsys.db" "SELECT count(*) FROM rocpd_info_process p JOIN rocpd_info_node n ON n.id = p.nid WHERE n.hostname != '$H'")"
# the hub's CPU process (the one with API calls), its name from the report's PROCESSES
P=$(q "$TMP/nsys.db" "SELECT DISTINCT pid FROM rocpd_region LIMIT 1")
CMD=$(q "$NSYS" "SELECT name FROM PROCESSES WHERE pid = $P")
WANT=$(label "$CMD" "" "$H" "$P")
db2json -q "$TMP/nsys.db" -o "$TMP/nsys.json"
expect_eq "db2json: the nsys process is named with its host" "$P	$WANT" \
  "$(json_process_names "$TMP/nsys.json" | grep "^$P	")"
db2perfetto -q "$TMP/nsys.db" -o "$TMP/nsys.pftrace"
expect_eq "db2perfetto: the nsys process descriptor is named with its host" "process	$P	$WANT" \
  "$($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/nsys.pftrace" | grep "^process	$P	")"
db2otf2 -q "$TMP/nsys.db" -o "$TMP/nsys.otf2"
G=$(otf2-print -G "$TMP/nsys.otf2/traces.otf2")
expect_eq "db2otf2: a system-tree node named after the nsys host" "1" \
  "$(grep -c "^SYSTEM_TREE_NODE .*Name: \"$H\" .*Class: \"node\"" <<<"$G")"
expect_eq "db2otf2: the process's location group named with its host, under that node" "1" \
  "$(grep -c "^LOCATION_GROUP .*Name: \"$WANT\" .*Type: PROCESS, Parent: \"node::$H\"" <<<"$G")"
S=$(db2summary -q --by-process "$TMP/nsys.db")
expect_ok "db2summary --by-process: a section titled with the nsys process's label" \
  grep -qF ", $WANT" <<<"$S"
expect_ok "db2summary --by-process: its host column" grep -qE "^ *$P +$H " <<<"$S"

# Kineto: distributedInfo.rank (read here with python from the trace).
R34="$FIX/kineto/hta_cpu_only_rank-34.pt.trace.json.gz"
RANK=$($PY -c 'import gzip,json,sys; print(json.load(gzip.open(sys.argv[1]))["distributedInfo"]["rank"])' "$R34")
kineto2db -q "$R34" -o "$TMP/r34.db"
P=$(q "$TMP/r34.db" "SELECT pid FROM rocpd_info_process WHERE json_extract(extdata, '$.labels') = 'CPU'")
CMD=$($PY -c '
import gzip,json,sys
for e in json.load(gzip.open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "M" and e.get("name") == "process_name" and e.get("pid") == int(sys.argv[2]):
        print(e["args"]["name"])' "$R34" "$P")
expect_eq "kineto2db: the CPU process's extdata keeps distributedInfo.rank" "$RANK" \
  "$(q "$TMP/r34.db" "SELECT json_extract(extdata, '$.rank') FROM rocpd_info_process WHERE pid = $P")"
db2json -q "$TMP/r34.db" -o "$TMP/r34.json"
expect_eq "db2json: the process named with its rank" "$P	$(label "$CMD" "$RANK" "" "$P")" \
  "$(json_process_names "$TMP/r34.json" | grep "^$P	")"

# Kineto's top-level host_name (no public fixture carries one): two ranks
# on two hosts, both pid 1234.
for h in 0 1; do
  cat >"$TMP/host$h.json" <<JSON
{"traceEvents":[
{"ph":"M","name":"process_name","pid":1234,"tid":0,"args":{"name":"python3"}},
{"ph":"X","cat":"cpu_op","name":"op-$h","pid":1234,"tid":1234,"ts":10,"dur":5},
{"ph":"X","cat":"cpu_op","name":"inner-$h","pid":1234,"tid":1234,"ts":11,"dur":2}
],"host_name":"nid00855$h","distributedInfo":{"backend":"nccl","rank":$((h + 2)),"world_size":2}}
JSON
  kineto2db -q "$TMP/host$h.json" -o "$TMP/host$h.db"
done
expect_eq "kineto2db: host_name in the node row" "nid008550|nid008550" \
  "$(q "$TMP/host0.db" "SELECT hostname, machine_id FROM rocpd_info_node")"
expect_eq "kineto2db: node hashes differ by host" "2" \
  "$( (q "$TMP/host0.db" "SELECT hash FROM rocpd_info_node"; q "$TMP/host1.db" "SELECT hash FROM rocpd_info_node") | sort -u | wc -l)"
db2json -q "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/both.json"
# In one file, the second host's pid 1234 is drawn under a pid of its own
# (0x7d000000 on, see hub_process_info.view_pid): two process tracks.
V=$((0x7d000000))
expect_eq "db2json: both hosts' processes named with rank and host, two process tracks" \
  "1234	python3 [rank 2] nid008550 (pid 1234)|$V	python3 [rank 3] nid008551 (pid 1234)" \
  "$(json_process_names "$TMP/both.json" | sort | paste -sd'|')"
expect_eq "db2json: each host's slices on its own process track" \
  "inner-0 1234 1234;inner-1 $V 1234;op-0 1234 1234;op-1 $V 1234;" \
  "$($PY -c '
import json,sys
d = json.load(open(sys.argv[1]))["traceEvents"]
print("".join("%s %d %d;" % (e["name"], e["pid"], e["tid"]) for e in sorted(d, key=lambda e: e["name"]) if e.get("ph") == "X"))' "$TMP/both.json")"
db2perfetto -q "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/both.pftrace"
validate "db2perfetto of two hosts' pid 1234 is valid" pftrace-check "$TMP/both.pftrace"
expect_eq "db2perfetto: a process descriptor per host's pid 1234, each with its label" \
  "1234 python3 [rank 2] nid008550 (pid 1234)|$V python3 [rank 3] nid008551 (pid 1234)" \
  "$($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/both.pftrace" | awk -F'\t' '$1 == "process" {print $2 " " $3}' | paste -sd'|')"

# --split process keys parts by (host, pid): two parts, each one host's.
for tool in db2json db2perfetto db2otf2; do
  ext=json; [ $tool = db2perfetto ] && ext=pftrace; [ $tool = db2otf2 ] && ext=otf2
  expect_eq "$tool --split process --count-parts: one part per (host, pid)" "2" \
    "$($tool -q --split process --count-parts "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/sp/t.$ext")"
  rm -rf "$TMP/sp"; mkdir -p "$TMP/sp"
  $tool -q --split process "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/sp/t.$ext"
  expect_eq "$tool --split process: parts named by host where pids repeat" \
    "t.nid008550.p1234.$ext t.nid008551.p1234.$ext" "$(ls "$TMP/sp" | paste -sd' ')"
done
rm -rf "$TMP/sp"; mkdir -p "$TMP/sp"
db2json -q --split process "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/sp/t.json"
for h in 0 1; do
  expect_eq "db2json part of nid00855$h: its own events and process name only" \
    "inner-$h op-$h python3 [rank $((h + 2))] nid00855$h (pid 1234)" \
    "$($PY -c '
import json,sys
d = json.load(open(sys.argv[1]))["traceEvents"]
print(" ".join(sorted([e["name"] for e in d if e.get("ph") == "X"] + [e["args"]["name"] for e in d if e.get("name") == "process_name"])))' "$TMP/sp/t.nid00855$h.p1234.json")"
done
db2perfetto -q --split process "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/sp/t.pftrace"
# Packed (--max-part-size): a pack holds one host's processes, so both
# hosts' pid 1234 are two parts, named by host, as without a size.
rm -rf "$TMP/pk"; mkdir -p "$TMP/pk"
db2json -q --split process --max-part-size 1M "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/pk/t.json"
expect_eq "db2json --split process --max-part-size: each host's pid 1234 its own part" \
  "t.nid008550.p1234.json t.nid008551.p1234.json" "$(ls "$TMP/pk" | paste -sd' ')"
for h in 0 1; do
  expect_eq "db2json pack of nid00855$h: its events and process name only" \
    "inner-$h op-$h python3 [rank $((h + 2))] nid00855$h (pid 1234)" \
    "$($PY -c '
import json,sys
d = json.load(open(sys.argv[1]))["traceEvents"]
print(" ".join(sorted([e["name"] for e in d if e.get("ph") == "X"] + [e["args"]["name"] for e in d if e.get("name") == "process_name"])))' "$TMP/pk/t.nid00855$h.p1234.json")"
done
for h in 0 1; do
  validate "db2perfetto part of nid00855$h is valid" pftrace-check "$TMP/sp/t.nid00855$h.p1234.pftrace"
  expect_eq "db2perfetto part of nid00855$h: its process descriptor" \
    "process	1234	python3 [rank $((h + 2))] nid00855$h (pid 1234)" \
    "$($PY "$ROOT/tests/checkers/pftrace_names.py" "$ROOT/tests/data" "$TMP/sp/t.nid00855$h.p1234.pftrace" | grep '^process')"
done
db2otf2 -q "$TMP/host0.db" "$TMP/host1.db" -o "$TMP/both.otf2"
G=$(otf2-print -G "$TMP/both.otf2/traces.otf2")
for h in 0 1; do
  expect_eq "db2otf2: node nid00855$h holds the location group of its rank" "1" \
    "$(grep -F "Name: \"python3 [rank $((h + 2))] nid00855$h (pid 1234)\"" <<<"$G" |
      grep -c "^LOCATION_GROUP .* Type: PROCESS, Parent: \"node::nid00855$h\"")"
done
expect_eq "db2otf2: two locations for the two hosts' thread 1234, 4 events each" "2" \
  "$(grep -c '^LOCATION .*Name: "Master thread 1234" .*# Events: 4,' <<<"$G")"
validate "db2otf2 of two hosts is valid" otf2-check "$TMP/both.otf2/traces.otf2"
S=$(db2summary -q --by-process "$TMP/host0.db" "$TMP/host1.db")
for h in 0 1; do
  expect_ok "db2summary --by-process: a section per host's pid 1234 (nid00855$h)" \
    grep -qF "Regions: cpu_op, python3 [rank $((h + 2))] nid00855$h (pid 1234)" <<<"$S"
done

# A rocprofv3 database: its own node row, the rank in the process's environment.
U=aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee; s="_${U//-/_}"
sed -e "s/{{uuid}}/$s/g" -e "s/{{guid}}/$U/g" "$ROOT/schema/rocpd_v3.sql" | sqlite3 "$TMP/rocprof.db"
sqlite3 "$TMP/rocprof.db" <<SQL
INSERT INTO rocpd_metadata$s(tag, value) VALUES ('schema_version', '3'), ('uuid', '$s'), ('guid', '$U');
INSERT INTO rocpd_string$s(id, guid, string) VALUES (1, '$U', 'hipMalloc'), (2, '$U', 'HIP_RUNTIME_API');
INSERT INTO rocpd_info_node$s(id, guid, hash, machine_id, hostname) VALUES (3, '$U', 77, 'm1', 'frontier0042');
INSERT INTO rocpd_info_process$s(id, guid, nid, pid, command, environment)
  VALUES (500, '$U', 3, 500, 'app', '{"PATH":"/bin","OMPI_COMM_WORLD_RANK":"5","SLURM_PROCID":"9"}');
INSERT INTO rocpd_info_thread$s(id, guid, nid, pid, tid, name) VALUES (500, '$U', 3, 500, 500, 'main');
INSERT INTO rocpd_event$s(id, guid, category_id) VALUES (1, '$U', 2);
INSERT INTO rocpd_region$s(guid, nid, pid, tid, start, end, name_id, event_id) VALUES ('$U', 3, 500, 500, 1000, 2000, 1, 1);
SQL
db2json -q "$TMP/rocprof.db" -o "$TMP/rocprof.json"
expect_eq "rocprofv3 database: named with its node's host and OMPI_COMM_WORLD_RANK" \
  "500	app [rank 5] frontier0042 (pid 500)" "$(json_process_names "$TMP/rocprof.json")"
