// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/heartbeat.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "bootstrap/tcp/protocol.h"
#include "host/core/log.h"

namespace gshmem::bootstrap::tcp {

int unread_bytes(int fd) {
  int n = 0;
  return ioctl(fd, FIONREAD, &n) == 0 && n > 0 ? n : 0;
}

Io send_heartbeat(int fd, int* err) {
  uint8_t hb[kHeaderBytes];
  encode_header(Header{static_cast<uint32_t>(Op::heartbeat), 0, 0, 0, 0}, hb);
  *err = 0;
  ssize_t k;
  do {
    k = send(fd, hb, sizeof(hb), MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (k < 0 && errno == EINTR);
  if (k == static_cast<ssize_t>(sizeof(hb))) return Io::ok;
  if (k < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Io::ok;  // no room: nothing sent
    *err = errno;
    return is_disconnect_errno(errno) ? Io::closed : Io::error;
  }
  // Part of the header went: the rest must follow before anything else.
  return send_all(fd, hb + k, sizeof(hb) - static_cast<size_t>(k), Deadline(1.0), err);
}

Head skip_heartbeats(int fd) {
  for (;;) {
    uint8_t hb[kHeaderBytes];
    const ssize_t k = recv(fd, hb, sizeof(hb), MSG_PEEK | MSG_DONTWAIT);
    if (k < 0) {
      if (errno == EINTR) continue;
      return errno == EAGAIN || errno == EWOULDBLOCK ? Head::empty : Head::closed;
    }
    if (k == 0) return Head::closed;
    if (static_cast<size_t>(k) < sizeof(hb)) return Head::partial;
    if (decode_header(hb).op != static_cast<uint32_t>(Op::heartbeat)) return Head::other;
    recv_counted(fd, hb, sizeof(hb), MSG_DONTWAIT);  // peeked whole: this cannot block
  }
}

void HeartbeatClock::start(int timeout_s, const std::vector<int>& fds) {
  timeout_s_ = timeout_s > 0 ? timeout_s : 0;
  // A quarter of the bound, at most a second: four beats are missed before a PE is declared silent.
  period_ = std::chrono::milliseconds(std::min(1000, std::max(50, timeout_s_ * 250)));
  const Clock::time_point now = Clock::now();
  next_send_ = now;
  links_.clear();
  for (int fd : fds) {
    Link l;
    l.fd = fd;
    l.last = now;
    if (fd >= 0 && timeout_s_ > 0 && !tcp_bytes_received(fd, &l.rx)) counting_ = false;
    links_.push_back(l);
  }
  if (timeout_s_ > 0 && !counting_)
    GSHMEM_LOG_INFO(
        "bootstrap: the kernel does not count the bytes a socket received (TCP_INFO); heartbeats are sent but a "
        "stopped PE is found only by timeouts");
}

int HeartbeatClock::poll_ms() const {
  return timeout_s_ > 0 ? static_cast<int>(std::min<long long>(500, period_.count())) : 500;
}

bool HeartbeatClock::send_due(Clock::time_point now) {
  if (timeout_s_ == 0 || now < next_send_) return false;
  next_send_ = now + period_;
  return true;
}

int HeartbeatClock::silent_link(Clock::time_point now) {
  if (timeout_s_ == 0 || !counting_) return -1;
  int first = -1;
  for (size_t i = 0; i < links_.size(); ++i) {
    Link& l = links_[i];
    if (l.fd < 0) continue;
    uint64_t rx = 0;
    if (!tcp_bytes_received(l.fd, &rx)) continue;
    if (rx != l.rx || unread_bytes(l.fd) >= kBacklogBytes) {
      l.rx = rx;
      l.last = now;
    } else if (first < 0 && now - l.last > std::chrono::seconds(timeout_s_)) {
      first = static_cast<int>(i);
    }
  }
  return first;
}

long long HeartbeatClock::silent_s(size_t i, Clock::time_point now) const {
  return std::chrono::duration_cast<std::chrono::seconds>(now - links_[i].last).count();
}

Io send_message(int fd, const iovec* parts, int n, const Deadline& dl, int* err, bool input_when_blocked,
                size_t* sent) {
  size_t done = 0;
  for (;;) {
    iovec rest[3];
    int m = 0;
    size_t skip = done;
    for (int i = 0; i < n && m < 3; ++i) {
      if (skip >= parts[i].iov_len) {
        skip -= parts[i].iov_len;
        continue;
      }
      rest[m++] = {static_cast<char*>(parts[i].iov_base) + skip, parts[i].iov_len - skip};
      skip = 0;
    }
    size_t k = 0;
    const Io io = send_parts(fd, rest, m, dl, err, input_when_blocked, &k);
    done += k;
    if (io == Io::input && !dl.expired()) {
      // The peer's heartbeats are no reason to stop; anything else is (an abort).
      const Head head = skip_heartbeats(fd);
      if (head == Head::empty) continue;
      if (head == Head::partial) {  // a header on its way: which one, in a moment
        usleep(1000);
        continue;
      }
    }
    *sent = done;
    return io;
  }
}

}  // namespace gshmem::bootstrap::tcp
