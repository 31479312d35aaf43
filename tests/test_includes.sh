#!/usr/bin/env bash
# No include cycles among common/'s modules: a module (x.h with its x.c,
# and x_internal.h, its private header) depends on the modules whose
# headers its files include; that graph has no cycle (util <->
# atomic_output and sqlite_setup <-> input_check had one), and no module
# of common/ includes a converter's header.
# Known, and the one left: export <-> export_split (export_split.h takes
# export.h's option and sink types, export.c runs the split); listed here
# so that any other cycle fails.
KNOWN="export -> export_split -> export"
source "$(dirname "$0")/lib.sh"

cycles=$($PY - "$ROOT/common" <<'EOF'
import os, re, sys
root = sys.argv[1]
def module(name):
    return name[:-len("_internal")] if name.endswith("_internal") else name
mods = {module(f[:-2]) for f in os.listdir(root) if f.endswith(('.c', '.h'))}
dep = {m: set() for m in mods}
for f in os.listdir(root):
    if not f.endswith(('.c', '.h')):
        continue
    m = module(f[:-2])
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)\.h"', open(os.path.join(root, f)).read(), re.M):
        inc = module(os.path.basename(inc))
        if inc in mods and inc != m:
            dep[m].add(inc)
# Every cycle, once: searched for from its smallest module only.
found = set()
def walk(path, seen):
    for n in sorted(dep[path[-1]]):
        if n == path[0]:
            found.add(" -> ".join(path + [n]))
        elif n not in seen and n > path[0]:
            walk(path + [n], seen | {n})
for m in sorted(mods):
    walk([m], {m})
print("\n".join(sorted(found)))
EOF
)
expect_eq "no include cycle among common/'s modules but the known one" "$KNOWN" "$cycles"
foreign=$(grep -l '#include "\(\.\./\)*converters/' "$ROOT"/common/*.[ch] 2>/dev/null)
expect_eq "common/ includes no converter's file" "" "$foreign"
