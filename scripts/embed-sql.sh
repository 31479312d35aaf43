#!/bin/sh
# Turns the schema SQL files into C string constants (hub_schema_sql,
# hub_index_sql) so every binary carries its schema.
set -eu
emit() {
  printf 'const char %s[] =\n' "$1"
  sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/  "/' -e 's/$/\\n"/' "$2"
  printf '  ;\n'
}
echo '/* Generated from the schema/ SQL files by scripts/embed-sql.sh. Do not edit.'
echo ' * Built by make, never committed, like every generated source: a committed'
echo ' * copy could drift from the schema it comes from (docs/hub.md). */'
echo '#include "hub/hub_schema.h"'
emit hub_schema_sql "$1"
emit hub_index_sql "$2"
