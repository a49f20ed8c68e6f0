// SPDX-License-Identifier: BSD-3-Clause
// connect(): the rendezvous. Rank 0 picks its listening socket (inherited from
// the launcher, registered by create_uniqueid, or bound now), then accepts
// and authenticates joiners (auth.h) until every rank joined; strangers (wrong
// magic, no proof of the secret) are turned away with a WARN and do not disturb
// the job. Other ranks connect with retries until rank 0 is up, send a Hello,
// check rank 0's proof (a squatter on rank 0's port is refused at once), give
// theirs and wait for `ack`, then `ready`.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <random>
#include <thread>

#include "bootstrap/tcp/auth.h"
#include "bootstrap/tcp/late_joiners.h"
#include "bootstrap/tcp/tcp_bootstrap.h"
#include "bootstrap/tcp/tree.h"
#include "bootstrap/tcp/uniqueid.h"

namespace gshmem::bootstrap {
namespace tcp {
namespace {

constexpr size_t kMaxPending = 64;  // unidentified connections held at once
void send_text(int fd, Op op, Status st, int arg, const std::string& text, const Deadline& dl) {
  int err = 0;
  send_message(fd, Header{static_cast<uint32_t>(op), 0, text.size(), arg, st}, text.data(), text.size(), dl, &err);
}

// Why accept() failed for lack of file descriptors, and what to do about it.
std::string fd_limit_message(int err, int size) {
  std::string m = "bootstrap: PE 0 cannot accept the other PEs' connections: " + errno_string(err) +
                  ". PE 0 holds one socket for each of the other " + std::to_string(size - 1) +
                  " PEs (plus the files the program itself has open)";
  if (err == EMFILE) {
    rlimit rl{};
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
      m += ", but its open-files limit (RLIMIT_NOFILE) is " +
           (rl.rlim_cur == RLIM_INFINITY ? std::string("unlimited") : std::to_string(rl.rlim_cur));
    m += ": raise the limit for the job (ulimit -n; the hard limit is raised by the administrator, "
         "e.g. in /etc/security/limits.conf or the launcher's configuration)";
  } else {
    m += ", but the system-wide limit on open files is reached (fs.file-max): close files or raise "
         "that limit";
  }
  return m;
}

// Rank 0: accept until every rank joined. On success fds[r] is rank r's socket; on a failure of
// the job *why is what every PE is told.
Status root_accept(int listener, const UniqueIdData& d, const AuthKey& key, int size, int timeout_s, uint32_t topology,
                   const Deadline& dl, std::vector<int>* fds, std::string* why) {
  std::vector<std::string> where(size);
  std::vector<Knock> pend;
  int joined = 1;
  Status st = GSHMEM_SUCCESS;
  std::string msg;
  auto job_error = [&](Status s, const std::string& m) {
    st = s;
    msg = m;
  };
  std::vector<pollfd> pf;
  while (joined < size && st == GSHMEM_SUCCESS) {
    // The deadline is checked on every pass, not only when poll() times out:
    // a listener that stays readable (accept() failing) must not keep us here.
    if (dl.expired()) {
      std::string missing;
      for (int r = 1; r < size; ++r)
        if ((*fds)[r] < 0) missing += (missing.empty() ? "" : ", ") + std::to_string(r);
      job_error(GSHMEM_ERROR_BOOTSTRAP, "bootstrap: " + std::to_string(size - joined) + " of " + std::to_string(size) +
                                            " PEs did not join within " + std::to_string(timeout_s) +
                                            " s: missing rank" + (size - joined > 1 ? "s " : " ") + missing +
                                            " (not started, crashed, or cannot reach " + uniqueid_endpoint(d) + "?)");
      break;
    }
    pf.clear();
    pf.push_back({listener, POLLIN, 0});
    for (const Knock& p : pend) pf.push_back({p.fd, POLLIN, 0});
    for (int r = 1; r < size; ++r)
      if ((*fds)[r] >= 0) pf.push_back({(*fds)[r], POLLRDHUP, 0});
    int n = poll(pf.data(), pf.size(), dl.remaining_ms());
    if (n < 0) {
      if (errno == EINTR) continue;
      job_error(GSHMEM_ERROR_SYSTEM, "bootstrap: rendezvous: poll failed: " + errno_string(errno));
      break;
    }
    if (n == 0) continue;  // the deadline is checked at the top
    // Joined ranks that hang up before the job started.
    for (size_t i = 1 + pend.size(); i < pf.size() && st == GSHMEM_SUCCESS; ++i) {
      if (!pf[i].revents) continue;
      for (int r = 1; r < size; ++r)
        if ((*fds)[r] == pf[i].fd)
          job_error(GSHMEM_ERROR_PEER_FAILURE, "bootstrap: PE " + std::to_string(r) + " (" + where[r] +
                                                   ") disconnected during the rendezvous (process died?)");
    }
    // Hellos and proofs (auth.h).
    for (size_t i = pend.size(); i-- > 0 && st == GSHMEM_SUCCESS;) {
      if (!pf[1 + i].revents) continue;
      const KnockStep step = knock_step(&pend[i], key, dl.sooner(2.0));
      if (step == KnockStep::more) continue;
      Knock c = pend[i];
      pend.erase(pend.begin() + static_cast<long>(i));
      const Hello& h = c.hello;
      Deadline ack_dl = dl.sooner(2.0);
      if (step == KnockStep::closed || step == KnockStep::error) {
        if (c.challenged)
          GSHMEM_LOG_WARN(
              "bootstrap: a connection from %s (claiming rank %d of %d) left during the authentication: it does "
              "not hold this job's secret (it refused PE 0's proof), or it died",
              c.peer.c_str(), h.rank, h.size);
        else
          GSHMEM_LOG_INFO("bootstrap: connection from %s closed before identifying itself", c.peer.c_str());
      } else if (step == KnockStep::bad_magic) {
        GSHMEM_LOG_WARN(
            "bootstrap: rejected a connection from %s: not a gshmem bootstrap peer "
            "(bad magic 0x%08x); ignoring it",
            c.peer.c_str(), h.magic);
      } else if (step == KnockStep::bad_version) {
        std::string m = "bootstrap protocol version " + std::to_string(h.version) + " does not match PE 0's version " +
                        std::to_string(kProtocolVersion) + " (mixed gshmem installations?)";
        GSHMEM_LOG_WARN("bootstrap: rejected a connection from %s: %s", c.peer.c_str(), m.c_str());
        send_text(c.fd, Op::ack, GSHMEM_ERROR_BOOTSTRAP, -1, m, ack_dl);
      } else if (step == KnockStep::wrong_secret) {
        GSHMEM_LOG_WARN(
            "bootstrap: rejected a connection from %s (claiming rank %d of %d): it could not prove it holds the "
            "job secret (a process of another job, or one without this job's GSHMEM_BOOTSTRAP_SECRET?); "
            "ignoring it",
            c.peer.c_str(), h.rank, h.size);
        send_text(c.fd, Op::ack, GSHMEM_ERROR_AUTH, -1,
                  "wrong job secret: the rendezvous at " + uniqueid_endpoint(d) +
                      " belongs to another job (stale or mixed-up unique id, or another GSHMEM_BOOTSTRAP_SECRET?)",
                  ack_dl);
      } else {
        std::string m;
        if (h.size != size)
          m = "bootstrap: the PE at " + c.peer + " (rank " + std::to_string(h.rank) + ") was started with " +
              std::to_string(h.size) + " PEs but PE 0 with " + std::to_string(size) +
              "; every PE must be given the same number of PEs";
        else if (h.rank < 1 || h.rank >= size)
          m = "bootstrap: the PE at " + c.peer + " claims rank " + std::to_string(h.rank) + ", which is not in 1.." +
              std::to_string(size - 1);
        else if ((*fds)[h.rank] >= 0)
          m = "bootstrap: two PEs claim rank " + std::to_string(h.rank) + " (at " + where[h.rank] + " and " + c.peer +
              "); every PE needs a distinct rank";
        if (!m.empty()) {
          send_text(c.fd, Op::ack, GSHMEM_ERROR_BOOTSTRAP, -1, m, ack_dl);
          std::vector<int> one{c.fd};
          lingering_close(&one, 500);
          job_error(GSHMEM_ERROR_BOOTSTRAP, m);
          continue;
        }
        int err = 0;
        if (send_message(c.fd, Header{static_cast<uint32_t>(Op::ack), topology, 0, h.rank, 0}, nullptr, 0, ack_dl,
                         &err) == Io::ok) {
          (*fds)[h.rank] = c.fd;
          where[h.rank] = c.peer;
          ++joined;
          GSHMEM_LOG_TRACE("bootstrap: PE %d joined from %s (%d of %d)", h.rank, c.peer.c_str(), joined, size);
          continue;  // keep the socket
        }
        GSHMEM_LOG_INFO("bootstrap: PE %d at %s vanished before its ack", h.rank, c.peer.c_str());
      }
      close_fd(&c.fd);
    }
    // New connections.
    if (st == GSHMEM_SUCCESS && pf[0].revents) {
      for (int i = 0; i < 64; ++i) {
        Knock p;
        int err = 0;
        p.fd = accept_one(listener, &p.peer, &err);
        if (p.fd < 0) {
          if (err == EMFILE || err == ENFILE) {
            // Out of descriptors: the PEs waiting in the backlog cannot join
            // until something closes, which nothing here will do.
            job_error(GSHMEM_ERROR_BOOTSTRAP, fd_limit_message(err, size));
          } else if (err != EAGAIN && err != EWOULDBLOCK && err != ECONNABORTED && err != EINTR) {
            // e.g. ENOBUFS: the listener stays readable; do not spin on it.
            GSHMEM_LOG_WARN("bootstrap: accept failed: %s", errno_string(err).c_str());
            std::this_thread::sleep_for(std::chrono::milliseconds(std::min(50, dl.remaining_ms())));
          }
          break;
        }
        if (pend.size() >= kMaxPending) {
          GSHMEM_LOG_WARN(
              "bootstrap: too many connections that do not identify themselves; "
              "dropping the one from %s",
              pend.front().peer.c_str());
          close_fd(&pend.front().fd);
          pend.erase(pend.begin());
        }
        pend.push_back(p);
      }
    }
  }
  for (Knock& p : pend) close_fd(&p.fd);
  if (st != GSHMEM_SUCCESS) {
    GSHMEM_LOG_ERROR("%s", msg.c_str());
    *why = msg;
    Deadline adl(2.0);
    for (int r = 1; r < size; ++r)
      if ((*fds)[r] >= 0) send_text((*fds)[r], Op::abort, st, -1, msg, adl);
    lingering_close(fds, 1000);
    return st;
  }
  if (topology == kTopologyTree) return GSHMEM_SUCCESS;  // root_tree sends `ready`
  Deadline rdl = dl.sooner(5.0);
  for (int r = 1; r < size; ++r) {
    int err = 0;
    if (send_message((*fds)[r], Header{static_cast<uint32_t>(Op::ready), 0, 0, size, 0}, nullptr, 0, rdl, &err) !=
        Io::ok) {
      std::string m = "bootstrap: PE " + std::to_string(r) + " (" + where[r] +
                      ") disconnected during the rendezvous (process died?)";
      GSHMEM_LOG_ERROR("%s", m.c_str());
      for (int q = r + 1; q < size; ++q) send_text((*fds)[q], Op::abort, GSHMEM_ERROR_PEER_FAILURE, r, m, rdl);
      lingering_close(fds, 1000);
      return GSHMEM_ERROR_PEER_FAILURE;
    }
  }
  return GSHMEM_SUCCESS;
}

// Wire format of a parent's address in a tree `ready`: family, port (big-endian), 16 address bytes.
constexpr size_t kAddrBytes = 20;

void encode_addr(const sockaddr_storage& ss, uint16_t port, uint8_t out[kAddrBytes]) {
  memset(out, 0, kAddrBytes);
  out[0] = static_cast<uint8_t>(ss.ss_family >> 8);
  out[1] = static_cast<uint8_t>(ss.ss_family);
  out[2] = static_cast<uint8_t>(port >> 8);
  out[3] = static_cast<uint8_t>(port);
  if (ss.ss_family == AF_INET)
    memcpy(out + 4, &reinterpret_cast<const sockaddr_in*>(&ss)->sin_addr, 4);
  else
    memcpy(out + 4, &reinterpret_cast<const sockaddr_in6*>(&ss)->sin6_addr, 16);
}

bool decode_addr(const uint8_t in[kAddrBytes], sockaddr_storage* ss, socklen_t* len) {
  memset(ss, 0, sizeof(*ss));
  const int family = (in[0] << 8) | in[1];
  const uint16_t port = static_cast<uint16_t>((in[2] << 8) | in[3]);
  if (family == AF_INET) {
    auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(port);
    memcpy(&s4->sin_addr, in + 4, 4);
    *len = sizeof(sockaddr_in);
    return true;
  }
  if (family == AF_INET6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(port);
    memcpy(&s6->sin6_addr, in + 4, 16);
    *len = sizeof(sockaddr_in6);
    return true;
  }
  return false;
}

// GSHMEM_BOOTSTRAP_TOPOLOGY, read by rank 0 only (the others follow what its ack says).
Status read_topology(uint32_t* out) {
  *out = kTopologyTree;  // the default
  const char* t = getenv("GSHMEM_BOOTSTRAP_TOPOLOGY");
  if (!t || !*t) return GSHMEM_SUCCESS;
  if (strcasecmp(t, "star") == 0) {
    *out = kTopologyStar;
    return GSHMEM_SUCCESS;
  }
  if (strcasecmp(t, "tree") == 0) {
    *out = kTopologyTree;
    return GSHMEM_SUCCESS;
  }
  GSHMEM_LOG_ERROR("bootstrap: GSHMEM_BOOTSTRAP_TOPOLOGY=\"%s\" is not a topology: use tree or star", t);
  return GSHMEM_ERROR_INVALID_VALUE;
}

// Rank 0, tree: every rank joined (fds[r]). Read the listening ports of the ranks with children,
// send each rank `ready` with its parent's address, keep only the children's connections, and
// wire the tree.
Status root_tree(const UniqueIdData& d, const AuthKey& key, int size, int timeout_s, const Deadline& dl,
                 std::vector<int>* fds, std::unique_ptr<Bootstrap>* out) {
  std::vector<uint16_t> port(size, 0);
  Status st = GSHMEM_SUCCESS;
  std::string msg;
  int about = -1;
  for (int r = 1; r < size && st == GSHMEM_SUCCESS; ++r) {
    if (tree_node(r, size).children.empty()) continue;
    uint8_t hb[kHeaderBytes];
    int err = 0;
    const Io io = recv_all((*fds)[r], hb, sizeof(hb), dl, &err);
    const Header h = decode_header(hb);
    if (io == Io::ok && h.op == static_cast<uint32_t>(Op::addr) && h.arg > 0 && h.arg < 65536) {
      port[r] = static_cast<uint16_t>(h.arg);
      continue;
    }
    about = r;
    if (io == Io::ok && h.op == static_cast<uint32_t>(Op::abort)) {
      std::string text;
      read_text((*fds)[r], h.len, dl.sooner(2.0), &text, &err);
      st = h.status > 0 && h.status <= GSHMEM_ERROR_INTERNAL ? h.status : GSHMEM_ERROR_BOOTSTRAP;
      msg = "bootstrap: PE " + std::to_string(r) + " failed during the rendezvous: " + text;
    } else {
      st = io == Io::ok ? GSHMEM_ERROR_BOOTSTRAP : GSHMEM_ERROR_PEER_FAILURE;
      msg = "bootstrap: PE " + std::to_string(r) +
            (io == Io::ok ? " sent " + describe_op(h.op, h.len, h.arg) + " instead of its listening port"
                          : std::string(io == Io::timeout ? " did not send its listening port" : " disconnected") +
                                " during the rendezvous (process died?)");
    }
  }
  const TreeNode root = tree_node(0, size);
  for (int r = 1; r < size && st == GSHMEM_SUCCESS; ++r) {
    const int p = tree_node(r, size).parent;
    uint8_t addr[kAddrBytes];
    size_t len = 0;
    if (p != 0) {
      sockaddr_storage ss{};
      socklen_t sl = sizeof(ss);
      getpeername((*fds)[p], reinterpret_cast<sockaddr*>(&ss), &sl);
      encode_addr(ss, port[p], addr);
      len = kAddrBytes;
    }
    int err = 0;
    if (send_message((*fds)[r], Header{static_cast<uint32_t>(Op::ready), kTopologyTree, len, size, 0}, addr, len,
                     dl.sooner(5.0), &err) != Io::ok) {
      st = GSHMEM_ERROR_PEER_FAILURE;
      about = r;
      msg = "bootstrap: PE " + std::to_string(r) + " disconnected during the rendezvous (process died?)";
      break;
    }
  }
  // The others leave for their parents; rank 0 keeps its children's connections only.
  for (int r = 1; r < size && st == GSHMEM_SUCCESS; ++r)
    if (tree_node(r, size).parent != 0) close_fd(&(*fds)[r]);
  if (st != GSHMEM_SUCCESS) {
    GSHMEM_LOG_ERROR("%s", msg.c_str());
    Deadline adl(2.0);
    for (int r = 1; r < size; ++r)
      if ((*fds)[r] >= 0 && r != about) send_text((*fds)[r], Op::abort, st, about, msg, adl);
    lingering_close(fds, 1000);
    return st;
  }
  std::vector<int> children;
  for (const TreeNode::Child& c : root.children) children.push_back((*fds)[c.rank]);
  auto* t = new TreeBootstrap(0, size, d.job_key, job_token_of(key), timeout_s);
  out->reset(t);
  sockaddr_storage none{};
  st = t->wire(key, -1, none, 0, children, -1, Deadline(timeout_s));
  if (st != GSHMEM_SUCCESS) out->reset();
  return st;
}

Status root_connect(const UniqueIdData& d, const AuthKey& key, int size, int timeout_s, const Deadline& dl,
                    std::unique_ptr<Bootstrap>* out) {
  uint32_t topology = kTopologyStar;
  GSHMEM_TRY(read_topology(&topology));
  int listener = -1;
  GSHMEM_TRY(open_root_listener(d, &listener));
  std::vector<int> fds(size, -1);
  std::string why;
  Status st = root_accept(listener, d, key, size, timeout_s, topology, dl, &fds, &why);
  // PEs still knocking learn why the job failed (up to 2 s: they retry at most ~1 s apart).
  if (st != GSHMEM_SUCCESS && !why.empty())
    answer_late_joiners(listener, key, st, why, Deadline(std::min(member_grace_s(timeout_s), 2)));
  close_root_listener(&listener);  // nobody else may join: a late connection is refused at once
  if (st != GSHMEM_SUCCESS) return st;
  GSHMEM_LOG_INFO("bootstrap: all %d PEs joined at %s (%s)", size, uniqueid_endpoint(d).c_str(),
                  topology == kTopologyTree ? "tree" : "star");
  if (topology == kTopologyTree) return root_tree(d, key, size, timeout_s, Deadline(timeout_s), &fds, out);
  out->reset(new TcpBootstrap(0, size, d.job_key, job_token_of(key), timeout_s, std::move(fds), uniqueid_endpoint(d)));
  return GSHMEM_SUCCESS;
}

// Rank r > 0: returns the connection to rank 0 after `ready`, else an error.
Status member_connect(const UniqueIdData& d, const AuthKey& key, int rank, int size, int timeout_s, const Deadline& dl,
                      std::unique_ptr<Bootstrap>* out) {
  sockaddr_storage ss;
  socklen_t sl;
  uniqueid_sockaddr(d, &ss, &sl);
  const std::string ep = uniqueid_endpoint(d);
  std::string last = "no attempt made";
  int backoff_ms = 10;
  // Retries pause a growing time plus up to as much again at random, so that many PEs started
  // together do not knock at rank 0's backlog in step.
  std::minstd_rand jitter(static_cast<unsigned>(rank) * 2654435761u + static_cast<unsigned>(getpid()));
  while (!dl.expired()) {
    int err = 0;
    int fd = connect_to(ss, sl, dl.sooner(5.0), &err);
    Io io = Io::error;
    uint8_t h8[kHeaderBytes];
    Header h;
    Proof proof = Proof::io;
    if (fd >= 0) proof = client_handshake(fd, key, rank, size, dl, &h, &io, &err);
    if (proof == Proof::unproven) {
      // Not PE 0 of this job: nothing derived from the secret went out. Retrying could not help
      // while that process holds the port, so say so at once.
      close_fd(&fd);
      GSHMEM_LOG_ERROR(
          "bootstrap: PE %d refused the process at %s, where PE 0 should be: it could not prove it holds the job "
          "secret. Another program holds PE 0's port (a port squatter, or a PE of another job), or PE 0 was given "
          "another secret (GSHMEM_BOOTSTRAP_SECRET must be the same on every PE). Nothing derived from the secret "
          "was sent to it; check who listens there (ss -ltnp), or set GSHMEM_BOOTSTRAP_PORT to a free port",
          rank, ep.c_str());
      return GSHMEM_ERROR_AUTH;
    }
    if (proof == Proof::ok) io = recv_all(fd, h8, sizeof(h8), dl, &err);
    if (fd < 0 || io != Io::ok) {
      if (fd >= 0 && io == Io::timeout) {
        close_fd(&fd);
        last = "connected, but PE 0 did not answer";
        break;
      }
      last = fd < 0 ? errno_string(err)
                    : "the connection was closed before PE 0 answered" +
                          (err ? " (" + errno_string(err) + ")" : std::string());
      close_fd(&fd);
      int wait =
          std::min(backoff_ms + static_cast<int>(jitter() % static_cast<unsigned>(backoff_ms)), dl.remaining_ms());
      std::this_thread::sleep_for(std::chrono::milliseconds(wait));
      backoff_ms = std::min(backoff_ms * 2, 500);
      continue;
    }
    if (proof == Proof::ok) h = decode_header(h8);
    std::string text;
    if (proof == Proof::ok && h.op == static_cast<uint32_t>(Op::ack) && h.status == 0) {
      const bool tree = h.seq == kTopologyTree;
      int listener = -1;
      if (tree && !tree_node(rank, size).children.empty()) {
        // Its children will connect here (tree.h); rank 0 passes the port on.
        listener = open_listener(socket_family(fd), 0, &err);
        Io sent = Io::error;
        if (listener >= 0)
          sent = send_message(fd, Header{static_cast<uint32_t>(Op::addr), 0, 0, local_port(listener), 0}, nullptr, 0,
                              dl, &err);
        if (sent != Io::ok) {
          GSHMEM_LOG_ERROR("bootstrap: PE %d cannot %s: %s", rank,
                           listener < 0 ? "listen for its children in the bootstrap tree" : "send its port to PE 0",
                           errno_string(err).c_str());
          close_fd(&listener);
          std::vector<int> one{fd};
          lingering_close(&one, 500);
          return GSHMEM_ERROR_BOOTSTRAP;
        }
      }
      // Accepted; wait for everyone else (a little longer than rank 0 does, so
      // that its report of who is missing arrives first).
      Deadline ready_dl(member_wait_s(timeout_s));
      io = recv_all(fd, h8, sizeof(h8), ready_dl, &err);
      if (io == Io::ok) h = decode_header(h8);
      if (io == Io::ok && h.op == static_cast<uint32_t>(Op::ready) && !tree) {
        out->reset(new TcpBootstrap(rank, size, d.job_key, job_token_of(key), timeout_s, std::vector<int>{fd}, ep));
        return GSHMEM_SUCCESS;
      }
      if (io == Io::ok && h.op == static_cast<uint32_t>(Op::ready)) {
        uint8_t addr[kAddrBytes];
        sockaddr_storage ss{};
        socklen_t sl = 0;
        const bool via_root = h.len == 0;
        if (!via_root && (h.len != kAddrBytes || recv_all(fd, addr, sizeof(addr), Deadline(5.0), &err) != Io::ok ||
                          !decode_addr(addr, &ss, &sl))) {
          GSHMEM_LOG_ERROR("bootstrap: PE %d: PE 0's `ready` did not carry a valid parent address (protocol error)",
                           rank);
          close_fd(&listener);
          close_fd(&fd);
          return GSHMEM_ERROR_BOOTSTRAP;
        }
        if (!via_root) close_fd(&fd);  // rank 0 keeps only its children
        auto* t = new TreeBootstrap(rank, size, d.job_key, job_token_of(key), timeout_s);
        out->reset(t);
        Status st = t->wire(key, via_root ? fd : -1, ss, sl, {}, listener, Deadline(timeout_s));
        if (st != GSHMEM_SUCCESS) out->reset();
        return st;
      }
      close_fd(&listener);
      if (io == Io::timeout) {
        GSHMEM_LOG_ERROR(
            "bootstrap: PE %d joined PE 0 at %s, but not all %d PEs joined within %d s "
            "(PE 0 reports which are missing)",
            rank, ep.c_str(), size, member_wait_s(timeout_s));
        close_fd(&fd);
        return GSHMEM_ERROR_BOOTSTRAP;
      }
      if (io != Io::ok) {
        GSHMEM_LOG_ERROR("bootstrap: PE 0 at %s disconnected during the rendezvous (process died?)", ep.c_str());
        close_fd(&fd);
        return GSHMEM_ERROR_PEER_FAILURE;
      }
    }
    // A rejection (ack with an error) or an abort: the reason follows.
    Status st = h.status > 0 && h.status <= GSHMEM_ERROR_INTERNAL ? h.status : GSHMEM_ERROR_BOOTSTRAP;
    if (h.op == static_cast<uint32_t>(Op::ack) || h.op == static_cast<uint32_t>(Op::abort))
      read_text(fd, h.len, Deadline(2.0), &text, &err);
    else
      text = std::string("unexpected message ") + op_name(h.op) + " from PE 0 (protocol error)";
    std::vector<int> one{fd};
    lingering_close(&one, 500);
    if (text.rfind("bootstrap: ", 0) == 0) text.erase(0, 11);
    if (h.op == static_cast<uint32_t>(Op::ack))
      GSHMEM_LOG_ERROR("bootstrap: PE 0 at %s rejected this PE (rank %d of %d): %s", ep.c_str(), rank, size,
                       text.c_str());
    else
      GSHMEM_LOG_ERROR("bootstrap: %s (reported by PE 0)", text.c_str());
    return st;
  }
  GSHMEM_LOG_ERROR(
      "bootstrap: PE %d could not reach PE 0 at %s within %d s (last error: %s); check "
      "that rank 0 started and that this address is reachable from here "
      "(GSHMEM_BOOTSTRAP_IFNAME, MASTER_ADDR)",
      rank, ep.c_str(), timeout_s, last.c_str());
  return GSHMEM_ERROR_BOOTSTRAP;
}

}  // namespace
}  // namespace tcp

using namespace tcp;

Status connect(const gshmemx_uniqueid_t& id, int rank, int size, const ConnectOptions& opts,
               std::unique_ptr<Bootstrap>* out) {
  if (!out) {
    GSHMEM_LOG_ERROR("bootstrap: connect: output pointer is NULL");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  out->reset();
  if (size < 1 || rank < 0 || rank >= size) {
    GSHMEM_LOG_ERROR(
        "bootstrap: connect: rank %d of %d PEs is invalid (need 0 <= rank < size, "
        "size >= 1)",
        rank, size);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (opts.timeout_s <= 0) {
    GSHMEM_LOG_ERROR(
        "bootstrap: connect: timeout %d s is invalid (must be > 0; see "
        "GSHMEM_BOOTSTRAP_TIMEOUT)",
        opts.timeout_s);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  UniqueIdData d = uniqueid_data(id);
  std::string why;
  const bool valid = uniqueid_valid(d, &why);
  if (size == 1) {
    // Nothing to rendezvous with; drop a listener this process may hold for it.
    if (valid) drop_root_listener(d);
    uint64_t key = d.magic == kUniqueIdMagic && d.job_key ? d.job_key : random_u64();
    // Nothing to share the token with: a random one (the heap's sockets are named with it).
    const AuthKey own = auth_key(random_u64());
    out->reset(new TcpBootstrap(0, 1, key, job_token_of(own), opts.timeout_s, std::vector<int>{-1}, "local"));
    return GSHMEM_SUCCESS;
  }
  if (!valid) {
    GSHMEM_LOG_ERROR("bootstrap: connect: the unique id is invalid: %s", why.c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  Deadline dl(opts.timeout_s);
  GSHMEM_LOG_INFO("bootstrap: PE %d of %d joining the rendezvous at %s", rank, size, uniqueid_endpoint(d).c_str());
  const AuthKey key = auth_key(d.secret);
  if (rank == 0) return root_connect(d, key, size, opts.timeout_s, dl, out);
  int stale = take_registered_listener(d.job_key);  // e.g. made before fork(); rank 0 owns it
  close_fd(&stale);
  return member_connect(d, key, rank, size, opts.timeout_s, dl, out);
}

}  // namespace gshmem::bootstrap
