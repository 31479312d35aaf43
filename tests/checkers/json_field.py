#!/usr/bin/python3
"""json_field.py FILE EXPR: evaluates a Python expression over the parsed
JSON file (bound to `d`), prints the result. Used by tests to pull one
number out of json_stats.py output or a trace."""
import json, sys
d = json.load(open(sys.argv[1])) if sys.argv[1] != '-' else json.load(sys.stdin)
print(eval(sys.argv[2], {'d': d, 'sum': sum, 'len': len}))
