#!/usr/bin/python3
"""Writes a small seed for a SQLite-reading fuzz harness from a fixture:
the same tables, indexes and first N rows of each table (by rowid), with
512-byte pages, so that a seed stays well under the fuzzer's -max_len and
libFuzzer's mutations land on pages that matter.

  fuzz-seed-db.py IN.sqlite OUT.sqlite [N]   (N = 40)
"""
import os, shutil, sqlite3, sys, tempfile

src, out = sys.argv[1], sys.argv[2]
keep = int(sys.argv[3]) if len(sys.argv) > 3 else 40
fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)) or ".")
os.close(fd)
shutil.copyfile(src, tmp)  # the fixture itself is never written
db = sqlite3.connect(tmp)
db.execute("PRAGMA journal_mode=DELETE")
tables = [r[0] for r in db.execute(
    "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")]
for t in tables:
    q = '"' + t.replace('"', '""') + '"'
    try:
        db.execute(f"DELETE FROM {q} WHERE rowid NOT IN "
                   f"(SELECT rowid FROM {q} ORDER BY rowid LIMIT {keep})")
    except sqlite3.OperationalError:
        pass  # a WITHOUT ROWID table: kept whole
db.commit()
db.execute("PRAGMA page_size=512")
db.execute("VACUUM")
db.close()
os.replace(tmp, out)
