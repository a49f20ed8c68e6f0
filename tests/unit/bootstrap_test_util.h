// SPDX-License-Identifier: BSD-3-Clause
// What the TCP bootstrap's tests share (test_bootstrap.cpp, test_bootstrap_local.cpp):
// forked ranks over loopback, each with stderr redirected to its own temp file (the
// parent checks log text), bounded by alarm(), reporting through its exit code (0 =
// all checks passed; a failed check prints "CHECK FAILED ..." to its log); the parent
// waits with a deadline and SIGKILLs leftovers. Also ids on loopback, free ports and
// byte patterns.
#pragma once

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp/socket.h"
#include "host/core/log.h"
#include "host/core/status.h"

namespace bootstrap_test {

using namespace gshmem;
using namespace gshmem::bootstrap;
using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// ---------------------------------------------------------------- harness --

#define CHILD_CHECK(cond, ...)                                                \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "CHECK FAILED %s:%d: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fprintf(stderr, "\n");                                                  \
      fflush(stderr);                                                         \
      return 1;                                                               \
    }                                                                         \
  } while (0)

struct Child {
  pid_t pid = -1;
  int rank = -1;
  FILE* log = nullptr;
  int status = 0;
  bool reaped = false;
  std::string output;

  bool exited_with(int code) const { return reaped && WIFEXITED(status) && WEXITSTATUS(status) == code; }
  std::string describe() const {
    std::string s = "child rank " + std::to_string(rank) + ": ";
    if (!reaped)
      s += "not reaped";
    else if (WIFEXITED(status))
      s += "exit code " + std::to_string(WEXITSTATUS(status));
    else if (WIFSIGNALED(status))
      s += "killed by signal " + std::to_string(WTERMSIG(status)) +
           (WTERMSIG(status) == SIGALRM ? " (alarm: it hung)" : "");
    return s + "\n--- its log ---\n" + output + "--- end ---";
  }
};

// Fork a child that runs body() with stderr in a temp file, killed by SIGALRM
// after alarm_s seconds.
inline Child spawn(int rank, int alarm_s, const std::function<int()>& body) {
  fflush(stdout);
  fflush(stderr);
  Child c;
  c.rank = rank;
  c.log = tmpfile();
  c.pid = fork();
  if (c.pid == 0) {
    dup2(fileno(c.log), 2);
    alarm(alarm_s);
    log::set_identity(rank, -1);
    int rc = body();
    fflush(nullptr);
    _exit(rc);
  }
  return c;
}

// Reap every child; those still running after deadline_s are SIGKILLed.
inline void wait_all(std::vector<Child*> cs, double deadline_s) {
  auto t0 = Clock::now();
  for (;;) {
    bool all = true;
    for (Child* c : cs) {
      if (c->reaped) continue;
      if (waitpid(c->pid, &c->status, WNOHANG) == c->pid)
        c->reaped = true;
      else
        all = false;
    }
    if (all || seconds_since(t0) > deadline_s) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  for (Child* c : cs) {
    if (!c->reaped) {
      kill(c->pid, SIGKILL);
      waitpid(c->pid, &c->status, 0);
      c->reaped = true;
      c->output = "(killed by the test: past its deadline)\n";
    }
    fflush(c->log);
    rewind(c->log);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), c->log)) > 0) c->output.append(buf, n);
    fclose(c->log);
    c->log = nullptr;
  }
}
inline void wait_all(std::vector<Child>& cs, double deadline_s) {
  std::vector<Child*> p;
  for (Child& c : cs) p.push_back(&c);
  wait_all(p, deadline_s);
}

inline bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

// Fresh id on loopback (the listener stays in this process's registry and is
// inherited by forked children; rank 0 takes it).
inline gshmemx_uniqueid_t loopback_id() {
  setenv("GSHMEM_BOOTSTRAP_IFNAME", "lo", 1);
  gshmemx_uniqueid_t id;
  EXPECT_EQ(create_uniqueid(&id), GSHMEM_SUCCESS);
  unsetenv("GSHMEM_BOOTSTRAP_IFNAME");
  return id;
}

// Run `n` ranks of body(rank) and expect each to exit 0.
inline void run_ranks(int n, const gshmemx_uniqueid_t& id, int alarm_s, const std::function<int(int)>& body,
                      std::vector<Child>* out = nullptr) {
  std::vector<Child> cs;
  for (int r = 0; r < n; ++r) cs.push_back(spawn(r, alarm_s, [&, r] { return body(r); }));
  release_uniqueid_listener(id);  // only rank 0 keeps it
  wait_all(cs, alarm_s + 5);
  for (const Child& c : cs) EXPECT_TRUE(c.exited_with(0)) << c.describe();
  if (out) *out = std::move(cs);
}

inline ConnectOptions opts(int timeout_s) {
  ConnectOptions o;
  o.timeout_s = timeout_s;
  return o;
}

inline uint8_t pattern(int rank, size_t i, int salt) {
  return static_cast<uint8_t>(rank * 131 + i * 7 + (i >> 9) * 13 + salt * 29 + 1);
}

// Free TCP port on loopback (nothing listens on it when this returns).
inline uint16_t free_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

// A listening IPv4 TCP socket on `addr` (host order), a port the kernel picks
// (*port); -1 if bind or listen fails.
inline int listen_on(uint32_t addr, int backlog, uint16_t* port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd, backlog) != 0) {
    close(fd);
    return -1;
  }
  socklen_t len = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  *port = ntohs(a.sin_port);
  return fd;
}

// A raw TCP connection to 127.0.0.1:port (blocking), or -1.
inline int raw_connect(uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

}  // namespace bootstrap_test
