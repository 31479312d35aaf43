#!/usr/bin/env python3
"""Checks every relative link of the given Markdown files.

A link [text](target) or [text](target#anchor) must name a file or directory
that exists (relative to the linking file), and an #anchor must be produced
by a heading of the target Markdown file, as GitHub makes anchors: lower
case, punctuation but '-' and '_' removed, spaces as '-', and '-1', '-2', ...
for repeated headings. Links to other sites (scheme:...) are not checked.
Prints one line per broken link (FILE:LINE: target: why); exit 1 if any.
"""
import os
import re
import sys

FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')
CODE_SPAN = re.compile(r'(`+)(.+?)\1')
LINK = re.compile(r'!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)')
INLINE_LINK_TEXT = re.compile(r'!?\[([^\]]*)\]\([^)]*\)')


def lines_outside_fences(text):
    """(line number, line) of every line not inside a fenced code block."""
    fenced = False
    for n, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line


def github_anchor(heading):
    text = INLINE_LINK_TEXT.sub(r'\1', heading)
    text = re.sub(r'<[^>]+>', '', text).lower()
    text = ''.join(c for c in text if c.isalnum() or c in ' -_')
    return text.replace(' ', '-')


def anchors_of(path, cache={}):
    if path not in cache:
        seen = {}
        anchors = set()
        with open(path, encoding='utf-8') as f:
            for _, line in lines_outside_fences(f.read()):
                m = HEADING.match(line)
                if not m:
                    continue
                base = github_anchor(m.group(2))
                k = seen.get(base, 0)
                seen[base] = k + 1
                anchors.add(base if k == 0 else '%s-%d' % (base, k))
        cache[path] = anchors
    return cache[path]


def check(md):
    errors = []
    with open(md, encoding='utf-8') as f:
        text = f.read()
    here = os.path.dirname(md)
    for n, line in lines_outside_fences(text):
        for m in LINK.finditer(CODE_SPAN.sub('', line)):
            target = m.group(1)
            if not target or re.match(r'^[A-Za-z][A-Za-z0-9+.-]*:', target):
                continue
            path, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(here, path)) if path else md
            if not os.path.exists(dest):
                errors.append('%s:%d: %s: no such file' % (md, n, target))
                continue
            if anchor:
                if not dest.endswith('.md') or os.path.isdir(dest):
                    errors.append('%s:%d: %s: an anchor into a file that is not Markdown'
                                  % (md, n, target))
                elif anchor not in anchors_of(dest):
                    errors.append('%s:%d: %s: no heading of %s makes #%s'
                                  % (md, n, target, dest, anchor))
    return errors


def main():
    errors = []
    for md in sys.argv[1:]:
        errors += check(md)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
