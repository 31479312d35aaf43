#!/usr/bin/python3
"""Counts what a Chrome trace-event JSON file holds, independently of the
C code: events per phase and per (phase, category), clipped events, flows
with both ends, flow ends bound to no slice, X names/timestamps digest. Prints one JSON object."""
import collections, gzip, hashlib, json, sys

path = sys.argv[1]
op = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
with op(path, 'rt') as f:
    doc = json.load(f)
events = doc['traceEvents'] if isinstance(doc, dict) else doc
ph = collections.Counter(e.get('ph') for e in events)
cat = collections.Counter('%s/%s' % (e.get('ph'), e.get('cat')) for e in events
                          if e.get('ph') in ('X', 'i', 'C'))
clipped = sum(1 for e in events if e.get('ph') == 'X' and 'clipped' in e.get('args', {}))
ends = collections.defaultdict(set)
for e in events:
    if e.get('ph') in ('s', 'f', 't'):
        ends[(e.get('cat'), e.get('name'), e.get('id'))].add(e['ph'])
paired = sum(1 for v in ends.values() if 's' in v and 'f' in v)
dangling = sum(1 for v in ends.values() if not ('s' in v and 'f' in v))
# A flow end binds to a slice on its own (pid, tid) starting at its time.
starts = set((e.get('pid'), e.get('tid'), e.get('ts')) for e in events if e.get('ph') == 'X')
unanchored = sum(1 for e in events if e.get('ph') in ('s', 'f', 't')
                 and (e.get('pid'), e.get('tid'), e.get('ts')) not in starts)
print(json.dumps({'ph': ph, 'cat': cat, 'clipped': clipped, 'flows_paired': paired,
                  'flows_dangling': dangling,
                  'flows_unanchored': unanchored, 'events': len(events)}, sort_keys=True))
