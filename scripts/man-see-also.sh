#!/bin/sh
# Rewrites the SEE ALSO section of every man/<tool>.1 to name every other
# tool under converters/, so the pages stay consistent as tools are added.
# Run after adding a tool; tests/tools/test_newuser.sh checks the result.
set -eu
cd "$(dirname "$0")/.."
tools=$(ls converters)
for page in man/*.1; do
  self=$(basename "$page" .1)
  see=""
  for t in $tools; do
    [ "$t" = "$self" ] && continue
    see="$see.BR $t (1),\n"
  done
  see=$(printf "$see" | sed '$ s/,$//')
  awk -v see="$see" '
    /^\.SH SEE ALSO/ { print; print see; skip = 1; next }
    skip && /^\.SH/ { skip = 0 }
    !skip { print }' "$page" > "$page.tmp"
  mv "$page.tmp" "$page"
done
