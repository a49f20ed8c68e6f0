// SPDX-License-Identifier: BSD-3-Clause
// Rank 0's listening socket: inherited from the launcher
// (GSHMEM_BOOTSTRAP_LISTEN_FD), registered by create_uniqueid in this process,
// or bound now on the id's port.
#include <fcntl.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>

#include "bootstrap/tcp/socket.h"
#include "bootstrap/tcp/uniqueid.h"

namespace gshmem::bootstrap::tcp {
namespace {

// The launcher's socket, once adopted, stays open for the life of the process:
// a later gshmem_init (after finalize) accepts on it again instead of binding
// the port anew, which could race with connections still closing.
std::atomic<int> g_inherited_listener{-1};

// GSHMEM_BOOTSTRAP_LISTEN_FD: adopt the launcher's listening socket if it is
// one and is bound to the id's port. *fd stays -1 when there is none to adopt.
Status adopt_inherited_listener(const UniqueIdData& d, int* fd) {
  const int adopted = g_inherited_listener.load();
  if (adopted >= 0) {
    if (local_port(adopted) == d.port) *fd = adopted;
    return GSHMEM_SUCCESS;
  }
  const char* text = getenv(kListenFdEnvVar);
  if (!text || !*text) return GSHMEM_SUCCESS;
  char* end = nullptr;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (errno || *end || v < 0 || v > 1 << 30) {
    GSHMEM_LOG_ERROR(
        "bootstrap: %s=\"%s\" is not a file descriptor number (it is set by the "
        "launcher for rank 0; unset it when not launching with gshmrun)",
        kListenFdEnvVar, text);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  int cand = static_cast<int>(v);
  if (!is_listening_socket(cand)) {
    GSHMEM_LOG_ERROR(
        "bootstrap: %s=%d is not a listening socket in this process (%s); it must "
        "be the socket the launcher listens on for rank 0",
        kListenFdEnvVar, cand, fcntl(cand, F_GETFD) < 0 ? "not open" : "wrong kind");
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  int port = local_port(cand);
  if (port != d.port) {
    GSHMEM_LOG_WARN(
        "bootstrap: not using %s=%d: it listens on port %d but the unique id names "
        "port %u; listening on the id's port instead",
        kListenFdEnvVar, cand, port, static_cast<unsigned>(d.port));
    return GSHMEM_SUCCESS;
  }
  g_inherited_listener.store(cand);
  tune_socket(cand);
  *fd = cand;
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

void close_root_listener(int* fd) {
  if (*fd >= 0 && *fd == g_inherited_listener.load()) {
    *fd = -1;  // kept for the next init
    return;
  }
  close_fd(fd);
}

void drop_root_listener(const UniqueIdData& d) {
  int fd = take_registered_listener(d.job_key);
  close_fd(&fd);
}

}  // namespace gshmem::bootstrap::tcp
