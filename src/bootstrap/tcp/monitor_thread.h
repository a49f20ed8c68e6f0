// SPDX-License-Identifier: BSD-3-Clause
// The failure monitor's thread and the pipe that wakes its poll(), shared by both TCP bootstraps
// (the star's monitor.cpp, the tree's tree_monitor.cpp): each polls its own sockets, this owns the
// thread's start, its stop from any thread (the monitor's own callback included) and the pipe.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <string>
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

  // A peer failure that a collective met (the bootstrap's fail()), not the monitor: the first PE
  // one names is kept and the monitor woken. The collective returns the error to its caller; the
  // monitor then reports it through its callback, once, as when it finds a death itself (else it
  // ended silently on the failed state: a survivor's malloc returned NULL and nothing released its
  // device waits or ended it; tests/functional/kill_matrix, heap_grow).
  void found_failure(int peer);
  bool failure_found() const { return found_peer_.load() >= 0; }
  // The monitor's poll timeout: `ms` (< 0: none), at most 50 ms while a found failure waits for the
  // collective that found it to let go of the bootstrap.
  int poll_ms(int ms) const { return failure_found() && (ms < 0 || ms > 50) ? 50 : ms; }
  // On the monitor thread, holding `lock` on a bootstrap in the failed state `failed` (message
  // `how`): releases the lock and, for a found peer failure, runs cb(peer, how). The monitor then
  // returns at once: its bootstrap may be gone once the callback returned.
  void report_found(Status failed, const std::string& how, std::unique_lock<std::mutex>& lock,
                    const std::function<void(int, const std::string&)>& cb) const;
  int wake_fd() const { return wake_[0]; }  // poll it for POLLIN
  void drain_wakes() const;                 // read what woke the poll

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<int> found_peer_{-1};
  int wake_[2] = {-1, -1};
};

}  // namespace gshmem::bootstrap::tcp
