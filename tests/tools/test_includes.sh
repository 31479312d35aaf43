#!/usr/bin/env bash
# No include cycles among common/'s modules: a module (x.h with its x.c,
# and x_internal.h, its private header) depends on the modules whose
# headers its files include; that graph has no cycle (util <->
# atomic_output, sqlite_setup <-> input_check and export <-> export_split
# had one), and no module of common/ includes a converter's header.
# And the floors of common/: base/ (no tool's vocabulary), hub/ (the hub's
# model, writer, reader), then sources/ (profilers' vocabularies) and cli/
# (the tools' shells); a file includes only its own floor or lower ones.
source "$(dirname "$0")/lib.sh"

cycles=$($PY - "$ROOT/common" <<'EOF'
import os, re, sys
root = sys.argv[1]
def module(name):
    return name[:-len("_internal")] if name.endswith("_internal") else name
files = [os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith(('.c', '.h'))]
mods = {module(os.path.basename(f)[:-2]) for f in files}
dep = {m: set() for m in mods}
for path in files:
    m = module(os.path.basename(path)[:-2])
    for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)\.h"', open(path).read(), re.M):
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
expect_eq "no include cycle among common/'s modules" "" "$cycles"
foreign=$(grep -rl '#include "\(\.\./\)*converters/' "$ROOT"/common 2>/dev/null)
expect_eq "common/ includes no converter's file" "" "$foreign"

# floors: the group a file of common/ includes from is its own or lower
upward=$($PY - "$ROOT/common" <<'EOF'
import os, re, sys
root = sys.argv[1]
floor = {"base": 0, "hub": 1, "sources": 2, "cli": 2}
for d, _, fs in sorted(os.walk(root)):
    for f in sorted(fs):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(d, f)
        mine = os.path.relpath(d, root)
        for inc in re.findall(r'^\s*#\s*include\s+"([^"/]+)/[^"]+"', open(path).read(), re.M):
            if inc in floor and inc != mine and floor[inc] >= floor.get(mine, -1):
                print(f"{os.path.relpath(path, root)} includes {inc}/")
EOF
)
expect_eq "common/'s files include only their own floor or lower ones" "" "$upward"
expect_eq "every file of common/ is in one of its groups" "" \
  "$(cd "$ROOT/common" && ls -p | grep -v '^\(base\|hub\|sources\|cli\)/$')"

# No file includes a .c file, nor renames main to include a tool's: a
# fuzz harness or a test calls what the tool's main calls, through its
# header (<tool>_import, <tool>_exporter; docs/testing.md, "Fuzzing").
included_c=$(cd "$ROOT" && grep -rlE '^\s*#\s*include\s+[<"][^">]+\.c[">]' common converters fuzz tests bench 2>/dev/null)
expect_eq "no file includes a .c file" "" "$included_c"
renamed_main=$(cd "$ROOT" && grep -rlE '^\s*#\s*define\s+main\b' common converters fuzz tests bench 2>/dev/null)
expect_eq "no file renames main" "" "$renamed_main"
