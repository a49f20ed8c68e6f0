// SPDX-License-Identifier: BSD-3-Clause
// Starting the harness's N PEs from one process by fork() alone (--spawn N): a fork of this small
// process costs tens of microseconds, where starting `timeout` and the harness from Python cost
// two exec()s and the dynamic loader per PE (31 s of the 36.5 s run of 4,096 PEs).
#pragma once

#include <functional>
#include <string>

// Forks PE 0, then PEs 1 .. n-1, in order; each child sends stderr to out_dir/<rank>.log, arms
// alarm(alarm_s) (a PE that hangs dies of SIGALRM) and exits with pe(rank). The parent holds no
// bootstrap state; it writes out_dir/launch.json ({"launch_s": seconds to fork them all}) and
// out_dir/codes.txt ("<rank> <code>" lines: the exit code, or 128 + the signal), and returns 0 when
// every PE exited 0, else 1.
int spawn_ranks(int n, const std::string& out_dir, unsigned alarm_s, const std::function<int(int)>& pe);
