#!/usr/bin/python3
"""Prints "FILE<TAB>ARROWS<TAB>UNBOUND<TAB>FAR_ENDS" for each trace given,
in one process (the schema is compiled once): a .json's arrows as a viewer
binds them (json_flows.py) and those with an end on no slice; a
.pftrace's flow ids started on one slice and terminated on another
(pftrace_flows.py), UNBOUND 0. FAR_ENDS: the md5 of the sorted names of
the slices the arrows end on, to compare two formats' arrows.

usage: arrow_counts.py PROTO_DIR FILE..."""
import hashlib
import sys

import json_flows
import pftrace_flows
import pftrace_load

pb = None
for path in sys.argv[2:]:
    if path.endswith(".pftrace"):
        pb = pb or pftrace_load.schema(sys.argv[1])
        arrows = [r.split("\t") for r in pftrace_flows.rows(pb, path) if r.startswith("arrow\t")]
        far = sorted(a[5] for a in arrows)
        unbound = 0
    else:
        arrows = [r.split("\t") for r in json_flows.arrows(path)]
        far = sorted(a[5] for a in arrows)
        unbound = sum(1 for a in arrows if a[2] == "-" or a[5] == "-")
    digest = hashlib.md5("\n".join(far).encode()).hexdigest()
    print("%s\t%d\t%d\t%s" % (path, len(arrows), unbound, digest))
