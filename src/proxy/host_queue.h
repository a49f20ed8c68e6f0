// SPDX-License-Identifier: BSD-3-Clause
// Host calls to proxy peers (and, later, stream gates) reach the engine through this queue:
// a mutex-guarded FIFO whose eventfd wakes a proxy thread asleep in epoll. Operations get ids
// in push order; the engine keeps their per-target order and publishes its own completion count
// here (the lowest incomplete id), which host gshmem_quiet and stream gates wait on.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "op.h"

namespace gshmem::proxy {

struct HostOp {
  ProxyOp op;
  // A fetch stores its value here before completed() passes the op; a by-reference get writes
  // op.ref_addr. `failed` (optional) is set to 1 when the op failed (its target failed).
  uint64_t* result = nullptr;
  std::atomic<int>* failed = nullptr;
};

class HostQueue {
 public:
  HostQueue();
  ~HostQueue();
  HostQueue(const HostQueue&) = delete;
  HostQueue& operator=(const HostQueue&) = delete;

  // Any thread. Returns the op's id; the op is complete once completed() > id.
  uint64_t push(const HostOp& op);
  // The engine's thread: up to `max` ops in push order, with their ids; clears the eventfd.
  void pop(std::vector<std::pair<uint64_t, HostOp>>& out, size_t max);

  // Empty unless the eventfd could not be made (the queue still works; nothing wakes a sleeper).
  const std::string& error() const { return error_; }
  int event_fd() const { return fd_; }  // readable while ops wait
  uint64_t completed() const { return completed_.load(std::memory_order_acquire); }
  void publish_completed(uint64_t c) { completed_.store(c, std::memory_order_release); }
  // Spins (yielding) until every op pushed before is complete: host gshmem_quiet's wait.
  void wait_all() const;

 private:
  mutable std::mutex mu_;
  std::deque<HostOp> fifo_;
  uint64_t next_id_ = 0;  // id of the next push
  uint64_t popped_ = 0;   // id of the next pop
  int fd_ = -1;
  std::string error_;
  std::atomic<uint64_t> completed_{0};
};

}  // namespace gshmem::proxy
