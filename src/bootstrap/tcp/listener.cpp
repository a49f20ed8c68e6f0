// SPDX-License-Identifier: BSD-3-Clause
// Rank 0's listening socket: inherited from the launcher
// (GSHMEM_BOOTSTRAP_LISTEN_FD), registered by create_uniqueid in this process,
// or bound now on the id's port. Whichever it is, it is closed once the
// rendezvous is over, so that a late connection is refused, never left waiting.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "bootstrap/tcp/socket.h"
#include "bootstrap/tcp/uniqueid.h"

namespace gshmem::bootstrap::tcp {
namespace {

// The launcher's socket is adopted once (GSHMEM_BOOTSTRAP_LISTEN_FD names it for the life of the
// process) and closed as soon as the rendezvous no longer needs it: an open socket nobody accepts
// on completes the handshake of a late connection in the kernel's backlog and leaves it waiting for
// an answer that never comes, where a closed port refuses it at once. A later gshmem_init (after
// finalize) binds the address it had again, the launcher's (loopback) and not the wildcard;
// SO_REUSEADDR lets it while the connections of the previous job close, and the members retry a
// refused connection until their timeout, so the few microseconds without a listener are harmless.
std::mutex g_inherited_mutex;
bool g_inherited_seen = false;  // the environment variable was read and the socket taken
sockaddr_storage g_inherited_addr{};
socklen_t g_inherited_len = 0;
int g_inherited_port = -1;

// The adopted socket's address again, for a later init: *fd stays -1 when it cannot be bound (the
// caller then falls back to the id's port on every address, and reports if that fails too).
void rebind_inherited(int* fd) {
  const int s = socket(g_inherited_addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (s < 0) return;
  int one = 1;
  setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(s, reinterpret_cast<const sockaddr*>(&g_inherited_addr), g_inherited_len) != 0 ||
      listen(s, SOMAXCONN) != 0) {
    GSHMEM_LOG_WARN("bootstrap: cannot listen again on the launcher's address (port %d): %s", g_inherited_port,
                    errno_string(errno).c_str());
    close(s);
    return;
  }
  *fd = s;
}

// GSHMEM_BOOTSTRAP_LISTEN_FD: adopt the launcher's listening socket if it is
// one and is bound to the id's port. *fd stays -1 when there is none to adopt.
// `quiet` (a single-PE job, which only closes it) logs nothing and never fails.
Status adopt_inherited_listener(const UniqueIdData& d, int* fd, bool quiet = false) {
  std::lock_guard<std::mutex> lock(g_inherited_mutex);
  if (g_inherited_seen) {
    if (quiet) return GSHMEM_SUCCESS;
    if (g_inherited_len && g_inherited_port == d.port) rebind_inherited(fd);
    return GSHMEM_SUCCESS;
  }
  const char* text = getenv(kListenFdEnvVar);
  if (!text || !*text) return GSHMEM_SUCCESS;
  char* end = nullptr;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < 0 || v > 1 << 30) {
    if (quiet) return GSHMEM_SUCCESS;
    GSHMEM_LOG_ERROR(
        "bootstrap: %s=\"%s\" is not a file descriptor number (it is set by the "
        "launcher for rank 0; unset it when not launching with gshmrun)",
        kListenFdEnvVar, text);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  int cand = static_cast<int>(v);
  if (!is_listening_socket(cand)) {
    if (quiet) return GSHMEM_SUCCESS;
    GSHMEM_LOG_ERROR(
        "bootstrap: %s=%d is not a listening socket in this process (%s); it must "
        "be the socket the launcher listens on for rank 0",
        kListenFdEnvVar, cand, fcntl(cand, F_GETFD) < 0 ? "not open" : "wrong kind");
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  int port = local_port(cand);
  if (port != d.port) {
    if (quiet) return GSHMEM_SUCCESS;
    GSHMEM_LOG_WARN(
        "bootstrap: not using %s=%d: it listens on port %d but the unique id names "
        "port %u; listening on the id's port instead",
        kListenFdEnvVar, cand, port, static_cast<unsigned>(d.port));
    return GSHMEM_SUCCESS;
  }
  g_inherited_seen = true;
  g_inherited_port = port;
  g_inherited_len = sizeof(g_inherited_addr);
  if (getsockname(cand, reinterpret_cast<sockaddr*>(&g_inherited_addr), &g_inherited_len) != 0) g_inherited_len = 0;
  tune_socket(cand);
  *fd = cand;
  if (quiet) return GSHMEM_SUCCESS;
  GSHMEM_LOG_INFO("bootstrap: rank 0 accepts on the launcher's socket (%s=%d, port %d)", kListenFdEnvVar, cand, port);
  return GSHMEM_SUCCESS;
}

}  // namespace

Status open_root_listener(const UniqueIdData& d, int* out) {
  int listener = -1;
  GSHMEM_TRY(adopt_inherited_listener(d, &listener));
  if (listener < 0) listener = take_registered_listener(d.job_key);
  if (listener < 0) {
    int err = 0;
    listener = open_listener(d.family, d.port, &err);
    if (listener < 0) {
      if (err == EADDRINUSE)
        GSHMEM_LOG_ERROR(
            "bootstrap: port %u on %s is in use; set GSHMEM_BOOTSTRAP_PORT to a free "
            "port",
            static_cast<unsigned>(d.port), uniqueid_host(d).c_str());
      else
        GSHMEM_LOG_ERROR("bootstrap: cannot listen on port %u (%s): %s", static_cast<unsigned>(d.port),
                         uniqueid_host(d).c_str(), errno_string(err).c_str());
      return GSHMEM_ERROR_BOOTSTRAP;
    }
  }
  *out = listener;
  return GSHMEM_SUCCESS;
}

void close_root_listener(int* fd) { close_fd(fd); }

void drop_root_listener(const UniqueIdData& d) {
  int fd = take_registered_listener(d.job_key);
  close_fd(&fd);
  // A single-PE job never accepts: the launcher's socket must not stay open either.
  fd = -1;
  adopt_inherited_listener(d, &fd, /*quiet=*/true);
  close_root_listener(&fd);
}

}  // namespace gshmem::bootstrap::tcp
