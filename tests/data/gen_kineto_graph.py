#!/usr/bin/env python3
"""Writes a generated Kineto trace of a graph-launch shape (no public
trace of these shapes is small enough to bundle; the real MTIA trace in
fixtures/kineto has one call binding several ops). Generated, not
recorded: the shapes follow what real PyTorch traces hold.

  --shape cuda  cudaGraphLaunch calls, each running --kernels kernels on
                two streams, all carrying the launch's correlation, with
                one ac2g "s" on the call and an "f" at each kernel (as
                Kineto writes a one-to-many link: one id, many ends);
  --shape hip   hipGraphLaunch calls whose kernels carry the correlation
                but have no ac2g flow (as Kineto on ROCm writes them),
                beside ordinary launches that have theirs.

Both have --launches ordinary cudaLaunchKernel/hipLaunchKernel calls
(one kernel, one s and one f each) around each graph launch, inside an
aten op, and process/thread metadata.

usage: gen_kineto_graph.py --shape cuda|hip [--graphs N] [--kernels K]
       [--launches L] -o FILE.json"""
import argparse
import json

ap = argparse.ArgumentParser()
ap.add_argument("--shape", choices=("cuda", "hip"), required=True)
ap.add_argument("--graphs", type=int, default=3)
ap.add_argument("--kernels", type=int, default=40)
ap.add_argument("--launches", type=int, default=4)
ap.add_argument("-o", required=True)
a = ap.parse_args()

PID, TID, GPU = 4242, 4242, 0
api = "cuda" if a.shape == "cuda" else "hip"
ev = [
    {"name": "process_name", "ph": "M", "pid": PID, "tid": 0, "args": {"name": "python3"}},
    {"name": "thread_name", "ph": "M", "pid": PID, "tid": TID, "args": {"name": "thread 1 (python3)"}},
    {"name": "process_name", "ph": "M", "pid": GPU, "tid": 0, "args": {"name": "GPU 0"}},
]
corr = 1000
t = 1_000_000.0  # µs
gpu_t = {7: t, 8: t}  # each stream's next free time


def kernel(stream, c, name, dur, start):
    ts = max(start, gpu_t[stream])
    gpu_t[stream] = ts + dur
    ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": GPU, "tid": stream,
               "ts": round(ts, 3), "dur": dur,
               "args": {"device": GPU, "stream": stream, "correlation": c}})
    return ts


def flow(ph, c, pid, tid, ts):
    e = {"ph": ph, "id": c, "pid": pid, "tid": tid, "ts": round(ts, 3), "cat": "ac2g", "name": "ac2g"}
    if ph == "f":
        e["bp"] = "e"
    ev.append(e)


for g in range(a.graphs):
    op_start = t
    for i in range(a.launches + 1):
        corr += 1
        if i == a.launches // 2:  # the graph launch
            name = api + "GraphLaunch"
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": PID, "tid": TID,
                       "ts": round(t + 1, 3), "dur": 9.0, "args": {"correlation": corr}})
            if a.shape == "cuda":
                flow("s", corr, PID, TID, t + 1)
            for k in range(a.kernels):
                ts = kernel(7 + k % 2, corr, "graph_kernel_%d" % (k % 5), 3.0, t + 15 + 0.5 * k)
                if a.shape == "cuda":
                    flow("f", corr, GPU, 7 + k % 2, ts)
            t += 12
        else:
            name = api + "LaunchKernel"
            ev.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": PID, "tid": TID,
                       "ts": round(t + 1, 3), "dur": 5.0, "args": {"correlation": corr}})
            flow("s", corr, PID, TID, t + 1)
            ts = kernel(7, corr, "eager_kernel", 4.0, t + 8)
            flow("f", corr, GPU, 7, ts)
            t += 8
    ev.append({"ph": "X", "cat": "cpu_op", "name": "aten::graph_replay", "pid": PID, "tid": TID,
               "ts": round(op_start, 3), "dur": round(t - op_start + 1, 3), "args": {}})
    t = max(t, gpu_t[7], gpu_t[8]) + 20

json.dump({"schemaVersion": 1, "deviceProperties": [], "traceEvents": ev}, open(a.o, "w"), indent=0)
