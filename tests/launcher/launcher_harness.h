// SPDX-License-Identifier: BSD-3-Clause
// The harness of gshmrun's behaviour tests (test_launcher.cpp, test_launcher_hosts.cpp): runs
// gshmrun with a timeout and collects its exit, timing and output; temporary directories and
// the probe's per-PE reports. Host only.
#pragma once

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.h"

#ifndef GSHMRUN_PATH
#error "GSHMRUN_PATH must name the gshmrun binary"
#endif
#ifndef LAUNCHER_PROBE_PATH
#error "LAUNCHER_PROBE_PATH must name the launcher_probe binary"
#endif
#ifndef LAUNCHER_BOOTSTRAP_PROBE_PATH
#error "LAUNCHER_BOOTSTRAP_PROBE_PATH must name the launcher_bootstrap_probe binary"
#endif

namespace launcher_test {

const char* const kGshmrun = GSHMRUN_PATH;
const char* const kProbe = LAUNCHER_PROBE_PATH;
const char* const kBootstrapProbe = LAUNCHER_BOOTSTRAP_PROBE_PATH;
const char* const kInitConfigProbe = INIT_CONFIG_PROBE_PATH;

inline double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

inline void sleep_s(double s) {
  struct timespec ts = {static_cast<time_t>(s),
                        static_cast<long>((s - static_cast<double>(static_cast<time_t>(s))) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

struct Result {
  bool exited = false;        // normal exit (else killed by a signal, or hung)
  int code = -1;              // exit code when exited
  int signal = 0;             // terminating signal otherwise
  bool hung = false;          // had to be killed by the test
  double seconds = 0;         // from start (or from mark()) until gshmrun exited
  bool pipes_closed = false;  // stdout/stderr reached EOF soon after: no PE left
  std::string out, err;
};

// Environment edits for the gshmrun process: {NAME, VALUE} sets, {NAME} with
// unset=true removes.
struct EnvEdit {
  std::string name, value;
  bool unset = false;
};

class Launch {
 public:
  Launch(const std::vector<std::string>& args, const std::vector<EnvEdit>& env = {},
         const std::string& stdin_path = "/dev/null") {
    int out[2], err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    std::vector<std::string> argv_s = {kGshmrun};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    start_ = now_s();
    pid_ = fork();
    if (pid_ == 0) {
      int in = open(stdin_path.c_str(), O_RDONLY);
      dup2(in, 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      // Only fds 0-2 reach gshmrun, so the PEs' fd lists show gshmrun's leaks only.
#ifdef SYS_close_range
      if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
        for (int fd = 3; fd < 4096; ++fd) close(fd);
      for (const EnvEdit& e : env) {
        if (e.unset)
          unsetenv(e.name.c_str());
        else
          setenv(e.name.c_str(), e.value.c_str(), 1);
      }
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(kGshmrun, argv.data());
      _exit(126);
    }
    close(out[1]);
    close(err[1]);
    fd_[0] = out[0];
    fd_[1] = err[0];
    for (int fd : fd_) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  ~Launch() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
    for (int fd : fd_)
      if (fd >= 0) close(fd);
  }

  pid_t pid() const { return pid_; }
  // Later timings count from now (e.g. from when a signal was sent).
  void mark() { start_ = now_s(); }
  void signal(int sig) { ASSERT_EQ(kill(pid_, sig), 0); }

  // Waits for gshmrun to exit (at most limit_s, then kills it and reports
  // hung), then up to 5 s for the pipes to close.
  Result wait(double limit_s = 40) {
    Result r;
    const double deadline = now_s() + limit_s;
    double exit_time = -1;
    while (true) {
      pump(100);
      if (!reaped_) {
        int st = 0;
        pid_t p = waitpid(pid_, &st, WNOHANG);
        if (p == pid_) {
          reaped_ = true;
          exit_time = now_s();
          r.exited = WIFEXITED(st);
          r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
          r.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
          r.seconds = exit_time - start_;
        } else if (now_s() > deadline) {
          kill(pid_, SIGKILL);
          waitpid(pid_, &st, 0);
          reaped_ = true;
          r.hung = true;
          exit_time = now_s();
          r.seconds = exit_time - start_;
        }
      }
      if (reaped_ && (fd_[0] < 0 && fd_[1] < 0)) {
        r.pipes_closed = true;
        break;
      }
      if (reaped_ && now_s() > exit_time + 5) break;
    }
    r.out = out_;
    r.err = err_;
    return r;
  }

 private:
  void pump(int timeout_ms) {
    struct pollfd p[2];
    int n = 0;
    for (int i = 0; i < 2; ++i)
      if (fd_[i] >= 0) p[n++] = {fd_[i], POLLIN, 0};
    if (n == 0) {
      sleep_s(timeout_ms / 1000.0);
      return;
    }
    poll(p, static_cast<nfds_t>(n), timeout_ms);
    for (int i = 0; i < 2; ++i) {
      if (fd_[i] < 0) continue;
      char buf[4096];
      for (;;) {
        ssize_t r = read(fd_[i], buf, sizeof(buf));
        if (r > 0) {
          (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(r));
          continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          close(fd_[i]);
          fd_[i] = -1;
        }
        break;
      }
    }
  }

  pid_t pid_ = -1;
  bool reaped_ = false;
  int fd_[2] = {-1, -1};
  double start_ = 0;
  std::string out_, err_;
};

inline Result run(const std::vector<std::string>& args, const std::vector<EnvEdit>& env = {},
                  const std::string& stdin_path = "/dev/null") {
  Launch l(args, env, stdin_path);
  return l.wait();
}

inline std::string describe(const Result& r) {
  std::ostringstream s;
  s << "exited=" << r.exited << " code=" << r.code << " signal=" << r.signal << " hung=" << r.hung
    << " seconds=" << r.seconds << " pipes_closed=" << r.pipes_closed << "\n--- stdout ---\n"
    << r.out << "\n--- stderr ---\n"
    << r.err;
  return s.str();
}

inline int count_of(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

inline std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/gshmrun-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp: " << strerror(errno);
    }
    char* real = realpath(buf.data(), nullptr);  // readlink() in the PEs shows resolved paths
    path_ = real ? real : buf.data();
    free(real);
  }
  ~TempDir() {
    nftw(
        path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  bool has(const std::string& name) const { return access(file(name).c_str(), F_OK) == 0; }
  // Waits (bounded) until every name exists.
  bool wait_for(const std::vector<std::string>& names, double limit_s = 20) const {
    const double deadline = now_s() + limit_s;
    while (now_s() < deadline) {
      if (std::all_of(names.begin(), names.end(), [this](const std::string& n) { return has(n); })) return true;
      sleep_s(0.02);
    }
    return false;
  }

 private:
  std::string path_;
};

inline std::vector<std::string> per_rank(const std::string& prefix, int n, const std::string& suffix = "") {
  std::vector<std::string> v;
  for (int r = 0; r < n; ++r) v.push_back(prefix + std::to_string(r) + suffix);
  return v;
}

inline std::map<std::string, std::string> read_report(const std::string& path) {
  std::map<std::string, std::string> kv;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

}  // namespace launcher_test
