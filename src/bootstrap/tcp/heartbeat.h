// SPDX-License-Identifier: BSD-3-Clause
// Heartbeats on the bootstrap's links, tree and star (GSHMEM_HEARTBEAT_TIMEOUT; bootstrap.h
// set_heartbeat):
// liveness that does not wait for a TCP close, so that a stopped (SIGSTOP) or wedged PE, whose
// sockets stay open, is found too.
//
// Sending: the failure monitor's thread sends every neighbour a bare `heartbeat` header once per
// period (1 s, or a quarter of the bound if that is shorter), whatever the PE's other threads
// do: inside a GPU kernel, in user code or in a bootstrap collective. A link's sends are
// serialised by its own mutex (send_mu_ in tree.h, tcp_bootstrap.h), which a collective holds for a whole message,
// so a heartbeat never lands inside one; when the collective holds it, its bytes flow instead.
// A host thread sends them, never the GPU: a long kernel is no silence.
//
// Receiving: whoever reads a header skips heartbeats (the monitor while idle, the collectives
// while they run). Life is judged by the kernel's count of bytes received on the socket
// (TCP_INFO tcpi_bytes_received), so a heartbeat counts even before anyone read it, and so does
// any other byte. A link whose count has not moved for the bound is silent, unless at least
// kBacklogBytes wait unread in our receive queue: then the neighbour is blocked sending to us
// (a large message this PE has not started to read), and the silence is ours.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "bootstrap/tcp/socket.h"

namespace gshmem::bootstrap::tcp {

// Bytes the kernel received on `fd` so far (TCP_INFO); false where the kernel does not say.
bool tcp_bytes_received(int fd, uint64_t* out);
// Bytes waiting unread in `fd`'s receive queue (SIOCINQ); 0 on error.
int unread_bytes(int fd);

// Sends one heartbeat header without waiting for room: none at all -> nothing sent (the next
// period's will do), Io::ok; part of it -> the rest within 1 s, else Io::timeout (the stream
// then holds half a header: the caller marks the link broken). Io::closed / error as send_all.
Io send_heartbeat(int fd, int* err);

// What is at the head of a stream once the complete heartbeat headers there were consumed (no
// waiting): nothing, another message's header (complete: peek it), the first bytes of a
// header, or the end of the stream / an error.
enum class Head { empty, other, partial, closed };
Head skip_heartbeats(int fd);

// Sends the `n` (<= 3) parts of one message on `fd` (send_parts). With input_when_blocked it
// resumes where it stopped whenever only the peer's heartbeats had arrived meanwhile (they are
// consumed), and returns Io::input only for another message (an abort). *sent: the bytes of the
// message that left. The caller holds the link's send lock.
Io send_message(int fd, const struct iovec* parts, int n, const Deadline& dl, int* err, bool input_when_blocked,
                size_t* sent);

// The monitor's clock for one bootstrap's links.
class HeartbeatClock {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr int kBacklogBytes = 16 * 1024;

  // timeout_s 0: off. fds: the links' sockets (-1: none).
  void start(int timeout_s, const std::vector<int>& fds);
  bool on() const { return timeout_s_ > 0; }
  int timeout_s() const { return timeout_s_; }
  // How long the monitor's poll may sleep: the period (at most 500 ms, as before heartbeats).
  int poll_ms() const;
  // True once a period (then the caller sends to every link).
  bool send_due(Clock::time_point now);
  // Reads every link's byte count; the first link silent for longer than the bound, or -1.
  int silent_link(Clock::time_point now);
  // Whole seconds link i has been silent.
  long long silent_s(size_t i, Clock::time_point now) const;
  // Whether the kernel told the byte counts (false: silence is never found, said once at INFO).
  bool counting() const { return counting_; }

 private:
  struct Link {
    int fd = -1;
    uint64_t rx = 0;
    Clock::time_point last;
  };
  int timeout_s_ = 0;
  std::chrono::milliseconds period_{1000};
  Clock::time_point next_send_;
  std::vector<Link> links_;
  bool counting_ = true;
};

}  // namespace gshmem::bootstrap::tcp
