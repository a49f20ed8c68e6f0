// SPDX-License-Identifier: BSD-3-Clause
// Starting the harness's N PEs from one process by fork() alone (--spawn N): a fork of this small
// process costs tens of microseconds, where starting `timeout` and the harness from Python cost
// two exec()s and the dynamic loader per PE (31 s of the 36.5 s run of 4,096 PEs).
#pragma once

#include <functional>
#include <string>
#include <vector>

// Faults spawn_ranks injects (docs/bootstrap.md, "Failures"): ranks never started, a rank started a
// second time (right after the first, so during the rendezvous; its log is <rank>.twice.log), and
// a callback the parent runs right after forking PE 0 (the harness connects a stranger there).
struct SpawnFaults {
  std::vector<int> absent;
  int twice = -1;
  std::function<void()> after_rank0;
};

// Forks PE 0, then PEs 1 .. n-1, in order; each child sends stderr to out_dir/<rank>.log, arms
// alarm(alarm_s) (a PE that hangs dies of SIGALRM) and exits with pe(rank). The parent holds no
// bootstrap state; it writes out_dir/launch.json ({"launch_s": seconds to fork them all}) and
// out_dir/codes.txt ("<rank> <code>" lines: the exit code, or 128 + the signal; -1 for an absent
// rank; "twice <code>" for the second copy), and returns 0 when every PE started exited 0, else 1.
int spawn_ranks(int n, const std::string& out_dir, unsigned alarm_s, const std::function<int(int)>& pe,
                const SpawnFaults& faults = {});
