"""rocpd_views.py DB... : loads hub databases the way rocpd's own Python
tools do and compares each of rocpd's data views with the physical rows it
should list.

rocpd (rocprofiler-sdk's rocpd/importer.py) ATTACHes every file, creates one
TEMP view per base table (rocpd_region, ...) as the UNION ALL of every
physical table <base>_<uuid> of every file, then runs rocprofiler-sdk's four
SQL files (tests/data/rocpd/, see PROVENANCE.md there) with {{uuid}} and {{guid}}
replaced by ''. Those views INNER JOIN process, thread, agent, queue, kernel
symbol, string and event rows by id and guid: a row whose joined rows are
missing silently drops out of them.

stdout: one line per view, "view rows/physical" (kernels, memory_copies,
memory_allocations, regions, samples, processes, threads), then for each
view that lost rows, which join lost them. Exit 0 when every view lists every row,
1 when rows are lost, 2 when rocpd's SQL cannot run on the input."""
import os
import sqlite3
import sys

SQL_DIR = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "data", "rocpd")
SQL_FILES = ["rocpd_views", "data_views", "summary_views", "marker_views"]
VIEWS = {"regions": "rocpd_region", "kernels": "rocpd_kernel_dispatch",
         "memory_copies": "rocpd_memory_copy", "memory_allocations": "rocpd_memory_allocate",
         "samples": "rocpd_sample", "processes": "rocpd_info_process",
         "threads": "rocpd_info_thread"}

MAY_REPEAT = {"processes", "threads"}

# For the explanation only: the INNER JOINs of each view in data_views.sql,
# as conditions on the physical row X (and its track T for samples).
JOINS = {
    "kernels": [
        ("agent", "rocpd_info_agent A WHERE A.id = X.agent_id AND A.guid = X.guid"),
        ("event", "rocpd_event E WHERE E.id = X.event_id AND E.guid = X.guid"),
        ("region_name string", "rocpd_string S WHERE S.id = X.region_name_id AND S.guid = X.guid"),
        ("kernel symbol", "rocpd_info_kernel_symbol S WHERE S.id = X.kernel_id AND S.guid = X.guid"),
        ("process of the queue", "rocpd_info_queue Q JOIN rocpd_info_process P ON P.id = Q.pid "
         "AND P.guid = Q.guid WHERE Q.id = X.queue_id AND Q.guid = X.guid"),
        ("thread", "rocpd_info_thread T WHERE T.id = X.tid AND T.guid = X.guid"),
    ],
    "memory_copies": [
        ("name string", "rocpd_string S WHERE S.id = X.name_id AND S.guid = X.guid"),
        ("dst agent", "rocpd_info_agent A WHERE A.id = X.dst_agent_id AND A.guid = X.guid"),
        ("src agent", "rocpd_info_agent A WHERE A.id = X.src_agent_id AND A.guid = X.guid"),
        ("event", "rocpd_event E WHERE E.id = X.event_id AND E.guid = X.guid"),
        ("process", "rocpd_info_process P WHERE P.id = X.pid AND P.guid = X.guid"),
        ("thread", "rocpd_info_thread T WHERE T.id = X.tid AND T.guid = X.guid"),
    ],
    "memory_allocations": [
        ("event", "rocpd_event E WHERE E.id = X.event_id AND E.guid = X.guid"),
        ("process", "rocpd_info_process P WHERE P.id = X.pid AND P.guid = X.guid"),
        ("thread", "rocpd_info_thread T WHERE T.id = X.tid"),
    ],
    "regions": [
        ("event", "rocpd_event E WHERE E.id = X.event_id AND E.guid = X.guid"),
        ("name string", "rocpd_string S WHERE S.id = X.name_id AND S.guid = X.guid"),
        ("process", "rocpd_info_process P WHERE P.id = X.pid AND P.guid = X.guid"),
        ("thread", "rocpd_info_thread T WHERE T.id = X.tid AND T.guid = X.guid"),
    ],
    "processes": [
        ("node", "rocpd_info_node N WHERE N.id = X.nid AND N.guid = X.guid"),
    ],
    "threads": [
        ("process", "rocpd_info_process P WHERE P.id = X.pid"),
        ("node", "rocpd_info_node N WHERE N.id = X.nid AND N.guid = X.guid"),
    ],
    "samples": [
        ("track", "rocpd_track T WHERE T.id = X.track_id AND T.guid = X.guid"),
        ("event", "rocpd_event E WHERE E.id = X.event_id AND E.guid = X.guid"),
        ("process of the track", "rocpd_track T JOIN rocpd_info_process P ON P.id = T.pid "
         "AND P.guid = T.guid WHERE T.id = X.track_id AND T.guid = X.guid"),
        ("thread of the track", "rocpd_track T JOIN rocpd_info_thread TH ON TH.id = T.tid "
         "AND TH.guid = T.guid WHERE T.id = X.track_id AND T.guid = X.guid"),
    ],
}


def load(paths):
    """Steps 1-3 of rocpd's importer; returns the connection."""
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
    for f in SQL_FILES:
        with open(os.path.join(SQL_DIR, f + ".sql")) as fh:
            sql = fh.read().replace("{{uuid}}", "").replace("{{guid}}", "")
        # The inputs are attached read-only: the views live in TEMP, as rocpd's.
        con.executescript(sql.replace("CREATE VIEW", "CREATE TEMPORARY VIEW"))
    return con, tables


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        con, tables = load(argv)
        count = lambda sql: con.execute(sql).fetchone()[0]
        lost = 0
        for view, table in VIEWS.items():
            phys = count(f"SELECT count(*) FROM {table}") if table in tables else 0
            rows = count(f"SELECT count(*) FROM {view}")
            print(f"{view} {rows}/{phys}")
            why = []
            for what, cond in JOINS[view]:
                n = count(f"SELECT count(*) FROM {table} X WHERE NOT EXISTS (SELECT 1 FROM {cond})")
                if n:
                    why.append(f"  {view}: {n} rows of {table} have no {what}")
            # processes/threads join the process without its guid: with
            # several files whose pids repeat, a row shows more than once,
            # which loses nothing.
            if rows == phys or (view in MAY_REPEAT and rows > phys and not why):
                continue
            lost += 1
            print("\n".join(why))
        # Views that only read: they must run (rocpd's summaries).
        for view in ["top_kernels", "top", "busy", "region_args"]:
            count(f"SELECT count(*) FROM {view}")
    except (sqlite3.Error, OSError) as e:
        print(f"{' '.join(argv)}: rocpd's SQL failed: {e}", file=sys.stderr)
        return 2
    return 1 if lost else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
