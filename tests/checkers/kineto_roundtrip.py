#!/usr/bin/python3
"""kineto_roundtrip.py SOURCE.json[.gz] OUTPUT.json: checks, independently
of the C code, that OUTPUT (db2json of kineto2db of SOURCE) keeps every X
event of SOURCE with its category, name, start and duration to the ns, and
every flow that had both ends. Prints one line per check: PASS/FAIL."""
import collections, gzip, json, sys
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

def flows(events, b):
    ends = collections.defaultdict(lambda: collections.Counter())
    for e in events:
        if e.get('ph') in ('s', 'f', 't'):
            ends[(e.get('cat'), str(e.get('id')))][(e['ph'], b + ns(e['ts']))] += 1
    return {k: v for k, v in ends.items()
            if any(p == 's' for p, _ in v) and any(p == 'f' for p, _ in v)}

sf, of = flows(sev, base), flows(oev, obase)
if any(e.get('ph') in ('s', 'f', 't') for e in sev):
    # flow ids may be renumbered; compare the multiset of (cat, ends)
    norm = lambda d: collections.Counter((k[0], tuple(sorted(v.items()))) for k, v in d.items())
    ok = norm(sf) == norm(of)
    print('%s: %d flows with both ends kept, at the same timestamps (%d written)' % (
        'PASS' if ok else 'FAIL', len(sf), len(of)))
else:
    # The source recorded no flows: arrows are derived from the shared
    # correlation of a launching call and the GPU work it launched.
    gpu_cats = {'kernel', 'gpu_memcpy', 'gpu_memset', 'gpu_user_annotation',
                'cuda_profiler_range', 'Kernel', 'Memcpy', 'Memset'}
    def corr(e):
        return (e.get('args') or {}).get('correlation')
    def is_gpu(e):
        a = e.get('args') or {}
        return e.get('cat') in gpu_cats or (
            'device' in a and 'stream' in a and str(e.get('pid')) == str(a['device']))
    xs = [e for e in sev if e.get('ph') == 'X' and corr(e) is not None]
    launch = {corr(e) for e in xs if not is_gpu(e)}
    gpu = {corr(e) for e in xs if is_gpu(e)}
    want = len(launch & gpu)
    ok = len(of) == want
    print('%s: no recorded flows; %d launch->GPU arrows derived from correlation (%d written)' % (
        'PASS' if ok else 'FAIL', want, len(of)))
