// SPDX-License-Identifier: BSD-3-Clause
// Connect-time wiring of the tree (tree.h): after rank 0's `ready`, every rank other than rank 0's
// children connects to its parent's listener, presents its rank and size (the Hello of the
// rendezvous) and the two prove to each other that they hold the job secret (auth.h); a parent
// accepts exactly its children, turning strangers away as rank 0 does, and a child refuses a
// parent that cannot prove it. A barrier over the tree ends it, so connect() succeeds only once every link is up.
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <random>
#include <thread>

#include "bootstrap/tcp/tree.h"

namespace gshmem::bootstrap::tcp {
namespace {

void send_ack(int fd, Status st, int arg, const std::string& text, const Deadline& dl) {
  int err = 0;
  send_message(fd, Header{static_cast<uint32_t>(Op::ack), kTopologyTree, text.size(), arg, st}, text.data(),
               text.size(), dl, &err);
}

std::string fd_limit_text(int err) {
  std::string m = errno_string(err);
  rlimit rl{};
  if (err == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0)
    m += "; the open-files limit (RLIMIT_NOFILE) is " +
         (rl.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(rl.rlim_cur)) +
         ": raise it for the job (ulimit -n)";
  return m;
}

}  // namespace

Status TreeBootstrap::connect_parent(const AuthKey& key, const sockaddr_storage& addr, socklen_t len,
                                     const Deadline& dl) {
  const std::string where = format_sockaddr(reinterpret_cast<const sockaddr*>(&addr));
  const int parent = links_[0].rank;
  // Retries with a growing, jittered pause: many ranks may retry at once.
  std::minstd_rand jitter(static_cast<unsigned>(rank_) * 2654435761u + static_cast<unsigned>(getpid()));
  int backoff_ms = 5;
  std::string last = "no attempt made";
  while (!dl.expired()) {
    int err = 0;
    int fd = connect_to(addr, len, dl.sooner(5.0), &err);
    if (fd < 0) {
      last = errno_string(err);
      if (err == EMFILE || err == ENFILE) break;
      const int wait =
          std::min(backoff_ms + static_cast<int>(jitter() % static_cast<unsigned>(backoff_ms)), dl.remaining_ms());
      std::this_thread::sleep_for(std::chrono::milliseconds(wait));
      backoff_ms = std::min(backoff_ms * 2, 500);
      continue;
    }
    uint8_t h8[kHeaderBytes];
    Header answer;
    Io io = Io::error;
    const Proof proof = client_handshake(fd, key, rank_, size_, dl, &answer, &io, &err);
    if (proof == Proof::unproven) {
      close_fd(&fd);
      return fail(GSHMEM_ERROR_AUTH,
                  "bootstrap: PE " + std::to_string(rank_) + " refused the process at " + where +
                      ", where its parent in the bootstrap tree, PE " + std::to_string(parent) +
                      ", should be: it could not prove it holds the job secret (another program took the port "
                      "after PE " +
                      std::to_string(parent) + " died?); nothing derived from the secret was sent to it",
                  parent);
    }
    if (proof == Proof::ok) io = recv_all(fd, h8, sizeof(h8), dl, &err);
    if (io != Io::ok) {
      close_fd(&fd);
      last = io == Io::timeout ? "connected, but it did not answer" : "the connection closed before it answered";
      break;
    }
    const Header h = proof == Proof::ok ? decode_header(h8) : answer;
    if (proof == Proof::ok && h.op == static_cast<uint32_t>(Op::ack) && h.status == 0) {
      links_[0].fd = fd;
      track_for_fork(fd);
      return GSHMEM_SUCCESS;
    }
    std::string text;
    read_text(fd, h.len, Deadline(2.0), &text, &err);
    std::vector<int> one{fd};
    lingering_close(&one, 500);
    return fail(GSHMEM_ERROR_BOOTSTRAP,
                "bootstrap: PE " + std::to_string(parent) + " (this PE's parent in the bootstrap tree, at " + where +
                    ") rejected PE " + std::to_string(rank_) + ": " + text,
                parent);
  }
  return fail(GSHMEM_ERROR_BOOTSTRAP,
              "bootstrap: PE " + std::to_string(rank_) + " could not connect to its parent in the bootstrap tree, PE " +
                  std::to_string(parent) + " at " + where + ", within " + std::to_string(timeout_s_) +
                  " s (last error: " + last +
                  "); the tree connects PEs to one another's ports: check that they are reachable, or set "
                  "GSHMEM_BOOTSTRAP_TOPOLOGY=star (only PE 0's port)",
              parent);
}

Status TreeBootstrap::accept_children(int listener, const AuthKey& key, const Deadline& dl) {
  std::vector<Knock> pend;
  auto missing = [&] {
    std::vector<int> m;
    for (size_t i = first_child_; i < links_.size(); ++i)
      if (links_[i].fd < 0) m.push_back(links_[i].rank);
    return m;
  };
  // Connections not yet taken: after a failure, tell them why (a child waiting for its ack then
  // fails with this rank's reason instead of "connection closed").
  auto drop_pending = [&] {
    std::vector<int> fds;
    for (Knock& p : pend) fds.push_back(p.fd);
    pend.clear();
    if (failed_ != GSHMEM_SUCCESS) {
      // The children got `ready` about when this rank did: wait up to a second for the ones
      // still on their way, so that they report the cause and not just this rank.
      const size_t waiting = missing().size();
      const Deadline adl(1.0);
      size_t told = 0;
      for (;;) {
        for (int fd; (fd = accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0;) fds.push_back(fd);
        for (; told < fds.size(); ++told) send_ack(fds[told], failed_, -1, failed_msg_, adl);
        if (told >= waiting || adl.expired()) break;
        pollfd q{listener, POLLIN, 0};
        poll(&q, 1, adl.remaining_ms());
      }
      lingering_close(&fds, 300);
    }
    for (int& fd : fds) close_fd(&fd);
  };
  std::vector<pollfd> pf;
  for (std::vector<int> m = missing(); !m.empty(); m = missing()) {
    if (dl.expired()) {
      drop_pending();
      std::string list;
      for (int r : m) list += (list.empty() ? "" : ", ") + std::to_string(r);
      return fail(
          GSHMEM_ERROR_BOOTSTRAP,
          "bootstrap: PE" + std::string(m.size() > 1 ? "s " : " ") + list + " joined PE 0 but did not connect to PE " +
              std::to_string(rank_) + ", their parent in the bootstrap tree, within " + std::to_string(timeout_s_) +
              " s (died after joining, or cannot reach port " + std::to_string(local_port(listener)) + " here?)",
          m[0]);
    }
    pf.clear();
    pf.push_back({listener, POLLIN, 0});
    for (const Knock& p : pend) pf.push_back({p.fd, POLLIN, 0});
    // The parent can only send a notice now; a child that connected may already send its part
    // of the closing barrier, so only its hang-up counts.
    const size_t first_link = pf.size();
    for (size_t i = 0; i < links_.size(); ++i)
      if (links_[i].fd >= 0) pf.push_back({links_[i].fd, static_cast<short>(i < first_child_ ? POLLIN : POLLRDHUP), 0});
    int n = poll(pf.data(), pf.size(), dl.remaining_ms());
    if (n < 0 && errno != EINTR) {
      drop_pending();
      return fail(GSHMEM_ERROR_SYSTEM, "bootstrap: wiring the tree: poll failed: " + errno_string(errno), -1);
    }
    if (n <= 0) continue;
    // A neighbour already connected says something: only a notice (or its end) can come now.
    for (size_t k = first_link, i = 0; k < pf.size(); ++k) {
      while (links_[i].fd != pf[k].fd) ++i;
      if (!pf[k].revents) continue;
      Status st;
      uint8_t hb[kHeaderBytes];
      int err = 0;
      if (i >= first_child_)
        st = disconnected(i, "the rendezvous", 0);
      else if (recv_all(links_[i].fd, hb, sizeof(hb), dl.sooner(2.0), &err) != Io::ok)
        st = disconnected(i, "the rendezvous", err);
      else
        st = take_unexpected(i, decode_header(hb), "the rendezvous", dl);
      drop_pending();
      return st;
    }
    for (size_t i = pend.size(); i-- > 0;) {
      if (!pf[1 + i].revents) continue;
      const KnockStep step = knock_step(&pend[i], key, dl.sooner(2.0));
      if (step == KnockStep::more) continue;
      Knock c = pend[i];
      pend.erase(pend.begin() + static_cast<long>(i));
      const Hello& h = c.hello;
      const Deadline ack_dl = dl.sooner(2.0);
      size_t slot = SIZE_MAX;
      for (size_t j = first_child_; j < links_.size(); ++j)
        if (links_[j].rank == h.rank && links_[j].fd < 0) slot = j;
      if (step == KnockStep::closed || step == KnockStep::error) {
        if (c.challenged)
          GSHMEM_LOG_WARN(
              "bootstrap: PE %d: a connection from %s (claiming rank %d of %d) left during the authentication: it "
              "does not hold this job's secret (it refused this PE's proof), or it died",
              rank_, c.peer.c_str(), h.rank, h.size);
      } else if (step == KnockStep::bad_magic) {
        GSHMEM_LOG_WARN(
            "bootstrap: PE %d rejected a connection from %s: not a gshmem bootstrap peer (bad magic 0x%08x)", rank_,
            c.peer.c_str(), h.magic);
      } else if (step == KnockStep::bad_version) {
        GSHMEM_LOG_WARN("bootstrap: PE %d rejected a connection from %s: protocol version %u, not %u", rank_,
                        c.peer.c_str(), h.version, kProtocolVersion);
        send_ack(c.fd, GSHMEM_ERROR_BOOTSTRAP, -1, "bootstrap protocol version mismatch (mixed installations?)",
                 ack_dl);
      } else if (step == KnockStep::wrong_secret) {
        GSHMEM_LOG_WARN(
            "bootstrap: PE %d rejected a connection from %s (claiming rank %d of %d): it could not prove it holds "
            "the job secret (a process of another job?); ignoring it",
            rank_, c.peer.c_str(), h.rank, h.size);
        send_ack(c.fd, GSHMEM_ERROR_AUTH, -1, "wrong job secret: this port belongs to another job", ack_dl);
      } else if (h.size != size_ || slot == SIZE_MAX) {
        GSHMEM_LOG_WARN(
            "bootstrap: PE %d rejected a connection from %s: it claims rank %d of %d, which is not a child of PE %d "
            "in the bootstrap tree still to connect",
            rank_, c.peer.c_str(), h.rank, h.size, rank_);
        send_ack(c.fd, GSHMEM_ERROR_BOOTSTRAP, -1,
                 "PE " + std::to_string(rank_) + " expects no such child in the bootstrap tree", ack_dl);
      } else {
        int err = 0;
        if (send_message(c.fd, Header{static_cast<uint32_t>(Op::ack), kTopologyTree, 0, h.rank, 0}, nullptr, 0, ack_dl,
                         &err) == Io::ok) {
          links_[slot].fd = c.fd;
          track_for_fork(c.fd);
          continue;
        }
      }
      close_fd(&c.fd);
    }
    if (pf[0].revents) {
      for (int i = 0; i < 64; ++i) {
        Knock p;
        int err = 0;
        p.fd = accept_one(listener, &p.peer, &err);
        if (p.fd < 0) {
          if (err == EMFILE || err == ENFILE) {
            const Status st = fail(GSHMEM_ERROR_BOOTSTRAP,
                                   "bootstrap: PE " + std::to_string(rank_) +
                                       " cannot accept its children in the bootstrap tree: " + fd_limit_text(err),
                                   -1);
            drop_pending();
            return st;
          }
          break;
        }
        if (pend.size() >= 64) {  // unidentified connections held at once
          GSHMEM_LOG_WARN("bootstrap: too many connections that do not identify themselves; dropping the one from %s",
                          pend.front().peer.c_str());
          close_fd(&pend.front().fd);
          pend.erase(pend.begin());
        }
        pend.push_back(p);
      }
    }
  }
  drop_pending();
  return GSHMEM_SUCCESS;
}

Status TreeBootstrap::wire(const AuthKey& key, int parent_fd, const sockaddr_storage& parent_addr, socklen_t parent_len,
                           std::vector<int> child_fds, int listener, const Deadline& dl) {
  std::lock_guard<std::mutex> lock(io_mutex_);
  Status st = GSHMEM_SUCCESS;
  if (rank_ == 0) {
    for (size_t i = 0; i < child_fds.size() && first_child_ + i < links_.size(); ++i) {
      links_[first_child_ + i].fd = child_fds[i];
      track_for_fork(child_fds[i]);
    }
  } else if (parent_fd >= 0) {
    links_[0].fd = parent_fd;
    track_for_fork(parent_fd);
  } else {
    st = connect_parent(key, parent_addr, parent_len, dl);
  }
  if (st == GSHMEM_SUCCESS && listener >= 0) st = accept_children(listener, key, dl);
  close_fd(&listener);
  if (st != GSHMEM_SUCCESS) return st;
  // Every link is up once this barrier completes everywhere.
  Plan plan{{Op::ready, 0, 0}, [](int, int) { return Span{}; }, [](int, int, Span out[2]) { out[0] = out[1] = {}; }};
  st = run(plan, 0);
  generation_.fetch_add(1);
  return st;
}

}  // namespace gshmem::bootstrap::tcp
