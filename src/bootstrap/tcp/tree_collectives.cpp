// SPDX-License-Identifier: BSD-3-Clause
// Collectives over the tree (tree.h): each call goes up (every parent reads all its children at
// once, checks each one's call against its own, then sends its subtree's part to its parent) and
// then down (each parent sends every child what it lacks). A failure found anywhere is flooded
// to every neighbour as a notice; a timeout goes up as a `late` report, so that the root names
// every PE the call waited for.
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "bootstrap/tcp/guards.h"
#include "bootstrap/tcp/tree.h"

namespace gshmem::bootstrap::tcp {

TreeNode tree_node(int rank, int size, int fanout) {
  // The ranges the node at the start of [lo, hi) gives its children, in order.
  auto split = [fanout](int lo, int hi, std::vector<TreeNode::Child>* out) {
    out->clear();
    const int m = hi - lo - 1, base = m / fanout, extra = m % fanout;
    int at = lo + 1;
    for (int i = 0; i < fanout && at < hi; ++i) {
      const int len = base + (i < extra ? 1 : 0);
      if (len == 0) break;
      out->push_back({at, at, at + len});
      at += len;
    }
  };
  TreeNode t;
  t.lo = 0;
  t.hi = size;
  std::vector<TreeNode::Child> parts;
  while (t.lo != rank) {
    split(t.lo, t.hi, &parts);
    t.parent = t.lo;
    for (const auto& c : parts)
      if (rank >= c.lo && rank < c.hi) t.lo = c.lo, t.hi = c.hi;
  }
  split(t.lo, t.hi, &t.children);
  return t;
}

int tree_height(int n, int fanout) {
  int h = 0;
  for (; n > 1; ++h) n = (n - 1 + fanout - 1) / fanout;
  return h;
}

bool TreeBootstrap::forked() const { return getpid() != owner_pid_; }

Status TreeBootstrap::forked_check(const char* what) const { return refuse_in_forked_child(what, owner_pid_, rank_); }

Status TreeBootstrap::usable(const char* what) { return refuse_if_unusable(what, closed_, failed_, failed_msg_); }

// A parent waits one second longer per level of its subtree than its children do, so the
// lowest parent of a late PE reports first and every ancestor hears of it before giving up.
double TreeBootstrap::gather_wait_s(int height) const {
  return static_cast<double>(timeout_s_) + (height > 1 ? height - 1 : 0);
}

double TreeBootstrap::reply_wait_s() const {
  return static_cast<double>(member_wait_s(timeout_s_)) + (tree_height_ > 1 ? tree_height_ - 1 : 0);
}

std::string TreeBootstrap::timeout_message(const char* what, const std::vector<int>& waiting, int waited_s,
                                           bool from_parent) const {
  std::string m =
      std::string("bootstrap: ") + what + " timed out after " + std::to_string(waited_s) + " s waiting for PE";
  if (waiting.size() > 1) m += "s";
  for (size_t i = 0; i < waiting.size(); ++i) m += (i ? ", " : " ") + std::to_string(waiting[i]);
  if (from_parent)
    m += " (its answer comes once every PE has called ";
  else
    m += " (stuck, or not calling ";
  return m + what + "?); see GSHMEM_BOOTSTRAP_TIMEOUT";
}

Io TreeBootstrap::send_msg(size_t i, const Header& h, const Span* parts, int nparts, const Deadline& dl, int* err) {
  uint8_t hb[kHeaderBytes];
  encode_header(h, hb);
  iovec v[3] = {{hb, sizeof(hb)}, {nullptr, 0}, {nullptr, 0}};
  for (int k = 0; k < nparts && k < 2; ++k) v[k + 1] = {parts[k].p, parts[k].len};
  std::lock_guard<std::mutex> send_lock(send_mu_[i]);
  size_t done = 0;  // bytes of the message sent so far
  const Io io = send_message(links_[i].fd, v, 3, dl, err, /*input_when_blocked=*/true, &done);
  if (io != Io::ok && done > 0) links_[i].broken = true;  // half a message is on its way
  return io;
}

Status TreeBootstrap::fail(Status st, const std::string& msg, int about, size_t skip, int origin,
                           const std::string& wire_text) {
  GSHMEM_LOG_ERROR("%s", msg.c_str());
  failed_ = st;
  failed_msg_ = msg;
  if (st == GSHMEM_ERROR_PEER_FAILURE) monitor_.found_failure(about);
  const std::string& text = wire_text.empty() ? msg : wire_text;
  Header h{static_cast<uint32_t>(Op::notice), static_cast<uint32_t>(origin < 0 ? rank_ : origin), text.size(), about,
           st};
  Deadline dl(2.0);  // best effort: a stuck neighbour must not hold up the others for long
  for (size_t j = 0; j < links_.size(); ++j) {
    Link& l = links_[j];
    if (j == skip || l.fd < 0) continue;
    if (l.broken) {
      shutdown(l.fd, SHUT_WR);  // it cannot parse a notice now; an end of stream tells it something is wrong
      continue;
    }
    Span body{const_cast<char*>(text.data()), text.size()};
    int err = 0;
    uint8_t hb[kHeaderBytes];
    encode_header(h, hb);
    iovec v[2] = {{hb, sizeof(hb)}, {body.p, body.len}};
    size_t sent = 0;
    std::lock_guard<std::mutex> send_lock(send_mu_[j]);
    if (send_parts(l.fd, v, 2, dl, &err, false, &sent) != Io::ok) l.broken = true;
  }
  return st;
}

Status TreeBootstrap::own_failure(Status st, uint32_t seq, const std::string& msg) {
  std::string text = msg;
  if (text.rfind("bootstrap: ", 0) == 0) text.erase(0, 11);
  return fail(
      st, msg, rank_, SIZE_MAX, rank_,
      "bootstrap: PE " + std::to_string(rank_) + " failed collective call #" + std::to_string(seq) + ": " + text);
}

Status TreeBootstrap::disconnected(size_t i, const char* what, int err) {
  std::string m =
      "bootstrap: PE " + std::to_string(links_[i].rank) + " disconnected during " + what + " (process died?)";
  if (err) m += " [" + errno_string(err) + "]";
  links_[i].broken = true;
  return fail(GSHMEM_ERROR_PEER_FAILURE, m, links_[i].rank, i);
}

Io TreeBootstrap::recv_header(size_t i, const Deadline& dl, Header* h, int* err, int spin_us) {
  uint8_t hb[kHeaderBytes];
  for (;;) {
    const Io io = recv_all(links_[i].fd, hb, sizeof(hb), dl, err, spin_us);
    if (io != Io::ok) return io;
    *h = decode_header(hb);
    if (h->op != static_cast<uint32_t>(Op::heartbeat)) return Io::ok;
  }
}

Status TreeBootstrap::take_notice(size_t i, const Header& h, const Deadline& dl) {
  std::string text;
  int err = 0;
  const int origin = static_cast<int>(h.seq);
  if (read_text(links_[i].fd, h.len, dl.sooner(2.0), &text, &err) != Io::ok || text.empty())
    text = "bootstrap: PE " + std::to_string(origin) + " reported a failure (reason not received)";
  Status st = h.status;
  if (st <= GSHMEM_SUCCESS || st > GSHMEM_ERROR_INTERNAL) st = GSHMEM_ERROR_INTERNAL;
  return fail(st, text + " (reported by PE " + std::to_string(origin) + ")", h.arg, i, origin, text);
}

Status TreeBootstrap::take_unexpected(size_t i, const Header& h, const char* what, const Deadline& dl) {
  if (h.op == static_cast<uint32_t>(Op::notice)) return take_notice(i, h, dl);
  return fail(GSHMEM_ERROR_MISMATCH,
              "bootstrap: protocol error: PE " + std::to_string(links_[i].rank) + " sent " +
                  describe_op(h.op, h.len, h.arg) + " to PE " + std::to_string(rank_) + " during " + what,
              links_[i].rank, i);
}

Status TreeBootstrap::gather_children(const Plan& plan, uint32_t seq, const Deadline& dl, std::vector<int>* late) {
  const size_t nc = links_.size() - first_child_;
  if (nc == 0) return GSHMEM_SUCCESS;
  const Call& call = plan.call;
  const char* what = op_name(static_cast<uint32_t>(call.op));
  struct State {
    uint8_t hdr[kHeaderBytes];
    size_t hdr_got = 0;
    bool have_hdr = false, is_late = false, done = false;
    char* dst = nullptr;
    size_t need = 0, got = 0;
    std::vector<uint8_t> late_buf;
  };
  std::vector<State> s(nc);
  std::vector<pollfd> pf(nc);
  size_t remaining = nc;
  while (remaining > 0) {
    for (size_t i = 0; i < nc; ++i) pf[i] = {links_[first_child_ + i].fd, POLLIN, 0};
    int n = poll_spin(pf.data(), nc, dl, spin_us_.load(std::memory_order_relaxed));
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(GSHMEM_ERROR_SYSTEM, std::string("bootstrap: ") + what + ": poll failed: " + errno_string(errno), -1);
    }
    if (n == 0) {
      if (!dl.expired()) continue;
      for (size_t i = 0; i < nc; ++i)
        if (!s[i].done) late->push_back(links_[first_child_ + i].rank);
      return GSHMEM_SUCCESS;
    }
    for (size_t i = 0; i < nc; ++i) {
      if (!pf[i].revents) continue;
      const size_t li = first_child_ + i;
      const int fd = links_[li].fd;
      State& c = s[i];
      if (c.done) {  // all that may follow in this call is a heartbeat, a notice, or the end
        const Head head = skip_heartbeats(fd);
        if (head == Head::empty) continue;
        if (head == Head::partial) {
          if (pf[i].revents & (POLLHUP | POLLERR)) return disconnected(li, what, 0);
          usleep(1000);  // the rest of the header is on its way
          continue;
        }
        if (head == Head::closed) return disconnected(li, what, 0);
        uint8_t hb[kHeaderBytes];
        recv_counted(fd, hb, sizeof(hb), MSG_DONTWAIT);
        return take_unexpected(li, decode_header(hb), what, dl);
      }
      for (;;) {
        ssize_t k = !c.have_hdr ? recv_counted(fd, c.hdr + c.hdr_got, kHeaderBytes - c.hdr_got, MSG_DONTWAIT)
                                : recv_counted(fd, c.dst + c.got, c.need - c.got, MSG_DONTWAIT);
        if (k == 0) return disconnected(li, what, 0);
        if (k < 0) {
          if (errno == EINTR) continue;
          if (errno == EAGAIN || errno == EWOULDBLOCK) break;
          const int e = errno;
          if (is_disconnect_errno(e)) return disconnected(li, what, e);
          return fail(GSHMEM_ERROR_SYSTEM,
                      std::string("bootstrap: ") + what + ": receiving from PE " + std::to_string(links_[li].rank) +
                          " failed: " + errno_string(e),
                      -1);
        }
        if (!c.have_hdr) {
          c.hdr_got += static_cast<size_t>(k);
          if (c.hdr_got < kHeaderBytes) continue;
          const Header h = decode_header(c.hdr);
          if (h.op == static_cast<uint32_t>(Op::heartbeat)) {  // skipped: the next header
            c.hdr_got = 0;
            continue;
          }
          if (h.op == static_cast<uint32_t>(Op::notice)) return take_notice(li, h, dl);
          if (h.op == static_cast<uint32_t>(Op::late) && h.seq == seq && h.arg >= 0 && h.arg <= size_) {
            c.is_late = true;
            c.late_buf.resize(4 * static_cast<size_t>(h.arg));
            c.dst = reinterpret_cast<char*>(c.late_buf.data());
            c.need = c.late_buf.size();
          } else if (h.op != static_cast<uint32_t>(call.op) || h.seq != seq || h.len != call.len || h.arg != call.arg) {
            const int r = links_[li].rank;
            return fail(GSHMEM_ERROR_MISMATCH,
                        "bootstrap: collective mismatch between PE " + std::to_string(rank_) + " and PE " +
                            std::to_string(r) + ": PE " + std::to_string(rank_) + " called " +
                            describe_op(static_cast<uint32_t>(call.op), call.len, call.arg) + " (collective call #" +
                            std::to_string(seq) + "), PE " + std::to_string(r) + " called " +
                            describe_op(h.op, h.len, h.arg) + " (collective call #" + std::to_string(h.seq) +
                            "); every PE must make the same bootstrap calls in the same order",
                        r);
          } else {
            const Span sp = plan.up(links_[li].lo, links_[li].hi);
            c.dst = sp.p;
            c.need = sp.len;
          }
          c.have_hdr = true;
        } else {
          c.got += static_cast<size_t>(k);
        }
        if (c.got == c.need) {
          c.done = true;
          --remaining;
          for (size_t j = 0; j + 4 <= c.late_buf.size(); j += 4) {
            const uint8_t* b = c.late_buf.data() + j;
            late->push_back(static_cast<int>((uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) |
                                             uint32_t(b[3])));
          }
          break;
        }
      }
    }
  }
  return GSHMEM_SUCCESS;
}

Status TreeBootstrap::send_up(const Plan& plan, uint32_t seq, const Deadline& dl) {
  const Call& call = plan.call;
  const char* what = op_name(static_cast<uint32_t>(call.op));
  const Span up = plan.up(node_.lo, node_.hi);
  int err = 0;
  const Io io = send_msg(0, Header{static_cast<uint32_t>(call.op), seq, call.len, call.arg, 0}, &up, 1, dl, &err);
  if (io == Io::ok) return GSHMEM_SUCCESS;
  if (io == Io::input) {  // the parent speaks before our message is complete: a notice
    Header h;
    const Io r = recv_header(0, dl.sooner(2.0), &h, &err);
    if (r == Io::ok) return take_unexpected(0, h, what, dl);
    return disconnected(0, what, err);
  }
  if (io == Io::closed) return disconnected(0, what, err);
  if (io == Io::timeout)
    return own_failure(GSHMEM_ERROR_TIMEOUT, seq,
                       timeout_message(what, {links_[0].rank}, static_cast<int>(reply_wait_s()), true));
  return own_failure(GSHMEM_ERROR_SYSTEM, seq,
                     std::string("bootstrap: ") + what + ": sending to PE " + std::to_string(links_[0].rank) +
                         " failed: " + errno_string(err));
}

Status TreeBootstrap::receive_down(const Plan& plan, uint32_t seq, const Deadline& dl, bool reported_late,
                                   const std::vector<int>& late) {
  const Call& call = plan.call;
  const char* what = op_name(static_cast<uint32_t>(call.op));
  const int fd = links_[0].fd, parent = links_[0].rank;
  int err = 0;
  auto failed_io = [&](Io io) {
    if (io == Io::closed) return disconnected(0, what, err);
    if (io == Io::timeout) {
      if (reported_late)  // the verdict did not come: say what this rank saw
        return fail(GSHMEM_ERROR_TIMEOUT, timeout_message(what, late, timeout_s_, false), late[0]);
      return own_failure(GSHMEM_ERROR_TIMEOUT, seq,
                         timeout_message(what, {parent}, static_cast<int>(reply_wait_s()), true));
    }
    return own_failure(GSHMEM_ERROR_SYSTEM, seq,
                       std::string("bootstrap: ") + what + ": receiving from PE " + std::to_string(parent) +
                           " failed: " + errno_string(err));
  };
  Header h;
  Io io = recv_header(0, dl, &h, &err, spin_us_.load(std::memory_order_relaxed));
  if (io != Io::ok) return failed_io(io);
  if (h.op == static_cast<uint32_t>(Op::notice)) return take_notice(0, h, dl);
  Span parts[2];
  plan.down(node_.lo, node_.hi, parts);
  if (reported_late || h.op != static_cast<uint32_t>(call.op) || h.seq != seq || h.len != parts[0].len + parts[1].len ||
      h.arg != call.arg)
    return own_failure(GSHMEM_ERROR_MISMATCH, seq,
                       "bootstrap: protocol error: PE " + std::to_string(rank_) + " called " +
                           describe_op(static_cast<uint32_t>(call.op), call.len, call.arg) + " (collective call #" +
                           std::to_string(seq) + ") but its parent in the tree, PE " + std::to_string(parent) +
                           ", answered with " + describe_op(h.op, h.len, h.arg) + " (call #" + std::to_string(h.seq) +
                           ")");
  for (const Span& p : parts) {
    if (p.len == 0) continue;
    io = recv_all(fd, p.p, p.len, dl, &err);
    if (io != Io::ok) return failed_io(io);
  }
  return GSHMEM_SUCCESS;
}

Status TreeBootstrap::send_down(const Plan& plan, uint32_t seq) {
  const Call& call = plan.call;
  const char* what = op_name(static_cast<uint32_t>(call.op));
  const Deadline dl(timeout_s_);
  for (size_t i = first_child_; i < links_.size(); ++i) {
    Span parts[2];
    plan.down(links_[i].lo, links_[i].hi, parts);
    int err = 0;
    const Io io = send_msg(i, Header{static_cast<uint32_t>(call.op), seq, parts[0].len + parts[1].len, call.arg, 0},
                           parts, 2, dl, &err);
    if (io == Io::ok) continue;
    if (io == Io::input) {  // the child speaks while it should be reading: a notice
      Header h;
      const Io r = recv_header(i, dl.sooner(2.0), &h, &err);
      if (r == Io::ok) return take_unexpected(i, h, what, dl);
      return disconnected(i, what, err);
    }
    if (io == Io::closed) return disconnected(i, what, err);
    links_[i].broken = true;
    if (io == Io::timeout)
      return fail(GSHMEM_ERROR_TIMEOUT, timeout_message(what, {links_[i].rank}, timeout_s_, false), links_[i].rank);
    return fail(GSHMEM_ERROR_SYSTEM,
                std::string("bootstrap: ") + what + ": sending to PE " + std::to_string(links_[i].rank) +
                    " failed: " + errno_string(err),
                -1);
  }
  return GSHMEM_SUCCESS;
}

Status TreeBootstrap::run(const Plan& plan, uint32_t seq) {
  const Deadline gather_dl(gather_wait_s(height_));
  const Deadline reply_dl(reply_wait_s());
  GSHMEM_LOG_TRACE("bootstrap: %s (call #%u, tree)",
                   describe_op(static_cast<uint32_t>(plan.call.op), plan.call.len, plan.call.arg).c_str(), seq);
  std::vector<int> late;
  GSHMEM_TRY(gather_children(plan, seq, gather_dl, &late));
  if (!late.empty()) {
    std::sort(late.begin(), late.end());
    late.erase(std::unique(late.begin(), late.end()), late.end());
    const char* what = op_name(static_cast<uint32_t>(plan.call.op));
    if (rank_ == 0) return fail(GSHMEM_ERROR_TIMEOUT, timeout_message(what, late, timeout_s_, false), late[0]);
    // Up to the root, which names every late PE of the call in one notice.
    std::vector<uint8_t> list(4 * late.size());
    for (size_t i = 0; i < late.size(); ++i) {
      const uint32_t v = static_cast<uint32_t>(late[i]);
      list[4 * i] = static_cast<uint8_t>(v >> 24);
      list[4 * i + 1] = static_cast<uint8_t>(v >> 16);
      list[4 * i + 2] = static_cast<uint8_t>(v >> 8);
      list[4 * i + 3] = static_cast<uint8_t>(v);
    }
    const Span body{reinterpret_cast<char*>(list.data()), list.size()};
    int err = 0;
    const Io io = send_msg(0, Header{static_cast<uint32_t>(Op::late), seq, 0, static_cast<int32_t>(late.size()), 0},
                           &body, 1, Deadline(2.0), &err);
    if (io != Io::ok && io != Io::input)
      return fail(GSHMEM_ERROR_TIMEOUT, timeout_message(what, late, timeout_s_, false), late[0]);
    return receive_down(plan, seq, reply_dl, true, late);
  }
  if (rank_ != 0) {
    GSHMEM_TRY(send_up(plan, seq, reply_dl));
    GSHMEM_TRY(receive_down(plan, seq, reply_dl, false, late));
  }
  return send_down(plan, seq);
}

Status TreeBootstrap::allgather(const void* mine, void* all, size_t bytes) {
  GSHMEM_TRY(check_allgather_args(mine, all, bytes, size_));
  GSHMEM_TRY(forked_check("allgather"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  GSHMEM_TRY(usable("allgather"));
  char* a = static_cast<char*>(all);
  const size_t n = static_cast<size_t>(size_);
  if (bytes > 0) memmove(a + static_cast<size_t>(rank_) * bytes, mine, bytes);
  Plan plan{{Op::allgather, bytes, 0},
            [&](int lo, int hi) {
              return Span{a + static_cast<size_t>(lo) * bytes, static_cast<size_t>(hi - lo) * bytes};
            },
            [&](int lo, int hi, Span out[2]) {
              out[0] = {a, static_cast<size_t>(lo) * bytes};
              out[1] = {a + static_cast<size_t>(hi) * bytes, (n - static_cast<size_t>(hi)) * bytes};
            }};
  const Status st = run(plan, ++seq_);
  generation_.fetch_add(1);
  return st;
}

Status TreeBootstrap::barrier() {
  GSHMEM_TRY(forked_check("barrier"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  GSHMEM_TRY(usable("barrier"));
  Plan plan{{Op::barrier, 0, 0}, [](int, int) { return Span{}; }, [](int, int, Span out[2]) { out[0] = out[1] = {}; }};
  const Status st = run(plan, ++seq_);
  generation_.fetch_add(1);
  return st;
}

Status TreeBootstrap::broadcast(void* buf, size_t bytes, int root) {
  GSHMEM_TRY(check_broadcast_args(buf, bytes, root, size_));
  GSHMEM_TRY(forked_check("broadcast"));
  std::lock_guard<std::mutex> lock(io_mutex_);
  GSHMEM_TRY(usable("broadcast"));
  char* b = static_cast<char*>(buf);
  // The data goes up from the root to rank 0 along the root's ancestors, then down to every
  // subtree that does not hold the root.
  Plan plan{{Op::broadcast, bytes, root},
            [&](int lo, int hi) {
              return root >= lo && root < hi ? Span{b, bytes} : Span{};
            },
            [&](int lo, int hi, Span out[2]) {
              out[0] = root >= lo && root < hi ? Span{} : Span{b, bytes};
              out[1] = {};
            }};
  const Status st = run(plan, ++seq_);
  generation_.fetch_add(1);
  return st;
}

Status TreeBootstrap::finalize() {
  GSHMEM_TRY(forked_check("finalize"));
  // Before the goodbye: from here on a closing peer is expected. The heartbeats stop with it: a
  // PE that is not here within GSHMEM_HEARTBEAT_TIMEOUT would find this one silent
  // (gshmem_finalize holds a barrier first, which brings every PE here within moments).
  stop_monitor();
  std::lock_guard<std::mutex> lock(io_mutex_);
  if (closed_) return GSHMEM_SUCCESS;
  if (failed_ != GSHMEM_SUCCESS) {
    GSHMEM_LOG_WARN("bootstrap: finalize after an earlier failure; closing connections without goodbye (%s)",
                    failed_msg_.c_str());
    close_connections(true);
    closed_ = true;
    return failed_;
  }
  Plan plan{{Op::bye, 0, 0}, [](int, int) { return Span{}; }, [](int, int, Span out[2]) { out[0] = out[1] = {}; }};
  const Status st = run(plan, ++seq_);
  generation_.fetch_add(1);
  close_connections(st != GSHMEM_SUCCESS);
  closed_ = true;
  return st;
}

}  // namespace gshmem::bootstrap::tcp
