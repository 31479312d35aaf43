#!/usr/bin/python3
"""Prints the CPU samples of an OTF2 archive as the tests compare them
with the profile, read with libotf2's own Python reader (python3-otf2):

  (default)  one line per CallingContextSample: its frames, leaf first,
             "leaf < caller < ...", up to the first instrumented region
             (a frame is a region of paradigm SAMPLING; db2otf2 writes a
             sample under the interval open on its thread)
  --calls    one line per CallingContextEnter whose context sits under
             frames (a call's backtrace): "region: frame < caller < ..."
  --modules  as the default, each frame "name@module" (the region's
             source file), and its address property when it has one

Usage: otf2_samples.py [--calls|--modules] ARCHIVE/traces.otf2...
(several archives, e.g. a split's parts: their lines one after the other)
"""
import sys

import otf2


def is_frame(cc):
    return cc is not None and str(cc.region.paradigm).endswith("SAMPLING")


def frames(cc, label):
    out = []
    while is_frame(cc):
        out.append(label(cc))
        cc = cc.parent
    return " < ".join(out)


def main(argv):
    mode = argv[0] if argv and argv[0].startswith("--") else ""
    for path in argv[1 if mode else 0:]:
        print_archive(mode, path)


def print_archive(mode, path):
    with otf2.reader.open(path) as tr:
        address = {}
        for p in tr.definitions.calling_context_properties:
            if p.name == "address":
                address[p.calling_context] = p.value
        if mode == "--modules":
            def label(cc):
                r = cc.region
                a = address.get(cc)
                return "%s@%s%s" % (r.name, r.source_file or "", "" if a is None else " 0x%x" % a)
        else:
            def label(cc):
                return cc.region.name
        for _, ev in tr.events:
            if mode == "--calls":
                if isinstance(ev, otf2.events.CallingContextEnter) and is_frame(ev.calling_context.parent):
                    print("%s: %s" % (ev.calling_context.region.name,
                                      frames(ev.calling_context.parent, label)))
            elif isinstance(ev, otf2.events.CallingContextSample):
                print(frames(ev.calling_context, label))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
