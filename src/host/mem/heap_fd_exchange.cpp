// SPDX-License-Identifier: BSD-3-Clause
// Passing CUDA VMM export fds (or the IPC heap's handles, as bytes) between node-local PEs over
// Unix-domain sockets, so that no handle leaves its node and a PE's cost is O(local PEs).
// Each PE listens on an abstract socket whose name comes from the job's token (derived from the
// job secret: bootstrap/local_auth.h), its PE number and the exchange generation, so no other
// process can foresee it and take it first; a helper thread serves its fd and bytes to every
// local peer while the main thread fetches the peers'. Abstract names are visible to every user
// of the node once bound, so both ends check the other: it runs as this user (SO_PEERCRED), and
// it belongs to this job -- the client sends its proof first and the server serves only a
// proven client; the server's answer carries its own proof. A foreign process (another user's,
// or another job's of this user) gets no handle to this PE's memory, is not counted as a peer,
// and cannot pose as one.
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "bootstrap/local_auth.h"
#include "heap.h"
#include "host/core/config.h"

namespace gshmem::mem {
namespace {

constexpr const char* kEndpoint = "heap";  // names this exchange's sockets and proofs
using Proof = uint8_t[bootstrap::kLocalProofBytes];

socklen_t socket_name(const bootstrap::JobToken& token, int pe, int generation, sockaddr_un* addr) {
  memset(addr, 0, sizeof(*addr));
  addr->sun_family = AF_UNIX;
  // Abstract namespace (leading NUL): nothing to clean up on disk.
  const std::string name = bootstrap::local_endpoint_name(token, kEndpoint, pe, generation);
  int n = snprintf(addr->sun_path + 1, sizeof(addr->sun_path) - 1, "%s", name.c_str());
  return static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + n);
}

bool wait_fd(int fd, short events, int timeout_ms) {
  pollfd p{fd, events, 0};
  int r;
  do r = poll(&p, 1, timeout_ms);
  while (r < 0 && errno == EINTR);
  return r > 0;
}

// The process at the other end of `sock` runs as this process's user.
bool same_user(int sock, const char* what) {
  ucred cred{};
  socklen_t len = sizeof(cred);
  if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 && cred.uid == geteuid()) return true;
  GSHMEM_LOG_WARN(
      "heap setup: %s a process of another user (pid %d, uid %u) on this PE's Unix socket; "
      "ignored",
      what, static_cast<int>(cred.pid), static_cast<unsigned>(cred.uid));
  return false;
}

// One message: the server's proof, its PE number and `bytes` bytes, with fd_to_send attached
// when >= 0.
bool send_fd(int sock, const Proof proof, int fd_to_send, int my_pe, const void* blob, size_t bytes) {
  char cbuf[CMSG_SPACE(sizeof(int))] = {};
  iovec iov[3] = {
      {const_cast<uint8_t*>(proof), sizeof(Proof)}, {&my_pe, sizeof(my_pe)}, {const_cast<void*>(blob), bytes}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = bytes ? 3 : 2;
  if (fd_to_send >= 0) {
    msg.msg_control = cbuf;
    msg.msg_controllen = sizeof(cbuf);
    cmsghdr* c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd_to_send, sizeof(int));
  }
  return sendmsg(sock, &msg, MSG_NOSIGNAL) == static_cast<ssize_t>(sizeof(Proof) + sizeof(my_pe) + bytes);
}

// Receives one message of send_fd: false unless all of it came (and the fd, when `fd` is asked).
// An fd that arrives with a message from a process that does not prove the job is closed here.
bool recv_fd(int sock, Proof proof, int* sender_pe, void* blob, size_t bytes, int* fd) {
  char cbuf[CMSG_SPACE(sizeof(int))] = {};
  iovec iov[3] = {{proof, sizeof(Proof)}, {sender_pe, sizeof(*sender_pe)}, {blob, bytes}};
  msghdr msg{};
  msg.msg_iov = iov;
  msg.msg_iovlen = bytes ? 3 : 2;
  msg.msg_control = cbuf;
  msg.msg_controllen = sizeof(cbuf);
  const ssize_t got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | MSG_WAITALL);
  cmsghdr* c = got > 0 ? CMSG_FIRSTHDR(&msg) : nullptr;
  int passed = -1;
  if (c && c->cmsg_type == SCM_RIGHTS) memcpy(&passed, CMSG_DATA(c), sizeof(int));
  if (got != static_cast<ssize_t>(sizeof(Proof) + sizeof(*sender_pe) + bytes) || (fd ? passed < 0 : c != nullptr)) {
    if (passed >= 0) close(passed);
    return false;
  }
  if (fd) *fd = passed;
  return true;
}

// The client's proof arrives within `timeout_ms` and is this job's.
bool client_proven(int sock, const Proof want, int timeout_ms) {
  Proof got{};
  if (!wait_fd(sock, POLLIN, timeout_ms) || recv(sock, got, sizeof(got), MSG_WAITALL) != sizeof(got)) return false;
  return bootstrap::same_local_proof(got, want);
}

}  // namespace

Status exchange_fds(const HeapParams& params, bootstrap::Bootstrap& boot, int generation, int my_fd,
                    std::vector<int>* peer_fds) {
  return exchange_local(params, boot, generation, my_fd, nullptr, 0, peer_fds, nullptr);
}

Status exchange_local(const HeapParams& params, bootstrap::Bootstrap& boot, int generation, int my_fd, const void* blob,
                      size_t bytes, std::vector<int>* peer_fds, std::vector<uint8_t>* peer_blobs) {
  const int n_local = static_cast<int>(params.local_pes.size());
  peer_fds->assign(n_local, -1);
  if (peer_blobs) peer_blobs->assign(static_cast<size_t>(n_local) * bytes, 0);
  const int timeout_ms = static_cast<int>(config::get().bootstrap_timeout * 1000);

  int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr;
  const bootstrap::JobToken& token = boot.job_token();
  socklen_t len = socket_name(token, params.my_pe, generation, &addr);
  bool ok = listener >= 0 && bind(listener, (sockaddr*)&addr, len) == 0 && listen(listener, n_local + 4) == 0;
  if (!ok) GSHMEM_LOG_ERROR("heap setup: cannot listen on Unix socket @%s: %s", addr.sun_path + 1, strerror(errno));
  bool all_ok = false;
  GSHMEM_TRY(all_agree(boot, ok, &all_ok));  // also: every listener exists before anyone connects
  if (!all_ok) {
    if (listener >= 0) close(listener);
    return GSHMEM_ERROR_SYSTEM;
  }

  // Serve my fd to every local peer.
  Proof server_proof, client_want;
  bootstrap::local_proof(token, kEndpoint, params.my_pe, generation, true, server_proof);
  bootstrap::local_proof(token, kEndpoint, params.my_pe, generation, false, client_want);
  bool serve_ok = true;
  std::thread server([&] {
    for (int served = 0; served < n_local - 1;) {
      if (!wait_fd(listener, POLLIN, timeout_ms)) {
        GSHMEM_LOG_ERROR(
            "heap setup: only %d of %d node-local peers fetched this PE's memory handle "
            "within %d s",
            served, n_local - 1, timeout_ms / 1000);
        serve_ok = false;
        return;
      }
      int c = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (c >= 0 && !same_user(c, "connection from")) {
        close(c);
        continue;  // not a peer: not counted
      }
      // A peer sends its proof at once (2 s: a process that connects and stays silent delays
      // the others this long at most, and is not counted).
      if (c >= 0 && !client_proven(c, client_want, 2000)) {
        ucred cred{};
        socklen_t cl = sizeof(cred);
        getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &cl);
        GSHMEM_LOG_WARN(
            "heap setup: PE %d: a process (pid %d) connected to this PE's Unix socket without proving it belongs to "
            "this job (another job of this user?); ignored",
            params.my_pe, static_cast<int>(cred.pid));
        close(c);
        continue;
      }
      if (c < 0 || !send_fd(c, server_proof, my_fd, params.my_pe, blob, bytes)) serve_ok = false;
      if (c >= 0) close(c);
      ++served;
    }
  });

  // Fetch every local peer's fd and bytes (an fd only where this PE sends one: every PE does
  // alike, the VMM heap always, the IPC heap never).
  bool fetch_ok = true;
  std::vector<uint8_t> scratch(bytes);
  for (int i = 0; i < n_local && fetch_ok; ++i) {
    const int pe = params.local_pes[i];
    if (pe == params.my_pe) continue;
    sockaddr_un peer;
    socklen_t plen = socket_name(token, pe, generation, &peer);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int sender = -1;
    int fd = -1;
    uint8_t* dst = peer_blobs ? peer_blobs->data() + static_cast<size_t>(i) * bytes : scratch.data();
    Proof mine, theirs{}, want;
    bootstrap::local_proof(token, kEndpoint, pe, generation, false, mine);
    bootstrap::local_proof(token, kEndpoint, pe, generation, true, want);
    bool got = false;
    if (s >= 0 && connect(s, (sockaddr*)&peer, plen) == 0 && same_user(s, "the name of a peer is held by") &&
        send(s, mine, sizeof(mine), MSG_NOSIGNAL) == sizeof(mine) && wait_fd(s, POLLIN, timeout_ms))
      got = recv_fd(s, theirs, &sender, dst, bytes, my_fd >= 0 ? &fd : nullptr);
    if (got && !bootstrap::same_local_proof(theirs, want)) {
      GSHMEM_LOG_ERROR(
          "heap setup: the process at node-local PE %d's Unix socket @%s could not prove it belongs to this job; "
          "its handle is not used",
          pe, peer.sun_path + 1);
      if (fd >= 0) close(fd), fd = -1;
      got = false;
      errno = EACCES;
    }
    if (!got || sender != pe) {
      GSHMEM_LOG_ERROR(
          "heap setup: could not fetch the memory handle of node-local PE %d over Unix "
          "socket @%s: %s",
          pe, peer.sun_path + 1, errno ? strerror(errno) : "bad reply");
      fetch_ok = false;
      if (fd >= 0) close(fd);
    } else {
      (*peer_fds)[i] = fd;
    }
    if (s >= 0) close(s);
  }
  if (!fetch_ok) shutdown(listener, SHUT_RDWR);  // lets the server's poll return
  server.join();
  close(listener);
  GSHMEM_TRY(all_agree(boot, fetch_ok && serve_ok, &all_ok));
  if (!all_ok) {
    for (int& fd : *peer_fds)
      if (fd >= 0) close(fd), fd = -1;
    return GSHMEM_ERROR_SYSTEM;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::mem
