#!/usr/bin/env bash
# Rules of the code no compiler checks. Every growable array of common/,
# converters/, bench/ and fuzz/ grows through base/vec.h (TT_VEC or
# tt_grow: doubling, so n appends cost O(n)): issue 37 found about 45
# written by hand, 25 of them growing by one element per append. And
# every path a source comment names exists: a moved file leaves its old
# path in the comments that point to it.
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

# Where realloc may still be called: tt_realloc itself and tt_buf, a byte
# buffer (base/util.c); tt_grow_ (base/vec.c); db2perfetto's output
# buffer, sized to the largest packet between flushes, not an array of
# elements.
allowed='^(common/base/util\.c|common/base/vec\.c|converters/db2perfetto/db2perfetto_writer\.c):'
hand=$(grep -rn --include='*.c' --include='*.h' -E '\brealloc\(|\btt_realloc\(' common converters bench fuzz |
  grep -v -E "$allowed" | grep -v -E '^common/base/util\.h:')
expect_eq "every growable array grows through base/vec.h (no realloc of its own)" "" "$hand"

stale=$($PY - <<'PYEOF'
import glob, os, re
path = re.compile(r'\b((?:common|converters|tests|scripts|docs|bench|fuzz|fixtures|man|proto)'
                  r'/[A-Za-z0-9_.*/-]*[A-Za-z0-9_*])')
for top in ("common", "converters", "bench", "fuzz", "tests/unit"):
    for d, _, fs in sorted(os.walk(top)):
        for f in sorted(fs):
            if not f.endswith((".c", ".h")):
                continue
            p = os.path.join(d, f)
            for n, line in enumerate(open(p, errors="replace"), 1):
                for m in path.findall(line):
                    # a glob (hub_reader*.c) or a program built from m.c
                    if not glob.glob(m) and not glob.glob(m + ".c"):
                        print(f"{p}:{n}: {m}")
PYEOF
)
expect_eq "every path a source file's comment names exists" "" "$stale"
