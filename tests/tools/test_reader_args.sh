#!/usr/bin/env bash
# Every event's args, whatever order rocpd_arg and the events are in: the
# reader steps rocpd_arg in rowid order when it is sorted by event (then an
# event read out of id order comes from the groups its scan passed last or
# from a binary search over rowids), and joins it in the cursor's order
# otherwise. A hub of 3000 calls, nested and overlapping so that start
# order is not id order, one outer call (the last id) spanning them all,
# 0-3 args each; the same hub with rocpd_arg reshuffled, and with an index.
# Expected args come from sqlite3 (python), never from the reader.
source "$(dirname "$0")/lib.sh"
U=aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee
S="_${U//-/_}"
DB="$TMP/ord.db"
sed -e "s/{{uuid}}/$S/g" -e "s/{{guid}}/$U/g" "$ROOT/schema/rocpd_v3.sql" | sqlite3 "$DB"
$PY - "$DB" "$S" "$U" <<'EOF'
import random, sqlite3, sys
db, s, u = sys.argv[1:]
c = sqlite3.connect(db)
r = random.Random(7)
x = lambda sql, *a: c.execute(sql.replace("$s", s), a)
x("INSERT INTO rocpd_metadata$s(tag, value) VALUES ('schema_version', '3'), ('uuid', ?), ('guid', ?)", s, u)
x("INSERT INTO rocpd_info_node$s(id, guid, hash, machine_id, hostname) VALUES (1, ?, 7, 'm', 'n')", u)
x("INSERT INTO rocpd_info_process$s(id, guid, nid, pid, command) VALUES (9, ?, 1, 9, 'app')", u)
x("INSERT INTO rocpd_info_thread$s(id, guid, nid, pid, tid, name) VALUES (9, ?, 1, 9, 9, 'main')", u)
n = 3000
for i in range(1, n + 1):
    # ids in write order (at the end of each call); starts jitter back up
    # to 40 calls, the last call starts first and spans everything
    start = 10 if i == n else 1000 * i - r.randint(0, 40) * 1000 + r.randint(0, 999)
    end = 1000 * n + 5000 if i == n else start + r.randint(10, 30000)
    x("INSERT INTO rocpd_string$s(id, guid, string) VALUES (?, ?, ?)", i, u, "call%d" % i)
    x("INSERT INTO rocpd_event$s(id, guid, category_id) VALUES (?, ?, NULL)", i, u)
    x("INSERT INTO rocpd_region$s(guid, nid, pid, tid, start, end, name_id, event_id) "
      "VALUES (?, 1, 9, 9, ?, ?, ?, ?)", u, start, end, i, i)
    for p in range(r.choice([0, 1, 2, 3, 3])):
        x("INSERT INTO rocpd_arg$s(guid, event_id, position, type, name, value) VALUES (?, ?, ?, ?, ?, ?)",
          u, i, p, "int" if p == 1 else "string", "a%d" % p, str(i * 10 + p) if p == 1 else "v%d_%d" % (i, p))
c.commit()
EOF
# Reshuffled: the same rows in another rowid order (the join path).
cp "$DB" "$TMP/shuf.db"
q "$TMP/shuf.db" "CREATE TABLE t AS SELECT * FROM rocpd_arg$S; DELETE FROM rocpd_arg$S;
  INSERT INTO rocpd_arg$S(guid, event_id, position, type, name, value, extdata)
    SELECT guid, event_id, position, type, name, value, extdata FROM t ORDER BY (id * 7919) % 1009, id DESC;
  DROP TABLE t"
cp "$TMP/shuf.db" "$TMP/shufidx.db"
q "$TMP/shufidx.db" "CREATE INDEX ix ON rocpd_arg$S(event_id, position)"
# Event ids running backwards against start time (the last call written
# first), rocpd_arg still sorted by event: each event is read below every
# id read before it.
cp "$DB" "$TMP/back.db"
q "$TMP/back.db" "CREATE TABLE m AS SELECT event_id AS old, row_number() OVER (ORDER BY start DESC, end, id DESC) AS new FROM rocpd_region$S;
  UPDATE rocpd_region$S SET event_id = -(SELECT new FROM m WHERE old = event_id);
  UPDATE rocpd_region$S SET event_id = -event_id;
  UPDATE rocpd_event$S SET id = -(SELECT new FROM m WHERE old = id);
  UPDATE rocpd_event$S SET id = -id;
  CREATE TABLE t AS SELECT * FROM rocpd_arg$S; DELETE FROM rocpd_arg$S;
  INSERT INTO rocpd_arg$S(guid, event_id, position, type, name, value, extdata)
    SELECT guid, m.new, position, type, name, value, extdata FROM t JOIN m ON m.old = t.event_id ORDER BY m.new, position;
  DROP TABLE t; DROP TABLE m"
expect_eq "back: read in start order, every event id is below the one before" "2999 3000" \
  "$(q "$TMP/back.db" "SELECT sum(event_id < p) || ' ' || count(*) FROM (SELECT event_id, LAG(event_id) OVER (ORDER BY start, end DESC, id) p FROM rocpd_region$S)")"
# rocpd_arg not sorted by event but in runs that are: position-major (every
# first arg, then every second, then every third, as rocprofv3 may write
# it), and in 5 batches of events (as per-thread buffers are written out).
# runs DB: the runs of rocpd_arg in (event_id, position) order by rowid.
runs() {
  q "$1" "SELECT 1 + count(*) FROM rocpd_arg$S a JOIN rocpd_arg$S b ON b.id = (SELECT min(id) FROM rocpd_arg$S WHERE id > a.id)
    WHERE b.event_id < a.event_id OR (b.event_id = a.event_id AND b.position < a.position)"
}
for h in posmajor:position batches:"event_id % 5"; do
  cp "$DB" "$TMP/${h%%:*}.db"
  q "$TMP/${h%%:*}.db" "CREATE TABLE t AS SELECT * FROM rocpd_arg$S; DELETE FROM rocpd_arg$S;
    INSERT INTO rocpd_arg$S(guid, event_id, position, type, name, value, extdata)
      SELECT guid, event_id, position, type, name, value, extdata FROM t ORDER BY ${h#*:}, event_id, position;
    DROP TABLE t"
done
expect_eq "position-major: 3 runs sorted by event; batches: 5" "3 5" "$(runs "$TMP/posmajor.db") $(runs "$TMP/batches.db")"
expect_eq "rocpd_arg sorted by event in rowid order, then not" "0 1" \
  "$(q "$DB" "SELECT count(*) FROM rocpd_arg$S a JOIN rocpd_arg$S b ON b.id = a.id + 1 WHERE b.event_id < a.event_id") $(
     q "$TMP/shuf.db" "SELECT count(*) > 0 FROM rocpd_arg$S a JOIN rocpd_arg$S b ON b.id = a.id + 1 WHERE b.event_id < a.event_id")"

# expected DB: "name {args as [[k, v]...]}" per call, from sqlite3.
expected() {
  $PY - "$1" "$S" <<'EOF'
import json, sqlite3, sys
c = sqlite3.connect(sys.argv[1]); s = sys.argv[2]
args = {}  # every arg in one scan, not a scan of rocpd_arg per call
for ev, k, t, v in c.execute("SELECT event_id, name, type, value FROM rocpd_arg%s ORDER BY event_id, position, id" % s):
    args.setdefault(ev, []).append([k, int(v) if t == "int" else v])
for name, ev in c.execute("SELECT n.string, r.event_id FROM rocpd_region%s r JOIN rocpd_string%s n ON n.id = r.name_id ORDER BY n.string" % (s, s)):
    print(name, json.dumps(args.get(ev, [])))
EOF
}
# got JSON...: the same from db2json outputs (a split's parts together).
got() {
  $PY - "$@" <<'EOF'
import json, sys
seen = {}
for f in sys.argv[1:]:
    top = json.load(open(f), object_pairs_hook=lambda p: p)  # key order kept
    for e in next(v for k, v in top if k == "traceEvents"):
        e = dict(e)
        if e.get("ph") == "X":
            # a split adds "clipped" to the events it cuts
            seen[e["name"]] = [list(p) for p in e["args"] if p[0] != "clipped"]
for k in sorted(seen):
    print(k, json.dumps(seen[k]))
EOF
}
want=$(expected "$DB")
expect_eq "the expectation has every call" 3000 "$(echo "$want" | wc -l)"
for h in ord shuf shufidx back posmajor batches; do
  expect_ok "$h: db2json" db2json -q "$TMP/$h.db" -o "$TMP/$h.json"
  expect_eq "$h: every call's args, in position order" "$want" "$(got "$TMP/$h.json")"
  expect_ok "$h: db2json, 7 windows" db2json -q "$TMP/$h.db" --split window --windows 7 -o "$TMP/$h.w.json"
  expect_eq "$h: every call's args in the window split (events carried into later windows)" "$want" \
    "$(got "$TMP"/$h.w.w*.json)"
  expect_ok "$h: db2perfetto" db2perfetto -q "$TMP/$h.db" -o "$TMP/$h.pftrace"
  expect_eq "$h: db2perfetto: every string arg" \
    "$($PY -c '
import json, sys
for l in sys.stdin:
    for k, v in json.loads(l.split(" ", 1)[1]):
        if isinstance(v, str): print("%s\t%s" % (k, v))' <<<"$want" | LC_ALL=C sort)" \
    "$($PY "$ROOT/tests/checkers/pftrace_args.py" "$ROOT/tests/data" "$TMP/$h.pftrace" | LC_ALL=C sort)"
done
expect_eq "the inputs are not modified (no index or table added)" "0 0 1 0 0 0" \
  "$(for h in ord shuf shufidx back posmajor batches; do q "$TMP/$h.db" "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"; done | tr '\n' ' ' | sed 's/ $//')"

# rocprofv3's shape (bench/gen_rocprof): regions, dispatches and copies, ids
# in the order per-thread and per-queue buffers were written out; rocpd_arg
# sorted by event, then position-major. Every call's args, by its
# correlation id, as sqlite3 gives them; the file is untouched.
GEN="$ROOT/$BUILD/bench/gen_rocprof"
GS=_0c0ffee0_1234_4abc_8def_0123456789ab
for h in gen:"" genpm:--position-major; do
  g="$TMP/${h%%:*}.db"
  "$GEN" "$g" 20000 3 ${h#*:}
  sum=$(sha256sum <"$g")
  want=$($PY - "$g" "$GS" <<'EOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); s = sys.argv[2]
# every arg in one scan (rocpd_arg has no index: a query per call scanned it)
args = {}
for ev, name, value in c.execute("SELECT event_id, name, value FROM rocpd_arg%s ORDER BY event_id, position, id" % s):
    args.setdefault(ev, []).append((name, value))
for corr, ev in c.execute("SELECT e.correlation_id, r.event_id FROM rocpd_region%s r JOIN rocpd_event%s e ON e.id = r.event_id ORDER BY 1" % (s, s)):
    print(" ".join([str(corr)] + ["%s=%s" % x for x in args.get(ev, [])]))
EOF
)
  expect_eq "${h%%:*}: some calls have args, some not" "1 1" \
    "$(echo "$want" | awk 'NF > 1 {a = 1} NF == 1 {b = 1} END {print a + 0, b + 0}')"
  expect_ok "${h%%:*}: db2json" db2json -q "$g" -o "$TMP/${h%%:*}.json"
  expect_eq "${h%%:*}: every call's args, by correlation id" "$want" "$($PY - "$TMP/${h%%:*}.json" <<'EOF'
import json, sys
out = []
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "X" and e.get("cat") == "HIP_RUNTIME_API_EXT":
        a = e["args"]
        out.append([a["correlation"]] + ["%s=%s" % (k, v) for k, v in a.items() if k != "correlation"])
for x in sorted(out):
    print(" ".join(map(str, x)))
EOF
)"
  expect_eq "${h%%:*}: the input is not modified" "$sum" "$(sha256sum <"$g")"
done
