"""check_summary_html.py: checks of db2summary's html report, each printing
"ok" or what is wrong (one line per problem).

  structure HTML        parses as html (every element closed in order), every
                        <svg> is well-formed XML, no external URL, no resource
                        fetched
  same HTML JSON        every figure of the html equals the json's: each table
                        (same id, pid, columns, rows and exact cells), the
                        overview numbers, the bar charts' values, the busy bins
                        of the activity strips (bars: exact; heat rows: the
                        colour level of each bin)
  name HTML NAME        NAME (a file holding it) is escaped: never raw in the
                        page, whole in a title, cut with an ellipsis where shown
  png PNG BG COLOR...   the screenshot: its size, the share of pixels that are
                        not the page background BG, the share that is white,
                        the number of distinct colours, then for each #rrggbb
                        COLOR the number of pixels of exactly that colour
"""
import collections
import html
import html.parser
import itertools
import json
import math
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


class Page(html.parser.HTMLParser):
    """The document's tables, overview numbers and chart marks, and its
    element nesting problems."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.problems = [], []
        self.tables = []  # {"id", "pid", "cols", "rows"}
        self.keys = {}
        self.charts = []  # {"chart", "col", "mode", "marks"}
        self.table = self.row = self.cell = None
        self.text = []
        self.chart = None
        self.strip = None
        self.in_svg_text = False
        self.svg_texts = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag not in VOID:
            self.stack.append(tag)
        for k in ("src", "href", "action", "poster", "data", "xlink:href"):
            if k in a and a[k] is not None and not a[k].startswith("#"):
                self.problems.append(f"{tag} {k}={a[k]!r}: an external reference")
        if tag == "table" and "data-table" in a:
            self.table = {"id": a["data-table"], "pid": a.get("data-pid"), "cols": [], "rows": []}
            self.tables.append(self.table)
        elif tag == "th" and self.table is not None:
            self.table["cols"].append(a.get("data-col"))
        elif tag == "tr" and self.table is not None:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = a
            self.text = []
        elif "data-k" in a:
            self.keys[a["data-k"]] = a.get("data-v")
        if tag == "svg" and "data-chart" in a:
            self.chart = {"chart": a["data-chart"], "col": a.get("data-col"), "mode": a.get("data-mode"),
                          "marks": [], "strips": []}
            self.charts.append(self.chart)
        elif self.chart is not None:
            if (tag == "g" and "data-row" in a) or (tag == "rect" and a.get("class") == "row"):
                self.strip = {"bars": {}, "levels": {}}
                self.chart["strips"].append(self.strip)
            elif tag == "rect" and "data-i" in a and self.strip is not None:
                self.strip["bars"][int(a["data-i"])] = a["data-v"]
            elif tag == "path" and re.fullmatch(r"h\d+", a.get("class", "")):
                # heat: "M<bin> <row>h<bins>" runs of one level
                for b, row, n in re.findall(r"M(\d+) (\d+)h(\d+)", a["d"]):
                    levels = self.chart["strips"][int(row)]["levels"]
                    for i in range(int(b), int(b) + int(n)):
                        if i in levels:
                            self.problems.append(f"heat row {row} bin {i} drawn twice")
                        levels[i] = int(a["class"][1:])
            elif tag == "rect" and "data-v" in a:
                self.chart["marks"].append(a["data-v"])
        if tag == "text" and self.chart is not None:
            self.in_svg_text = True
            self.svg_texts.append("")

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.stack[-1] if self.stack else '-'}>"
                                 f" at line {self.getpos()[0]}")
            if tag in self.stack:
                while self.stack.pop() != tag:
                    pass
            return
        self.stack.pop()
        if tag == "td" and self.row is not None and self.cell is not None:
            a = self.cell
            v = a["data-v"] if "data-v" in a else a["title"] if "title" in a else "".join(self.text)
            self.row.append(v)
            self.cell = None
        elif tag == "tr" and self.table is not None and self.row is not None:
            if self.row and not (len(self.row) == 1 and self.row[0] == "none"):
                self.table["rows"].append(self.row)
            self.row = None
        elif tag == "table":
            self.table = None
        elif tag == "svg":
            self.chart = None
        elif tag == "g" and self.strip is not None and self.chart is not None:
            pass
        elif tag == "text":
            self.in_svg_text = False

    def handle_data(self, data):
        if self.cell is not None:
            self.text.append(data)
        if self.in_svg_text:
            self.svg_texts[-1] += data


def load(path):
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    p = Page()
    p.feed(doc)
    p.close()
    if p.stack:
        p.problems.append(f"unclosed at the end: {p.stack}")
    return doc, p


def structure(path):
    doc, p = load(path)
    bad = list(p.problems)
    if not doc.startswith("<!DOCTYPE html>"):
        bad.append("no <!DOCTYPE html>")
    svgs = re.findall(r"<svg\b.*?</svg>", doc, re.S)
    for i, s in enumerate(svgs):
        try:
            ET.fromstring(s)
        except ET.ParseError as e:
            bad.append(f"svg {i}: not well-formed XML: {e}")
    for pat, what in ((r"://", "a URL"), (r"url\(", "a CSS url()"), (r"@import", "a CSS @import"),
                      (r"<(?:link|iframe|object|embed|img)\b", "an element that loads a resource")):
        for m in re.finditer(pat, doc):
            bad.append(f"{what} at offset {m.start()}: {doc[max(0, m.start() - 40):m.start() + 40]!r}")
            break
    if "<style>" not in doc or "<svg" not in doc and "No GPU work" not in doc:
        bad.append("no inline style or svg")
    return bad, len(svgs)


def json_tables(path):
    with open(path) as f:
        d = json.load(f, parse_float=str, parse_int=str)
    return d


def cell_str(v):
    if v is None:
        return ""
    if isinstance(v, list):
        return v
    return str(v)


def same(html_path, json_path):
    _, p = load(html_path)
    d = json_tables(json_path)
    bad = list(p.problems)
    # overview numbers
    for k in ("events", "databases", "processes", "hosts", "devices", "span_start_ns", "span_end_ns",
              "bin_start_ns", "bin_ns", "bins"):
        if p.keys.get(k) != str(d[k]):
            bad.append(f"overview {k}: html {p.keys.get(k)!r}, json {d[k]!r}")
    span = int(d["span_end_ns"]) - int(d["span_start_ns"])
    if p.keys.get("span_ns") != str(span):
        bad.append(f"overview span: html {p.keys.get('span_ns')!r}, json {span}")
    # tables, in order of (id, pid)
    hts = {}
    for t in p.tables:
        hts.setdefault((t["id"], t["pid"]), []).append(t)
    seen = set()
    for jt in d["tables"]:
        key = (jt["table"], jt.get("pid"))
        if key in seen:
            continue
        seen.add(key)
        jts = [t for t in d["tables"] if (t["table"], t.get("pid")) == key]
        got = hts.get(key, [])
        if key == ("gpu_activity", None) and not got:
            # drawn as strips (their bins compared below); its other cells are gpu_busy's
            busy = [t for t in d["tables"] if t["table"] == "gpu_busy"][0]["rows"]
            for i, (a, b) in enumerate(zip(jts[0]["rows"], busy)):
                for c in ("pid", "busy_ns", "agent"):
                    if a[c] != b[c]:
                        bad.append(f"gpu_activity row {i} {c}: {a[c]} but gpu_busy {b[c]}")
            continue
        if len(got) != len(jts):
            bad.append(f"table {key}: {len(got)} in the html, {len(jts)} in json")
            continue
        for ht, jt2 in zip(got, jts):
            rows = jt2["rows"]
            if len(ht["rows"]) != len(rows):
                bad.append(f"table {key}: {len(ht['rows'])} rows in the html, {len(rows)} in json")
                continue
            for i, (hr, jr) in enumerate(zip(ht["rows"], rows)):
                hd = dict(zip(ht["cols"], hr))
                for c, v in jr.items():
                    if isinstance(v, list):
                        continue  # bins: compared with the charts below
                    if c not in hd:
                        bad.append(f"table {key} row {i}: no column {c} in the html")
                    elif hd[c] != cell_str(v):
                        bad.append(f"table {key} row {i} {c}: html {hd[c][:80]!r}, json {cell_str(v)[:80]!r}")
                extra = set(hd) - set(jr)
                if extra:
                    bad.append(f"table {key}: html columns not in json: {sorted(extra)}")
    for key in hts:
        if key not in seen:
            bad.append(f"table {key} in the html only")
    # charts: each drawn value is the json's
    jbyid = {}
    for t in d["tables"]:
        if t.get("pid") is None:
            jbyid.setdefault(t["table"], t)
    checked = 0
    drawn_lat = []
    for ch in p.charts:
        jt = jbyid.get(ch["chart"])
        if ch["chart"] in ("gpu_activity", "processes") and ch["mode"]:
            rows = jt["rows"] if jt else []
            if len(ch["strips"]) != len(rows):
                bad.append(f"chart {ch['chart']}: {len(ch['strips'])} strips, {len(rows)} json rows")
                continue
            for i, (st, jr) in enumerate(zip(ch["strips"], rows)):
                bins = jr["bins"]
                for b, v in enumerate(bins):
                    v = str(v)
                    if ch["mode"] == "bars":
                        drawn = st["bars"].get(b, "0")
                        if float(v) == 0 and drawn == "0":
                            continue
                        if drawn != v:
                            bad.append(f"chart {ch['chart']} strip {i} bin {b}: drawn {drawn}, json {v}")
                    else:
                        want = min(10, math.ceil(float(v) / 10))
                        if st["levels"].get(b, 0) != want:
                            bad.append(f"heat {ch['chart']} row {i} bin {b}: level "
                                       f"{st['levels'].get(b, 0)}, json {v} (level {want})")
                    checked += 1
        elif ch["col"] and jt is not None:
            want = [cell_str(r[ch["col"]]) for r in jt["rows"]]
            if ch["marks"] != want:
                bad.append(f"chart {ch['chart']} {ch['col']}: drawn {ch['marks'][:5]}, json {want[:5]}")
            checked += len(want)
        elif ch["chart"] == "launch_latency_histogram":
            drawn_lat.extend(ch["marks"])
    # the latency charts, one per scope in the json's order
    want = [cell_str(r["launches"]) for t in d["tables"] if t["table"] == "launch_latency_histogram"
            for r in t["rows"]]
    if drawn_lat != want[:len(drawn_lat)]:
        bad.append(f"latency histogram: drawn {drawn_lat[:5]}, json {want[:5]}")
    checked += len(drawn_lat)
    return bad, checked


def name_check(html_path, name_path):
    doc, p = load(html_path)
    with open(name_path, encoding="utf-8") as f:
        name = f.read()
    bad = []
    if name in doc:
        bad.append("the name appears unescaped")
    esc = html.escape(name, quote=True).replace("&#x27;", "&#39;")
    if len(name) > 40 and f'title="{esc}"' not in doc:
        bad.append("no title holds the whole escaped name")
    cells = [c for t in p.tables for r in t["rows"] for c in r if c == name]
    if not cells:
        bad.append("no table cell carries the name")
    longest = max((len(t) for t in p.svg_texts), default=0)
    if longest > 200:
        bad.append(f"a chart label of {longest} characters")
    shown = re.findall(r'<td class="t"(?: title="[^"]*")?>([^<]*)</td>', doc)
    if len(name) > 200 and not any(s.endswith("\u2026") and len(html.unescape(s)) <= 200 for s in shown):
        bad.append("the long name is not cut with an ellipsis in its cell")
    return bad


def png_pixels(path):
    """The PNG's width, height and a Counter of its pixels' rgb bytes. Rows
    are unfiltered a whole row at a time where the filter allows it (Up as
    one integer addition without carries between bytes, Sub as a running
    sum per channel), and identical rows counted once: a 1280x3200
    screenshot is 4M pixels, too many for a loop over each in Python."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, typ = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise ValueError(f"unsupported PNG: depth {depth} type {ctype} interlace {interlace}")
            bpp = 3 if ctype == 2 else 4
        elif typ == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    low7 = int.from_bytes(b"\x7f" * stride, "little")
    high = int.from_bytes(b"\x80" * stride, "little")
    mod256 = (255).__and__
    prev = bytearray(stride)
    rows = collections.Counter()
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if ft == 1:
            for ch in range(bpp):
                line[ch::bpp] = bytes(map(mod256, itertools.accumulate(line[ch::bpp])))
        elif ft == 2:
            # bytewise (x + p) & 255: the low 7 bits of each byte added
            # (no carry leaves the byte), the top bit as their xor
            x, p = int.from_bytes(line, "little"), int.from_bytes(prev, "little")
            line = bytearray((((x & low7) + (p & low7)) ^ ((x ^ p) & high)).to_bytes(stride, "little"))
        elif ft == 3:
            for i in range(stride):
                line[i] = (line[i] + (((line[i - bpp] if i >= bpp else 0) + prev[i]) >> 1)) & 255
        elif ft == 4:
            for i in range(bpp):                 # no pixel to the left: the predictor is the one above
                line[i] = (line[i] + prev[i]) & 255
            for i in range(bpp, stride):
                a, b, c = line[i - bpp], prev[i], prev[i - bpp]
                pa, pb = b - c, a - c            # p - a and p - b, for p = a + b - c
                pc = abs(pa + pb)
                pa, pb = abs(pa), abs(pb)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows[bytes(line)] += 1
        prev = line
    counts = collections.Counter()
    for row, times in rows.items():
        for px, k in collections.Counter(zip(row[0::bpp], row[1::bpp], row[2::bpp])).items():
            counts[bytes(px)] += k * times
    return w, h, counts


def main():
    cmd = sys.argv[1]
    if cmd == "structure":
        bad, n = structure(sys.argv[2])
        print("\n".join(bad) if bad else f"ok {n}")
    elif cmd == "same":
        bad, n = same(sys.argv[2], sys.argv[3])
        print("\n".join(bad[:20]) if bad else f"ok {n}")
    elif cmd == "name":
        bad = name_check(sys.argv[2], sys.argv[3])
        print("\n".join(bad) if bad else "ok")
    elif cmd == "png":
        w, h, counts = png_pixels(sys.argv[2])
        total = w * h
        nbg = counts.get(bytes.fromhex(sys.argv[3].lstrip("#")), 0)
        white = counts.get(b"\xff\xff\xff", 0)
        out = [f"{w}x{h}", "%.3f" % (1 - nbg / total), "%.3f" % (white / total), str(len(counts))]
        for c in sys.argv[4:]:
            out.append(str(counts.get(bytes.fromhex(c.lstrip("#")), 0)))
        print(" ".join(out))


if __name__ == "__main__":
    main()
