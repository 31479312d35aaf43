"""What the .pftrace checkers share: the classes protoc generates from the
official schema copy (never the writer's code), a trace parsed with them,
and its track events with their names resolved as the trace processor
resolves interned names (InternedData.event_names per packet sequence,
cleared by SEQ_INCREMENTAL_STATE_CLEARED)."""
import os
import subprocess
import sys
import tempfile


def schema(proto_dir):
    """The generated module perfetto_trace_pb2 of proto_dir's schema."""
    out = tempfile.mkdtemp()
    subprocess.run(["protoc", "-I", proto_dir, "--python_out", out,
                    os.path.join(proto_dir, "perfetto_trace.proto")], check=True)
    sys.path.insert(0, out)
    import perfetto_trace_pb2
    return perfetto_trace_pb2


def read(pb, path):
    trace = pb.Trace()
    with open(path, "rb") as f:
        trace.ParseFromString(f.read())
    return trace


def named_events(trace):
    """(packet, track_event, name) for each track event, in file order."""
    names = {}
    for p in trace.packet:
        seq = p.trusted_packet_sequence_id
        if p.sequence_flags & 1:  # SEQ_INCREMENTAL_STATE_CLEARED
            names[seq] = {}
        if p.HasField("interned_data"):
            for e in p.interned_data.event_names:
                names.setdefault(seq, {})[e.iid] = e.name
        if not p.HasField("track_event"):
            continue
        te = p.track_event
        yield p, te, names[seq][te.name_iid] if te.HasField("name_iid") else te.name
