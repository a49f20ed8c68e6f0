// SPDX-License-Identifier: BSD-3-Clause
// Lifetime of a TcpBootstrap: construction, the failure monitor thread, and
// shutdown.
//
// The monitor polls the connections (rank 0: every peer; others: rank 0)
// without holding io_mutex_; poll() consumes nothing. When a socket reports
// something it takes io_mutex_ (so it waits for a running collective to end),
// checks that no collective ran in between, and looks at the socket with
// MSG_PEEK:
//   - EOF / reset: that peer died. Rank 0 enters the failed state, sends every
//     other rank an abort naming it, and calls the callback; rank 1..N-1 call
//     the callback with dead rank 0.
//   - an abort from rank 0 (ranks 1..N-1): consumed; callback with the rank it
//     names (the PE that died, was late or mismatched, or reported its own
//     failure; rank 0 when it names none: then rank 0 itself hit the error).
//   - an abort from a member (rank 0): that member's collective failed on its
//     own (e.g. it timed out while rank 0 was late). Rank 0 enters the failed
//     state, relays it naming that member, and calls the callback with it.
//   - the header of a collective a peer already entered (rank 0): left for that
//     collective; the socket is then only watched for hang-up (POLLRDHUP) until
//     the next collective completes, so the monitor does not spin.
//   - heartbeats (heartbeat.h; rank 0 and each member send them to each other):
//     read and dropped. A connection that brought no byte for
//     GSHMEM_HEARTBEAT_TIMEOUT is failed like a dead one (rank 0 relays it). The
//     monitor never waits for io_mutex_ (try_lock), so that its heartbeats go on
//     while a collective runs; what it found then waits for the collective's end.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "bootstrap/tcp/tcp_bootstrap.h"

namespace gshmem::bootstrap::tcp {

TcpBootstrap::TcpBootstrap(int rank, int size, uint64_t job_key, const JobToken& token, int timeout_s,
                           std::vector<int> fds, std::string root_endpoint)
    : rank_(rank),
      size_(size),
      job_key_(job_key),
      timeout_s_(timeout_s),
      owner_pid_(getpid()),
      root_endpoint_(std::move(root_endpoint)),
      fds_(std::move(fds)),
      broken_(fds_.size(), 0),
      send_mu_(new std::mutex[fds_.size()]) {
  job_token_ = token;
  for (int fd : fds_) track_for_fork(fd);
}

TcpBootstrap::~TcpBootstrap() {
  if (forked()) {
    // A fork()ed child's copy: its sockets were closed at the fork and their
    // numbers may belong to other files by now; the monitor thread does not
    // exist here. Touch no fd; just let go of the thread object.
    monitor_.abandon_in_child();
    return;
  }
  stop_monitor();
  {
    std::lock_guard<std::mutex> lock(io_mutex_);
    if (!closed_) {
      // No goodbye: peers will see us disconnect. Linger briefly so an abort we
      // sent is not destroyed by a RST.
      close_connections(true);
      closed_ = true;
    }
  }
  monitor_.close_pipe();
}

void TcpBootstrap::close_connections(bool linger) {
  untrack_for_fork(fds_);  // before closing: the numbers may be reused at once
  if (linger) {
    lingering_close(&fds_, 1000);
  } else {
    for (int& fd : fds_) close_fd(&fd);
  }
}

Status TcpBootstrap::start_failure_monitor(std::function<void(int, const std::string&)> on_failure) {
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
  if (size_ == 1) return GSHMEM_SUCCESS;  // nobody to watch
  return monitor_.start([this, cb = std::move(on_failure)] { monitor_main(cb); });
}

void TcpBootstrap::stop_monitor() { monitor_.stop(); }

void TcpBootstrap::send_heartbeats(const std::vector<int>& idx) {
  for (int i : idx) {
    std::unique_lock<std::mutex> send_lock(send_mu_[i], std::try_to_lock);
    if (!send_lock.owns_lock()) continue;  // a message is being sent: its bytes are the sign of life
    if (fds_[i] < 0 || broken_[i]) continue;
    int err = 0;
    const Io io = send_heartbeat(fds_[i], &err);
    if (io == Io::timeout || io == Io::error) broken_[i] = 1;  // half a header in the stream
  }
}

void TcpBootstrap::monitor_main(std::function<void(int, const std::string&)> cb) {
  // Watched sockets and the rank at the other end. fds_ does not change while
  // the monitor runs (sockets are only closed after it stopped).
  std::vector<int> fd_of, rank_of, idx_of;
  if (rank_ == 0) {
    for (int r = 1; r < size_; ++r) fd_of.push_back(fds_[r]), rank_of.push_back(r), idx_of.push_back(r);
  } else {
    fd_of.push_back(fds_[0]);
    rank_of.push_back(0);
    idx_of.push_back(0);
  }
  const size_t n = fd_of.size();
  std::vector<char> pending(n, 0);
  std::vector<pollfd> pf(n + 1);
  HeartbeatClock beat;
  beat.start(heartbeat_s_, fd_of);
  // A collective held io_mutex_ when the monitor last wanted it: it reads the connections
  // itself, so the monitor watches them for hang-ups only until it ended (or a second passed).
  bool busy = false;
  HeartbeatClock::Clock::time_point busy_since;
  uint64_t gen = generation_.load();
  for (;;) {
    if (monitor_.stopping()) return;
    uint64_t g = generation_.load();
    if (g != gen) {  // a collective ran: what was pending has been consumed
      gen = g;
      std::fill(pending.begin(), pending.end(), 0);
      busy = false;
    }
    if (busy && HeartbeatClock::Clock::now() - busy_since > std::chrono::seconds(1)) busy = false;
    pf[0] = {monitor_.wake_fd(), POLLIN, 0};
    for (size_t i = 0; i < n; ++i)
      pf[i + 1] = {fd_of[i], static_cast<short>(pending[i] || busy ? POLLRDHUP : (POLLIN | POLLRDHUP)), 0};
    const bool found = monitor_.failure_found();  // by a collective: see below
    int k = poll(pf.data(), pf.size(), monitor_.poll_ms(beat.poll_ms()));
    if (monitor_.stopping()) return;
    if (k < 0 && errno != EINTR) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (k > 0 && pf[0].revents) monitor_.drain_wakes();
    const auto now = HeartbeatClock::Clock::now();
    if (beat.send_due(now)) send_heartbeats(idx_of);
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
    std::string how;
    bool partial = false;
    for (size_t i = 0; i < n && dead < 0; ++i) {
      pollfd q{fd_of[i], POLLIN | POLLRDHUP, 0};
      if (poll(&q, 1, 0) <= 0 || !q.revents) continue;
      const bool hangup = (q.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
      if (!pending[i] && skip_heartbeats(fd_of[i]) == Head::empty && !hangup) continue;  // heartbeats read
      uint8_t hb[kHeaderBytes];
      ssize_t got = recv(fd_of[i], hb, sizeof(hb), MSG_PEEK | MSG_DONTWAIT);
      int e = got < 0 ? errno : 0;
      if (got < 0 && (e == EAGAIN || e == EWOULDBLOCK || e == EINTR)) {
        if (hangup) dead = rank_of[i];
        continue;
      }
      if (got <= 0) {  // EOF or reset
        dead = rank_of[i];
        continue;
      }
      if (static_cast<size_t>(got) < kHeaderBytes) {
        if (hangup)
          dead = rank_of[i];
        else
          partial = true;  // rest of the header is on its way
        continue;
      }
      Header h = decode_header(hb);
      if (h.op == static_cast<uint32_t>(Op::abort)) {
        int err = 0;
        recv_all(fd_of[i], hb, sizeof(hb), Deadline(2.0), &err);  // consume the peeked header
        if (rank_ == 0) {
          take_member_abort(rank_of[i], h, Deadline(2.0));  // relays it, naming that member
          dead = rank_of[i];
        } else {
          take_abort(h, Deadline(2.0));
          dead = h.arg >= 0 && h.arg < size_ ? h.arg : 0;
        }
        how = failed_msg_;
        continue;
      }
      if (hangup)
        dead = rank_of[i];  // sent something, then vanished
      else if (h.op != static_cast<uint32_t>(Op::heartbeat))
        pending[i] = 1;  // the start of a collective: leave it to that collective
    }
    if (dead < 0 && silent >= 0 && beat.silent_link(HeartbeatClock::Clock::now()) == silent) {
      // Rank 0 relays it to the others (fail); a member's only neighbour is rank 0.
      dead = rank_of[silent];
      fail(GSHMEM_ERROR_PEER_FAILURE, dead,
           "bootstrap: PE " + std::to_string(dead) + " sent nothing to PE " + std::to_string(rank_) + " for " +
               std::to_string(beat.silent_s(static_cast<size_t>(silent), now)) + " s (GSHMEM_HEARTBEAT_TIMEOUT=" +
               std::to_string(heartbeat_s_) + "): it is stopped (SIGSTOP, a debugger), wedged, or cut off");
      how = failed_msg_;
    }
    if (dead >= 0) {
      if (how.empty()) {
        how = "bootstrap: PE " + std::to_string(dead) + " disconnected without finalizing (process died?)";
        fail(GSHMEM_ERROR_PEER_FAILURE, dead, how);  // rank 0 relays it to the others
      }
      lock.unlock();
      cb(dead, how);
      return;  // `this` may be gone once the callback returned: touch nothing
    }
    lock.unlock();
    if (partial) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace gshmem::bootstrap::tcp
