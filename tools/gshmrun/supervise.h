// SPDX-License-Identifier: BSD-3-Clause
// Supervision of running PEs: signals (read through a signalfd), child exits,
// --timeout, stopping the job (SIGTERM, then SIGKILL after a grace period) and
// the --tag-output pipes. One poll() loop, no busy waiting.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "output.h"
#include "spawn.h"

namespace gshmrun {

// Blocks SIGCHLD and the forwarded signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT,
// SIGUSR1, SIGUSR2) and opens a signalfd for them. A forwarded signal that
// gshmrun inherited as ignored (nohup, "cmd &") stays ignored, for gshmrun and
// the PEs. Ignores SIGPIPE in gshmrun. *restore receives what a child resets.
bool setup_signals(int* signal_fd, ChildRestore* restore, std::string* err);

struct SupervisorConfig {
  int size = 0;                // N, the number of PEs the job should have
  long timeout_s = 0;          // --timeout (0 = none)
  double kill_grace_s = 3;     // SIGTERM -> SIGKILL delay
  int64_t give_up_ms = 10000;  // after SIGKILL, stop waiting for a PE stuck in the kernel
};

class Supervisor {
 public:
  Supervisor(const SupervisorConfig& cfg, int signal_fd);
  ~Supervisor();

  // Registers a started PE; out_fd/err_fd are the read ends of its output
  // pipes under --tag-output (else -1). Takes ownership of the fds.
  // A remote PE (-H) names its `host` (for messages) and gives the write end of
  // its remote shell's stdin (`in_fd`): closing it makes the remote side stop
  // the PE (remote.h), so it is closed as soon as the job is being stopped.
  void add_pe(int rank, pid_t pid, int out_fd, int err_fd, const std::string& host = std::string(), int in_fd = -1);
  // Starting the job failed (message already printed): stop the PEs started so
  // far and exit with `code`.
  void abort_start(int code);
  // Runs until every PE has been reaped; returns gshmrun's exit code.
  int run();

 private:
  struct Pe {
    int rank = 0;
    pid_t pid = -1;
    bool running = true;
    int fd[2] = {-1, -1};  // stdout, stderr pipes (read ends)
    std::unique_ptr<LineTagger> tag[2];
    std::string host;  // remote PEs only
    int in_fd = -1;    // remote PEs: write end of the remote shell's stdin
  };

  static int64_t now_ms();
  int running_count() const;
  void record_exit_code(int code);
  void signal_all(int sig);
  void close_remote_stdins();
  void begin_stop(int code);
  void kill_now();
  void reap_children();
  void on_pe_exit(Pe& pe, int status);
  void on_signal(int sig);
  void on_deadlines();
  int64_t next_deadline() const;
  bool read_output(Pe& pe, int which);  // false at EOF (fd closed)
  void drain_output();

  SupervisorConfig cfg_;
  int signal_fd_;
  std::vector<Pe> pes_;
  int exit_code_ = -1;     // first failure decides; -1 = none yet
  bool stopping_ = false;  // later PE exits are consequences, not reported
  int64_t job_deadline_ = -1;
  int64_t kill_deadline_ = -1;
  int64_t give_up_deadline_ = -1;
  int64_t last_sigint_ = -1;
};

}  // namespace gshmrun
