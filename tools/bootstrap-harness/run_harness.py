#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Start N gshmem-bootstrap-harness processes on this machine and aggregate what they report.

    run_harness.py --harness PATH -n 512 [-n 1024 ...] [--topology star|tree ...] [--ppn 6] [--timeout 60]

--launch fork (the default): one harness process forks the N PEs, rank 0 first (`--spawn N`; a
fork costs tens of microseconds, no exec), each PE bounded by alarm(). --launch popen: this script
starts each PE as its own `timeout` + harness, rank 0 first, then waves of --wave (two exec()s and
the dynamic loader per PE: most of the wall time at thousands of PEs on few cores).
--ppn P places P consecutive ranks on each simulated node (0: all on this machine's one node).
Every PE checks each entry of everything it gathered and exits 0 or 1; this
script fails (exit 1) unless every PE passed, and prints the logs of the first PEs that did not.
With several --topology values, each N runs once per topology, one after the other.

Faults (--launch fork only; docs/bootstrap.md, "Failures"): --absent R,... never starts those
ranks, --twice R starts rank R twice, --die R makes rank R exit right after it joined,
--stranger connects a process that is no PE to the rendezvous. With a fault the run passes when
every PE that started (but the dying one) fails, each log matches --expect (a regular
expression: the rank(s) named, all of them), no PE holds more descriptors after its failure than
before it connected, and the run ends within the bootstrap timeout plus its grace; with
--stranger alone, when every PE passes and rank 0 logged the rejection.
It raises its open-files limit (RLIMIT_NOFILE, inherited by the PEs) as far as the hard limit
allows and says so when that is below what rank 0 needs during the rendezvous (one socket per PE).
Output: a summary per run (wall time, rank 0's and the median PE's peak RSS, descriptors after
the rendezvous, bytes through rank 0), and with --json FILE all of them as JSON.
"""
import argparse
import json
import os
import re
import random
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time


def raise_fd_limit(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = hard if hard != resource.RLIM_INFINITY else max(soft, need)
    if want > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
            soft = want
        except (ValueError, OSError) as e:
            print(f"run_harness: cannot raise RLIMIT_NOFILE from {soft} to {want}: {e}", file=sys.stderr)
    if soft != resource.RLIM_INFINITY and soft < need:
        print(f"run_harness: RLIMIT_NOFILE is {soft} (hard limit {hard}), but rank 0 holds one socket per PE "
              f"during the rendezvous: {need} needed; raise the hard limit (ulimit -Hn, limits.conf)",
              file=sys.stderr)
    return soft


def free_port():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def launch_fork(args, n, out, env, pe_args):
    """One harness process forks the N PEs; returns (launch seconds, exit codes by rank)."""
    cmd = ["timeout", "-k", "5", str(args.timeout + 60), args.harness, "--spawn", str(n)] + pe_args
    with open(os.path.join(out, "spawn.log"), "w") as log:
        code = subprocess.call(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
    codes = [code if code != 0 else 1] * n  # a spawner that died or hung: every PE failed
    try:
        with open(os.path.join(out, "codes.txt")) as f:
            for line in f:
                r, c = line.split()
                codes[int(r)] = int(c)
        with open(os.path.join(out, "launch.json")) as f:
            launched = json.load(f)["launch_s"]
    except (OSError, ValueError, KeyError):
        launched = float("nan")
    return launched, codes


def run(args, n, topology):
    out = tempfile.mkdtemp(prefix=f"gshmem-harness-{n}-")
    uid = f"127.0.0.1:{free_port()}:{random.getrandbits(64):016x}:{random.getrandbits(64):016x}"
    env = dict(os.environ)
    env.update({"GSHMEM_SIZE": str(n), "GSHMEM_UNIQUEID": uid})
    if topology:
        env["GSHMEM_BOOTSTRAP_TOPOLOGY"] = topology
    pe_args = ["--out", out, "--timeout", str(args.timeout), "--rounds", str(args.rounds), "--ppn", str(args.ppn),
               "--gpus", str(args.gpus)] + fault_args(args)
    load = os.getloadavg()[0]  # the machine may be shared: say how busy it was
    t0 = time.monotonic()
    if args.launch == "fork":
        launched, codes = launch_fork(args, n, out, env, pe_args)
        wall = time.monotonic() - t0
    else:
        launched, codes = launch_popen(args, n, out, env, pe_args, t0)
        wall = time.monotonic() - t0
    if fault_args(args):
        s = check_faults(args, n, topology, out, codes, wall)
    else:
        s = summarize(args, n, topology, out, codes, wall, launched)
    s["load_before"] = round(load, 2)
    return s


def fault_args(args):
    f = []
    if args.absent:
        f += ["--absent", args.absent]
    if args.twice is not None:
        f += ["--twice", str(args.twice)]
    if args.die is not None:
        f += ["--die", str(args.die)]
    if args.stranger:
        f += ["--stranger"]
    return f


def check_faults(args, n, topology, out, codes, wall):
    """Every started PE failed naming the fault (--expect), no descriptors left, in time."""
    problems = []
    logs = {r: os.path.join(out, f"{r}.log") for r in range(n) if codes[r] != -1}
    if args.twice is not None:
        logs["twice"] = os.path.join(out, f"{args.twice}.twice.log")
    only_stranger = args.stranger and not (args.absent or args.twice is not None or args.die is not None)
    for r, path in logs.items():
        try:
            with open(path, errors="replace") as f:
                text = f.read()
        except OSError:
            problems.append(f"PE {r}: no log")
            continue
        if only_stranger:
            if codes[r] != 0:
                problems.append(f"PE {r}: exit code {codes[r]} (a stranger must not disturb the job)")
            continue
        if r == args.die:
            continue
        if r != "twice" and codes[r] == 0:
            problems.append(f"PE {r}: succeeded despite the fault")
        if args.expect and not re.search(args.expect, text):
            problems.append(f"PE {r}: its log does not match {args.expect!r}: {text[-300:]!r}")
        m = re.search(r"descriptors before connect (\d+), after the failure (\d+)", text)
        if m and int(m.group(2)) > int(m.group(1)):
            problems.append(f"PE {r}: {m.group(1)} descriptors before connect, {m.group(2)} after the failure")
    if only_stranger and 0 in logs:
        with open(logs[0], errors="replace") as f:
            if "rejected a connection" not in f.read():
                problems.append("PE 0 did not log the stranger's rejection")
    grace = max(1, min(10, args.timeout // 10))
    limit = args.timeout + 2 * grace + 5  # members wait T + grace; rank 0 answers late PEs <= 2 s
    if wall > limit:
        problems.append(f"the run took {wall:.1f} s, more than {limit} s")
    for p in problems[:args.show_logs]:
        print(f"run_harness: {p}", file=sys.stderr)
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    return {"n": n, "topology": topology or "default", "faults": " ".join(fault_args(args)), "ok": not problems,
            "problems": len(problems), "started_pes": len(logs), "wall_s": round(wall, 3)}


def launch_popen(args, n, out, env, pe_args, t0):
    """Each PE its own `timeout` + harness, rank 0 first, then waves; (launch seconds, codes)."""
    cmd = ["timeout", "-k", "5", str(args.timeout + 30), args.harness] + pe_args
    procs = []

    def start(rank):
        env["GSHMEM_RANK"] = str(rank)
        with open(os.path.join(out, f"{rank}.log"), "w") as log:
            procs.append(subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=log, close_fds=True))

    start(0)
    for first in range(1, n, args.wave):
        for r in range(first, min(n, first + args.wave)):
            start(r)
        if args.wave_gap > 0 and first + args.wave < n:
            time.sleep(args.wave_gap)
    launched = time.monotonic() - t0
    return launched, [p.wait() for p in procs]


def summarize(args, n, topology, out, codes, wall, launched):
    res = {}
    for r in range(n):
        try:
            with open(os.path.join(out, f"{r}.json")) as f:
                res[r] = json.loads(f.read())
        except (OSError, ValueError):
            pass
    bad = [r for r in range(n) if codes[r] != 0 or r not in res]
    summary = {"n": n, "topology": topology or "default", "launch": args.launch, "ppn": args.ppn, "ok": not bad,
               "failed_pes": len(bad),
               "wall_s": round(wall, 3), "launch_s": round(launched, 3),
               "after_launch_s": round(wall - launched, 3)}
    if bad:
        summary["first_failed"] = bad[:10]
        for r in bad[:args.show_logs]:
            with open(os.path.join(out, f"{r}.log"), errors="replace") as f:
                text = f.read()
            print(f"--- PE {r}: exit code {codes[r]} ---\n{text[-3000:]}", file=sys.stderr)
    if res:
        rss = sorted(v["peak_rss_kb"] for v in res.values())
        socks = sorted(v["sockets_after_rendezvous"] for v in res.values())
        per_pe_ag = [v["hostid_allgather_sent"] + v["hostid_allgather_received"] for v in res.values()]
        summary.update({
            "max_pe_wall_s": round(max(v["wall_s"] for v in res.values()), 3),
            "max_connect_s": round(max(v["connect_s"] for v in res.values()), 3),
            "hostid_allgather_s_rank0": res.get(0, {}).get("hostid_allgather_s"),
            "cpu_s_rank0": res.get(0, {}).get("cpu_s"),
            "cpu_s_median": round(statistics.median(v["cpu_s"] for v in res.values()), 4),
            "rss_kb_rank0": res.get(0, {}).get("peak_rss_kb"),
            "rss_kb_median": int(statistics.median(rss)),
            "rss_kb_max": rss[-1],
            "sockets_rank0": res.get(0, {}).get("sockets_after_rendezvous"),
            "fds_rank0": res.get(0, {}).get("fds_after_rendezvous"),
            "sockets_median": int(statistics.median(socks)),
            "sockets_max": socks[-1],
            "bytes_sent_rank0": res.get(0, {}).get("bytes_sent"),
            "bytes_received_rank0": res.get(0, {}).get("bytes_received"),
            "hostid_allgather_bytes_rank0": (res[0]["hostid_allgather_sent"] + res[0]["hostid_allgather_received"])
            if 0 in res else None,
            "hostid_allgather_bytes_max_pe": max(per_pe_ag),
            "n_x_item": n * 24,
            "n_nodes": res.get(0, {}).get("n_nodes"),
            "team_region_bytes": res.get(0, {}).get("team_region_bytes"),
            "team_control_bytes": res.get(0, {}).get("team_control_bytes"),
        })
    if not args.keep:
        shutil.rmtree(out, ignore_errors=True)
    else:
        summary["dir"] = out
    return summary


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--harness", required=True, help="path of gshmem-bootstrap-harness")
    ap.add_argument("-n", type=int, action="append", required=True, help="number of PEs (repeatable)")
    ap.add_argument("--topology", choices=["star", "tree"], action="append",
                    help="GSHMEM_BOOTSTRAP_TOPOLOGY (repeatable; default: unset)")
    ap.add_argument("--launch", choices=["fork", "popen"], default="fork", help="how PEs start (default fork)")
    ap.add_argument("--ppn", type=int, default=0, help="simulated PEs per node (default 0: one node)")
    ap.add_argument("--gpus", type=int, default=6, help="simulated devices per node (default 6)")
    ap.add_argument("--timeout", type=int, default=60, help="bootstrap timeout of each PE, s (default 60)")
    ap.add_argument("--rounds", type=int, default=1, help="host-id allgathers to time (default 1)")
    ap.add_argument("--wave", type=int, default=256, help="PEs started per wave (default 256)")
    ap.add_argument("--wave-gap", type=float, default=0.0, help="seconds between waves (default 0)")
    ap.add_argument("--absent", help="ranks never started, e.g. 3,77,400 (fault)")
    ap.add_argument("--twice", type=int, help="a rank started twice (fault)")
    ap.add_argument("--die", type=int, help="a rank that exits right after joining (fault)")
    ap.add_argument("--stranger", action="store_true", help="a stranger connects to the rendezvous (fault)")
    ap.add_argument("--expect", help="with a fault: a regular expression every failed PE's log must match")
    ap.add_argument("--show-logs", type=int, default=3, help="logs of failed PEs to print (default 3)")
    ap.add_argument("--keep", action="store_true", help="keep each run's folder of logs and results")
    ap.add_argument("--json", help="write the summaries to this file")
    args = ap.parse_args()
    if not shutil.which("timeout"):
        sys.exit("run_harness: the `timeout` command (coreutils) is needed")
    raise_fd_limit(max(args.n) + 64)
    summaries = []
    for n in args.n:
        for topology in args.topology or [None]:
            s = run(args, n, topology)
            summaries.append(s)
            print(json.dumps(s), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summaries, f, indent=1)
    sys.exit(0 if all(s["ok"] for s in summaries) else 1)


if __name__ == "__main__":
    main()
