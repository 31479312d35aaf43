#!/usr/bin/env bash
# The README is a guide: short, its first screen says how to build, test
# and find the tools, and every relative link of it, of docs/*.md and of
# schema/README.md resolves (files, and #anchors to a heading that makes
# that GitHub anchor: tests/checkers/check_md_links.py).
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
links() { $PY "$ROOT/tests/checkers/check_md_links.py" "$@"; }

# the checker itself finds what it claims to
mkdir -p "$TMP/d/sub"
printf '# Top\n## A heading, with `code` & more\n## Twice\n## Twice\n' >"$TMP/d/sub/t.md"
cat >"$TMP/d/ok.md" <<'EOF'
# Ok
[file](sub/t.md) [dir](sub/) [a](sub/t.md#a-heading-with-code--more)
[b](sub/t.md#twice-1) [here](#ok) [web](https://example.org/x.md)
`[not a link](missing.md)`
```
[in a fence](missing.md)
```
EOF
printf '# Bad\n[x](missing.md)\n[y](sub/t.md#twice-2)\n[z](#nowhere)\n' >"$TMP/d/bad.md"
expect_eq "link checker: good links pass, code is not read" "" "$(links "$TMP/d/ok.md")"
out=$(links "$TMP/d/bad.md")
expect_eq "link checker: a missing file, a missing anchor (2) are found" "3" \
  "$(echo "$out" | grep -c -e 'missing.md: no such file' -e 'twice-2: no heading' -e 'nowhere: no heading')"

expect_eq "docs/ holds performance.md, hub.md and testing.md" "3" \
  "$(ls docs/performance.md docs/hub.md docs/testing.md 2>/dev/null | wc -l)"
out=$(links README.md docs/*.md schema/README.md 2>&1)
expect_eq "every relative link of README.md, docs/*.md, schema/README.md resolves" "" "$out"
n=$(wc -l <README.md)
if [ "$n" -le 400 ]; then pass "README.md is $n lines (at most 400)"
else fail "README.md is $n lines (at most 400)"; fi

# the first screen: the two commands, and where the tools are
head=$(head -n 45 README.md)
for s in 'make demo' 'make check' 'build/bin' 'export PATH=$PWD/build/bin:$PATH' 'make install'; do
  if [[ "$head" == *"$s"* ]]; then pass "README's first screen names $s"
  else fail "README's first screen names $s"; fi
done

# every tool has a section of its own in the README and a man page
for d in converters/*/; do
  t=$(basename "$d")
  expect_eq "$t: a README heading and man/$t.1" "1 yes" \
    "$(grep -c "^###* $t\b" README.md) $([ -f "man/$t.1" ] && echo yes)"
done

# The README's first-screen examples and its large-trace examples run as
# written (tools by name from $PATH), on real profiles under their names.
# code_block HEADING_TEXT : the first ```sh block after the line holding it
code_block() {
  awk -v h="$1" 'index($0, h) { f = 1; next }
    f == 1 && /^```sh/ { f = 2; next }
    f == 2 && /^```/ { exit }
    f == 2 { print }' README.md
}
ex="$TMP/examples"; mkdir -p "$ex/run"
cp "$FIX/kineto/hta_alexnet_trace.json.gz" "$ex/worker0.pt.trace.json.gz"
kineto2db -q "$FIX/kineto/hta_alexnet_trace.json.gz" -o "$ex/run/rank0.db"
kineto2db -q "$FIX/kineto/hta_mi250_rocm6_2_kineto.json.gz" -o "$ex/run/rank1.db"
cp "$ex/run/rank0.db" "$ex/big.db"; cp "$ex/run/rank0.db" "$ex/trace.db"
for h in 'One example per job' '## Large traces'; do
  block=$(code_block "$h")
  expect_eq "README: a code block follows \"$h\"" "yes" "$([ -n "$block" ] && echo yes)"
  expect_ok "README's examples after \"$h\" run as one script" \
    bash -e -o pipefail -c "cd '$ex' && $block"
done
n=$(db2perfetto "$ex/big.db" --split window --window-size 500ms --count-parts)
missing=$(cd "$ex" && for f in run.db run.pftrace run.otf2/traces.otf2 merged.db \
    run.w000.pftrace run.w009.pftrace part.pftrace big.w000.pftrace \
    "big.w$(printf %03d $((n - 1))).pftrace"; do [ -s "$f" ] || echo "$f"; done)
expect_eq "README examples: every output they name is written" "" "$missing"
