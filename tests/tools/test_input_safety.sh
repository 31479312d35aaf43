#!/usr/bin/env bash
# Never run the input, never change it: a hub carrying triggers and views
# that would write or blow up is read as its physical tables only, through
# every exporter; the input is byte-identical afterwards. WAL-mode inputs
# are read in a read-only directory and no -wal/-shm appears beside any
# input. (tests/unit/unit_input_db.c checks the connection settings themselves.)
source "$(dirname "$0")/lib.sh"
GEN="$ROOT/$BUILD/bench/gen_hub"
EXPORTERS="db2json db2perfetto"
sha() { sha256sum "$1" | cut -d' ' -f1; }
# sidecars DIR: the -wal/-shm/-journal files in DIR
sidecars() { (cd "$1" && ls -A | grep -E -- '-(wal|shm|journal)$' | paste -sd' '); }

# --- a hostile hub --------------------------------------------------------
"$GEN" "$TMP/clean.db" 400 2 >/dev/null || fail "gen_hub"
cp "$TMP/clean.db" "$TMP/hostile.db"
sfx=$(q "$TMP/clean.db" "SELECT value FROM rocpd_metadata WHERE tag='uuid'")
q "$TMP/hostile.db" "
CREATE TABLE pwned(what TEXT);
-- Triggers that would write on any change to the tables the reader reads.
CREATE TRIGGER t_str AFTER INSERT ON rocpd_string$sfx BEGIN INSERT INTO pwned VALUES ('string'); END;
CREATE TRIGGER t_reg BEFORE UPDATE ON rocpd_region$sfx BEGIN INSERT INTO pwned VALUES ('region'); END;
CREATE TRIGGER t_del AFTER DELETE ON rocpd_event$sfx BEGIN DELETE FROM rocpd_region$sfx; END;
-- rocpd's unsuffixed views replaced by ones that hide every row.
DROP VIEW rocpd_region; CREATE VIEW rocpd_region AS SELECT * FROM rocpd_region$sfx WHERE 0;
DROP VIEW rocpd_kernel_dispatch;
CREATE VIEW rocpd_kernel_dispatch AS SELECT * FROM rocpd_kernel_dispatch$sfx WHERE 0;
-- A physical table the reader reads replaced by a view that would load
-- code and allocate 2 GB per row.
DROP VIEW rocpd_sample; DROP TABLE rocpd_sample$sfx;
CREATE VIEW rocpd_sample$sfx AS SELECT load_extension('/nonexistent/evil') AS id,
  randomblob(2000000000) AS guid, 0 AS track_id, 0 AS timestamp, 0 AS event_id, '{}' AS extdata;
CREATE VIEW rocpd_sample AS SELECT * FROM rocpd_sample$sfx;"
q "$TMP/clean.db" "DROP TABLE rocpd_sample$sfx; DROP VIEW rocpd_sample;"
before=$(sha "$TMP/hostile.db")
for tool in $EXPORTERS; do
  ext=$([ $tool = db2json ] && echo json || echo pftrace)
  expect_ok "$tool: reads the hostile hub" $tool -q "$TMP/hostile.db" -o "$TMP/h.$ext"
  $tool -q "$TMP/clean.db" -o "$TMP/c.$ext" || fail "$tool: clean hub"
  expect_eq "$tool: output equals the same hub without triggers and views" \
    "$(sha "$TMP/c.$ext")" "$(sha "$TMP/h.$ext")"
  expect_eq "$tool: every region and kernel exported (the hiding views unused)" "800" \
    "$(case $ext in json) $PY -c 'import json,sys; print(sum(e.get("ph")=="X" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$TMP/h.json" ;;
       *) check_trace pftrace-check "$TMP/h.pftrace" | $PY -c 'import json,sys; print(json.load(sys.stdin)["slices"])' ;; esac)"
  expect_eq "$tool: the input is byte-identical" "$before" "$(sha "$TMP/hostile.db")"
done
expect_eq "no trigger fired" "0" "$(q "$TMP/hostile.db" "SELECT count(*) FROM pwned")"
expect_eq "no file appeared beside the input" "" "$(sidecars "$TMP")"

# --- WAL-mode inputs --------------------------------------------------------
# as_other CMD...: runs CMD as a user who cannot write the read-only
# directories below (root ignores permissions, so root runs it as nobody).
chmod 755 "$TMP"
as_other() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid=65534 --regid=65534 --clear-groups "$@"
  else "$@"; fi
}
mkdir -p "$TMP/out" && chmod 777 "$TMP/out"
"$GEN" "$TMP/plain.db" 300 2 >/dev/null
db2json -q "$TMP/plain.db" -o "$TMP/plain.json"

# A WAL-mode hub cleanly closed (as rocpd's merged files are): no -wal.
mkdir -p "$TMP/ro" "$TMP/rw"
for d in ro rw; do
  cp "$TMP/plain.db" "$TMP/$d/wal.db"
  expect_eq "$d: hub switched to WAL mode" "wal" "$(q "$TMP/$d/wal.db" "PRAGMA journal_mode=WAL")"
  chmod 644 "$TMP/$d/wal.db"
done
chmod 555 "$TMP/ro"
ro_before=$(sha "$TMP/ro/wal.db")
if as_other touch "$TMP/ro/probe" 2>/dev/null; then fail "read-only directory is writable"; rm -f "$TMP/ro/probe"
else pass "the read-only directory cannot be written"; fi
for tool in $EXPORTERS; do
  expect_ok "ro: $tool reads a WAL hub in a read-only directory" \
    as_other $tool -q "$TMP/ro/wal.db" -o "$TMP/out/ro.$tool"
  expect_ok "rw: $tool reads a WAL hub" $tool -q "$TMP/rw/wal.db" -o "$TMP/out/rw.$tool"
done
expect_eq "ro: same JSON as the rollback-journal hub" "$(sha "$TMP/plain.json")" "$(sha "$TMP/out/ro.db2json")"
expect_eq "ro: no -wal/-shm beside the input" "" "$(sidecars "$TMP/ro")"
expect_eq "rw: no -wal/-shm beside the input" "" "$(sidecars "$TMP/rw")"
expect_eq "ro: input byte-identical" "$ro_before" "$(sha "$TMP/ro/wal.db")"

# A WAL-mode hub with a live -wal (a crashed writer): its rows are read, the
# -shm SQLite needs is removed afterwards; in a read-only directory SQLite
# cannot read it: a clear error naming the file.
mkdir -p "$TMP/live" "$TMP/liro"
$PY - "$TMP/plain.db" "$TMP/live/h.db" <<'EOF' || fail "making a live-WAL hub"
import shutil, sqlite3, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copy(src, dst)
c = sqlite3.connect(dst)
c.execute("PRAGMA journal_mode=WAL")
c.execute("PRAGMA wal_autocheckpoint=0")
sfx = c.execute("SELECT value FROM rocpd_metadata WHERE tag='uuid'").fetchone()[0]
# 100 more regions exist only in the -wal: copies shifted 1 s later.
c.execute("INSERT INTO rocpd_region%s(nid, pid, tid, start, \"end\", name_id, event_id, extdata) "
          "SELECT nid, pid, tid, start + 1000000000, \"end\" + 1000000000, name_id, event_id, extdata "
          "FROM rocpd_region%s ORDER BY id LIMIT 100" % (sfx, sfx))
c.commit()
shutil.copy(dst, dst + ".snap")
shutil.copy(dst + "-wal", dst + ".snap-wal")
c.close()
EOF
mv "$TMP/live/h.db.snap" "$TMP/live/h.db"; mv "$TMP/live/h.db.snap-wal" "$TMP/live/h.db-wal"
rm -f "$TMP/live/h.db-shm"
cp "$TMP/live/h.db" "$TMP/live/h.db-wal" "$TMP/liro/"
chmod 644 "$TMP"/live/* "$TMP"/liro/*; chmod 555 "$TMP/liro"
wal_before=$(sha "$TMP/live/h.db-wal")
expect_eq "live: the -wal holds rows" "1" "$(test -s "$TMP/live/h.db-wal" && echo 1)"
expect_ok "live: db2json reads through the -wal" db2json -q "$TMP/live/h.db" -o "$TMP/out/live.json"
expect_eq "live: the 100 regions only in the -wal are exported" "400" \
  "$($PY -c 'import json,sys; print(sum(e.get("ph")=="X" and e.get("cat")!="kernel" for e in json.load(open(sys.argv[1]))["traceEvents"]))' "$TMP/out/live.json")"
expect_eq "live: no -shm left, the -wal unchanged" "h.db-wal $wal_before" \
  "$(sidecars "$TMP/live") $(sha "$TMP/live/h.db-wal")"
expect_fail "live, read-only directory: refused, naming the file" "liro/h\.db: WAL-mode database with a non-empty" \
  as_other db2json -q "$TMP/liro/h.db" -o "$TMP/out/liro.json"
expect_eq "live, read-only directory: nothing written" "h.db-wal" "$(sidecars "$TMP/liro")"

# dbmerge attaches its inputs the same way: a WAL hub in a read-only
# directory merges with no -wal/-shm beside it; a live -wal is read in a
# writable one (its -shm removed) and refused in a read-only one.
"$GEN" "$TMP/out/other.db" 50 2 >/dev/null && chmod 644 "$TMP/out/other.db"
regions() { q "$1" "SELECT count(*) FROM rocpd_region$2"; }
uuid_of() { q "$1" "SELECT value FROM rocpd_metadata WHERE tag='uuid'"; }
expect_ok "ro: dbmerge merges a WAL hub in a read-only directory" \
  as_other dbmerge -q "$TMP/ro/wal.db" "$TMP/out/other.db" -o "$TMP/out/m-ro.db"
expect_eq "ro: dbmerge: every region of the WAL hub merged" "$(regions "$TMP/plain.db" "$(uuid_of "$TMP/plain.db")")" \
  "$(regions "$TMP/out/m-ro.db" "$(uuid_of "$TMP/plain.db")")"
expect_eq "ro: dbmerge: no -wal/-shm beside the input" "" "$(sidecars "$TMP/ro")"
expect_eq "ro: dbmerge: input byte-identical" "$ro_before" "$(sha "$TMP/ro/wal.db")"
expect_ok "live: dbmerge reads through the -wal" dbmerge -q "$TMP/live/h.db" "$TMP/out/other.db" -o "$TMP/out/m-live.db"
expect_eq "live: dbmerge: the 100 regions only in the -wal are merged" "400" \
  "$(regions "$TMP/out/m-live.db" "$(uuid_of "$TMP/plain.db")")"
expect_eq "live: dbmerge: no -shm left, the -wal unchanged" "h.db-wal $wal_before" \
  "$(sidecars "$TMP/live") $(sha "$TMP/live/h.db-wal")"
expect_fail "live, read-only directory: dbmerge refuses, naming the file" "liro/h\.db: WAL-mode database with a non-empty" \
  as_other dbmerge -q "$TMP/liro/h.db" "$TMP/out/other.db" -o "$TMP/out/m-liro.db"
expect_eq "live, read-only directory: dbmerge wrote nothing beside it, no output" "h.db-wal" \
  "$(sidecars "$TMP/liro")$(ls "$TMP/out" | grep -c m-liro | sed 's/^0$//')"

# Importers of SQLite exports (common/sources/source_db.c) open inputs the same way.
nsys=$(ls "$FIX"/nsys/*.sqlite | head -1)
cp "$nsys" "$TMP/ro2.sqlite" 2>/dev/null; mkdir -p "$TMP/ro2"; mv "$TMP/ro2.sqlite" "$TMP/ro2/n.sqlite"
q "$TMP/ro2/n.sqlite" "PRAGMA journal_mode=WAL" >/dev/null
chmod 644 "$TMP/ro2/n.sqlite"; chmod 555 "$TMP/ro2"
expect_ok "nsys2db reads a WAL-mode export in a read-only directory" \
  as_other nsys2db -q "$TMP/ro2/n.sqlite" -o "$TMP/out/n.db"
expect_eq "nsys2db: no -wal/-shm beside the export" "" "$(sidecars "$TMP/ro2")"
chmod 755 "$TMP/ro" "$TMP/liro" "$TMP/ro2"
