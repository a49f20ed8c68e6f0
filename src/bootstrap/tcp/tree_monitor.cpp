// SPDX-License-Identifier: BSD-3-Clause
// Lifetime of a TreeBootstrap: construction, the failure monitor thread, and shutdown. As the
// star's (monitor.cpp), over the tree neighbours: the monitor polls them without io_mutex_; when
// one reports something it takes the lock, checks that no collective ran meanwhile and peeks:
//   - end of stream / reset: that neighbour died. Failed state, a notice naming it to every
//     other neighbour (flooded on from there), callback with its rank.
//   - a notice: consumed, forwarded to the other neighbours, callback with the PE it names (the
//     dead, late or mismatched PE), or its origin when it names none.
//   - the header of a collective a child already entered: left for that collective; the socket
//     is only watched for hang-up until the next collective completed.
//   - heartbeats (heartbeat.h): read and dropped. The monitor sends its own every period, and a
//     link that brought no byte for GSHMEM_HEARTBEAT_TIMEOUT is reported like a dead one (failed
//     state, a notice naming its PE to every neighbour, the callback), "stopped, wedged, or cut
//     off". It never waits for io_mutex_ (try_lock): while a collective holds it, the monitor
//     keeps sending heartbeats and watches for hang-ups only; what it found waits for the end.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "bootstrap/tcp/tree.h"

namespace gshmem::bootstrap::tcp {

TreeBootstrap::TreeBootstrap(int rank, int size, uint64_t job_key, const JobToken& token, int timeout_s)
    : rank_(rank),
      size_(size),
      job_key_(job_key),
      timeout_s_(timeout_s),
      owner_pid_(getpid()),
      node_(tree_node(rank, size)),
      height_(tree_height(node_.hi - node_.lo)),
      tree_height_(tree_height(size)) {
  job_token_ = token;
  if (rank_ != 0) {
    Link p;
    p.rank = node_.parent;
    links_.push_back(p);
    first_child_ = 1;
  }
  for (const TreeNode::Child& c : node_.children) {
    Link l;
    l.rank = c.rank;
    l.lo = c.lo;
    l.hi = c.hi;
    links_.push_back(l);
  }
  send_mu_.reset(new std::mutex[links_.size()]);
}

TreeBootstrap::~TreeBootstrap() {
  if (forked()) {
    monitor_.abandon_in_child();
    return;
  }
  stop_monitor();
  {
    std::lock_guard<std::mutex> lock(io_mutex_);
    if (!closed_) {
      close_connections(true);
      closed_ = true;
    }
  }
  monitor_.close_pipe();
}

void TreeBootstrap::close_connections(bool linger) {
  std::vector<int> fds;
  for (Link& l : links_) fds.push_back(l.fd), l.fd = -1;
  untrack_for_fork(fds);
  if (linger) {
    lingering_close(&fds, 1000);
  } else {
    for (int& fd : fds) close_fd(&fd);
  }
}

Status TreeBootstrap::start_failure_monitor(std::function<void(int, const std::string&)> on_failure) {
  if (!on_failure) {
    GSHMEM_LOG_ERROR("bootstrap: start_failure_monitor: no callback given");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  GSHMEM_TRY(forked_check("start_failure_monitor"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  if (monitor_started_) {
    GSHMEM_LOG_ERROR("bootstrap: start_failure_monitor called twice");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (closed_) {
    GSHMEM_LOG_ERROR("bootstrap: start_failure_monitor called after finalize");
    return GSHMEM_ERROR_NOT_INITIALIZED;
  }
  if (failed_ != GSHMEM_SUCCESS) {
    GSHMEM_LOG_ERROR("bootstrap: start_failure_monitor refused: an earlier operation failed (%s)", failed_msg_.c_str());
    return failed_;
  }
  monitor_started_ = true;
  return monitor_.start([this, cb = std::move(on_failure)] { monitor_main(cb); });
}

void TreeBootstrap::stop_monitor() { monitor_.stop(); }

void TreeBootstrap::send_heartbeats() {
  for (size_t i = 0; i < links_.size(); ++i) {
    std::unique_lock<std::mutex> send_lock(send_mu_[i], std::try_to_lock);
    if (!send_lock.owns_lock()) continue;  // a message is being sent: its bytes are the sign of life
    Link& l = links_[i];
    if (l.fd < 0 || l.broken) continue;
    int err = 0;
    const Io io = send_heartbeat(l.fd, &err);
    // Half a header in the stream: nothing more may follow on it (fail() shuts it down). A closed
    // link is the failure path's business (the poll sees the end of its stream).
    if (io == Io::timeout || io == Io::error) l.broken = true;
  }
}

void TreeBootstrap::declare_silent(size_t i, long long silent_s) {
  const int r = links_[i].rank;
  fail(GSHMEM_ERROR_PEER_FAILURE,
       "bootstrap: PE " + std::to_string(r) + " sent nothing to PE " + std::to_string(rank_) + " for " +
           std::to_string(silent_s) + " s (GSHMEM_HEARTBEAT_TIMEOUT=" + std::to_string(heartbeat_s_) +
           "): it is stopped (SIGSTOP, a debugger), wedged, or cut off",
       r);
  // The notice went to it too (it learns why once it runs again); nothing more will.
  links_[i].broken = true;
  shutdown(links_[i].fd, SHUT_WR);
}

void TreeBootstrap::monitor_main(std::function<void(int, const std::string&)> cb) {
  const size_t n = links_.size();  // links_ does not change while the monitor runs
  std::vector<char> pending(n, 0);
  std::vector<pollfd> pf(n + 1);
  std::vector<int> fds(n);
  for (size_t i = 0; i < n; ++i) fds[i] = links_[i].fd;
  HeartbeatClock beat;
  beat.start(heartbeat_s_, fds);
  // A collective held io_mutex_ when the monitor last wanted it: it reads the links itself, so
  // the monitor watches them for hang-ups only until it ended (or a second passed).
  bool busy = false;
  HeartbeatClock::Clock::time_point busy_since;
  uint64_t gen = generation_.load();
  for (;;) {
    if (monitor_.stopping()) return;
    const uint64_t g = generation_.load();
    if (g != gen) {  // a collective ran: what was pending has been consumed
      gen = g;
      std::fill(pending.begin(), pending.end(), 0);
      busy = false;
    }
    if (busy && HeartbeatClock::Clock::now() - busy_since > std::chrono::seconds(1)) busy = false;
    pf[0] = {monitor_.wake_fd(), POLLIN, 0};
    for (size_t i = 0; i < n; ++i)
      pf[i + 1] = {links_[i].fd, static_cast<short>(pending[i] || busy ? POLLRDHUP : (POLLIN | POLLRDHUP)), 0};
    const bool found = monitor_.failure_found();  // by a collective: see below
    int k = poll(pf.data(), pf.size(), monitor_.poll_ms(beat.poll_ms()));
    if (monitor_.stopping()) return;
    if (k < 0 && errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (k > 0 && pf[0].revents) monitor_.drain_wakes();
    const auto now = HeartbeatClock::Clock::now();
    if (beat.send_due(now)) send_heartbeats();
    const int silent = beat.silent_link(now);
    bool any = false;
    for (size_t i = 1; k > 0 && i < pf.size(); ++i) any = any || pf[i].revents != 0;
    if (!any && silent < 0 && !found) continue;

    // Never waits for io_mutex_: a collective may hold it for long, and the heartbeats above
    // must go on meanwhile.
    std::unique_lock<std::mutex> lock(io_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) {
      if (!busy) busy_since = now;
      busy = true;
      continue;
    }
    if (monitor_.stopping() || closed_) return;
    if (failed_ != GSHMEM_SUCCESS) {  // a collective met it first (MonitorThread::found_failure)
      monitor_.report_found(failed_, failed_msg_, lock, cb);
      return;  // `this` may be gone once the callback returned: touch nothing
    }
    if (generation_.load() != gen) continue;  // a collective ran meanwhile: look again

    int dead = -1;
    bool partial = false, reported = false;
    auto vanished = [&](size_t i) {
      links_[i].broken = true;
      fail(GSHMEM_ERROR_PEER_FAILURE,
           "bootstrap: PE " + std::to_string(links_[i].rank) + " disconnected without finalizing (process died?)",
           links_[i].rank, i);
    };
    for (size_t i = 0; i < n && dead < 0; ++i) {
      const int fd = links_[i].fd;
      pollfd q{fd, POLLIN | POLLRDHUP, 0};
      if (poll(&q, 1, 0) <= 0 || !q.revents) continue;
      const bool hangup = (q.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
      if (!pending[i]) {
        const Head head = skip_heartbeats(fd);  // consumed here while no collective runs
        if (head == Head::empty && !hangup) continue;
      }
      uint8_t hb[kHeaderBytes];
      ssize_t got = recv(fd, hb, sizeof(hb), MSG_PEEK | MSG_DONTWAIT);
      const int e = got < 0 ? errno : 0;
      if (got < 0 && (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)) {
        if (hangup) dead = links_[i].rank;
        continue;
      }
      if (got <= 0 || (static_cast<size_t>(got) < kHeaderBytes && hangup)) {
        vanished(i);
        dead = links_[i].rank;
        reported = true;
        continue;
      }
      if (static_cast<size_t>(got) < kHeaderBytes) {
        partial = true;  // the rest of the header is on its way
        continue;
      }
      const Header h = decode_header(hb);
      if (h.op == static_cast<uint32_t>(Op::notice)) {
        int err = 0;
        recv_all(fd, hb, sizeof(hb), Deadline(2.0), &err);  // consume the peeked header
        take_notice(i, h, Deadline(2.0));
        dead = h.arg >= 0 && h.arg < size_ ? h.arg : static_cast<int>(h.seq);
        if (dead < 0 || dead >= size_) dead = links_[i].rank;
        reported = true;
        continue;
      }
      if (hangup) {
        vanished(i);
        dead = links_[i].rank;
        reported = true;
      } else if (h.op != static_cast<uint32_t>(Op::heartbeat)) {
        pending[i] = 1;  // the start of a collective: leave it to that collective
      }
    }
    if (dead < 0 && silent >= 0 && beat.silent_link(HeartbeatClock::Clock::now()) == silent) {
      declare_silent(static_cast<size_t>(silent), beat.silent_s(static_cast<size_t>(silent), now));
      dead = links_[silent].rank;
      reported = true;
    }
    if (dead >= 0) {
      if (!reported) {
        for (size_t i = 0; i < n; ++i)
          if (links_[i].rank == dead) vanished(i);
      }
      const std::string how = failed_msg_;
      lock.unlock();
      cb(dead, how);
      return;  // `this` may be gone once the callback returned: touch nothing
    }
    lock.unlock();
    if (partial) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace gshmem::bootstrap::tcp
