"""rocpd_query.py SQL DB... : runs SQL over hub databases loaded the way
rocpd's own Python tools load them, and prints the rows '|'-separated.

rocpd (rocprofiler-sdk's rocpd/importer.py) ATTACHes every file, creates one
TEMP view per base table (rocpd_region, ...) as the UNION ALL of every
physical table <base>_<uuid> of every file, then runs rocprofiler-sdk's four
view SQL files (tests/rocpd/, see PROVENANCE.md there) with {{uuid}} and
{{guid}} replaced by '', which builds top_kernels, kernels, busy, ...
Exit 2 when rocpd's SQL cannot run on the input."""
import os
import sqlite3
import sys

SQL_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "rocpd")


def load(paths):
    con = sqlite3.connect(":memory:")
    uuids, tables = set(), {}
    for i, p in enumerate(paths):
        con.execute(f"ATTACH DATABASE ? AS db{i}", ("file:" + os.path.abspath(p) + "?mode=ro",))
        uuids |= {r[0] for r in con.execute(f"SELECT value FROM db{i}.rocpd_metadata WHERE tag='uuid'")}
    for i, _ in enumerate(paths):
        for (name,) in con.execute(
                f"SELECT name FROM db{i}.sqlite_master WHERE type='table' AND name LIKE 'rocpd_%'"):
            for u in uuids:
                if u and name.endswith(u):
                    sels = tables.setdefault(name[: -len(u)], [])
                    sel = f'SELECT * FROM db{i}."{name}"'
                    if sel not in sels:
                        sels.append(sel)
    for base, sels in tables.items():
        con.execute(f"CREATE TEMPORARY VIEW {base} AS {' UNION ALL '.join(sels)}")
    for f in ["rocpd_views", "data_views", "summary_views", "marker_views"]:
        with open(os.path.join(SQL_DIR, f + ".sql")) as fh:
            sql = fh.read().replace("{{uuid}}", "").replace("{{guid}}", "")
        con.executescript(sql.replace("CREATE VIEW", "CREATE TEMPORARY VIEW"))
    return con


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        con = load(argv[1:])
        for row in con.execute(argv[0]):
            print("|".join("" if v is None else str(v) for v in row))
    except (sqlite3.Error, OSError) as e:
        print(f"{' '.join(argv[1:])}: rocpd's SQL failed: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
