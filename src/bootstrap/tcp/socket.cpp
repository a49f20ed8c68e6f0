// SPDX-License-Identifier: BSD-3-Clause
#include "bootstrap/tcp/socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "bootstrap/bootstrap.h"

namespace gshmem::bootstrap::tcp {

using Clock = std::chrono::steady_clock;

namespace {
// Traffic of every bootstrap socket of the process (bootstrap.h: traffic()).
std::atomic<uint64_t> g_bytes_sent{0}, g_bytes_received{0};
}  // namespace

ssize_t recv_counted(int fd, void* buf, size_t len, int flags) {
  ssize_t n = recv(fd, buf, len, flags);
  if (n > 0 && !(flags & MSG_PEEK)) g_bytes_received.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
  return n;
}

Deadline::Deadline(double seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds > 1e7) seconds = 1e7;  // keep the arithmetic below far from overflow
  at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

Deadline Deadline::sooner(double seconds) const {
  Deadline other(seconds);
  return other.at_ < at_ ? other : *this;
}

int Deadline::remaining_ms() const {
  auto left = at_ - Clock::now();
  if (left <= Clock::duration::zero()) return 0;
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(left).count() + 1;
  return ms > INT_MAX ? INT_MAX : static_cast<int>(ms);
}

bool Deadline::expired() const { return Clock::now() >= at_; }

bool is_disconnect_errno(int e) {
  return e == ECONNRESET || e == EPIPE || e == ENOTCONN || e == ECONNABORTED || e == ETIMEDOUT || e == EHOSTUNREACH ||
         e == ENETUNREACH || e == ENETRESET || e == ESHUTDOWN;
}

std::string errno_string(int e) {
  char buf[256];
  // GNU strerror_r returns the message pointer (possibly not buf).
  const char* msg = strerror_r(e, buf, sizeof(buf));
  return msg ? std::string(msg) : std::string("errno ") + std::to_string(e);
}

int poll_spin(pollfd* fds, nfds_t n, const Deadline& dl, int spin_us) {
  if (spin_us > 0) {
    const auto until = Clock::now() + std::chrono::microseconds(spin_us);
    do {
      const int k = poll(fds, n, 0);
      if (k != 0) return k;
    } while (Clock::now() < until);
  }
  return poll(fds, n, dl.remaining_ms());
}

// Wait until fd has `events` (or an error/hangup) or the deadline passes,
// spinning first for up to spin_us (poll_spin). Returns revents, 0 on timeout,
// -1 on poll failure (errno set).
static int wait_fd(int fd, short events, const Deadline& dl, int spin_us = 0) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = poll_spin(&p, 1, dl, spin_us);
    if (n > 0) return p.revents ? p.revents : events;
    if (n == 0) {
      if (dl.expired()) return 0;
      continue;
    }
    if (errno == EINTR) continue;
    return -1;
  }
}

Io send_all(int fd, const void* buf, size_t len, const Deadline& dl, int* err, bool stop_on_input) {
  return send_pair(fd, buf, len, nullptr, 0, dl, err, stop_on_input);
}

Io send_pair(int fd, const void* a, size_t na, const void* b, size_t nb, const Deadline& dl, int* err,
             bool stop_on_input) {
  iovec v[2] = {{const_cast<void*>(a), na}, {const_cast<void*>(b), nb}};
  int first = na > 0 ? 0 : 1;  // the first part with bytes left
  *err = 0;
  while (first < 2 && v[first].iov_len > 0) {
    if (stop_on_input) {
      pollfd q{fd, POLLIN, 0};
      if (poll(&q, 1, 0) > 0 && (q.revents & (POLLIN | POLLHUP | POLLERR))) return Io::input;
    }
    msghdr m{};
    m.msg_iov = v + first;
    m.msg_iovlen = static_cast<size_t>(v[1].iov_len > 0 ? 2 - first : 1);
    ssize_t n = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      g_bytes_sent.fetch_add(static_cast<uint64_t>(n), std::memory_order_relaxed);
      size_t k = static_cast<size_t>(n);
      for (; first < 2 && k >= v[first].iov_len; ++first) k -= v[first].iov_len;
      if (first < 2) {
        v[first].iov_base = static_cast<char*>(v[first].iov_base) + k;
        v[first].iov_len -= k;
      }
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return is_disconnect_errno(errno) ? Io::closed : Io::error;
    }
    short events = POLLOUT | (stop_on_input ? POLLIN : 0);
    int r = wait_fd(fd, events, dl);
    if (r == 0) return Io::timeout;
    if (r < 0) {
      *err = errno;
      return Io::error;
    }
    if (stop_on_input && (r & POLLIN)) return Io::input;
    // POLLOUT, POLLERR or POLLHUP: the next sendmsg() reports the details.
  }
  return Io::ok;
}

Io send_parts(int fd, const iovec* parts, int n, const Deadline& dl, int* err, bool input_when_blocked, size_t* sent) {
  iovec v[4];
  int cnt = 0;
  for (int i = 0; i < n && cnt < 4; ++i)
    if (parts[i].iov_len > 0) v[cnt++] = parts[i];
  int first = 0;
  *err = 0;
  *sent = 0;
  while (first < cnt) {
    msghdr m{};
    m.msg_iov = v + first;
    m.msg_iovlen = static_cast<size_t>(cnt - first);
    ssize_t k = sendmsg(fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (k > 0) {
      g_bytes_sent.fetch_add(static_cast<uint64_t>(k), std::memory_order_relaxed);
      *sent += static_cast<size_t>(k);
      size_t left = static_cast<size_t>(k);
      for (; first < cnt && left >= v[first].iov_len; ++first) left -= v[first].iov_len;
      if (first < cnt) {
        v[first].iov_base = static_cast<char*>(v[first].iov_base) + left;
        v[first].iov_len -= left;
      }
      continue;
    }
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return is_disconnect_errno(errno) ? Io::closed : Io::error;
    }
    const int r = wait_fd(fd, static_cast<short>(POLLOUT | (input_when_blocked ? POLLIN : 0)), dl);
    if (r == 0) return Io::timeout;
    if (r < 0) {
      *err = errno;
      return Io::error;
    }
    if (input_when_blocked && (r & POLLIN)) return Io::input;
  }
  return Io::ok;
}

Io recv_all(int fd, void* buf, size_t len, const Deadline& dl, int* err, int spin_us) {
  char* p = static_cast<char*>(buf);
  *err = 0;
  while (len > 0) {
    ssize_t n = recv_counted(fd, p, len, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return Io::closed;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      *err = errno;
      return is_disconnect_errno(errno) ? Io::closed : Io::error;
    }
    int r = wait_fd(fd, POLLIN, dl, spin_us);
    if (r == 0) return Io::timeout;
    if (r < 0) {
      *err = errno;
      return Io::error;
    }
  }
  return Io::ok;
}

void tune_socket(int fd) {
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl | O_NONBLOCK);
  int fdfl = fcntl(fd, F_GETFD);
  if (fdfl >= 0) fcntl(fd, F_SETFD, fdfl | FD_CLOEXEC);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // fails harmlessly on listeners
}

int open_listener(int family, uint16_t port, int* err) {
  int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_storage ss{};
  socklen_t len;
  if (family == AF_INET6) {
    int zero = 0;  // accept IPv4-mapped peers too
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
    auto* s6 = reinterpret_cast<sockaddr_in6*>(&ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_addr = in6addr_any;
    s6->sin6_port = htons(port);
    len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(&ss);
    s4->sin_family = AF_INET;
    s4->sin_addr.s_addr = htonl(INADDR_ANY);
    s4->sin_port = htons(port);
    len = sizeof(sockaddr_in);
  }
  if (bind(fd, reinterpret_cast<sockaddr*>(&ss), len) != 0 || listen(fd, SOMAXCONN) != 0) {
    *err = errno;
    close(fd);
    return -1;
  }
  return fd;
}

int connect_to(const sockaddr_storage& sa, socklen_t len, const Deadline& dl, int* err) {
  int fd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  // So that the local port this connection leaves behind (in TIME_WAIT, e.g.
  // after a self-connect below) does not stop rank 0 from binding that port
  // with SO_REUSEADDR: Linux lets a bind share a port only with sockets that
  // set it too.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  int rc;
  do {
    rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&sa), len);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0 && errno != EINPROGRESS) {
    *err = errno;
    close(fd);
    return -1;
  }
  if (rc != 0) {
    int r = wait_fd(fd, POLLOUT, dl);
    if (r <= 0) {
      *err = r == 0 ? ETIMEDOUT : errno;
      close(fd);
      return -1;
    }
    int so_err = 0;
    socklen_t sl = sizeof(so_err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_err, &sl) != 0) so_err = errno;
    if (so_err != 0) {
      *err = so_err;
      close(fd);
      return -1;
    }
  }
  if (is_self_connected(fd)) {
    // Nothing listened on the address and the kernel gave us its port as our
    // own ephemeral port. Keeping this connection would also hold the port that
    // rank 0 is about to bind.
    close(fd);
    *err = ECONNREFUSED;
    return -1;
  }
  tune_socket(fd);
  return fd;
}

bool is_self_connected(int fd) {
  sockaddr_storage mine{}, peer{};
  socklen_t lm = sizeof(mine), lp = sizeof(peer);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&mine), &lm) != 0 ||
      getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &lp) != 0)
    return false;
  return lm == lp && memcmp(&mine, &peer, lm) == 0;
}

// ------------------------------------------------------ fork() handling --
// The tracked fds live in a plain array so that the child handler only reads
// memory and calls close() (async-signal-safe, as POSIX requires of code that
// runs in the child of a multithreaded process). prepare takes the lock so
// that no other thread is half-way through changing the array at the fork;
// parent and child release it.
namespace {
std::mutex g_fork_mu;
int* g_fork_fds = nullptr;
size_t g_fork_n = 0, g_fork_cap = 0;

void fork_prepare() { g_fork_mu.lock(); }
void fork_parent() { g_fork_mu.unlock(); }
void fork_child() {
  for (size_t i = 0; i < g_fork_n; ++i) close(g_fork_fds[i]);
  g_fork_n = 0;
  g_fork_mu.unlock();
}
}  // namespace

void track_for_fork(int fd) {
  if (fd < 0) return;
  static std::once_flag once;
  std::call_once(once, [] { pthread_atfork(fork_prepare, fork_parent, fork_child); });
  std::lock_guard<std::mutex> lock(g_fork_mu);
  if (g_fork_n == g_fork_cap) {
    size_t cap = g_fork_cap ? 2 * g_fork_cap : 16;
    void* p = realloc(g_fork_fds, cap * sizeof(int));
    if (!p) return;  // out of memory: this fd stays open in children (untracked)
    g_fork_fds = static_cast<int*>(p);
    g_fork_cap = cap;
  }
  g_fork_fds[g_fork_n++] = fd;
}

void untrack_for_fork(const std::vector<int>& fds) {
  std::vector<int> gone(fds);
  std::sort(gone.begin(), gone.end());
  std::lock_guard<std::mutex> lock(g_fork_mu);
  for (size_t i = 0; i < g_fork_n;) {
    if (std::binary_search(gone.begin(), gone.end(), g_fork_fds[i]))
      g_fork_fds[i] = g_fork_fds[--g_fork_n];
    else
      ++i;
  }
}

void untrack_for_fork(int fd) {
  if (fd >= 0) untrack_for_fork(std::vector<int>{fd});
}

int accept_one(int listener, std::string* peer, int* err) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  int fd;
  do {
    fd = accept4(listener, reinterpret_cast<sockaddr*>(&ss), &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
  } while (fd < 0 && errno == EINTR);
  if (fd < 0) {
    *err = errno;
    return -1;
  }
  tune_socket(fd);
  *peer = format_sockaddr(reinterpret_cast<sockaddr*>(&ss));
  return fd;
}

bool is_listening_socket(int fd) {
  int v = 0;
  socklen_t len = sizeof(v);
  return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &len) == 0 && v != 0;
}

int local_port(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return -1;
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port);
  return -1;
}

int socket_family(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return -1;
  return ss.ss_family;
}

std::string format_sockaddr(const sockaddr* sa) {
  char host[INET6_ADDRSTRLEN] = "?";
  if (sa->sa_family == AF_INET) {
    auto* s4 = reinterpret_cast<const sockaddr_in*>(sa);
    inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
    return std::string(host) + ":" + std::to_string(ntohs(s4->sin_port));
  }
  if (sa->sa_family == AF_INET6) {
    auto* s6 = reinterpret_cast<const sockaddr_in6*>(sa);
    inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
    return "[" + std::string(host) + "]:" + std::to_string(ntohs(s6->sin6_port));
  }
  return "(unknown address family " + std::to_string(sa->sa_family) + ")";
}

std::string peer_address(int fd) {
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&ss), &len) != 0) return "(unknown)";
  return format_sockaddr(reinterpret_cast<sockaddr*>(&ss));
}

void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

void lingering_close(std::vector<int>* fds, int ms) {
  std::vector<pollfd> open;
  for (int fd : *fds)
    if (fd >= 0) {
      shutdown(fd, SHUT_WR);
      open.push_back({fd, POLLIN, 0});
    }
  Deadline dl(ms / 1000.0);
  char sink[4096];
  while (!open.empty() && !dl.expired()) {
    int n = poll(open.data(), open.size(), dl.remaining_ms());
    if (n < 0 && errno != EINTR) break;
    for (size_t i = 0; i < open.size();) {
      bool done = false;
      if (open[i].revents) {
        ssize_t k = recv_counted(open[i].fd, sink, sizeof(sink), MSG_DONTWAIT);
        done = k == 0 || (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
      }
      if (done) {
        open[i] = open.back();
        open.pop_back();
      } else {
        open[i].revents = 0;
        ++i;
      }
    }
  }
  for (int& fd : *fds) close_fd(&fd);
}

}  // namespace gshmem::bootstrap::tcp

namespace gshmem::bootstrap {

Traffic traffic() {
  return Traffic{tcp::g_bytes_sent.load(std::memory_order_relaxed),
                 tcp::g_bytes_received.load(std::memory_order_relaxed)};
}

}  // namespace gshmem::bootstrap
