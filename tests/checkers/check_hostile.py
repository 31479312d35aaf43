"""check_hostile.py: checks of outputs made from a trace whose every text
field holds hostile text (tests/tools/test_hostile_text.sh). Each prints
"ok" or one line per problem.

  html CLEAN HOSTILE     HOSTILE parses as html and has no element, and no
                         attribute on an element, that the writer's report of
                         the same trace with plain text (CLEAN) does not have
                         (an injected <img onerror> is both)
  json FILE TEXT...      FILE parses as JSON and each TEXT (a file holding
                         it) is, exactly, one of its strings (keys or values)
  csv FILE               each blank-line separated block of FILE keeps its
                         header's field count on every row
  bytes PATH TEXT...     each TEXT's exact bytes are in PATH (a file, or any
                         file under a directory: a binary trace's strings)
  text FILE...           no control byte other than newline in FILE, and no
                         C1 control (U+0080-U+009F)
"""
import csv
import html.parser
import io
import json
import sys


class Shape(html.parser.HTMLParser):
    """The elements and the (element, attribute) pairs of a page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.attrs = set(), set()

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        for name, _ in attrs:
            self.attrs.add((tag, name))

    handle_startendtag = handle_starttag


def shape(path):
    p = Shape()
    p.feed(open(path, encoding="utf-8").read())
    p.close()
    return p


def check_html(clean, hostile):
    c, h = shape(clean), shape(hostile)
    bad = [f"element <{t}> the writer does not write" for t in sorted(h.tags - c.tags)]
    bad += [f"attribute {a} on <{t}> the writer does not write" for t, a in sorted(h.attrs - c.attrs)]
    return bad


def strings(v, out):
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)
    elif isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            strings(x, out)
    return out


def check_json(path, texts):
    found = strings(json.load(open(path, encoding="utf-8")), set())
    bad = []
    for t in texts:
        want = open(t, encoding="utf-8", newline="").read()
        if want not in found:
            bad.append(f"{path}: {want!r} is not one of its strings")
    return bad


def check_csv(path):
    bad = []
    for block in open(path, encoding="utf-8", newline="").read().split("\n\n"):
        rows = list(csv.reader(io.StringIO(block)))
        if not rows:
            continue
        for i, r in enumerate(rows[1:], 2):
            if len(r) != len(rows[0]):
                bad.append(f"{path}: table {r[0] if r else '?'} row {i}: {len(r)} fields, header {len(rows[0])}")
    return bad


def check_text(paths):
    bad = []
    for path in paths:
        data = open(path, "rb").read()
        for i, b in enumerate(data):
            if (b < 0x20 and b != 0x0A) or b == 0x7F:
                bad.append(f"{path}: raw control byte 0x{b:02x} at byte {i}")
                break
        text = data.decode("utf-8", "replace")
        for i, ch in enumerate(text):
            if 0x80 <= ord(ch) <= 0x9F:
                bad.append(f"{path}: C1 control U+{ord(ch):04X} at character {i}")
                break
    return bad


def check_bytes(path, texts):
    import os
    files = [os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs] if os.path.isdir(path) else [path]
    blobs = [open(f, "rb").read() for f in files]
    bad = []
    for t in texts:
        want = open(t, "rb").read()
        if not any(want in b for b in blobs):
            bad.append(f"{path}: {want!r} not found whole")
    return bad


def main():
    what, args = sys.argv[1], sys.argv[2:]
    bad = {"html": lambda: check_html(*args), "json": lambda: check_json(args[0], args[1:]),
           "csv": lambda: [b for a in args for b in check_csv(a)],
           "bytes": lambda: check_bytes(args[0], args[1:]), "text": lambda: check_text(args)}[what]()
    print("\n".join(bad) if bad else "ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
