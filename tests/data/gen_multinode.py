#!/usr/bin/env python3
"""gen_multinode.py OUTDIR [options]: one data-parallel training run on
several hosts, profiled one rank at a time, each host with its own clock.

  --hosts M (2)  --ranks-per-host R (2)  --steps S (20)  --seed N (1)
  --max-offset-ns X (2000000)  how far a host's wall clock may be from the
                                reference host's (Kineto); boot clocks
                                (rocprofv3) are always hours to days apart
  --max-drift-ppm P (0)         each host's clock rate error, up to P ppm
  --no-collectives              compute only: nothing to align on
  --formats kineto,rocprof      which profiles to write (both)
Recordings an alignment must refuse or survive (issue 44):
  --unrelated-host H            host H's ranks ran another run (another seed):
                                their collectives share names, not times
  --late-start H:K              host H's profiles start K steps late
  --warmup-rank R               rank R runs one extra all-reduce before step 0
  --swap-names H                host H's two collective kernel names swapped

Writes
  OUTDIR/kineto/rankNNN.json  a Kineto (PyTorch profiler) trace per rank, in
      wall-clock time (baseTimeNanoseconds, ts in µs with ns decimals), top-level
      host_name and distributedInfo; per step compute kernels on stream 7 and
      NCCL collectives on stream 20, each launched by cudaLaunchKernel with its
      ac2g flow; a collective's kernel and its record_param_comms CPU op carry
      the args PyTorch writes ("Collective name", "Process Group Name", "Seq", ...).
  OUTDIR/rocprof/rankNNN.db   the same run as rocprofv3 writes it (rocpd v3, one
      database per process, CLOCK_BOOTTIME: each host counts from its own boot):
      RCCL_API regions (ncclAllReduce, ncclAllGather), the HIP launches under them
      and the kernels, by correlation id; every GPU of the host as an agent, the
      rank's own at type_index = its local rank; RANK and WORLD_SIZE in the
      environment.
  OUTDIR/truth.json           what an alignment must find:
      {"reference_host", "ref_t0_ns": {"kineto", "rocprof"},
       "hosts": [{"host", "ranks", "kineto": {"offset_ns", "drift_ppm"},
                  "rocprof": {"offset_ns", "drift_ppm"}}],
       "collectives": {"per_rank", "min_duration_ns", "max_end_skew_ns"},
       "events_per_rank": {"kineto_kernels", "rocprof_kernels"}}

Clock model: for one instant, host h reads t_h = t_ref + offset_ns +
drift_ppm * 1e-6 * (t_ref - ref_t0_ns), t_ref being the reference host's
(rank 0's) reading, whose offset and drift are 0. Aligning host h maps t_h
back to t_ref. Ranks of one host share its clock.

Run model: every rank computes (4 kernels, each rank a little slower or
faster each step, up to about a millisecond of skew), then joins the step's
all-reduce (and every other step an all-gather): its collective kernel starts
when the rank arrives and ends, on every rank, within a few µs of the last
arrival plus the transfer time (50 µs to 2 ms). So collective ends agree
across ranks to max_end_skew_ns and starts do not. Correlation ids start at
1 on every rank, and every host uses the same pids (4000 + local rank): ids
and pids alone never tell ranks apart. Reproducible from the seed."""
import argparse
import json
import os
import random
import sqlite3

ROOT = os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..")
WALL_T0 = 1_750_000_000_000_000_000  # 2025-06-15 UTC, the run's first instant
BOOT_T0 = 6 * 86400 * 10**9  # the reference host has been up six days then
HOUR = 3600 * 10**9
COMPUTE = ["ampere_sgemm_128x64_tn", "void at::native::vectorized_elementwise_kernel<4>",
           "ampere_sgemm_64x64_nn", "void at::native::reduce_kernel<512, 1>"]
COLL = {"allreduce": ("ncclDevKernel_AllReduce_Sum_f32_RING_LL", "ncclAllReduce"),
        "all_gather": ("ncclDevKernel_AllGather_RING_LL", "ncclAllGather")}


def simulate(a, rnd):
    """True (reference wall) times of every rank's GPU work, step by step."""
    world = a.hosts * a.ranks_per_host
    speed = [rnd.uniform(0.97, 1.03) for _ in range(world)]
    steps = []
    t = WALL_T0 + 5_000_000
    seq = 0
    for s in range(a.steps):
        ranks = []
        for r in range(world):
            kernels, g = [], t + rnd.randint(20_000, 40_000)
            for name in COMPUTE:
                d = int(rnd.randint(150_000, 400_000) * speed[r] * rnd.uniform(0.98, 1.02))
                kernels.append((name, g, g + d))
                g += d + rnd.randint(2_000, 6_000)
            ranks.append({"kernels": kernels, "arrive": g})
        colls = []
        if not a.no_collectives:
            kinds = ["allreduce"] + (["all_gather"] if s % 2 else [])
            arrive = [x["arrive"] for x in ranks]
            for kind in kinds:
                transfer = rnd.randint(50_000, 2_000_000)
                last = max(arrive)
                ends = [last + transfer + rnd.randint(0, 3_000) for _ in range(world)]
                colls.append({"kind": kind, "seq": seq, "starts": list(arrive), "ends": ends,
                              "nelems": rnd.choice([1 << 20, 1 << 22, 25_000_000])})
                seq += 1
                arrive = [e + rnd.randint(3_000, 10_000) for e in ends]
            end = max(max(c["ends"]) for c in colls)
        else:
            end = max(x["arrive"] for x in ranks)
        steps.append({"start": t, "ranks": ranks, "colls": colls})
        t = end + rnd.randint(100_000, 300_000)
    return steps


def host_clocks(a, rnd):
    clocks = []
    for h in range(a.hosts):
        if h == 0:
            clocks.append({"kineto": (0, 0.0), "rocprof": (0, 0.0)})
            continue
        drift = lambda: round(rnd.uniform(-a.max_drift_ppm, a.max_drift_ppm), 3)
        wall = rnd.randint(-a.max_offset_ns, a.max_offset_ns)
        boot = rnd.choice([-1, 1]) * rnd.randint(1 * HOUR, 5 * 24 * HOUR)
        clocks.append({"kineto": (wall, drift()), "rocprof": (boot, drift())})
    return clocks


def local(t_true, base, t0, clock):
    """A host's reading at a true instant: base maps true time onto the
    reference clock, then the host's offset and drift."""
    off, ppm = clock
    ref = t_true - WALL_T0 + t0 if base else t_true
    return ref + off + round(ppm * 1e-6 * (ref - t0))


def us(t, base):
    q, r = divmod(t - base, 1000)
    return f"{q}.{r:03d}"


def write_kineto(path, a, r, host, steps, clock):
    world = a.hosts * a.ranks_per_host
    lr = r % a.ranks_per_host
    pid, tid = 4000 + lr, 4000 + lr
    at = lambda t: local(t, False, WALL_T0, clock)
    first = at(steps[0]["start"])
    base = first // 10**9 * 10**9
    ev = []

    def x(cat, name, p, th, t0, t1, args):
        ev.append('{"ph": "X", "cat": "%s", "name": %s, "pid": %d, "tid": %d, "ts": %s, "dur": %s, '
                  '"args": %s}' % (cat, json.dumps(name), p, th, us(at(t0), base),
                                   us(at(t1) - at(t0) + base, base), json.dumps(args)))

    def flow(ph, fid, t, p, th):
        extra = ', "bp": "e"' if ph == "f" else ""
        ev.append('{"ph": "%s", "id": %d, "pid": %d, "tid": %d, "ts": %s, "cat": "ac2g", "name": "ac2g"%s}'
                  % (ph, fid, p, th, us(at(t), base), extra))

    ev.append('{"name": "process_name", "ph": "M", "ts": %s, "pid": %d, "tid": 0, "args": {"name": "python3"}}'
              % (us(first, base), pid))
    ev.append('{"name": "thread_name", "ph": "M", "ts": %s, "pid": %d, "tid": %d, "args": {"name": "thread %d (python3)"}}'
              % (us(first, base), pid, tid, tid))
    corr = ext = 0
    for s, st in enumerate(steps):
        rk = st["ranks"][r]
        last = max([k[2] for k in rk["kernels"]] + [c["ends"][r] for c in st["colls"]])
        ext += 1
        x("user_annotation", f"ProfilerStep#{s}", pid, tid, st["start"], last, {"External id": ext})

        def launch(name, t_launch, t0, t1, stream, args):
            nonlocal corr, ext
            corr += 1
            ext += 1
            x("cuda_runtime", "cudaLaunchKernel", pid, tid, t_launch, t_launch + 6_000,
              {"External id": ext, "cbid": 211, "correlation": corr})
            kargs = {"External id": ext, "queued": 0, "device": lr, "context": 1, "stream": stream,
                     "correlation": corr, "registers per thread": 72, "shared memory": 0,
                     "blocks per SM": 4.0, "warps per SM": 16.0, "grid": [128, 1, 1], "block": [256, 1, 1]}
            kargs.update(args)
            x("kernel", name, lr, stream, t0, t1, kargs)
            flow("s", corr, t_launch + 1_000, pid, tid)  # from the launch...
            flow("f", corr, t0, lr, stream)  # ...to the kernel's start, on its GPU and stream, as Kineto writes it

        for name, k0, k1 in rk["kernels"]:
            launch(name, k0 - 15_000, k0, k1, 7, {})
        for c in st["colls"]:
            kernel = COLL[c["kind"]][0]
            cargs = {"Collective name": c["kind"], "dtype": "Float", "In msg nelems": c["nelems"],
                     "Out msg nelems": c["nelems"] * (world if c["kind"] == "all_gather" else 1),
                     "Group size": world, "In split size": "[]", "Out split size": "[]",
                     "Process Group Name": "0", "Process Group Description": "default_pg",
                     "Process Group Ranks": "[" + ", ".join(map(str, range(world))) + "]",
                     "Rank": r, "Seq": c["seq"]}
            t_cpu = c["starts"][r] - 40_000
            ext += 1
            x("cpu_op", "record_param_comms", pid, tid, t_cpu, t_cpu + 12_000, dict({"External id": ext}, **cargs))
            launch(kernel, t_cpu + 2_000, c["starts"][r], c["ends"][r], 20, cargs)
    props = [{"id": i, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85196873728, "computeMajor": 8,
              "computeMinor": 0, "numSms": 108} for i in range(a.ranks_per_host)]
    with open(path, "w") as f:
        f.write('{\n  "schemaVersion": 1,\n  "deviceProperties": %s,\n' % json.dumps(props))
        f.write('  "distributedInfo": {"backend": "nccl", "rank": %d, "world_size": %d},\n' % (r, world))
        f.write('  "host_name": %s,\n  "traceEvents": [\n  ' % json.dumps(host))
        f.write(",\n  ".join(ev))
        f.write('\n  ],\n  "traceName": "rank%03d.json",\n  "displayTimeUnit": "ms",\n'
                '  "baseTimeNanoseconds": %d\n}\n' % (r, base))


STRINGS = ["HIP_RUNTIME_API", "RCCL_API", "KERNEL_DISPATCH", "hipLaunchKernel", "hipExtLaunchKernel",
           "ncclAllReduce", "ncclAllGather"]


def write_rocprof(path, a, r, host, steps, clock):
    world = a.hosts * a.ranks_per_host
    lr, h = r % a.ranks_per_host, r // a.ranks_per_host
    pid = 4000 + lr
    uuid = f"{r:08x}-0000-4000-8000-{h:012x}"
    sfx = "_" + uuid.replace("-", "_")
    at = lambda t: local(t, True, BOOT_T0, clock)
    with open(os.path.join(ROOT, "schema", "rocpd_v3.sql")) as f:
        schema = f.read()
    if os.path.exists(path):
        os.remove(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA synchronous = OFF")
    con.executescript("BEGIN;" + schema.replace("{{uuid}}", sfx).replace("{{guid}}", uuid) + "COMMIT;")
    con.execute("BEGIN")

    def ins(table, **cols):
        cols.setdefault("guid", uuid)
        names = ", ".join(f'"{c}"' for c in cols)
        return con.execute(f'INSERT INTO "{table}{sfx}" ({names}) VALUES ({", ".join("?" * len(cols))})',
                           list(cols.values())).lastrowid

    names = STRINGS + COMPUTE + [k for k, _ in COLL.values()]
    S = {s: i + 1 for i, s in enumerate(names)}
    con.executemany(f'INSERT INTO "rocpd_metadata{sfx}" (tag, value) VALUES (?, ?)',
                    [("schema_version", "3"), ("uuid", sfx), ("guid", uuid)])
    for s, i in S.items():
        ins("rocpd_string", id=i, string=s)
    ins("rocpd_info_node", id=1, hash=h + 1, machine_id=f"machine-{host}", hostname=host,
        system_name="Linux", release="5.15.0")
    env = {"RANK": str(r), "LOCAL_RANK": str(lr), "WORLD_SIZE": str(world), "MASTER_ADDR": "node000"}
    t_first, t_last = at(steps[0]["start"]) - 1_000_000, at(steps[-1]["start"]) + 50_000_000
    ins("rocpd_info_process", id=1, nid=1, pid=pid, ppid=3999, init=t_first, start=t_first, fini=t_last,
        end=t_last, command="python3 train.py", environment=json.dumps(env))
    ins("rocpd_info_thread", id=1, nid=1, ppid=3999, pid=pid, tid=pid, name="python3", start=t_first,
        end=t_last)
    ins("rocpd_info_agent", id=1, nid=1, pid=pid, type="CPU", absolute_index=0, logical_index=0,
        type_index=0, name="AMD EPYC 7763", product_name="AMD EPYC 7763 64-Core Processor")
    for g in range(a.ranks_per_host):
        ins("rocpd_info_agent", id=2 + g, nid=1, pid=pid, type="GPU", absolute_index=1 + g,
            logical_index=1 + g, type_index=g, name="gfx90a", product_name="AMD Instinct MI250X")
    ins("rocpd_info_queue", id=1, nid=1, pid=pid, name="compute queue")
    ins("rocpd_info_queue", id=2, nid=1, pid=pid, name="rccl queue")
    ksym = {}
    for name in COMPUTE + [k for k, _ in COLL.values()]:
        ksym[name] = ins("rocpd_info_kernel_symbol", nid=1, pid=pid, kernel_name=name, display_name=name)

    corr = dispatch = 0

    def region(name, cat, t0, t1, c):
        ev = ins("rocpd_event", category_id=S[cat], correlation_id=c)
        ins("rocpd_region", nid=1, pid=pid, tid=1, start=at(t0), end=at(t1), name_id=S[name], event_id=ev)
        return ev

    def kernel(name, api, t_launch, t0, t1, queue):
        nonlocal corr, dispatch
        corr += 1
        dispatch += 1
        region(api, "HIP_RUNTIME_API", t_launch, t_launch + 5_000, corr)
        ev = ins("rocpd_event", category_id=S["KERNEL_DISPATCH"], correlation_id=corr)
        ins("rocpd_kernel_dispatch", nid=1, pid=pid, tid=1, agent_id=2 + lr, kernel_id=ksym[name],
            dispatch_id=dispatch, queue_id=queue, start=at(t0), end=at(t1), region_name_id=S[api],
            grid_size_x=131072, grid_size_y=1, grid_size_z=1, workgroup_size_x=256, workgroup_size_y=1,
            workgroup_size_z=1, event_id=ev)

    for st in steps:
        rk = st["ranks"][r]
        for name, k0, k1 in rk["kernels"]:
            kernel(name, "hipLaunchKernel", k0 - 15_000, k0, k1, 1)
        for c in st["colls"]:
            kname, api = COLL[c["kind"]]
            t_cpu = c["starts"][r] - 40_000
            corr += 1
            ev = region(api, "RCCL_API", t_cpu, t_cpu + 30_000, corr)
            for pos, (an, av) in enumerate([("count", c["nelems"]), ("datatype", "ncclFloat32"),
                                            ("comm", hex(0x7f0000001000 + 0x100000 * r))]):
                ins("rocpd_arg", event_id=ev, position=pos, type="", name=an, value=str(av))
            kernel(kname, "hipExtLaunchKernel", t_cpu + 10_000, c["starts"][r], c["ends"][r], 2)
    con.commit()
    con.close()


def warmed(steps, r):
    """Rank r runs one all-reduce of its own (a warm-up) 1 ms before step
    0's first kernel: the other ranks have no instance of it."""
    st = json.loads(json.dumps(steps))
    t0 = min(k[1] for k in st[0]["ranks"][r]["kernels"]) - 1_000_000
    c = {"kind": "allreduce", "seq": 999_999, "starts": [t0] * len(st[0]["ranks"]),
         "ends": [t0 + 100_000] * len(st[0]["ranks"]), "nelems": 1, "only": r}
    st[0]["colls"].insert(0, c)
    return st


def swapped(steps):
    """The two collectives' kernel names the other way round."""
    st = json.loads(json.dumps(steps))
    for x in st:
        for c in x["colls"]:
            c["kind"] = {"allreduce": "all_gather", "all_gather": "allreduce"}[c["kind"]]
    return st


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("outdir")
    p.add_argument("--hosts", type=int, default=2)
    p.add_argument("--ranks-per-host", type=int, default=2)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--max-offset-ns", type=int, default=2_000_000)
    p.add_argument("--max-drift-ppm", type=float, default=0.0)
    p.add_argument("--no-collectives", action="store_true")
    p.add_argument("--formats", default="kineto,rocprof")
    p.add_argument("--unrelated-host", type=int)
    p.add_argument("--late-start", default="")
    p.add_argument("--warmup-rank", type=int)
    p.add_argument("--swap-names", type=int)
    a = p.parse_args()
    formats = set(a.formats.split(","))
    rnd = random.Random(a.seed)
    steps = simulate(a, rnd)
    clocks = host_clocks(a, rnd)
    hosts = [f"node{h:03d}" for h in range(a.hosts)]
    world = a.hosts * a.ranks_per_host
    for fmt in sorted(formats):
        os.makedirs(os.path.join(a.outdir, fmt), exist_ok=True)
    other = simulate(a, random.Random(a.seed + 1000)) if a.unrelated_host is not None else None
    late_h, late_k = map(int, a.late_start.split(":")) if a.late_start else (-1, 0)
    for r in range(world):
        h = r // a.ranks_per_host
        st = other if h == a.unrelated_host else steps
        if h == late_h:
            st = st[late_k:]
        if r == a.warmup_rank:
            st = warmed(st, r)
        if h == a.swap_names:
            st = swapped(st)
        if "kineto" in formats:
            write_kineto(os.path.join(a.outdir, "kineto", f"rank{r:03d}.json"), a, r, hosts[h], st,
                         clocks[h]["kineto"])
        if "rocprof" in formats:
            write_rocprof(os.path.join(a.outdir, "rocprof", f"rank{r:03d}.db"), a, r, hosts[h], st,
                          clocks[h]["rocprof"])
    colls = [c for st in steps for c in st["colls"]]
    truth = {
        "reference_host": hosts[0],
        "ref_t0_ns": {"kineto": WALL_T0, "rocprof": BOOT_T0},
        "hosts": [{"host": hosts[h], "ranks": list(range(h * a.ranks_per_host, (h + 1) * a.ranks_per_host)),
                   "kineto": {"offset_ns": clocks[h]["kineto"][0], "drift_ppm": clocks[h]["kineto"][1]},
                   "rocprof": {"offset_ns": clocks[h]["rocprof"][0], "drift_ppm": clocks[h]["rocprof"][1]}}
                  for h in range(a.hosts)],
        "collectives": {
            "per_rank": len(colls),
            "min_duration_ns": min((e - s for c in colls for s, e in zip(c["starts"], c["ends"])), default=0),
            "max_end_skew_ns": max((max(c["ends"]) - min(c["ends"]) for c in colls), default=0)},
        "events_per_rank": {"kineto_kernels": len(steps) * len(COMPUTE) + len(colls),
                            "rocprof_kernels": len(steps) * len(COMPUTE) + len(colls)},
    }
    with open(os.path.join(a.outdir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
