#!/usr/bin/python3
"""Writes ExecuTorch legacy profiler buffers (prof_result.bin) from the
documented layout (runtime/platform/profiler.h; the struct formats of
profiler/parse_profiler_results.py, little-endian):
  header "<32s7I4x" (64 B), then max_prof_entries x "<32siIQQ" (56 B),
  max_allocator_entries x "<32sQ" (40 B), max_mem_prof_entries x "<2I" (8 B).
Unused capacity slots are filled with 0xA5 bytes, which a reader must never
take for entries.

  etprof_gen.py CASE OUT.bin [SPEC.json]   a named case (see CASES); the
      generator's own values go to SPEC.json for the test to compute
      expectations from
  etprof_gen.py bench N OUT.bin            N events in blocks of 1000
      ("Execute" iterations, capacity 1024 as the runtime's default)
"""
import json, struct, sys

HDR, EV, AL, MM = "<32s7I4x", "<32siIQQ", "<32sQ", "<2I"
FILL = 0xA5


def name32(s):
    b = s.encode()
    assert len(b) <= 32
    return b + b"\0" * (32 - len(b))


def block_bytes(b):
    out = bytearray(struct.pack(HDR, name32(b["name"]), b.get("ver", 1), b["maxp"],
                                len(b["events"]) if "np" not in b else b["np"], b["maxa"],
                                len(b["allocators"]), b["maxm"], len(b["allocations"])))
    for e in b["events"]:
        out += struct.pack(EV, name32(e[0]), e[1], e[2], e[3], e[4])
    out += bytes([FILL]) * (struct.calcsize(EV) * (b["maxp"] - len(b["events"])))
    for a in b["allocators"]:
        out += struct.pack(AL, name32(a[0]), a[1])
    out += bytes([FILL]) * (struct.calcsize(AL) * (b["maxa"] - len(b["allocators"])))
    for m in b["allocations"]:
        out += struct.pack(MM, m[0], m[1])
    out += bytes([FILL]) * (struct.calcsize(MM) * (b["maxm"] - len(b["allocations"])))
    return bytes(out)


LONG = "native_call_a_32_byte_long_name!"  # exactly 32 bytes: no NUL in the file
assert len(LONG) == 32


def execute_iteration(k, base):
    """One iteration of block Execute, entries in the order they began."""
    t = base
    ev = []
    # (name, chain, instr, offset from base, duration): durations vary per iteration
    plan = [("Method::execute", -1, 0, 0, 9000 + 37 * k),
            ("OPERATOR_CALL", 0, 0, 100, 2100 + 11 * k),
            ("native_call_add.out", 0, 0, 150, 1500 + 13 * k),
            ("OPERATOR_CALL", 0, 1, 2500, 3100 + 7 * k),
            (LONG, 0, 1, 2600, 2700 + 3 * k),
            ("DELEGATE_CALL", 0, 2, 6000, 2500 + 5 * k),
            ("delegate_execute", 0, 2, 6050, 2300 + 17 * k)]
    for name, chain, instr, off, dur in plan:
        ev.append([name, chain, instr, t + off, t + off + dur])
    return ev


def main_case():
    blocks = [{"name": "default", "maxp": 4, "maxa": 4, "maxm": 6,
               "events": [["Program::load_method", -1, 0, 1000, 1900],
                          ["Method::init", -1, 0, 1100, 1800]],
               "allocators": [["method_allocator", 0], ["temp_allocator", 1]],
               "allocations": [[0, 1024], [1, 64], [0, 4096]]}]
    base = 10000
    for k in range(3):
        blocks.append({"name": "Execute", "maxp": 10, "maxa": 2, "maxm": 4,
                       "events": execute_iteration(k, base), "allocators": [],
                       "allocations": [[1, 256], [1, 512]]})
        base += 20000
        if k < 2:  # a second block name, interleaved with Execute
            blocks.append({"name": "Init", "maxp": 3, "maxa": 1, "maxm": 1,
                           "events": [["Method::init", -1, 0, base, base + 400 + 50 * k]],
                           "allocators": [["init_allocator", 7]], "allocations": [[7, 128]]})
            base += 5000
    return blocks


def unfinished_case():
    b = main_case()
    b[3]["events"][2][4] = 0  # Execute iteration 1, native_call_add.out never ended
    return b


def badcount_case():
    b = main_case()
    b[5]["events"].pop()  # Execute iteration 2 lacks its last entry
    return b


def badname_case():
    b = main_case()
    b[3]["events"][4][0] = "native_call_sub.out"
    return b


def badalloc_case():
    b = main_case()
    b[5]["allocations"][1] = [1, 999]
    return b


CASES = {"main": main_case, "unfinished": unfinished_case, "badcount": badcount_case,
         "badname": badname_case, "badalloc": badalloc_case}


def bench(n, path):
    per = 1000
    names = ["OPERATOR_CALL", "native_call_add.out", "native_call_mul.out", "Method::execute"]
    with open(path, "wb") as f:
        t = 1000
        done = 0
        while done < n:
            k = min(per, n - done)
            hdr = struct.pack(HDR, name32("Execute"), 1, 1024, k, 0, 0, 0, 0)
            body = bytearray(struct.calcsize(EV) * 1024)
            for i in range(k):
                struct.pack_into(EV, body, i * 56, name32(names[i % 4]), 0, i, t + i * 10,
                                 t + i * 10 + 7)
            if k < per:  # a short last block would fail the sanity check
                raise SystemExit("bench: N must be a multiple of %d" % per)
            f.write(hdr)
            f.write(body)
            t += per * 10 + 100
            done += k


if __name__ == "__main__":
    if sys.argv[1] == "bench":
        bench(int(sys.argv[2]), sys.argv[3])
        sys.exit(0)
    blocks = CASES[sys.argv[1]]()
    with open(sys.argv[2], "wb") as f:
        for b in blocks:
            f.write(block_bytes(b))
    if len(sys.argv) > 3:
        with open(sys.argv[3], "w") as f:
            json.dump({"blocks": blocks}, f)
