// SPDX-License-Identifier: BSD-3-Clause
// Collectives over the star. Every collective is one exchange:
//   1. each rank r != 0 sends rank 0 a request: Header{op, seq, declared len,
//      arg} followed by its contribution (allgather: its block; broadcast: the
//      data if r is the root; otherwise nothing);
//   2. rank 0 reads all requests at once (poll over every peer), checking that
//      each names the same op, call number, byte count and root as its own
//      call -- a difference is GSHMEM_ERROR_MISMATCH naming both PEs;
//   3. rank 0 answers each rank: Header{op, seq, payload len, arg} + payload
//      (allgather: the whole array; broadcast: the data unless r is the root).
// Any failure makes rank 0 send every live peer an `abort` naming the cause,
// so all ranks fail with the same message instead of waiting for the timeout.
// A member whose call fails on its own (it timed out, e.g. because rank 0 came
// late, or PE 0's answer made no sense) sends rank 0 an `abort` naming itself
// (or half-closes the connection when its stream is mid-message), so rank 0
// reports that member and its cause at once -- in its current or next
// collective, or through the failure monitor -- instead of waiting for it.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bootstrap/tcp/guards.h"
#include "bootstrap/tcp/tcp_bootstrap.h"

namespace gshmem::bootstrap::tcp {

std::string TcpBootstrap::disconnect_message(int peer, const char* what, int err) const {
  std::string m = "bootstrap: PE " + std::to_string(peer) + " disconnected during " + what + " (process died?)";
  if (err) m += " [" + errno_string(err) + "]";
  return m;
}

std::string TcpBootstrap::timeout_message(const char* what, const std::vector<int>& waiting) const {
  const int waited = rank_ == 0 ? timeout_s_ : member_wait_s(timeout_s_);
  std::string m =
      std::string("bootstrap: ") + what + " timed out after " + std::to_string(waited) + " s waiting for PE";
  if (waiting.size() > 1) m += "s";
  for (size_t i = 0; i < waiting.size(); ++i) m += (i ? ", " : " ") + std::to_string(waiting[i]);
  if (rank_ == 0)
    m += " (stuck, or not calling ";
  else
    m += " (PE 0 answers once every PE has called ";
  m += std::string(what) + "?); see GSHMEM_BOOTSTRAP_TIMEOUT";
  return m;
}

Io TcpBootstrap::send_msg(size_t i, const Header& h, const void* payload, size_t len, const Deadline& dl, int* err,
                          bool stop_on_input, size_t* sent) {
  uint8_t hb[kHeaderBytes];
  encode_header(h, hb);
  const iovec v[2] = {{hb, sizeof(hb)}, {const_cast<void*>(payload), len}};
  std::lock_guard<std::mutex> send_lock(send_mu_[i]);
  size_t done = 0;
  const Io io = send_message(fds_[i], v, 2, dl, err, stop_on_input, &done);
  if (sent) *sent = done;
  return io;
}

Io TcpBootstrap::recv_header(int fd, const Deadline& dl, Header* h, int* err, int spin_us) {
  uint8_t hb[kHeaderBytes];
  for (;;) {
    const Io io = recv_all(fd, hb, sizeof(hb), dl, err, spin_us);
    if (io != Io::ok) return io;
    *h = decode_header(hb);
    if (h->op != static_cast<uint32_t>(Op::heartbeat)) return Io::ok;
  }
}

bool TcpBootstrap::forked() const { return getpid() != owner_pid_; }

Status TcpBootstrap::forked_check(const char* what) const { return refuse_in_forked_child(what, owner_pid_, rank_); }

Status TcpBootstrap::usable(const char* what) { return refuse_if_unusable(what, closed_, failed_, failed_msg_); }

void TcpBootstrap::send_abort_to_all(Status st, int arg, const std::string& msg) {
  Deadline dl(2.0);  // best effort: a stuck peer must not hold up the others for long
  Header h{static_cast<uint32_t>(Op::abort), seq_, msg.size(), arg, st};
  for (int r = 1; r < size_; ++r) {
    if (broken_[r] || fds_[r] < 0) continue;
    int err = 0;
    if (send_msg(static_cast<size_t>(r), h, msg.data(), msg.size(), dl, &err) != Io::ok) broken_[r] = 1;
  }
}

Status TcpBootstrap::fail(Status st, int dead, const std::string& msg, int about) {
  GSHMEM_LOG_ERROR("%s", msg.c_str());
  failed_ = st;
  failed_msg_ = msg;
  if (st == GSHMEM_ERROR_PEER_FAILURE) monitor_.found_failure(dead >= 0 ? dead : about);
  if (rank_ == 0) {
    if (dead > 0 && dead < size_) broken_[dead] = 1;
    send_abort_to_all(st, dead >= 0 ? dead : about, msg);
  }
  return st;
}

void TcpBootstrap::tell_root(Status st, uint32_t seq, bool at_boundary) {
  bool told = false;
  if (at_boundary) {
    // Short deadline: if rank 0 is not reading and our buffers are full, a
    // half-close tells it nearly as well.
    int err = 0;
    Header h{static_cast<uint32_t>(Op::abort), seq, failed_msg_.size(), rank_, st};
    told = send_msg(0, h, failed_msg_.data(), failed_msg_.size(), Deadline(0.5), &err) == Io::ok;
  }
  if (!told) shutdown(fds_[0], SHUT_WR);
}

Status TcpBootstrap::take_member_abort(int r, const Header& h, const Deadline& dl) {
  std::string text;
  int err = 0;
  if (read_text(fds_[r], h.len, dl.sooner(2.0), &text, &err) != Io::ok || text.empty()) text = "(reason not received)";
  const std::string prefix = "bootstrap: ";  // the member's own message; ours adds it again
  if (text.rfind(prefix, 0) == 0) text.erase(0, prefix.size());
  Status st = h.status;
  if (st <= GSHMEM_SUCCESS || st > GSHMEM_ERROR_INTERNAL) st = GSHMEM_ERROR_INTERNAL;
  broken_[r] = 1;  // it has given up and no longer reads: send it nothing more
  return fail(st, -1,
              "bootstrap: PE " + std::to_string(r) + " failed collective call #" + std::to_string(h.seq) + ": " + text,
              r);
}

Status TcpBootstrap::take_abort(const Header& h, const Deadline& dl) {
  std::string text;
  int err = 0;
  if (read_text(fds_[0], h.len, dl.sooner(2.0), &text, &err) != Io::ok || text.empty())
    text = "bootstrap: PE 0 aborted the job (reason not received)";
  Status st = h.status;
  if (st <= GSHMEM_SUCCESS || st > GSHMEM_ERROR_INTERNAL) st = GSHMEM_ERROR_INTERNAL;
  return fail(st, h.arg, text + " (reported by PE 0)");
}

Status TcpBootstrap::root_gather(const Call& call, uint32_t seq, const std::function<Span(int)>& request,
                                 const Deadline& dl) {
  const char* what = op_name(static_cast<uint32_t>(call.op));
  struct State {
    uint8_t hdr[kHeaderBytes];
    size_t hdr_got = 0;
    bool have_hdr = false;
    char* dst = nullptr;
    size_t need = 0, got = 0;
    bool done = false;
  };
  std::vector<State> st(size_);
  int remaining = size_ - 1;
  std::vector<pollfd> pf;
  std::vector<int> who;
  while (remaining > 0) {
    pf.clear();
    who.clear();
    for (int r = 1; r < size_; ++r) {
      pf.push_back({fds_[r], static_cast<short>(st[r].done ? POLLRDHUP : POLLIN), 0});
      who.push_back(r);
    }
    int n = poll_spin(pf.data(), pf.size(), dl, spin_us_.load(std::memory_order_relaxed));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(GSHMEM_ERROR_SYSTEM, -1, std::string("bootstrap: ") + what + ": poll failed: " + errno_string(errno));
    }
    if (n == 0) {
      if (!dl.expired()) continue;
      std::vector<int> waiting;
      for (int r = 1; r < size_; ++r)
        if (!st[r].done) waiting.push_back(r);
      return fail(GSHMEM_ERROR_TIMEOUT, -1, timeout_message(what, waiting), waiting.empty() ? -1 : waiting[0]);
    }
    for (size_t i = 0; i < pf.size(); ++i) {
      if (!pf[i].revents) continue;
      int r = who[i];
      State& s = st[r];
      if (s.done) {
        // Its request is complete; what follows is a heartbeat, an abort about its
        // own failure (then perhaps EOF) or a disconnect.
        const Head head = skip_heartbeats(fds_[r]);
        if (head == Head::empty) continue;
        if (head == Head::partial) {
          usleep(1000);  // the rest of the header is on its way
          continue;
        }
        uint8_t hb[kHeaderBytes];
        if (recv_counted(fds_[r], hb, sizeof(hb), MSG_PEEK | MSG_DONTWAIT) == static_cast<ssize_t>(sizeof(hb))) {
          Header h = decode_header(hb);
          if (h.op == static_cast<uint32_t>(Op::abort) &&
              recv_counted(fds_[r], hb, sizeof(hb), MSG_DONTWAIT) == static_cast<ssize_t>(sizeof(hb)))
            return take_member_abort(r, h, dl);
        }
        return fail(GSHMEM_ERROR_PEER_FAILURE, r, disconnect_message(r, what, 0));
      }
      for (;;) {  // read what is there without blocking
        ssize_t k;
        if (!s.have_hdr)
          k = recv_counted(fds_[r], s.hdr + s.hdr_got, kHeaderBytes - s.hdr_got, MSG_DONTWAIT);
        else
          k = recv_counted(fds_[r], s.dst + s.got, s.need - s.got, MSG_DONTWAIT);
        if (k == 0) return fail(GSHMEM_ERROR_PEER_FAILURE, r, disconnect_message(r, what, 0));
        if (k < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          int e = errno;
          if (is_disconnect_errno(e)) return fail(GSHMEM_ERROR_PEER_FAILURE, r, disconnect_message(r, what, e));
          return fail(GSHMEM_ERROR_SYSTEM, -1,
                      std::string("bootstrap: ") + what + ": receiving from PE " + std::to_string(r) +
                          " failed: " + errno_string(e));
        }
        if (!s.have_hdr) {
          s.hdr_got += static_cast<size_t>(k);
          if (s.hdr_got < kHeaderBytes) continue;
          Header h = decode_header(s.hdr);
          if (h.op == static_cast<uint32_t>(Op::heartbeat)) {  // skipped: the next header
            s.hdr_got = 0;
            continue;
          }
          if (h.op == static_cast<uint32_t>(Op::abort)) return take_member_abort(r, h, dl);
          if (h.op != static_cast<uint32_t>(call.op) || h.seq != seq || h.len != call.len || h.arg != call.arg) {
            return fail(GSHMEM_ERROR_MISMATCH, -1,
                        "bootstrap: collective mismatch between PE 0 and PE " + std::to_string(r) + ": PE 0 called " +
                            describe_op(static_cast<uint32_t>(call.op), call.len, call.arg) + " (collective call #" +
                            std::to_string(seq) + "), PE " + std::to_string(r) + " called " +
                            describe_op(h.op, h.len, h.arg) + " (collective call #" + std::to_string(h.seq) +
                            "); every PE must make the same bootstrap calls in the same order",
                        r);
          }
          s.have_hdr = true;
          Span sp = request(r);
          s.dst = static_cast<char*>(sp.in);
          s.need = sp.len;
        } else {
          s.got += static_cast<size_t>(k);
        }
        if (s.have_hdr && s.got == s.need) {
          s.done = true;
          --remaining;
          break;
        }
      }
    }
  }
  return GSHMEM_SUCCESS;
}

Status TcpBootstrap::root_reply(const Call& call, uint32_t seq, const std::function<Span(int)>& reply,
                                const Deadline& dl) {
  const char* what = op_name(static_cast<uint32_t>(call.op));
  for (int r = 1; r < size_; ++r) {
    Span sp = reply(r);
    Header h{static_cast<uint32_t>(call.op), seq, sp.len, call.arg, 0};
    int err = 0;
    Io io = send_msg(static_cast<size_t>(r), h, sp.out, sp.len, dl, &err);
    if (io == Io::ok) continue;
    broken_[r] = 1;  // its stream may hold half a message: no abort to it
    if (io == Io::closed) return fail(GSHMEM_ERROR_PEER_FAILURE, r, disconnect_message(r, what, err));
    if (io == Io::timeout) return fail(GSHMEM_ERROR_TIMEOUT, -1, timeout_message(what, {r}), r);
    return fail(
        GSHMEM_ERROR_SYSTEM, -1,
        std::string("bootstrap: ") + what + ": sending to PE " + std::to_string(r) + " failed: " + errno_string(err));
  }
  return GSHMEM_SUCCESS;
}

Status TcpBootstrap::member_exchange(const Call& call, uint32_t seq, Span my_request, Span my_reply,
                                     const Deadline& dl) {
  const char* what = op_name(static_cast<uint32_t>(call.op));
  const int fd = fds_[0];
  int err = 0;
  // A failure of our own (not one rank 0 told us about, not rank 0 gone):
  // enter the failed state and tell rank 0 (at_boundary: our outgoing stream
  // holds whole messages only).
  auto own_failure = [&](Status st, const std::string& msg, bool at_boundary) {
    fail(st, -1, msg);
    tell_root(st, seq, at_boundary);
    return st;
  };
  // Stop sending as soon as rank 0 says something: before our request is
  // complete that can only be an abort (rank 0 stops reading us then).
  Io io = send_msg(0, Header{static_cast<uint32_t>(call.op), seq, call.len, call.arg, 0}, my_request.out,
                   my_request.len, dl, &err, /*stop_on_input=*/true);
  const bool sent = io == Io::ok;
  if (io == Io::closed) return fail(GSHMEM_ERROR_PEER_FAILURE, 0, disconnect_message(0, what, err));
  if (io == Io::timeout) return own_failure(GSHMEM_ERROR_TIMEOUT, timeout_message(what, {0}), false);
  if (io == Io::error)
    return own_failure(GSHMEM_ERROR_SYSTEM,
                       std::string("bootstrap: ") + what + ": sending to PE 0 failed: " + errno_string(err), false);
  Header h;
  io = recv_header(fd, dl, &h, &err, spin_us_.load(std::memory_order_relaxed));
  if (io == Io::closed) return fail(GSHMEM_ERROR_PEER_FAILURE, 0, disconnect_message(0, what, err));
  if (io == Io::timeout) return own_failure(GSHMEM_ERROR_TIMEOUT, timeout_message(what, {0}), sent);
  if (io != Io::ok)
    return own_failure(GSHMEM_ERROR_SYSTEM,
                       std::string("bootstrap: ") + what + ": receiving from PE 0 failed: " + errno_string(err), sent);
  if (h.op == static_cast<uint32_t>(Op::abort)) return take_abort(h, dl);
  if (!sent || h.op != static_cast<uint32_t>(call.op) || h.seq != seq || h.len != my_reply.len || h.arg != call.arg) {
    return own_failure(GSHMEM_ERROR_MISMATCH,
                       "bootstrap: protocol error: PE " + std::to_string(rank_) + " called " +
                           describe_op(static_cast<uint32_t>(call.op), call.len, call.arg) + " (collective call #" +
                           std::to_string(seq) + ") but PE 0 answered with " + describe_op(h.op, h.len, h.arg) +
                           " (call #" + std::to_string(h.seq) + ")",
                       sent);
  }
  if (my_reply.len > 0) {
    io = recv_all(fd, my_reply.in, my_reply.len, dl, &err);
    if (io == Io::closed) return fail(GSHMEM_ERROR_PEER_FAILURE, 0, disconnect_message(0, what, err));
    if (io == Io::timeout) return own_failure(GSHMEM_ERROR_TIMEOUT, timeout_message(what, {0}), true);
    if (io != Io::ok)
      return own_failure(GSHMEM_ERROR_SYSTEM,
                         std::string("bootstrap: ") + what + ": receiving from PE 0 failed: " + errno_string(err),
                         true);
  }
  return GSHMEM_SUCCESS;
}

Status TcpBootstrap::run_collective(const Call& call, const std::function<Span(int)>& request,
                                    const std::function<Span(int)>& reply, Span my_request, Span my_reply) {
  GSHMEM_TRY(usable(op_name(static_cast<uint32_t>(call.op))));
  Status st = GSHMEM_SUCCESS;
  if (size_ > 1) {
    uint32_t seq = ++seq_;
    Deadline dl(rank_ == 0 ? timeout_s_ : member_wait_s(timeout_s_));
    GSHMEM_LOG_TRACE("bootstrap: %s (call #%u)",
                     describe_op(static_cast<uint32_t>(call.op), call.len, call.arg).c_str(), seq);
    if (rank_ == 0) {
      st = root_gather(call, seq, request, dl);
      if (st == GSHMEM_SUCCESS) st = root_reply(call, seq, reply, dl);
    } else {
      st = member_exchange(call, seq, my_request, my_reply, dl);
    }
  }
  generation_.fetch_add(1);
  return st;
}

Status TcpBootstrap::allgather(const void* mine, void* all, size_t bytes) {
  GSHMEM_TRY(check_allgather_args(mine, all, bytes, size_));
  GSHMEM_TRY(forked_check("allgather"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  char* a = static_cast<char*>(all);
  const size_t total = bytes * static_cast<size_t>(size_);
  if (rank_ == 0 && bytes > 0 && !closed_ && failed_ == GSHMEM_SUCCESS) memmove(a, mine, bytes);
  return run_collective(
      {Op::allgather, bytes, 0},
      [&](int r) {
        return Span{nullptr, a + static_cast<size_t>(r) * bytes, bytes};
      },
      [&](int) {
        return Span{a, nullptr, total};
      },
      Span{mine, nullptr, bytes}, Span{nullptr, a, total});
}

Status TcpBootstrap::barrier() {
  GSHMEM_TRY(forked_check("barrier"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  auto none = [](int) { return Span{}; };
  return run_collective({Op::barrier, 0, 0}, none, none, Span{}, Span{});
}

Status TcpBootstrap::broadcast(void* buf, size_t bytes, int root) {
  GSHMEM_TRY(check_broadcast_args(buf, bytes, root, size_));
  GSHMEM_TRY(forked_check("broadcast"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  const bool me = rank_ == root;
  return run_collective(
      {Op::broadcast, bytes, root},
      [&](int r) {
        return r == root ? Span{nullptr, buf, bytes} : Span{};
      },
      [&](int r) {
        return r == root ? Span{} : Span{buf, nullptr, bytes};
      },
      me ? Span{buf, nullptr, bytes} : Span{}, me ? Span{} : Span{nullptr, buf, bytes});
}

Status TcpBootstrap::finalize() {
  GSHMEM_TRY(forked_check("finalize"));
  stop_monitor();  // before the goodbye: from here on a closing peer is expected
  std::lock_guard<std::mutex> lock(io_mutex_);
  if (closed_) return GSHMEM_SUCCESS;
  if (failed_ != GSHMEM_SUCCESS) {
    GSHMEM_LOG_WARN(
        "bootstrap: finalize after an earlier failure; closing connections without "
        "goodbye (%s)",
        failed_msg_.c_str());
    close_connections(true);
    closed_ = true;
    return failed_;
  }
  auto none = [](int) { return Span{}; };
  Status st = run_collective({Op::bye, 0, 0}, none, none, Span{}, Span{});
  close_connections(st != GSHMEM_SUCCESS);
  closed_ = true;
  return st;
}

}  // namespace gshmem::bootstrap::tcp
