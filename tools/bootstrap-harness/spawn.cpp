// SPDX-License-Identifier: BSD-3-Clause
// spawn_ranks (spawn.h).
#include "spawn.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <unordered_map>
#include <vector>

#include <algorithm>

namespace {

// Forks one PE; its pid, or -1.
pid_t fork_pe(int r, const std::string& log, unsigned alarm_s, const std::function<int(int)>& pe) {
  fflush(nullptr);  // nothing buffered is written twice
  const pid_t pid = fork();
  if (pid != 0) return pid;
  const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) dup2(fd, 2), close(fd);
  alarm(alarm_s);
  const int rc = pe(r);
  fflush(nullptr);
  _exit(rc);
}

}  // namespace

int spawn_ranks(int n, const std::string& out_dir, unsigned alarm_s, const std::function<int(int)>& pe,
                const SpawnFaults& faults) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unordered_map<pid_t, int> rank_of;
  std::vector<int> code(n, -1);
  int twice_code = -1;
  for (int r = 0; r < n; ++r) {
    if (std::find(faults.absent.begin(), faults.absent.end(), r) != faults.absent.end()) continue;
    const pid_t pid = fork_pe(r, out_dir + "/" + std::to_string(r) + ".log", alarm_s, pe);
    if (pid < 0) {
      perror("gshmem-bootstrap-harness: fork");
      code[r] = 127;
      continue;  // that PE never arrives: the others fail naming it
    }
    rank_of[pid] = r;
    if (r == 0 && faults.after_rank0) faults.after_rank0();
    if (r == faults.twice) {  // during the rendezvous, as a launcher's mistake would
      const pid_t again = fork_pe(r, out_dir + "/" + std::to_string(r) + ".twice.log", alarm_s, pe);
      if (again > 0) rank_of[again] = n;  // n: the second copy
    }
  }
  const double launch_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (size_t left = rank_of.size(); left > 0;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    auto it = rank_of.find(pid);
    if (it == rank_of.end()) continue;
    (it->second == n ? twice_code : code[it->second]) =
        WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    --left;
  }
  bool all_ok = true;
  FILE* f = fopen((out_dir + "/codes.txt").c_str(), "w");
  for (int r = 0; r < n; ++r) {
    all_ok = all_ok && (code[r] == 0 || code[r] == -1);
    if (f) fprintf(f, "%d %d\n", r, code[r]);
  }
  if (f && faults.twice >= 0) fprintf(f, "twice %d\n", twice_code);
  all_ok = all_ok && (faults.twice < 0 || twice_code == 0) && faults.absent.empty();
  if (f) fclose(f);
  if ((f = fopen((out_dir + "/launch.json").c_str(), "w"))) {
    fprintf(f, "{\"launch_s\": %.4f}\n", launch_s);
    fclose(f);
  }
  return all_ok ? 0 : 1;
}
