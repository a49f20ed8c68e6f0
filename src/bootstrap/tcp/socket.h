// SPDX-License-Identifier: BSD-3-Clause
// Socket helpers for the TCP bootstrap. Every socket is non-blocking and
// close-on-exec; every wait is a poll() bounded by a Deadline; sends use
// MSG_NOSIGNAL so a vanished peer is an error code, never SIGPIPE.
#pragma once

#include <poll.h>
#include <sys/uio.h>
#include <sys/socket.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gshmem::bootstrap::tcp {

// A point in (monotonic) time after which a wait gives up.
class Deadline {
 public:
  explicit Deadline(double seconds);
  // The earlier of this deadline and now + seconds.
  Deadline sooner(double seconds) const;
  // Milliseconds left, rounded up, >= 0 (for poll()).
  int remaining_ms() const;
  bool expired() const;

 private:
  std::chrono::steady_clock::time_point at_;
};

// Outcome of a bounded transfer.
enum class Io {
  ok,
  closed,   // the peer closed the connection or it was reset (EOF, ECONNRESET, EPIPE)
  timeout,  // the deadline passed
  error,    // another socket error (errno in *err)
  input,    // send_all(stop_on_input): the peer sent something before we finished
};

// Send/receive exactly `len` bytes. *err receives errno for closed (0 on plain
// EOF) and error. send_all(stop_on_input=true) also returns Io::input as soon as
// the socket becomes readable (the peer has something to say, e.g. an abort).
Io send_all(int fd, const void* buf, size_t len, const Deadline& dl, int* err, bool stop_on_input = false);
// send_all of `na` bytes at `a` followed by `nb` at `b`, gathered into the same
// sendmsg() calls: a header and its payload leave in one segment, so the peer
// wakes once for the message (two sends made a 16-byte allgather between two
// PEs on loopback take twice as long as a barrier).
Io send_pair(int fd, const void* a, size_t na, const void* b, size_t nb, const Deadline& dl, int* err,
             bool stop_on_input = false);
// Send the `n` (<= 4) parts in one stream of sendmsg() calls. With input_when_blocked, returns
// Io::input when the send has to wait and the peer has sent something meanwhile (checked only
// once the send blocks, unlike send_pair's stop_on_input: a message that fits the socket
// buffer always leaves whole). *sent receives the bytes that left (a partial message when the
// result is not ok and 0 < *sent < total).
Io send_parts(int fd, const struct iovec* parts, int n, const Deadline& dl, int* err, bool input_when_blocked,
              size_t* sent);
// recv_all with spin_us > 0 polls without sleeping for up to that long before
// each wait that sleeps (poll_spin).
Io recv_all(int fd, void* buf, size_t len, const Deadline& dl, int* err, int spin_us = 0);
// poll() until an event or the deadline; with spin_us > 0 it first polls without
// sleeping for up to spin_us microseconds. Sleeping costs a wake-up on every
// message of a collective, which can double the time of a small one.
int poll_spin(pollfd* fds, nfds_t n, const Deadline& dl, int spin_us);

// Wildcard-address listening socket of `family` on `port` (0: kernel picks),
// SO_REUSEADDR, non-blocking, close-on-exec. -1 and *err on failure.
int open_listener(int family, uint16_t port, int* err);
// Non-blocking connect to `sa`, bounded by `dl`. Returns a tuned socket or -1
// with *err (ETIMEDOUT when the deadline passed). A TCP self-connect (nothing
// listens on `sa` yet and the kernel picked that very port as our ephemeral
// port: simultaneous open with ourselves) is closed and reported as
// ECONNREFUSED, so callers retry as if the listener were not up yet. The
// socket has SO_REUSEADDR, so the port it leaves in TIME_WAIT stays bindable
// by rank 0's listener (open_listener).
int connect_to(const sockaddr_storage& sa, socklen_t len, const Deadline& dl, int* err);
// True when the connected socket's local and peer addresses are the same.
bool is_self_connected(int fd);
// accept() one pending connection (non-blocking; -1 with *err = EAGAIN if none).
// *peer receives "addr:port" of the remote side.
int accept_one(int listener, std::string* peer, int* err);

// Non-blocking, close-on-exec, TCP_NODELAY.
void tune_socket(int fd);
// True when fd is a socket in the listening state (SO_ACCEPTCONN).
bool is_listening_socket(int fd);
// Port `fd` is bound to, or -1.
int local_port(int fd);
// Family (AF_INET/AF_INET6) of the socket, or -1.
int socket_family(int fd);

// "1.2.3.4:80" or "[::1]:80".
std::string format_sockaddr(const sockaddr* sa);
std::string peer_address(int fd);
std::string errno_string(int e);
// True for errno values that mean "the peer is gone".
bool is_disconnect_errno(int e);

// Sockets that must not outlive fork() in a child. A process that fork()s
// without exec (Python DataLoader workers, multiprocessing) would otherwise
// keep its parent PE's bootstrap connections open in the child: when the PE
// is killed no FIN reaches its peers while the child lives, and their failure
// monitors never fire. A pthread_atfork handler (installed on first use) closes
// every fd tracked here in the child; the parent keeps them. Untrack an fd
// before closing it (never after: its number could be reused meanwhile).
void track_for_fork(int fd);
void untrack_for_fork(int fd);
void untrack_for_fork(const std::vector<int>& fds);

// recv() that adds what it consumed to this process's traffic counters
// (bootstrap.h: traffic()); MSG_PEEK reads are not counted. Every read of a
// bootstrap socket goes through it or through recv_all.
ssize_t recv_counted(int fd, void* buf, size_t len, int flags);

// close() and set to -1 (no-op for -1).
void close_fd(int* fd);
// Half-close every socket, discard whatever the peers still send until they
// close too or `ms` pass, then close all. Closing a socket with unread input
// makes the kernel send a RST, which may destroy our last message (an abort
// notice) before the peer reads it; this avoids that.
void lingering_close(std::vector<int>* fds, int ms);

}  // namespace gshmem::bootstrap::tcp
