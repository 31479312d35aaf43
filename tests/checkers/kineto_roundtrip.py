#!/usr/bin/python3
"""kineto_roundtrip.py SOURCE.json[.gz] OUTPUT.json: checks, independently
of the C code, that OUTPUT (db2json of kineto2db of SOURCE) keeps every X
event of SOURCE with its category, name, start and duration to the ns, and
every flow that had both ends (an arrow per end), and no other arrow but
launch links (a call and GPU work with its correlation). Prints one line per check: PASS/FAIL."""
import collections, gzip, json, sys

import kineto_arrows
from decimal import Decimal, ROUND_HALF_UP

def load(path):
    op = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    with op(path, 'rt') as f:
        return json.load(f, parse_float=Decimal, parse_int=Decimal)

def ns(us):
    return int((Decimal(us) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))

src, out = load(sys.argv[1]), load(sys.argv[2])
sev = src['traceEvents'] if isinstance(src, dict) else src
base = int(src.get('baseTimeNanoseconds', 0)) if isinstance(src, dict) else 0
oev = out['traceEvents']
obase = int(out.get('baseTimeNanoseconds', 0))  # db2json's times are relative to it

def xkey(e, b):
    return (e.get('cat', ''), e.get('name', ''), b + ns(e['ts']), ns(e.get('dur', 0)))

want = collections.Counter(xkey(e, base) for e in sev if e.get('ph') == 'X')
got = collections.Counter(xkey(e, obase) for e in oev if e.get('ph') == 'X')
missing = want - got
extra = got - want
ok = not missing and not extra
print('%s: %d X events kept with category, name, ts and dur to the ns%s' % (
    'PASS' if ok else 'FAIL', sum(want.values()),
    '' if ok else ' (missing %d e.g. %s; extra %d e.g. %s)' % (
        sum(missing.values()), list(missing)[:2], sum(extra.values()), list(extra)[:2])))

def pairs(events, b):
    """Every arrow as (start time, end time): each "f" of a flow id with
    its "s" (one "s" with many ends is one arrow per end)."""
    ends = collections.defaultdict(lambda: {'s': [], 'f': []})
    for e in events:
        if e.get('ph') in ('s', 'f'):
            ends[(e.get('cat'), str(e.get('id')))][e['ph']].append(b + ns(e['ts']))
    return collections.Counter((s, f) for v in ends.values() if v['s'] for s in v['s'][:1] for f in v['f'])

# A launch link: a call and GPU work with its correlation (kept in the hub
# as the arrow, whether or not the source recorded it as a flow), as
# kineto_arrows.py finds them.
calls, gpu = kineto_arrows.launches(sev)
links = collections.Counter((base + calls[kineto_arrows.corr(e)], base + kineto_arrows.ns(e))
                            for e in gpu)
sp, op = pairs(sev, base), pairs(oev, obase)
if any(e.get('ph') in ('s', 'f', 't') for e in sev):
    # Every recorded arrow at its times; any other written arrow is a
    # launch link the source drew no flow for (ids may be renumbered).
    lost = sp - op
    extra = (op - sp) - links
    ok = not lost and not extra
    print('%s: %d recorded arrows kept at their times, the %d others launch links (%d written)%s' % (
        'PASS' if ok else 'FAIL', sum(sp.values()), sum((op - sp).values()), sum(op.values()),
        '' if ok else ' (lost %s, extra %s)' % (list(lost)[:2], list(extra)[:2])))
else:
    # The source recorded no flows: arrows are derived from the shared
    # correlation of a launching call and the GPU work it launched.
    ok = op == links
    print('%s: no recorded flows; %d launch->GPU arrows derived from correlation (%d written)' % (
        'PASS' if ok else 'FAIL', sum(links.values()), sum(op.values())))
