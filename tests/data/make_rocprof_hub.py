"""make_rocprof_hub.py DB UUID PID SEED N [T0]: writes a rocpd v3 database
shaped as rocprofv3 writes it (the schema of schema/rocpd_v3.sql, no reader
indexes, every row rocpd's views join on: node, process, thread, CPU and
GPU agents, queues, kernel symbols, strings, events) with N HIP kernel
launches and, among them, copies, allocations, HSA, RCCL, marker and
uncategorised regions. Random but reproducible from SEED. Kernels run on
two queues of one GPU, so they overlap (their union is less than their
sum); each launch's correlation id names its kernel or copy.

make_rocprof_hub.py --many DIR COUNT N: COUNT such hubs DIR/h0000.db ...,
process i with pid 1000+i, seed i, starting i*1000 ns after the first."""
import os
import random
import sqlite3
import sys

ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")
STRINGS = ["hipLaunchKernel", "HIP_RUNTIME_API", "KERNEL_DISPATCH", "hsa_signal_wait_scacquire",
           "HSA_CORE_API", "train_step", "MARKER_CORE_API", "ncclAllReduce", "RCCL_API",
           "MEMORY_COPY_HOST_TO_DEVICE", "MEMORY_COPY", "hipMemcpy", "MEMORY_ALLOCATION",
           "hipMalloc", "gc_pause", "PYTHON", "hipDeviceSynchronize"]
S = {s: i + 1 for i, s in enumerate(STRINGS)}
KERNELS = [("_Z6matmulPfS_i", "matmul(float*, float*, int)"),
           ("Cijk_Alik_Bljk_SB_MT64x64", "Cijk_Alik_Bljk_SB_MT64x64"),
           ("_Z4gemmIfEvPT_", "void gemm<float>(float*)"),
           ("_Z4gemmIdEvPT_", "void gemm<double>(double*)")]


def make(db, uuid, pid, seed, n, t0=1_000_000_000):
    sfx = "_" + uuid.replace("-", "_")
    with open(os.path.join(ROOT, "schema", "rocpd_v3.sql")) as f:
        schema = f.read()
    con = sqlite3.connect(db)
    con.execute("PRAGMA synchronous = OFF")  # a test file: no fsync per statement
    con.executescript("BEGIN;" + schema.replace("{{uuid}}", sfx).replace("{{guid}}", uuid) + "COMMIT;")
    rnd = random.Random(seed)

    def ins(table, **cols):
        cols.setdefault("guid", uuid)
        names = ", ".join(f'"{c}"' for c in cols)
        cur = con.execute(f'INSERT INTO "{table}{sfx}" ({names}) VALUES ({", ".join("?" * len(cols))})',
                          list(cols.values()))
        return cur.lastrowid

    def region(name, cat, start, dur, correlation=None):
        ev = ins("rocpd_event", category_id=S[cat], correlation_id=correlation)
        ins("rocpd_region", nid=1, pid=pid, tid=pid, start=start, end=start + dur, name_id=S[name],
            event_id=ev)

    con.execute(f'INSERT INTO "rocpd_metadata{sfx}" (tag, value) VALUES (?, ?), (?, ?), (?, ?)',
                ("schema_version", "3", "uuid", sfx, "guid", uuid))
    for s, i in S.items():
        ins("rocpd_string", id=i, string=s)
    ins("rocpd_info_node", id=1, hash=pid, machine_id=f"m{pid}", hostname=f"node{pid % 7}")
    ins("rocpd_info_process", id=pid, nid=1, pid=pid, command=f"train{pid}")
    ins("rocpd_info_thread", id=pid, nid=1, pid=pid, tid=pid, name="main")
    ins("rocpd_info_agent", id=1, nid=1, pid=pid, type="GPU", absolute_index=1, logical_index=1,
        type_index=0, name="gfx90a", product_name="AMD Instinct MI210")
    ins("rocpd_info_agent", id=2, nid=1, pid=pid, type="CPU", absolute_index=0, logical_index=0,
        type_index=0, name="cpu", product_name="AMD EPYC")
    ins("rocpd_info_queue", id=1, nid=1, pid=pid, name="queue 0")
    ins("rocpd_info_queue", id=2, nid=1, pid=pid, name="queue 1")
    for i, (k, d) in enumerate(KERNELS):
        ins("rocpd_info_kernel_symbol", id=i + 1, nid=1, pid=pid, kernel_name=k, display_name=d)

    corr = 0
    t = t0
    for i in range(n):
        corr += 1
        d = rnd.randint(300, 3000)
        region("hipLaunchKernel", "HIP_RUNTIME_API", t, d, corr)
        lat = rnd.choice([rnd.randint(1, 255), rnd.randint(256, 60000)])
        ev = ins("rocpd_event", category_id=S["KERNEL_DISPATCH"], correlation_id=corr)
        ins("rocpd_kernel_dispatch", nid=1, pid=pid, tid=pid, agent_id=1,
            kernel_id=rnd.randint(1, 4), dispatch_id=i + 1, queue_id=rnd.randint(1, 2),
            start=t + lat, end=t + lat + rnd.randint(100, 9000),
            region_name_id=S["hipLaunchKernel"], event_id=ev)
        if i % 5 == 0:
            corr += 1
            region("hipMemcpy", "HIP_RUNTIME_API", t + d + 10, 2000, corr)
            ev = ins("rocpd_event", category_id=S["MEMORY_COPY"], correlation_id=corr)
            ins("rocpd_memory_copy", nid=1, pid=pid, tid=pid, start=t + d + 500,
                end=t + d + 500 + rnd.randint(200, 4000), name_id=S["MEMORY_COPY_HOST_TO_DEVICE"],
                dst_agent_id=1, src_agent_id=2, size=rnd.randint(1, 1 << 20), queue_id=1,
                region_name_id=S["hipMemcpy"], event_id=ev)
        if i % 7 == 0:
            region("hipMalloc", "HIP_RUNTIME_API", t + d + 20, 100)
            ev = ins("rocpd_event", category_id=S["MEMORY_ALLOCATION"])
            ins("rocpd_memory_allocate", nid=1, pid=pid, tid=pid, agent_id=1, type="ALLOC",
                level="REAL", start=t + d + 30, end=t + d + 30 + rnd.randint(0, 50),
                size=rnd.randint(1, 1 << 30), event_id=ev)
        if i % 3 == 0:
            region("hsa_signal_wait_scacquire", "HSA_CORE_API", t + d + 40, rnd.randint(10, 900))
        if i % 11 == 0:
            region("ncclAllReduce", "RCCL_API", t + d + 50, rnd.randint(1000, 20000))
        if i % 13 == 0:
            region("gc_pause", "PYTHON", t + d + 60, rnd.randint(1, 99))
        if i % 10 == 0:
            region("train_step", "MARKER_CORE_API", t - 5, 10000 * 10 - 10)
        t += 10000
    region("hipDeviceSynchronize", "HIP_RUNTIME_API", t, 12345)
    con.commit()
    con.close()


if __name__ == "__main__":
    a = sys.argv[1:]
    if a and a[0] == "--many":
        out, count, n = a[1], int(a[2]), int(a[3])
        for i in range(count):
            make(os.path.join(out, f"h{i:04d}.db"), f"{i:08x}-aaaa-4bbb-8ccc-dddddddddddd", 1000 + i,
                 i, n, 1_000_000_000 + i * 1000)
    else:
        make(a[0], a[1], int(a[2]), int(a[3]), int(a[4]), int(a[5]) if len(a) > 5 else 1_000_000_000)
