// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/monitor_thread.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <utility>

#include "bootstrap/tcp/socket.h"
#include "host/core/log.h"

namespace gshmem::bootstrap::tcp {

Status MonitorThread::start(std::function<void()> body) {
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    GSHMEM_LOG_ERROR("bootstrap: start_failure_monitor: pipe2 failed: %s", errno_string(errno).c_str());
    return GSHMEM_ERROR_SYSTEM;
  }
  track_for_fork(wake_[0]);
  track_for_fork(wake_[1]);
  stop_.store(false);
  try {
    thread_ = std::thread(std::move(body));
  } catch (const std::exception& e) {
    GSHMEM_LOG_ERROR("bootstrap: cannot start the failure monitor thread: %s", e.what());
    return GSHMEM_ERROR_SYSTEM;
  }
  return GSHMEM_SUCCESS;
}

void MonitorThread::wake() const {
  if (wake_[1] >= 0) {
    char c = 1;
    ssize_t ignored = write(wake_[1], &c, 1);
    (void)ignored;
  }
}

void MonitorThread::found_failure(int peer) {
  int none = -1;
  if (peer >= 0 && found_peer_.compare_exchange_strong(none, peer)) wake();
}

void MonitorThread::report_found(Status failed, const std::string& how, std::unique_lock<std::mutex>& lock,
                                 const std::function<void(int, const std::string&)>& cb) const {
  // Other failures (a timeout, a mismatch) stay the caller's.
  const int dead = failed == GSHMEM_ERROR_PEER_FAILURE ? found_peer_.load() : -1;
  const std::string msg = how;  // copied under the lock
  lock.unlock();
  if (dead >= 0) cb(dead, msg);
}

void MonitorThread::stop() {
  if (!thread_.joinable()) return;
  stop_.store(true);
  wake();
  if (thread_.get_id() == std::this_thread::get_id())
    thread_.detach();  // called from the callback; the thread ends right after it
  else
    thread_.join();
}

void MonitorThread::abandon_in_child() {
  if (thread_.joinable()) thread_.detach();
}

void MonitorThread::close_pipe() {
  for (int& fd : wake_) {
    untrack_for_fork(fd);
    close_fd(&fd);
  }
}

void MonitorThread::drain_wakes() const {
  char buf[16];
  while (read(wake_[0], buf, sizeof(buf)) > 0) {
  }
}

}  // namespace gshmem::bootstrap::tcp
