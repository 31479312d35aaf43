#!/usr/bin/python3
"""json_field.py FILE EXPR: evaluates a Python expression over the parsed
JSON file (bound to `d`), prints the result. Used by tests to pull one
number out of json_stats.py output or a trace.

json_field.py --serve: the same for many questions in one python3 (its
start cost more than most answers): reads FILE and EXPR as two lines,
writes the answer's lines, then a line holding only \\x1e; an error goes to
stderr and answers nothing. FILE is read afresh for each question."""
import json, sys


def answer(path, expr):
    d = json.load(open(path)) if path != '-' else json.load(sys.stdin)
    return eval(expr, {'d': d, 'sum': sum, 'len': len})


if sys.argv[1:] == ['--serve']:
    while True:
        path, expr = sys.stdin.readline(), sys.stdin.readline()
        if not expr:
            break
        try:
            sys.stdout.write(str(answer(path.rstrip('\n'), expr.rstrip('\n'))) + '\n')
        except Exception as e:
            sys.stderr.write('json_field.py: %s: %s: %r\n' % (path.rstrip('\n'), expr.rstrip('\n'), e))
        sys.stdout.write('\x1e\n')
        sys.stdout.flush()
else:
    print(answer(sys.argv[1], sys.argv[2]))
