// SPDX-License-Identifier: BSD-3-Clause
#include "host_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace gshmem::proxy {

HostQueue::HostQueue() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (fd_ < 0) error_ = std::string("proxy host queue: eventfd failed: ") + std::strerror(errno);
}

HostQueue::~HostQueue() {
  if (fd_ >= 0) close(fd_);
}

uint64_t HostQueue::push(const HostOp& op) {
  uint64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = next_id_++;
    fifo_.push_back(op);
  }
  const uint64_t one = 1;
  // EAGAIN means the counter is saturated: the proxy is woken anyway.
  if (fd_ >= 0) {
    ssize_t rc = write(fd_, &one, sizeof one);
    (void)rc;
  }
  return id;
}

void HostQueue::pop(std::vector<std::pair<uint64_t, HostOp>>& out, size_t max) {
  std::lock_guard<std::mutex> lock(mu_);
  uint64_t drained;
  // Reset the eventfd under the lock: a push after it writes again, so no wakeup is lost.
  ssize_t rc = fd_ >= 0 ? read(fd_, &drained, sizeof drained) : 0;
  (void)rc;
  while (!fifo_.empty() && max-- > 0) {
    out.emplace_back(popped_++, fifo_.front());
    fifo_.pop_front();
  }
  if (!fifo_.empty() && fd_ >= 0) {
    const uint64_t one = 1;
    rc = write(fd_, &one, sizeof one);  // more left: stay readable
  }
}

void HostQueue::wait_all() const {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(mu_);
    target = next_id_;
  }
  while (completed() < target) std::this_thread::yield();
}

}  // namespace gshmem::proxy
