// SPDX-License-Identifier: BSD-3-Clause
// Starting PEs: the rendezvous listener and unique id, the PE environment,
// program lookup and fork/exec of one PE.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace gshmrun {

// A TCP socket on 127.0.0.1 with a kernel-chosen port, already listening, so
// rank 0 inherits it and no other process can take the port in between.
struct Listener {
  int fd = -1;  // close-on-exec; cleared only in rank 0's child
  uint16_t port = 0;
};
bool open_listener(int backlog, Listener* out, std::string* err);

// GSHMEM_UNIQUEID text (bootstrap::encode_uniqueid) for 127.0.0.1:port with a
// fresh random secret and job key from getrandom.
bool make_uniqueid_text(uint16_t port, std::string* text, std::string* err);

// An address as the unique id holds it: family AF_INET or AF_INET6, bytes in
// network order.
struct HostAddr {
  int family = 0;
  unsigned char bytes[16] = {};
  bool loopback() const;
};
// `host` (a name or a numeric address) as this host resolves it, IPv4 first.
bool resolve_host(const std::string& host, HostAddr* out, std::string* err);
// The same as make_uniqueid_text, for addr:port.
bool make_uniqueid_text_at(const HostAddr& addr, uint16_t port, std::string* text, std::string* err);
// A random port in 16384..32767 (below Linux's ephemeral range, as the bootstrap derives them).
bool random_port(uint16_t* port, std::string* err);

// Finds the program as execvp would (PATH search when the name has no '/'),
// using `path_env` (the PATH the PEs will see; nullptr = the default path).
// Returns 0 and sets *resolved, or an errno value (ENOENT, EACCES, ...).
int resolve_program(const std::string& name, const char* path_env, std::string* resolved);

// The environment every PE starts from: `inherited` (NAME=VALUE strings)
// without the variables gshmrun sets itself, with the -x pairs applied.
std::vector<std::string> base_environment(const char* const* inherited,
                                          const std::vector<std::pair<std::string, std::string>>& extra);
// Value of NAME in an environment vector (nullptr if absent).
const char* env_lookup(const std::vector<std::string>& env, const char* name);

// Signal state the child restores between fork and exec (gshmrun blocks the
// signals it reads through a signalfd and ignores SIGPIPE).
struct ChildRestore {
  sigset_t mask;                 // gshmrun's signal mask at startup
  struct sigaction pipe_action;  // SIGPIPE disposition at startup
};

struct SpawnSpec {
  int rank = 0;
  std::string path;               // resolved program
  std::vector<std::string> argv;  // argv[0] as the user wrote it
  std::vector<std::string> env;   // complete environment of this PE
  int listen_fd = -1;             // inherited by this PE (rank 0), else -1
  int stdin_fd = -1;              // becomes fd 0, or -1 to inherit gshmrun's
  int stdout_fd = -1;             // becomes fd 1, or -1 to inherit
  int stderr_fd = -1;             // becomes fd 2, or -1 to inherit
  const ChildRestore* restore = nullptr;
};

// Forks and execs one PE in a new process group of its own (pgid == pid).
// Returns the pid once the exec has succeeded. Returns -1 when fork failed
// (*exec_errno = 0, *err says why) or when the exec failed (*exec_errno is its
// errno; the child has been reaped).
pid_t spawn_pe(const SpawnSpec& spec, int* exec_errno, std::string* err);

}  // namespace gshmrun
