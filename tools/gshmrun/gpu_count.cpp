// SPDX-License-Identifier: BSD-3-Clause
// GPU counting through the CUDA driver API, loaded with dlopen so gshmrun runs
// (with an explicit -n) on machines without a driver.
#include "gpu_count.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace gshmrun {
namespace {

constexpr int kCountTimeoutMs = 60000;  // cuInit on a large node can take seconds

struct Answer {
  int count;      // -1 on failure
  char why[240];  // NUL-terminated
};

using CuInitFn = int (*)(unsigned int);
using CuDeviceGetCountFn = int (*)(int*);
using CuGetErrorNameFn = int (*)(int, const char**);

void describe_cu_error(void* lib, const char* call, int rc, Answer* a) {
  const char* name = nullptr;
  auto get_name = reinterpret_cast<CuGetErrorNameFn>(dlsym(lib, "cuGetErrorName"));
  if (get_name == nullptr || get_name(rc, &name) != 0 || name == nullptr) name = "unknown error";
  snprintf(a->why, sizeof(a->why), "%s failed: %s (CUresult %d)", call, name, rc);
}

// Runs in the child process.
Answer query_driver() {
  Answer a;
  a.count = -1;
  a.why[0] = '\0';
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* err = dlerror();
    snprintf(a.why, sizeof(a.why), "cannot load the CUDA driver: %s", err ? err : "libcuda.so.1 not found");
    return a;
  }
  auto cu_init = reinterpret_cast<CuInitFn>(dlsym(lib, "cuInit"));
  auto cu_count = reinterpret_cast<CuDeviceGetCountFn>(dlsym(lib, "cuDeviceGetCount"));
  if (cu_init == nullptr || cu_count == nullptr) {
    snprintf(a.why, sizeof(a.why), "libcuda.so.1 lacks cuInit/cuDeviceGetCount");
    return a;
  }
  int rc = cu_init(0);
  if (rc == 100 /* CUDA_ERROR_NO_DEVICE */) {
    a.count = 0;
    describe_cu_error(lib, "cuInit", rc, &a);
    return a;
  }
  if (rc != 0) {
    describe_cu_error(lib, "cuInit", rc, &a);
    return a;
  }
  int n = 0;
  rc = cu_count(&n);
  if (rc != 0) {
    describe_cu_error(lib, "cuDeviceGetCount", rc, &a);
    return a;
  }
  a.count = n;
  if (n == 0) snprintf(a.why, sizeof(a.why), "the CUDA driver reports 0 devices");
  return a;
}

}  // namespace

int count_visible_gpus(std::string* why) {
  why->clear();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *why = std::string("pipe: ") + strerror(errno);
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    *why = std::string("fork: ") + strerror(errno);
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    close(fds[0]);
    Answer a = query_driver();
    const char* p = reinterpret_cast<const char*>(&a);
    size_t left = sizeof(a);
    while (left > 0) {
      ssize_t w = write(fds[1], p, left);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) break;
      p += w;
      left -= static_cast<size_t>(w);
    }
    _exit(0);  // skip atexit handlers (the driver's included)
  }
  close(fds[1]);

  Answer a;
  size_t got = 0;
  bool timed_out = false;
  while (got < sizeof(a)) {
    struct pollfd pfd = {fds[0], POLLIN, 0};
    int pr = poll(&pfd, 1, kCountTimeoutMs);
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      timed_out = true;
      break;
    }
    ssize_t r = read(fds[0], reinterpret_cast<char*>(&a) + got, sizeof(a) - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  close(fds[0]);
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }

  if (timed_out) {
    *why = "the CUDA driver did not answer within 60 s";
    return -1;
  }
  if (got != sizeof(a)) {
    *why = "the GPU query process died";
    if (WIFSIGNALED(status)) *why += std::string(" (") + strsignal(WTERMSIG(status)) + ")";
    return -1;
  }
  a.why[sizeof(a.why) - 1] = '\0';
  *why = a.why;
  return a.count;
}

}  // namespace gshmrun
