#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Reads the proxy traces GSHMEM_PROXY_TRACE=<prefix> writes (<prefix>.<pe>.tsv, one per PE;
src/proxy/trace.h) and reports where the time of proxied operations goes.

    python3 tools/proxy_trace.py <prefix> [--rounds 3] [--skip 100]
    python3 tools/proxy_trace.py <prefix>.0.tsv <prefix>.1.tsv

It merges the PEs' files (their CLOCK_MONOTONIC stamps share one clock on one host: simulated
nodes), matches each operation's records across the source and the target by (source PE,
sequence number), and prints:
  1. per PE, the proxy loop: passes, time per phase of a pass, pass durations, naps, messages;
  2. per operation class (e.g. "signal add (sync)"), latency percentiles of each stage: ring
     entry -> send, the send call, the wire (send -> arrival), arrival -> apply, the apply call
     (a CUDA launch), apply -> applied, the acknowledgement's way back, completion;
  3. hops: an op applied at PE b, then b's next entry to its source (the device saw the apply
     and answered: a ping-pong's reply, a barrier's next round), split into the stages above
     plus "device" (apply call end -> the answer's entry taken by the proxy: the GPU's apply,
     the device's reaction, the entry's way to the proxy); and each class's round period;
  4. a timeline of the first --rounds rounds after --skip, every PE's records interleaved.
Only the Python standard library.
"""
import argparse
import bisect
import glob
import os
import sys
from collections import defaultdict, namedtuple

Rec = namedtuple("Rec", "t ev peer kind op flags a b dur pe")

OP_PUT, OP_GET, OP_SIGNAL = 1, 2, 3
OP_NAMES = {1: "put", 2: "get", 3: "signal", 4: "amo set", 5: "amo add", 6: "amo and", 7: "amo or",
            8: "amo xor", 9: "amo swap", 10: "amo cswap", 11: "amo fetch"}
F_HAS_SIGNAL, F_SIGNAL_ADD, F_FETCH, F_BY_REF, F_NBI, F_UNTRACKED = 0x1, 0x2, 0x10, 0x20, 0x40, 0x80
KIND_OP, KIND_ACK, KIND_REPLY = 1, 2, 3
KIND_NAMES = {KIND_OP: "op", KIND_ACK: "ack", KIND_REPLY: "reply"}
HOST_BIT = 1 << 63
PHASES = ["transport", "stager", "ring", "host", "bulk", "acks", "publish"]
HOP_WINDOW_NS = 1000000  # an answer more than 1 ms after the apply is not a reaction to it


class TraceFile:
    def __init__(self, pe, n_pes, records, counters, dropped, path):
        self.pe, self.n_pes, self.records, self.counters, self.dropped, self.path = (
            pe, n_pes, records, counters, dropped, path)


def parse(path, text=None):
    """One PE's file: its header fields, records (in file order) and counters."""
    if text is None:
        with open(path) as f:
            text = f.read()
    lines = text.splitlines()
    if not lines or not lines[0].startswith("# gshmem proxy trace v1"):
        raise ValueError("%s: not a gshmem proxy trace (first line: %r)" % (path, lines[0] if lines else ""))
    head = dict(f.split("=", 1) for f in lines[0].split("\t")[1:] if "=" in f)
    pe, n_pes = int(head.get("pe", -1)), int(head.get("n_pes", 0))
    records, counters = [], {}
    for n, line in enumerate(lines[1:], 2):
        if not line or line.startswith("t_ns"):
            continue
        if line.startswith("# counter\t"):
            _, name, value = line.split("\t")
            counters[name] = int(value)
            continue
        if line.startswith("#"):
            continue
        f = line.split("\t")
        if len(f) != 9:
            raise ValueError("%s:%d: %d fields, not 9" % (path, n, len(f)))
        records.append(Rec(int(f[0]), f[1], int(f[2]), int(f[3]), int(f[4]), int(f[5]), int(f[6]), int(f[7]),
                           int(f[8]), pe))
    return TraceFile(pe, n_pes, records, counters, int(head.get("dropped", 0)), path)


def op_class(op, flags):
    if op == OP_SIGNAL:
        s = "signal " + ("add" if flags & F_SIGNAL_ADD else "set")
        return s + (" (sync)" if flags & F_UNTRACKED else "")
    s = OP_NAMES.get(op, "op%d" % op)
    if op == OP_PUT:
        s += " by-ref" if flags & F_BY_REF else ""
        if flags & F_HAS_SIGNAL:
            s += "+signal " + ("add" if flags & F_SIGNAL_ADD else "set")
    elif flags & F_FETCH:
        s += " fetch"
    return s


def pct(values, p):
    v = sorted(values)
    if not v:
        return float("nan")
    k = (len(v) - 1) * p / 100.0
    lo = int(k)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (k - lo)


class Op:
    """One operation, its records at the source and the target."""
    __slots__ = ("src", "dst", "seq", "cls", "ring", "host", "send", "recv", "apply", "applied", "ack", "ack_in",
                 "done")

    def __init__(self, src, dst, seq, cls):
        self.src, self.dst, self.seq, self.cls = src, dst, seq, cls
        self.ring = self.host = self.send = self.recv = self.apply = self.applied = None
        self.ack = self.ack_in = self.done = None


class Analysis:
    def __init__(self, files):
        self.files = sorted(files, key=lambda f: f.pe)
        self.by_pe = {f.pe: f for f in self.files}
        self.ops = []
        self._match()

    def _match(self):
        index = defaultdict(dict)  # (pe, ev) -> key -> first record
        acks_sent = defaultdict(list)  # (target pe, source pe) -> [(t, count)]
        acks_in = defaultdict(list)  # (source pe, target pe) -> [(t, count)]
        completed = defaultdict(list)  # pe -> [(t, value)], ring
        hcompleted = defaultdict(list)
        for f in self.files:
            for r in f.records:
                if r.ev == "ring":
                    index[(r.pe, "ring")].setdefault(r.a, r)
                elif r.ev == "host":
                    index[(r.pe, "host")].setdefault(r.a, r)
                elif r.ev == "send" and r.kind == KIND_OP:
                    index[(r.pe, "send")].setdefault((r.peer, r.a), r)
                elif r.ev == "send" and r.kind == KIND_ACK:
                    acks_sent[(r.pe, r.peer)].append((r.t, r.a))
                elif r.ev == "recv" and r.kind == KIND_OP:
                    index[(r.pe, "recv")].setdefault((r.peer, r.a), r)
                elif r.ev == "recv" and r.kind == KIND_ACK:
                    acks_in[(r.pe, r.peer)].append((r.t, r.a))
                elif r.ev in ("apply", "applied") and r.kind == 0:
                    index[(r.pe, r.ev)].setdefault((r.peer, r.a), r)
                elif r.ev == "completed":
                    completed[r.pe].append((r.t, r.a))
                elif r.ev == "hcompleted":
                    hcompleted[r.pe].append((r.t, r.a))
        for lists in (acks_sent, acks_in, completed, hcompleted):
            for v in lists.values():
                v.sort()
        for f in self.files:
            for (dst, seq), send in sorted(index[(f.pe, "send")].items(), key=lambda kv: kv[1].t):
                o = Op(f.pe, dst, seq, op_class(send.op, send.flags))
                o.send = send
                host = bool(send.b & HOST_BIT)
                o.ring = None if host else index[(f.pe, "ring")].get(send.b)
                o.host = index[(f.pe, "host")].get(send.b & ~HOST_BIT) if host else None
                o.recv = index[(dst, "recv")].get((f.pe, seq))
                o.apply = index[(dst, "apply")].get((f.pe, seq))
                o.applied = index[(dst, "applied")].get((f.pe, seq))
                untracked = send.op == OP_SIGNAL and send.flags & F_UNTRACKED
                if o.applied and not untracked:
                    o.ack = _first_after(acks_sent[(dst, f.pe)], o.applied.t, seq)
                    if o.ack:
                        o.ack_in = _first_after(acks_in[(f.pe, dst)], o.ack[0], seq)
                ticket = send.b & ~HOST_BIT
                o.done = _first_after((hcompleted if host else completed)[f.pe], send.t, ticket)
                self.ops.append(o)
        self.ops.sort(key=lambda o: o.send.t)

    # ---- 1. the proxy loop ---------------------------------------------------------------
    def loop_report(self, out):
        out.write("== the proxy loop, per PE\n")
        for f in self.files:
            c = f.counters
            span = (f.records[-1].t - f.records[0].t) / 1e3 if len(f.records) > 1 else 0.0
            passes = c.get("passes", 0)
            out.write("PE %d: %d records (%d not kept) over %.0f us; %d passes, %d moved something (%.0f%%), "
                      "%d transport progress calls delivered callbacks\n"
                      % (f.pe, len(f.records), f.dropped, span, passes, c.get("passes_moved", 0),
                         100.0 * c.get("passes_moved", 0) / passes if passes else 0.0, c.get("transport_busy", 0)))
            total = sum(c.get("phase_ns." + p, 0) for p in PHASES)
            if passes and total:
                out.write("  time in a pass, by phase (mean ns / share / max ns):")
                for p in PHASES:
                    ns = c.get("phase_ns." + p, 0)
                    out.write(" %s %.0f/%.0f%%/%d" % (p, ns / passes, 100.0 * ns / total, c.get("phase_max_ns." + p, 0)))
                out.write("\n")
            hist = [c.get("pass_hist.%d" % b, 0) for b in range(16)]
            if any(hist):
                edges = ["<0.5us"] + ["<%gus" % (0.512 * (1 << b)) for b in range(1, 15)] + [">=8.4ms"]
                out.write("  pass durations: " + ", ".join("%s %d" % (e, h) for e, h in zip(edges, hist) if h) + "\n")
            naps = c.get("naps", 0)
            out.write("  naps %d (%.0f us asleep, longest %.0f us, %d ended by an fd, %d refused by arm); "
                      "naps that held up work: %d\n"
                      % (naps, c.get("nap_ns", 0) / 1e3, c.get("nap_max_ns", 0) / 1e3, c.get("nap_fd_wakeups", 0),
                         c.get("nap_refused", 0), sum(1 for r in f.records if r.ev == "nap")))
            out.write("  messages sent op/ack/reply %d/%d/%d, received %d/%d/%d; slow passes (>= 4 us) %d\n"
                      % tuple([c.get("sent." + k, 0) for k in ("op", "ack", "reply")]
                              + [c.get("received." + k, 0) for k in ("op", "ack", "reply")]
                              + [sum(1 for r in f.records if r.ev == "slowpass")]))
            slow = defaultdict(list)
            for r in f.records:
                if r.ev == "slowpass":
                    slow[PHASES[r.a] if r.a < len(PHASES) else "?"].append(r.dur / 1e3)
            for p, v in sorted(slow.items(), key=lambda kv: -len(kv[1])):
                out.write("    slowest phase %-9s %5d passes, pass p50 %.1f us, max %.1f us\n"
                          % (p, len(v), pct(v, 50), max(v)))

    # ---- 2. stages per class ---------------------------------------------------------------
    def stages(self):
        """{class: {stage: [us]}} over matched ops, stages in path order."""
        out = defaultdict(lambda: defaultdict(list))
        for o in self.ops:
            s = out[o.cls]
            first = o.ring or o.host
            if first:
                s["entry -> send"].append((o.send.t - first.t) / 1e3)
            s["send call"].append(o.send.dur / 1e3)
            if o.recv:
                s["send -> arrival (wire)"].append((o.recv.t - o.send.t) / 1e3)
            if o.recv and o.apply:
                s["arrival -> apply"].append((o.apply.t - o.recv.t) / 1e3)
            if o.apply:
                s["apply call"].append(o.apply.dur / 1e3)
            if o.apply and o.applied:
                s["apply end -> applied seen"].append((o.applied.t - o.apply.t - o.apply.dur) / 1e3)
            if o.applied and o.ack:
                s["applied -> ack sent"].append((o.ack[0] - o.applied.t) / 1e3)
            if o.ack and o.ack_in:
                s["ack wire"].append((o.ack_in[0] - o.ack[0]) / 1e3)
            if o.ack_in and o.done:
                s["ack in -> completed"].append((o.done[0] - o.ack_in[0]) / 1e3)
            if first and o.applied:
                s["entry -> applied seen (one way)"].append((o.applied.t - first.t) / 1e3)
            if first and o.done:
                s["entry -> completed"].append((o.done[0] - first.t) / 1e3)
        return out

    def stage_report(self, out):
        out.write("\n== stages per operation class (us: p10 p50 p90 p99 max, n)\n")
        for cls, st in sorted(self.stages().items(), key=lambda kv: -len(kv[1].get("send call", []))):
            out.write("%s\n" % cls)
            for name, v in st.items():
                out.write("  %-32s %8.1f %8.1f %8.1f %8.1f %8.1f  %d\n"
                          % (name, pct(v, 10), pct(v, 50), pct(v, 90), pct(v, 99), max(v), len(v)))

    # ---- 3. hops and rounds ----------------------------------------------------------------
    def hops(self):
        """[(pair, {segment: us})]: an op from a applied at b, then b's next entry to a."""
        applies = defaultdict(list)  # (b, a) -> ops from a applied at b, by apply time
        for o in self.ops:
            if o.apply:
                applies[(o.dst, o.src)].append(o)
        for v in applies.values():
            v.sort(key=lambda o: o.apply.t)
        times = {k: [o.apply.t for o in v] for k, v in applies.items()}
        result = []
        for o in self.ops:  # o: the answer, an entry of b to a
            first = o.ring or o.host
            if not first:
                continue
            key = (o.src, o.dst)
            i = bisect.bisect_left(times.get(key, []), first.t) - 1
            if i < 0:
                continue
            p = applies[key][i]  # the latest op from a applied at b before the answer
            end = p.apply.t + p.apply.dur
            if first.t - end > HOP_WINDOW_NS or first.t < end or not (p.ring or p.host) or not p.recv:
                continue
            pfirst = p.ring or p.host
            seg = {
                "source: entry -> send": (p.send.t - pfirst.t) / 1e3,
                "send call": p.send.dur / 1e3,
                "wire": (p.recv.t - p.send.t) / 1e3,
                "target: arrival -> apply": (p.apply.t - p.recv.t) / 1e3,
                "apply call": p.apply.dur / 1e3,
                "device: apply end -> answer's entry": (first.t - end) / 1e3,
                "hop: entry -> answer's entry": (first.t - pfirst.t) / 1e3,
            }
            result.append(("%s -> %s" % (p.cls, o.cls), seg))
        return result

    def rounds(self):
        """{(pe, class): [period us]}: the time between consecutive entries of one class."""
        last, out = {}, defaultdict(list)
        for o in self.ops:
            first = o.ring or o.host
            if not first:
                continue
            k = (o.src, o.cls)
            if k in last:
                out[k].append((first.t - last[k]) / 1e3)
            last[k] = first.t
        return out

    def hop_report(self, out, skip):
        out.write("\n== hops: an op applied at b, then b's next entry to its source (us: p10 p50 p90 max, n)\n")
        groups = defaultdict(lambda: defaultdict(list))
        for pair, seg in self.hops():
            for k, v in seg.items():
                groups[pair][k].append(v)
        for pair, segs in sorted(groups.items(), key=lambda kv: -len(kv[1]["wire"])):
            out.write("%s\n" % pair)
            for k, v in segs.items():
                v = v[skip:] if len(v) > skip else v
                out.write("  %-38s %8.1f %8.1f %8.1f %8.1f  %d\n" % (k, pct(v, 10), pct(v, 50), pct(v, 90), max(v),
                                                                      len(v)))
        out.write("\n== round period: consecutive entries of one class at one PE (us: p10 p50 p90, n)\n")
        for (pe, cls), v in sorted(self.rounds().items()):
            v = v[skip:] if len(v) > skip else v
            out.write("  PE %d %-28s %8.1f %8.1f %8.1f  %d\n" % (pe, cls, pct(v, 10), pct(v, 50), pct(v, 90), len(v)))

    # ---- 4. timeline -----------------------------------------------------------------------
    def timeline(self, out, rounds, skip, cls=None):
        entries = [o for o in self.ops if (o.ring or o.host) and o.src == self.files[0].pe]
        if cls is None:  # a barrier's rounds if there are any, else the most frequent class
            classes = defaultdict(int)
            for o in entries:
                classes[o.cls] += 1
            if not classes:
                return
            cls = "signal add (sync)" if "signal add (sync)" in classes else max(classes, key=classes.get)
        marks = [(o.ring or o.host).t for o in entries if o.cls == cls]
        if len(marks) <= skip:
            skip = 0
        marks = marks[skip:skip + rounds + 1]
        if not marks:
            return
        out.write("\n== timeline: rounds %d..%d of '%s' as PE %d enters them (us from each round's start)\n"
                  % (skip, skip + len(marks) - 1, cls, self.files[0].pe))
        allrec = sorted((r for f in self.files for r in f.records), key=lambda r: r.t)
        ts = [r.t for r in allrec]
        for k, start in enumerate(marks[:rounds]):
            end = marks[k + 1] if k + 1 < len(marks) else start + HOP_WINDOW_NS // 10
            out.write("-- round %d\n" % (skip + k))
            for r in allrec[bisect.bisect_left(ts, start - 2000):bisect.bisect_left(ts, end)]:
                out.write("  %+9.2f  PE %d  %s\n" % ((r.t - start) / 1e3, r.pe, describe(r)))


def _first_after(pairs, t, seq):
    """The first (t', count) with t' >= t and count > seq in `pairs`, sorted by time: cumulative
    acknowledgements and completion counts, which only grow."""
    i = bisect.bisect_left(pairs, (t, -1))
    for p in pairs[i:]:
        if p[1] > seq:
            return p
    return None


def describe(r):
    cls = op_class(r.op, r.flags)
    kind = KIND_NAMES.get(r.kind, str(r.kind))
    dur = " (%.2f us)" % (r.dur / 1e3) if r.dur else ""
    if r.ev == "ring":
        return "ring     ticket %d: %s to PE %d" % (r.a, cls, r.peer)
    if r.ev == "host":
        return "host     op %d: %s to PE %d" % (r.a, cls, r.peer)
    if r.ev == "send":
        what = "%s seq %d" % (cls, r.a) if r.kind == KIND_OP else "count %d" % r.a if r.kind == KIND_ACK else \
            "seq %d" % r.a
        return "send     %s %s to PE %d%s" % (kind, what, r.peer, dur)
    if r.ev == "recv":
        what = "%s seq %d" % (cls, r.a) if r.kind == KIND_OP else "count %d" % r.a if r.kind == KIND_ACK else \
            "seq %d" % r.a
        return "recv     %s %s from PE %d" % (kind, what, r.peer)
    if r.ev in ("apply", "applied"):
        return "%-8s %s seq %d from PE %d%s" % (r.ev, cls, r.a, r.peer, dur)
    if r.ev == "slowpass":
        return "slowpass %.2f us, mostly %s (%.2f us)" % (r.dur / 1e3, PHASES[r.a] if r.a < len(PHASES) else "?",
                                                          r.b / 1e3)
    if r.ev == "nap":
        return "nap      %.2f us, ended by %s" % (r.dur / 1e3, "an fd" if r.a else "the timeout")
    return "%-8s a=%d b=%d peer=%d%s" % (r.ev, r.a, r.b, r.peer, dur)


def load(args):
    paths = []
    for a in args:
        paths += [a] if os.path.isfile(a) else sorted(glob.glob(glob.escape(a) + ".*.tsv"))
    if not paths:
        raise SystemExit("proxy_trace.py: no trace files for %s (GSHMEM_PROXY_TRACE=<prefix> writes "
                         "<prefix>.<pe>.tsv at gshmem_finalize)" % " ".join(args))
    return [parse(p) for p in paths]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("traces", nargs="+", help="a GSHMEM_PROXY_TRACE prefix, or the .tsv files")
    ap.add_argument("--rounds", type=int, default=3, help="rounds in the timeline (0: none)")
    ap.add_argument("--skip", type=int, default=100, help="rounds skipped (warm-up) in the timeline and the hops")
    ap.add_argument("--class", dest="cls", default=None, help="the operation class whose entries mark rounds")
    a = ap.parse_args(argv)
    an = Analysis(load(a.traces))
    out = sys.stdout
    an.loop_report(out)
    an.stage_report(out)
    an.hop_report(out, a.skip)
    if a.rounds:
        an.timeline(out, a.rounds, a.skip, a.cls)
    return 0


if __name__ == "__main__":
    sys.exit(main())
