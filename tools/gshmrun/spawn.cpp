// SPDX-License-Identifier: BSD-3-Clause
#include "spawn.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "bootstrap/bootstrap.h"
#include "options.h"

namespace gshmrun {

bool open_listener(int backlog, Listener* out, std::string* err) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *err = std::string("socket: ") + strerror(errno);
    return false;
  }
  struct sockaddr_in addr;
  memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;  // the kernel picks a free port
  socklen_t len = sizeof(addr);
  // Lets PE 0 bind the port itself should it ever need to while old
  // connections on it are still closing.
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  if (bind(fd, reinterpret_cast<struct sockaddr*>(&addr), sizeof(addr)) != 0 || listen(fd, backlog) != 0 ||
      getsockname(fd, reinterpret_cast<struct sockaddr*>(&addr), &len) != 0) {
    *err = std::string("cannot listen on 127.0.0.1: ") + strerror(errno);
    close(fd);
    return false;
  }
  out->fd = fd;
  out->port = ntohs(addr.sin_port);
  return true;
}

namespace {

bool random_u64(uint64_t* v, std::string* err) {
  char* p = reinterpret_cast<char*>(v);
  size_t got = 0;
  while (got < sizeof(*v)) {
    ssize_t r = getrandom(p + got, sizeof(*v) - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      *err = std::string("getrandom: ") + strerror(errno);
      return false;
    }
    got += static_cast<size_t>(r);
  }
  return true;
}

bool has_prefix_name(const char* entry, const std::string& name) {
  return strncmp(entry, name.c_str(), name.size()) == 0 && entry[name.size()] == '=';
}

}  // namespace

bool make_uniqueid_text(uint16_t port, std::string* text, std::string* err) {
  HostAddr lo;
  lo.family = AF_INET;
  const uint32_t loopback = htonl(INADDR_LOOPBACK);  // network byte order, as in sin_addr
  memcpy(lo.bytes, &loopback, sizeof(loopback));
  return make_uniqueid_text_at(lo, port, text, err);
}

bool HostAddr::loopback() const {
  static const unsigned char v6_loopback[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  return family == AF_INET ? bytes[0] == 127 : memcmp(bytes, v6_loopback, 16) == 0;
}

bool resolve_host(const std::string& host, HostAddr* out, std::string* err) {
  struct addrinfo hints;
  memset(&hints, 0, sizeof(hints));
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  struct addrinfo* res = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) {
    *err = std::string("cannot resolve '") + host + "': " + (rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    return false;
  }
  const struct addrinfo* pick = nullptr;
  for (const struct addrinfo* a = res; a && !pick; a = a->ai_next)
    if (a->ai_family == AF_INET) pick = a;
  for (const struct addrinfo* a = res; a && !pick; a = a->ai_next)
    if (a->ai_family == AF_INET6) pick = a;
  if (pick) {
    out->family = pick->ai_family;
    if (pick->ai_family == AF_INET)
      memcpy(out->bytes, &reinterpret_cast<const struct sockaddr_in*>(pick->ai_addr)->sin_addr, 4);
    else
      memcpy(out->bytes, &reinterpret_cast<const struct sockaddr_in6*>(pick->ai_addr)->sin6_addr, 16);
  } else {
    *err = "'" + host + "' has no IPv4 or IPv6 address";
  }
  freeaddrinfo(res);
  return pick != nullptr;
}

bool make_uniqueid_text_at(const HostAddr& addr, uint16_t port, std::string* text, std::string* err) {
  gshmem::bootstrap::UniqueIdData d;
  memset(&d, 0, sizeof(d));
  d.magic = gshmem::bootstrap::kUniqueIdMagic;
  d.version = 1;
  if (!random_u64(&d.secret, err) || !random_u64(&d.job_key, err)) return false;
  d.family = static_cast<decltype(d.family)>(addr.family);
  d.port = port;
  memcpy(d.addr, addr.bytes, addr.family == AF_INET ? 4 : 16);
  gshmemx_uniqueid_t id;
  memset(&id, 0, sizeof(id));
  memcpy(id.internal, &d, sizeof(d));
  *text = gshmem::bootstrap::encode_uniqueid(id);
  if (text->empty()) {
    *err = "cannot encode the unique id";
    return false;
  }
  return true;
}

bool random_port(uint16_t* port, std::string* err) {
  uint64_t r = 0;
  if (!random_u64(&r, err)) return false;
  *port = static_cast<uint16_t>(16384 + r % 16384);
  return true;
}

int resolve_program(const std::string& name, const char* path_env, std::string* resolved) {
  struct stat st;
  if (name.find('/') != std::string::npos) {
    if (stat(name.c_str(), &st) != 0) return errno;
    if (S_ISDIR(st.st_mode)) return EACCES;
    if (access(name.c_str(), X_OK) != 0) return errno;
    *resolved = name;
    return 0;
  }
  const std::string path = path_env ? path_env : "/bin:/usr/bin";
  int result = ENOENT;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string candidate = dir + "/" + name;
    if (stat(candidate.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      if (access(candidate.c_str(), X_OK) == 0) {
        *resolved = candidate;
        return 0;
      }
      result = EACCES;  // exists but not executable; keep looking like execvp
    }
    start = end + 1;
  }
  return result;
}

std::vector<std::string> base_environment(const char* const* inherited,
                                          const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (const char* const* e = inherited; e && *e; ++e) {
    bool drop = false;
    for (const std::string& n : reserved_env_names()) drop = drop || has_prefix_name(*e, n);
    for (const auto& kv : extra) drop = drop || has_prefix_name(*e, kv.first);
    if (!drop) env.emplace_back(*e);
  }
  // Later -x of the same name wins.
  for (size_t i = 0; i < extra.size(); ++i) {
    bool overridden = false;
    for (size_t j = i + 1; j < extra.size(); ++j) overridden = overridden || extra[j].first == extra[i].first;
    if (!overridden) env.push_back(extra[i].first + "=" + extra[i].second);
  }
  return env;
}

const char* env_lookup(const std::vector<std::string>& env, const char* name) {
  const std::string n(name);
  for (const std::string& e : env)
    if (has_prefix_name(e.c_str(), n)) return e.c_str() + n.size() + 1;
  return nullptr;
}

namespace {

// Between fork and exec: async-signal-safe calls only.
[[noreturn]] void child_exec(const SpawnSpec& spec, char* const* argv, char* const* envp, int status_fd, pid_t parent) {
  int rc = 0;
  // Own process group, so signals sent to -pid reach the PE's children too.
  if (setpgid(0, 0) != 0) rc = errno;
  // Die with gshmrun: a launcher killed by SIGKILL must not leave PEs behind.
  if (rc == 0 && prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) rc = errno;
  if (rc == 0 && getppid() != parent) _exit(127);
  if (rc == 0 && spec.stdin_fd >= 0 && dup2(spec.stdin_fd, 0) < 0) rc = errno;
  if (rc == 0 && spec.stdout_fd >= 0 && dup2(spec.stdout_fd, 1) < 0) rc = errno;
  if (rc == 0 && spec.stderr_fd >= 0 && dup2(spec.stderr_fd, 2) < 0) rc = errno;
  if (rc == 0 && spec.listen_fd >= 0 && fcntl(spec.listen_fd, F_SETFD, 0) != 0) rc = errno;
  if (rc == 0 && spec.restore) {
    sigaction(SIGPIPE, &spec.restore->pipe_action, nullptr);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    sigaction(SIGCHLD, &dfl, nullptr);
    sigprocmask(SIG_SETMASK, &spec.restore->mask, nullptr);
  }
  if (rc == 0) {
    execve(spec.path.c_str(), argv, envp);
    rc = errno;
  }
  ssize_t w;
  do {
    w = write(status_fd, &rc, sizeof(rc));
  } while (w < 0 && errno == EINTR);
  _exit(127);
}

}  // namespace

pid_t spawn_pe(const SpawnSpec& spec, int* exec_errno, std::string* err) {
  *exec_errno = 0;
  // Everything the child needs is built before fork.
  std::vector<char*> argv;
  for (const std::string& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);

  int status_pipe[2];
  if (pipe2(status_pipe, O_CLOEXEC) != 0) {
    *err = std::string("pipe: ") + strerror(errno);
    return -1;
  }
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    *err = std::string("fork: ") + strerror(errno);
    close(status_pipe[0]);
    close(status_pipe[1]);
    return -1;
  }
  if (pid == 0) {
    close(status_pipe[0]);
    child_exec(spec, argv.data(), envp.data(), status_pipe[1], parent);
  }
  close(status_pipe[1]);
  // Also set the group from this side, so it exists whichever runs first
  // (EACCES after the child's exec is expected and harmless).
  setpgid(pid, pid);

  // EOF means the exec succeeded (the write end was close-on-exec).
  int child_errno = 0;
  size_t got = 0;
  while (got < sizeof(child_errno)) {
    ssize_t r = read(status_pipe[0], reinterpret_cast<char*>(&child_errno) + got, sizeof(child_errno) - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += static_cast<size_t>(r);
  }
  close(status_pipe[0]);
  if (got == sizeof(child_errno)) {
    *exec_errno = child_errno != 0 ? child_errno : EINVAL;
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    *err = strerror(*exec_errno);
    return -1;
  }
  return pid;
}

}  // namespace gshmrun
