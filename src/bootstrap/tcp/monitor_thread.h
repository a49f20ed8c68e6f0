// SPDX-License-Identifier: BSD-3-Clause
// The failure monitor's thread and the pipe that wakes its poll(), shared by both TCP bootstraps
// (the star's monitor.cpp, the tree's tree_monitor.cpp): each polls its own sockets, this owns the
// thread's start, its stop from any thread (the monitor's own callback included) and the pipe.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

#include "host/core/status.h"

namespace gshmem::bootstrap::tcp {

class MonitorThread {
 public:
  MonitorThread() = default;
  MonitorThread(const MonitorThread&) = delete;
  MonitorThread& operator=(const MonitorThread&) = delete;

  // Makes the wake pipe and runs `body` on a new thread; logs and fails if either cannot be had.
  Status start(std::function<void()> body);
  // Asks the thread to end, wakes its poll and joins it (detaches it when called on the thread
  // itself, from the monitor's callback: it ends right after). Nothing when not running.
  void stop();
  // In a fork()ed child, where the thread does not exist: lets go of the thread object and touches
  // no fd (the numbers may belong to other files by now).
  void abandon_in_child();
  // Closes the wake pipe (after stop()).
  void close_pipe();

  // Cuts the thread's current poll() short (it then looks at what changed); any thread.
  void wake() const;
  bool stopping() const { return stop_.load(); }
  int wake_fd() const { return wake_[0]; }  // poll it for POLLIN
  void drain_wakes() const;                 // read what woke the poll

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false};
  int wake_[2] = {-1, -1};
};

}  // namespace gshmem::bootstrap::tcp
