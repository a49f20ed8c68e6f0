#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Tests of tools/proxy_trace.py on generated traces: a barrier of two PEs whose every stage
takes a known time, and a tracked put with its acknowledgement. The report's figures must be
those times; malformed files are refused with the file and line. Stdlib only, < 1 s."""
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import proxy_trace as pt  # noqa: E402

US = 1000
SYNC_FLAGS = pt.F_SIGNAL_ADD | pt.F_UNTRACKED
# The barrier's stage times (ns): entry -> send, the send call, the wire, arrival -> apply, the
# apply call, apply end -> applied seen, apply end -> the answer's entry (the device).
ENTRY_SEND, SEND_CALL, WIRE, ARRIVE_APPLY, APPLY_CALL, APPLIED, DEVICE = (
    500, 2 * US, 5 * US, 200, 3 * US, 4 * US, 6 * US)
PERIOD = ENTRY_SEND + WIRE + ARRIVE_APPLY + APPLY_CALL + DEVICE  # one hop a round


def line(t, ev, peer=-1, kind=0, op=0, flags=0, a=0, b=0, dur=0):
    return "%d\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d" % (t, ev, peer, kind, op, flags, a, b, dur)


def barrier_files(rounds, t0=10 ** 9):
    """Two PEs' files: each round both enter (ring), send an untracked ADD signal, the other
    receives and applies it; the next entry follows each apply by DEVICE."""
    rows = {0: [], 1: []}
    start = {0: t0, 1: t0 + 300}
    for k in range(rounds):
        nxt = {}
        for s in (0, 1):
            q = 1 - s
            t = start[s]
            rows[s].append((t, line(t, "ring", q, 0, pt.OP_SIGNAL, SYNC_FLAGS, k)))
            ts = t + ENTRY_SEND
            rows[s].append((ts, line(ts, "send", q, pt.KIND_OP, pt.OP_SIGNAL, SYNC_FLAGS, k, k, SEND_CALL)))
            rows[s].append((ts + SEND_CALL + 100, line(ts + SEND_CALL + 100, "completed", -1, a=k + 1)))
            tr = ts + WIRE
            rows[q].append((tr, line(tr, "recv", s, pt.KIND_OP, pt.OP_SIGNAL, SYNC_FLAGS, k, k)))
            ta = tr + ARRIVE_APPLY
            rows[q].append((ta, line(ta, "apply", s, 0, pt.OP_SIGNAL, SYNC_FLAGS, k, 0, APPLY_CALL)))
            te = ta + APPLY_CALL
            rows[q].append((te + APPLIED, line(te + APPLIED, "applied", s, 0, pt.OP_SIGNAL, SYNC_FLAGS, k, k)))
            nxt[q] = te + DEVICE
        start = nxt
    return {pe: text(pe, [r for _, r in sorted(v)], passes=100 + pe) for pe, v in rows.items()}


def text(pe, rows, passes=1, dropped=0):
    head = "# gshmem proxy trace v1\tpe=%d\tn_pes=2\tclock=CLOCK_MONOTONIC\trecords=%d\tdropped=%d\n" % (
        pe, len(rows), dropped)
    counters = "".join("# counter\t%s\t%d\n" % kv for kv in [
        ("passes", passes), ("passes_moved", passes // 2), ("phase_ns.transport", 1000 * passes),
        ("phase_ns.ring", 500 * passes), ("pass_hist.1", passes), ("naps", 3), ("sent.op", len(rows))])
    return head + "t_ns\tev\tpeer\tkind\top\tflags\ta\tb\tdur_ns\n" + "\n".join(rows) + "\n" + counters


class BarrierTrace(unittest.TestCase):
    def setUp(self):
        self.rounds = 50
        files = barrier_files(self.rounds)
        self.an = pt.Analysis([pt.parse("pe%d" % pe, text=files[pe]) for pe in (0, 1)])

    def test_every_op_is_matched_across_the_pes(self):
        self.assertEqual(len(self.an.ops), 2 * self.rounds)
        for o in self.an.ops:
            self.assertEqual(o.cls, "signal add (sync)")
            self.assertTrue(o.ring and o.recv and o.apply and o.applied and o.done, "op %d->%d" % (o.src, o.seq))
            self.assertIsNone(o.ack)  # untracked: no acknowledgement expected

    def test_stages_are_the_generated_times(self):
        st = self.an.stages()["signal add (sync)"]
        want = {"entry -> send": ENTRY_SEND, "send call": SEND_CALL, "send -> arrival (wire)": WIRE,
                "arrival -> apply": ARRIVE_APPLY, "apply call": APPLY_CALL, "apply end -> applied seen": APPLIED,
                "entry -> applied seen (one way)": ENTRY_SEND + WIRE + ARRIVE_APPLY + APPLY_CALL + APPLIED,
                "entry -> completed": ENTRY_SEND + SEND_CALL + 100}
        for name, ns in want.items():
            self.assertAlmostEqual(pt.pct(st[name], 50), ns / 1e3, places=6, msg=name)
            self.assertAlmostEqual(max(st[name]), ns / 1e3, places=6, msg=name)

    def test_hops_split_a_round_into_its_stages(self):
        hops = [seg for pair, seg in self.an.hops() if pair == "signal add (sync) -> signal add (sync)"]
        self.assertEqual(len(hops), 2 * (self.rounds - 1))
        for seg in hops:
            self.assertAlmostEqual(seg["device: apply end -> answer's entry"], DEVICE / 1e3, places=6)
            self.assertAlmostEqual(seg["wire"], WIRE / 1e3, places=6)
            self.assertAlmostEqual(seg["hop: entry -> answer's entry"], PERIOD / 1e3, places=6)
        # PE 1 enters 0.3 us after PE 0, then PE 0 after PE 1, and so on: a PE's period is one
        # hop give or take that offset (a barrier of two takes one flight a round).
        for (pe, cls), v in self.an.rounds().items():
            self.assertEqual(len(v), self.rounds - 1)
            for x in v:
                self.assertLessEqual(abs(x - PERIOD / 1e3), 0.3 + 1e-9, msg="PE %d %s" % (pe, cls))

    def test_the_report_and_the_timeline(self):
        with tempfile.TemporaryDirectory() as d:
            prefix = os.path.join(d, "tr")
            for pe, t in barrier_files(self.rounds).items():
                with open("%s.%d.tsv" % (prefix, pe), "w") as f:
                    f.write(t)
            out = io.StringIO()
            old, sys.stdout = sys.stdout, out
            try:
                pt.main([prefix, "--rounds", "2", "--skip", "10"])
            finally:
                sys.stdout = old
        r = out.getvalue()
        self.assertIn("PE 0: %d records" % (6 * self.rounds), r)  # ring, send, completed, recv, apply, applied
        self.assertIn("time in a pass, by phase", r)
        self.assertIn("== stages per operation class", r)
        self.assertIn("signal add (sync) -> signal add (sync)", r)
        self.assertIn("== timeline: rounds 10..12 of 'signal add (sync)'", r)
        self.assertIn("-- round 11", r)
        # Each round of the timeline starts with PE 0's entry at +0.00.
        self.assertIn("+0.00  PE 0  ring     ticket 10: signal add (sync) to PE 1", r)


class TrackedPut(unittest.TestCase):
    def test_the_acknowledgement_stages(self):
        put = pt.OP_PUT
        pe0 = [line(1000, "ring", 1, 0, put, 0, 7), line(1100, "send", 1, pt.KIND_OP, put, 0, 3, 7, 900),
               line(9000, "recv", 1, pt.KIND_ACK, 0, 0, 4), line(9500, "completed", -1, a=8)]
        pe1 = [line(4000, "recv", 0, pt.KIND_OP, put, 0, 3, 7), line(4100, "apply", 0, 0, put, 0, 3, 0, 50),
               line(5000, "applied", 0, 0, put, 0, 3, 7), line(5200, "send", 0, pt.KIND_ACK, 0, 0, 4, 0, 700)]
        an = pt.Analysis([pt.parse("a", text=text(0, pe0)), pt.parse("b", text=text(1, pe1))])
        st = an.stages()["put"]
        self.assertAlmostEqual(st["applied -> ack sent"][0], 0.2)
        self.assertAlmostEqual(st["ack wire"][0], 3.8)
        self.assertAlmostEqual(st["ack in -> completed"][0], 0.5)
        self.assertAlmostEqual(st["entry -> completed"][0], 8.5)

    def test_host_ops_and_the_host_count(self):
        hb = pt.HOST_BIT
        pe0 = [line(1000, "host", 1, 0, pt.OP_SIGNAL, SYNC_FLAGS, 5),
               line(1200, "send", 1, pt.KIND_OP, pt.OP_SIGNAL, SYNC_FLAGS, 0, hb | 5, 300),
               line(1600, "hcompleted", -1, a=6)]
        an = pt.Analysis([pt.parse("a", text=text(0, pe0))])
        (o,) = an.ops
        self.assertIsNotNone(o.host)
        self.assertEqual(o.done, (1600, 6))


class Malformed(unittest.TestCase):
    def test_not_a_trace(self):
        with self.assertRaisesRegex(ValueError, "not a gshmem proxy trace"):
            pt.parse("x.tsv", text="hello\n")

    def test_a_short_line_names_the_file_and_line(self):
        bad = text(0, [line(1, "ring")]).replace("\tring\t", "\tring")
        bad = bad.replace(bad.splitlines()[2], "1\tring\t-1")
        with self.assertRaisesRegex(ValueError, r"x\.tsv:3: 3 fields"):
            pt.parse("x.tsv", text=bad)

    def test_no_files(self):
        with self.assertRaisesRegex(SystemExit, "no trace files"):
            pt.load([os.path.join(tempfile.gettempdir(), "gshmem-no-such-trace-prefix")])


if __name__ == "__main__":
    unittest.main()
