#!/usr/bin/env bash
# Issue 34: text from a trace is data, never markup, SQL or a terminal
# command. One Kineto trace puts hostile text (an html element, quotes, a
# CSV comma, markdown marks, an OSC terminal title and an SGR colour, CR LF)
# in every field a trace carries: names, a category, the process, thread and
# host names, an arg's key and value. Through every output: the html has no
# element or attribute the writer does not write for the same trace with
# plain text; json keeps the exact strings; csv keeps its field count; no
# raw control byte reaches text, csv or markdown (shown as \x1b); the binary
# traces and a merged hub keep the exact bytes; the input hub is
# byte-identical after. Then a hub whose table suffix carries SQL (a
# recursive CTE that never ends) or an escape sequence is refused at once,
# with the suffix shown escaped, and left unchanged.
source "$(dirname "$0")/lib.sh"
CHK="$ROOT/tests/checkers/check_hostile.py"
sha() { sha256sum "$1" | cut -d' ' -f1; }
# ok DESC CMD... : a checker that prints "ok" or its problems
ok() { local d=$1 out; shift; out=$("$@" 2>&1); expect_eq "$d" ok "$out"; }

# trace DIR TEXT : DIR/t.json with TEXT appended to every text field, and
# DIR/<field> files holding each field's exact text
$PY - "$TMP/hostile" 'evil"><img src=x onerror=alert(1)>'$'\e]0;pwned\a\e[31m'",'|\`*_;"$'\r\n--' <<'PYEOF'
import json, os, sys
d, h = sys.argv[1], sys.argv[2]
os.makedirs(d, exist_ok=True)
f = {k: k + h for k in ("proc", "thr", "cat", "region", "key", "val", "kern", "host")}
for k, v in f.items():
    open(os.path.join(d, k), "w", newline="").write(v)
ev = [{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": f["proc"]}},
      {"ph": "M", "name": "thread_name", "pid": 7, "tid": 8, "args": {"name": f["thr"]}},
      {"ph": "X", "cat": f["cat"], "name": f["region"], "pid": 7, "tid": 8, "ts": 10, "dur": 5,
       "args": {f["key"]: f["val"]}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 8, "ts": 11,
       "dur": 1, "args": {"correlation": 1}},
      {"ph": "X", "cat": "kernel", "name": f["kern"], "pid": 7, "tid": "stream 7", "ts": 12,
       "dur": 3, "args": {"device": 0, "stream": 7, "correlation": 1}}]
json.dump({"traceEvents": ev}, open(os.path.join(d, "t.json"), "w"))
PYEOF
H="$TMP/hostile"
mkdir -p "$TMP/clean"
# the same trace with plain text: what the html writer means to write
$PY -c '
import json, sys
d = json.load(open(sys.argv[1]))
def plain(v):
    if isinstance(v, str):  # as long, so the same cells get a hover title
        return v.split("evil")[0] + "p" * len(v.split("evil", 1)[1]) + "pppp" if "evil" in v else v
    if isinstance(v, list): return [plain(x) for x in v]
    if isinstance(v, dict): return {plain(k): plain(x) for k, x in v.items()}
    return v
json.dump(plain(d), open(sys.argv[2], "w"))' "$H/t.json" "$TMP/clean/t.json"

for side in hostile clean; do
  kineto2db -q "$TMP/$side/t.json" -o "$TMP/$side/h.db" || fail "kineto2db $side"
  # Kineto has no host name: the hub's node row gets the host field
  $PY -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type=\"table\" AND name LIKE \"rocpd_info_node_%\"")][0]
c.execute(f"UPDATE \"{t}\" SET hostname = ?", (open(sys.argv[2], newline="").read(),))
c.commit()' "$TMP/$side/h.db" "$H/host" 2>/dev/null || true
done
$PY -c '
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type=\"table\" AND name LIKE \"rocpd_info_node_%\"")][0]
c.execute(f"UPDATE \"{t}\" SET hostname = ?", ("hostplain",))
c.commit()' "$TMP/clean/h.db"
DB="$H/h.db"
expect_eq "the hostile hub holds the host name exactly" "1" \
  "$(q "$DB" "SELECT count(*) FROM rocpd_info_node WHERE hostname = CAST(readfile('$H/host') AS TEXT)")"
before=$(sha "$DB")

# --- db2summary ------------------------------------------------------------
for f in text csv markdown json html; do
  expect_ok "db2summary --format $f reads the hostile hub" \
    db2summary -q "$DB" --format $f --width 0 -o "$TMP/s.$f"
done
db2summary -q "$TMP/clean/h.db" --format html -o "$TMP/clean.html" || fail "db2summary clean html"
ok "html: no element or attribute the writer does not write" $PY "$CHK" html "$TMP/clean.html" "$TMP/s.html"
expect_eq "html: the injected <img> appears only as text" 0 "$(grep -c '<img' "$TMP/s.html")"
ok "html: the category's table has its id (attribute-escaped) and a slug heading" \
  $PY -c '
import html.parser, sys
# html cannot carry control characters: the writer shows them as spaces
want = "".join(" " if ord(c) < 32 else c for c in "region:" + open(sys.argv[2], newline="").read())
class P(html.parser.HTMLParser):
    tables, ids = set(), set()
    def handle_starttag(self, t, a):
        a = dict(a)
        if "data-table" in a: self.tables.add(a["data-table"])
        if t == "h3" and "id" in a: self.ids.add(a["id"])
p = P(); p.feed(open(sys.argv[1], encoding="utf-8").read())
slug = [i for i in p.ids if i.startswith("region:cat")]
bad = [] if want in p.tables else ["no data-table " + repr(want)]
if len(slug) != 1 or any(not (c.isalnum() or c in "_:-.") for c in slug[0]):
    bad.append("slug ids " + repr(slug))
print("\n".join(bad) or "ok")' "$TMP/s.html" "$H/cat"
ok "summary json: names and category exact" $PY "$CHK" json "$TMP/s.json" "$H/kern" "$H/region"
ok "summary json: the category's table id exact" \
  $PY -c 'import json,sys; t=[x["table"] for x in json.load(open(sys.argv[1]))["tables"]]; w="region:"+open(sys.argv[2],newline="").read(); print("ok" if w in t else repr(t))' "$TMP/s.json" "$H/cat"
ok "csv: every row keeps its header's field count (the index and each table's file)" \
  $PY "$CHK" csv "$TMP/s.csv" "$TMP"/s.*.csv
ok "text, csv, markdown: no raw control byte" $PY "$CHK" text "$TMP/s.text" "$TMP"/s*.csv "$TMP/s.markdown"
expect_eq "text: the kernel's name shown with its escapes" 1 \
  "$(grep -cF 'kernevil"><img src=x onerror=alert(1)>\x1b]0;pwned\x07\x1b[31m,'"'"'|`*_;\x0d\x0a--' "$TMP/s.text")"
expect_eq "csv: the category's table id shown with its escapes, quoted (the index)" 1 \
  "$(grep -cF '"region:catevil""><img src=x onerror=alert(1)>\x1b]0;pwned\x07\x1b[31m,'"'"'|`*_;\x0d\x0a--","Regions: ' "$TMP/s.csv")"

# --- db2diff: the hostile hub against itself --------------------------------
for f in text csv markdown json html; do
  expect_ok "db2diff --format $f reads the hostile hub" db2diff -q "$DB" "$DB" --format $f -o "$TMP/d.$f"
done
db2diff -q "$TMP/clean/h.db" "$TMP/clean/h.db" --format html -o "$TMP/dclean.html" || fail "db2diff clean html"
ok "db2diff html: no element or attribute the writer does not write" $PY "$CHK" html "$TMP/dclean.html" "$TMP/d.html"
ok "db2diff json: the kernel's name exact" $PY "$CHK" json "$TMP/d.json" "$H/kern"
ok "db2diff csv: every row keeps its header's field count" $PY "$CHK" csv "$TMP/d.csv"
ok "db2diff text, csv, markdown: no raw control byte" $PY "$CHK" text "$TMP/d.text" "$TMP/d.csv" "$TMP/d.markdown"

# --- db2json, db2perfetto, db2otf2, dbmerge -----------------------------------
expect_ok "db2json reads the hostile hub" db2json -q "$DB" -o "$TMP/j.json"
ok "db2json: every field's text exact" $PY "$CHK" json "$TMP/j.json" "$H/kern" "$H/region" "$H/cat" \
  "$H/thr" "$H/key" "$H/val"
expect_ok "db2perfetto reads the hostile hub" db2perfetto -q "$DB" -o "$TMP/p.pftrace"
ok "db2perfetto: the names' exact bytes" $PY "$CHK" bytes "$TMP/p.pftrace" "$H/kern" "$H/region" "$H/thr"
expect_ok "db2otf2 reads the hostile hub" db2otf2 -q "$DB" -o "$TMP/otf"
ok "db2otf2: the names' exact bytes" $PY "$CHK" bytes "$TMP/otf" "$H/kern" "$H/region"
expect_ok "dbmerge reads the hostile hub" dbmerge -q "$DB" -o "$TMP/m.db"
T() { echo "CAST(readfile('$H/$1') AS TEXT)"; }
expect_eq "dbmerge: the merged hub keeps every text exactly" "2 1 1 1 1 1" \
  "$(q "$TMP/m.db" "SELECT (SELECT count(*) FROM rocpd_string WHERE string IN ($(T region), $(T cat))),
     (SELECT count(*) FROM rocpd_info_kernel_symbol WHERE kernel_name = $(T kern)),
     (SELECT count(*) FROM rocpd_arg WHERE name = $(T key) AND value = $(T val)),
     (SELECT count(*) FROM rocpd_info_process WHERE command = $(T proc)),
     (SELECT count(*) FROM rocpd_info_thread WHERE name = $(T thr)),
     (SELECT count(*) FROM rocpd_info_node WHERE hostname = $(T host))" | tr '|' ' ')"
expect_eq "the input hub is byte-identical after every tool" "$before" "$(sha "$DB")"

# --- a table suffix that carries SQL or terminal escapes ----------------------
# suffixed DB NEW : a copy of every _<uuid> table of DB named _<uuid>NEW: a
# second hub whose suffix is NEW
suffixed() {
  $PY - "$1" "$2" <<'PYEOF'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
for (t,) in c.execute("SELECT name FROM sqlite_master WHERE type='table' AND name LIKE 'rocpd_%'").fetchall():
    q = t + sys.argv[2]
    c.execute('CREATE TABLE "{}" AS SELECT * FROM "{}"'.format(q.replace('"', '""'), t))
c.commit()
PYEOF
}
cp "$DB" "$TMP/sql.db"
# pasted into "SELECT ... FROM \"rocpd_info_process<S>\"", this S reads the
# real table with a WHERE that counts forever
suffixed "$TMP/sql.db" '" WHERE (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c) --'
expect_eq "the SQL suffix hub has its tables" 1 \
  "$(q "$TMP/sql.db" "SELECT count(*) FROM sqlite_master WHERE name LIKE 'rocpd_event_%RECURSIVE%'")"
cp "$DB" "$TMP/esc.db"
suffixed "$TMP/esc.db" $'_x\e]0;pwned\a'
for db in sql esc; do
  sum=$(sha "$TMP/$db.db")
  for tool in db2json db2perfetto db2otf2 db2summary dbmerge; do
    err=$(timeout 20 $tool -q "$TMP/$db.db" -o "$TMP/$db.$tool.out" 2>&1 >/dev/null); rc=$?
    if [ $rc -eq 124 ]; then fail "$tool: $db suffix: still running after 20 s"
    elif [ $rc -eq 0 ] || [ $rc -ge 128 ]; then fail "$tool: $db suffix: exit $rc"
    elif [[ "$err" == *"$TMP/$db.db: table rocpd_event"*"not '_' and letters, digits or '_'"* ]]; then
      pass "$tool: $db suffix refused, naming the file and the table"
    else fail "$tool: $db suffix: message [$err]"; fi
    [ -e "$TMP/$db.$tool.out" ] && fail "$tool: $db suffix: left an output"
    if [ $db = esc ]; then
      ok "$tool: the suffix shown escaped in the message" $PY "$CHK" text <(printf '%s\n' "$err")
    fi
  done
  expect_eq "$db suffix hub byte-identical after" "$sum" "$(sha "$TMP/$db.db")"
done

# --- messages: a file name quoted in an error keeps ESC off the terminal -------
bad="$TMP/no"$'\e]0;pwned\a\e[31m'".db"
err=$(db2json -q "$bad" -o "$TMP/x.json" 2>&1 >/dev/null)
ok "error message: no raw control byte" $PY "$CHK" text <(printf '%s\n' "$err")
expect_eq "error message: the name shown with its escapes" 1 \
  "$(printf '%s\n' "$err" | grep -cF 'no\x1b]0;pwned\x07\x1b[31m.db')"
