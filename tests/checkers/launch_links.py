#!/usr/bin/python3
"""Prints the number of launch links of rocpd hubs, read with sqlite3,
not by the tools' reader: GPU work (a kernel dispatch or a memory copy)
with a correlation id, in a process that holds a call (a region) with the
same correlation id. Each is one arrow an exporter must draw, from the
call to that work: a graph launch has one per kernel it ran.

usage: launch_links.py HUB.db..."""
import sqlite3
import sys

SQL = """
WITH gpu AS (
  SELECT k.pid, e.correlation_id AS corr FROM rocpd_kernel_dispatch k
    JOIN rocpd_event e ON e.id = k.event_id
  UNION ALL
  SELECT m.pid, e.correlation_id FROM rocpd_memory_copy m
    JOIN rocpd_event e ON e.id = m.event_id),
calls AS (
  SELECT DISTINCT r.pid, e.correlation_id AS corr FROM rocpd_region r
    JOIN rocpd_event e ON e.id = r.event_id WHERE e.correlation_id IS NOT NULL)
SELECT count(*) FROM gpu WHERE corr IS NOT NULL
  AND EXISTS (SELECT 1 FROM calls c WHERE c.pid = gpu.pid AND c.corr = gpu.corr)
"""

total = 0
for path in sys.argv[1:]:
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    total += con.execute(SQL).fetchone()[0]
    con.close()
print(total)
