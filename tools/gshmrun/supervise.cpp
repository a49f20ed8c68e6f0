// SPDX-License-Identifier: BSD-3-Clause
#include "supervise.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gshmrun {
namespace {

const int kForwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
constexpr int64_t kSigintWindowMs = 2000;  // a second SIGINT within this escalates

const char* sig_abbrev(int sig) {
  switch (sig) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGKILL:
      return "SIGKILL";
    default:
      return "signal";
  }
}

const char* plural(int n) { return n == 1 ? "" : "s"; }

}  // namespace

bool setup_signals(int* signal_fd, ChildRestore* restore, std::string* err) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kForwarded) {
    struct sigaction old;
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup etc.
    sigaddset(&set, sig);
  }
  // waitpid needs SIGCHLD not to be ignored (which would auto-reap).
  struct sigaction dfl;
  memset(&dfl, 0, sizeof(dfl));
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(SIGCHLD, &dfl, nullptr);
  sigaddset(&set, SIGCHLD);

  if (sigprocmask(SIG_BLOCK, &set, &restore->mask) != 0) {
    *err = std::string("sigprocmask: ") + strerror(errno);
    return false;
  }
  int fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
  if (fd < 0) {
    *err = std::string("signalfd: ") + strerror(errno);
    return false;
  }
  // A closed stdout under --tag-output must not kill the supervisor.
  struct sigaction ign;
  memset(&ign, 0, sizeof(ign));
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &restore->pipe_action);
  *signal_fd = fd;
  return true;
}

Supervisor::Supervisor(const SupervisorConfig& cfg, int signal_fd) : cfg_(cfg), signal_fd_(signal_fd) {
  if (cfg_.timeout_s > 0) job_deadline_ = now_ms() + static_cast<int64_t>(cfg_.timeout_s) * 1000;
}

Supervisor::~Supervisor() {
  for (Pe& pe : pes_) {
    for (int& fd : pe.fd)
      if (fd >= 0) close(fd);
    if (pe.in_fd >= 0) close(pe.in_fd);
  }
}

int64_t Supervisor::now_ms() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int Supervisor::running_count() const {
  return static_cast<int>(std::count_if(pes_.begin(), pes_.end(), [](const Pe& p) { return p.running; }));
}

void Supervisor::add_pe(int rank, pid_t pid, int out_fd, int err_fd, const std::string& host, int in_fd) {
  Pe pe;
  pe.rank = rank;
  pe.pid = pid;
  pe.host = host;
  pe.in_fd = in_fd;
  pe.fd[0] = out_fd;
  pe.fd[1] = err_fd;
  if (out_fd >= 0) pe.tag[0].reset(new LineTagger(rank, STDOUT_FILENO));
  if (err_fd >= 0) pe.tag[1].reset(new LineTagger(rank, STDERR_FILENO));
  pes_.push_back(std::move(pe));
}

void Supervisor::record_exit_code(int code) {
  if (exit_code_ < 0) exit_code_ = code;
}

void Supervisor::signal_all(int sig) {
  // Only PEs not reaped yet: their pid (hence their group id) cannot have been
  // reused, so the signal cannot hit an unrelated process group.
  for (const Pe& pe : pes_) {
    if (!pe.running) continue;
    if (kill(-pe.pid, sig) != 0) kill(pe.pid, sig);
  }
}

// The remote side of each remote PE stops it when its stdin closes (remote.h): the only signal
// that reaches a PE on another host whatever the remote shell does with ours.
void Supervisor::close_remote_stdins() {
  for (Pe& pe : pes_)
    if (pe.in_fd >= 0) {
      close(pe.in_fd);
      pe.in_fd = -1;
    }
}

void Supervisor::begin_stop(int code) {
  record_exit_code(code);
  stopping_ = true;
  close_remote_stdins();
  if (running_count() == 0) return;
  signal_all(SIGTERM);
  if (kill_deadline_ < 0 && give_up_deadline_ < 0)
    kill_deadline_ = now_ms() + static_cast<int64_t>(cfg_.kill_grace_s * 1000.0);
}

void Supervisor::abort_start(int code) { begin_stop(code); }

void Supervisor::kill_now() {
  stopping_ = true;
  close_remote_stdins();
  kill_deadline_ = -1;
  signal_all(SIGKILL);
  if (give_up_deadline_ < 0) give_up_deadline_ = now_ms() + cfg_.give_up_ms;
}

void Supervisor::on_pe_exit(Pe& pe, int status) {
  pe.running = false;
  if (pe.in_fd >= 0) {
    close(pe.in_fd);
    pe.in_fd = -1;
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return;  // early clean exits are fine
  if (stopping_) return;                                      // a consequence of stopping the job, not news
  char how[160];
  int code;
  if (WIFEXITED(status)) {
    code = WEXITSTATUS(status);
    snprintf(how, sizeof(how), "exited with status %d%s", code, code == 77 ? " (skipped)" : "");
  } else if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    code = 128 + sig;
    const char* desc = strsignal(sig);
    snprintf(how, sizeof(how), "was killed by signal %d (%s%s)", sig, desc ? desc : "unknown",
             WCOREDUMP(status) ? ", core dumped" : "");
  } else {
    return;  // stopped/continued are not reported without WUNTRACED
  }
  const int others = running_count();
  char who[320];
  if (pe.host.empty())
    snprintf(who, sizeof(who), "PE %d (pid %d)", pe.rank, static_cast<int>(pe.pid));
  else  // the status is the remote shell's: the PE's own exit status through ssh (255: ssh failed)
    snprintf(who, sizeof(who), "PE %d on %s (remote shell pid %d)", pe.rank, pe.host.c_str(), static_cast<int>(pe.pid));
  if (others > 0)
    fprintf(stderr, "gshmrun: %s %s; stopping the other %d PE%s\n", who, how, others, plural(others));
  else
    fprintf(stderr, "gshmrun: %s %s\n", who, how);
  begin_stop(code);
}

void Supervisor::reap_children() {
  for (;;) {
    int status = 0;
    pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno == EINTR) continue;
    if (pid <= 0) return;
    for (Pe& pe : pes_) {
      if (pe.pid == pid && pe.running) {
        on_pe_exit(pe, status);
        break;
      }
    }
  }
}

void Supervisor::on_signal(int sig) {
  const int n = running_count();
  const int64_t now = now_ms();
  switch (sig) {
    case SIGINT:
      record_exit_code(128 + SIGINT);
      if (last_sigint_ >= 0 && now - last_sigint_ <= kSigintWindowMs) {
        fprintf(stderr, "gshmrun: second SIGINT within 2 s; killing %d PE%s with SIGKILL\n", n, plural(n));
        kill_now();
      } else {
        fprintf(stderr, "gshmrun: caught SIGINT; forwarding it to %d PE%s (a second SIGINT within 2 s kills them)\n", n,
                plural(n));
        signal_all(SIGINT);
        last_sigint_ = now;
      }
      break;
    case SIGTERM:
    case SIGHUP:
      fprintf(stderr, "gshmrun: caught %s; forwarding it to %d PE%s (SIGKILL after %g s)\n", sig_abbrev(sig), n,
              plural(n), cfg_.kill_grace_s);
      record_exit_code(128 + sig);
      stopping_ = true;
      signal_all(sig);
      close_remote_stdins();
      if (kill_deadline_ < 0 && give_up_deadline_ < 0)
        kill_deadline_ = now + static_cast<int64_t>(cfg_.kill_grace_s * 1000.0);
      break;
    case SIGQUIT:
      fprintf(stderr, "gshmrun: caught SIGQUIT; forwarding it to %d PE%s\n", n, plural(n));
      record_exit_code(128 + SIGQUIT);
      signal_all(SIGQUIT);
      break;
    default:  // SIGUSR1, SIGUSR2: pass on silently
      signal_all(sig);
      break;
  }
}

void Supervisor::on_deadlines() {
  const int64_t now = now_ms();
  if (job_deadline_ >= 0 && now >= job_deadline_) {
    job_deadline_ = -1;
    if (!stopping_) {
      const int n = running_count();
      fprintf(stderr, "gshmrun: job exceeded --timeout %ld s; stopping %d PE%s\n", cfg_.timeout_s, n, plural(n));
      begin_stop(124);
    }
  }
  if (kill_deadline_ >= 0 && now >= kill_deadline_) {
    kill_deadline_ = -1;
    const int n = running_count();
    if (n > 0) {
      fprintf(stderr, "gshmrun: %d PE%s still running %g s after SIGTERM; sending SIGKILL\n", n, plural(n),
              cfg_.kill_grace_s);
      kill_now();
    }
  }
}

int64_t Supervisor::next_deadline() const {
  int64_t d = -1;
  for (int64_t x : {job_deadline_, kill_deadline_, give_up_deadline_})
    if (x >= 0 && (d < 0 || x < d)) d = x;
  return d;
}

bool Supervisor::read_output(Pe& pe, int which) {
  char buf[65536];
  ssize_t r = read(pe.fd[which], buf, sizeof(buf));
  if (r > 0) {
    pe.tag[which]->feed(buf, static_cast<size_t>(r));
    return true;
  }
  if (r < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  pe.tag[which]->flush();
  close(pe.fd[which]);
  pe.fd[which] = -1;
  return false;
}

void Supervisor::drain_output() {
  // Whatever a PE wrote before exiting is in the pipe already; do not wait for
  // descendants that may still hold the write end.
  constexpr int kMaxReads = 256;  // bound, in case a descendant keeps writing
  for (Pe& pe : pes_) {
    for (int which = 0; which < 2; ++which) {
      if (pe.fd[which] < 0) continue;
      int flags = fcntl(pe.fd[which], F_GETFL);
      if (flags >= 0) fcntl(pe.fd[which], F_SETFL, flags | O_NONBLOCK);
      int reads = 0;
      while (pe.fd[which] >= 0 && reads++ < kMaxReads) {
        char buf[65536];
        ssize_t r = read(pe.fd[which], buf, sizeof(buf));
        if (r > 0) {
          pe.tag[which]->feed(buf, static_cast<size_t>(r));
          continue;
        }
        if (r < 0 && errno == EINTR) continue;
        break;
      }
      if (pe.fd[which] >= 0) {
        pe.tag[which]->flush();
        close(pe.fd[which]);
        pe.fd[which] = -1;
      }
    }
  }
}

int Supervisor::run() {
  std::vector<struct pollfd> pfds;
  std::vector<std::pair<Pe*, int>> owners;  // pfds[i+1] belongs to owners[i]
  while (running_count() > 0) {
    pfds.clear();
    owners.clear();
    pfds.push_back({signal_fd_, POLLIN, 0});
    for (Pe& pe : pes_)
      for (int which = 0; which < 2; ++which)
        if (pe.fd[which] >= 0) {
          pfds.push_back({pe.fd[which], POLLIN, 0});
          owners.emplace_back(&pe, which);
        }
    int timeout = -1;
    const int64_t d = next_deadline();
    if (d >= 0) timeout = static_cast<int>(std::max<int64_t>(0, std::min<int64_t>(d - now_ms(), 60000)));

    int pr = poll(pfds.data(), pfds.size(), timeout);
    if (pr < 0 && errno != EINTR) {
      fprintf(stderr, "gshmrun: poll: %s; killing the job\n", strerror(errno));
      record_exit_code(1);
      kill_now();
      sleep(1);
    }
    if (pr > 0 && (pfds[0].revents & POLLIN)) {
      struct signalfd_siginfo si[16];
      for (;;) {
        ssize_t r = read(signal_fd_, si, sizeof(si));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        for (size_t i = 0; i < static_cast<size_t>(r) / sizeof(si[0]); ++i)
          if (static_cast<int>(si[i].ssi_signo) != SIGCHLD) on_signal(static_cast<int>(si[i].ssi_signo));
      }
    }
    // Always: SIGCHLD coalesces, and waitpid(WNOHANG) is cheap.
    reap_children();
    if (pr > 0)
      for (size_t i = 1; i < pfds.size(); ++i)
        if (pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) read_output(*owners[i - 1].first, owners[i - 1].second);
    on_deadlines();

    if (give_up_deadline_ >= 0 && now_ms() >= give_up_deadline_ && running_count() > 0) {
      const double secs = static_cast<double>(cfg_.give_up_ms) / 1000.0;
      for (Pe& pe : pes_) {
        if (!pe.running) continue;
        fprintf(stderr,
                "gshmrun: PE %d (pid %d) is still there %g s after SIGKILL (stuck in the kernel?); "
                "exiting without it\n",
                pe.rank, static_cast<int>(pe.pid), secs);
        pe.running = false;
      }
    }
  }
  drain_output();
  return exit_code_ < 0 ? 0 : exit_code_;
}

}  // namespace gshmrun
