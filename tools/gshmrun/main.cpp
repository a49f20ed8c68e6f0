// SPDX-License-Identifier: BSD-3-Clause
// gshmrun: starts N PEs of a program on this node (or, with -H / --hostfile, on other hosts
// through a remote shell: launch_remote.cpp), gives each the gshmem
// launcher environment and supervises them (see options.cpp for the contract).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_count.h"
#include "host/proxy/connections.h"
#include "launch_remote.h"
#include "options.h"
#include "spawn.h"
#include "supervise.h"

extern char** environ;

namespace {

// fds 0-2 must exist, or sockets/pipes opened later would land on them and be
// clobbered by the dup2 calls in the children.
void ensure_standard_fds() {
  for (int fd = 0; fd <= 2; ++fd)
    if (fcntl(fd, F_GETFD) < 0) {
      int n = open("/dev/null", O_RDWR);
      if (n >= 0 && n != fd) close(n);
    }
}

bool make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return true;
}

void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace gshmrun;
  ensure_standard_fds();

  Options opt;
  const ParseResult pr = parse_options(std::vector<std::string>(argv + 1, argv + argc), &opt);
  switch (pr.action) {
    case ParseAction::help:
      print_usage(stdout);
      return 0;
    case ParseAction::version:
      printf("%s\n", version_string());
      return 0;
    case ParseAction::error:
      fprintf(stderr, "gshmrun: %s (try gshmrun --help)\n", pr.error.c_str());
      return 2;
    case ParseAction::run:
      break;
  }

  SupervisorConfig cfg;
  cfg.kill_grace_s = kDefaultKillGraceS;
  if (const char* g = getenv("GSHMRUN_KILL_GRACE"); g != nullptr && *g != '\0') {
    if (!parse_seconds(g, &cfg.kill_grace_s)) {
      fprintf(stderr, "gshmrun: GSHMRUN_KILL_GRACE='%s' is not a number of seconds in 0..%g (try gshmrun --help)\n", g,
              kMaxKillGraceS);
      return 2;
    }
  }

  if (!opt.hostfile.empty()) {
    std::string text, err;
    FILE* f = fopen(opt.hostfile.c_str(), "r");
    if (!f) {
      fprintf(stderr, "gshmrun: cannot read the hostfile '%s': %s\n", opt.hostfile.c_str(), strerror(errno));
      return 2;
    }
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof(buf), f)) > 0;) text.append(buf, n);
    fclose(f);
    if (!parse_hostfile(text, &opt.hosts, &err)) {
      fprintf(stderr, "gshmrun: %s: %s\n", opt.hostfile.c_str(), err.c_str());
      return 2;
    }
  }
  if (!opt.hosts.empty()) {
    const int slots = total_slots(opt.hosts);
    if (opt.np == 0) opt.np = slots > kMaxPes ? kMaxPes : slots;
    if (opt.np > slots) {
      fprintf(stderr, "gshmrun: -n %d needs more slots than the hosts give (%d)\n", opt.np, slots);
      return 2;
    }
    cfg.size = opt.np;
    cfg.timeout_s = opt.timeout_s;
    return launch_remote(opt, cfg, environ);
  }

  if (opt.np == 0) {
    std::string why;
    const int n = count_visible_gpus(&why);
    if (n <= 0) {
      fprintf(stderr, "gshmrun: no GPU visible on this node; pass -n N to choose the number of PEs\n");
      if (!why.empty()) fprintf(stderr, "gshmrun: (%s)\n", why.c_str());
      return 1;
    }
    opt.np = n > kMaxPes ? kMaxPes : n;
  }
  cfg.size = opt.np;
  cfg.timeout_s = opt.timeout_s;

  if (opt.sim_nodes > opt.np) {
    fprintf(stderr, "gshmrun: --sim-nodes %d needs at least as many PEs (%d)\n", opt.sim_nodes, opt.np);
    return 2;
  }
  std::vector<std::string> base_env = base_environment(environ, opt.env);
  std::string host;
  if (opt.sim_nodes > 0) {  // each PE gets its group's GSHMEM_HOSTID instead of an inherited one
    std::vector<std::string> kept;
    for (std::string& e : base_env)
      if (e.compare(0, 14, "GSHMEM_HOSTID=") != 0) kept.push_back(std::move(e));
    base_env = std::move(kept);
    char name[256] = {};
    gethostname(name, sizeof(name) - 1);
    host = name;
  }
  std::string path;
  if (int e = resolve_program(opt.command[0], env_lookup(base_env, "PATH"), &path); e != 0) {
    fprintf(stderr, "gshmrun: cannot execute '%s': %s\n", opt.command[0].c_str(), strerror(e));
    return 127;
  }

  int signal_fd = -1;
  ChildRestore restore;
  std::string err;
  if (!setup_signals(&signal_fd, &restore, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 1;
  }
  Listener listener;
  std::string uniqueid;
  if (!open_listener(opt.np + 16, &listener, &err) || !make_uniqueid_text(listener.port, &uniqueid, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 1;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  const bool stdin_is_tty = isatty(STDIN_FILENO) != 0;

  const auto env_of = [&](const char* name) {
    const char* v = env_lookup(base_env, name);
    return std::string(v ? v : "");
  };
  const std::string p2p_off = env_of("GSHMEM_DISABLE_P2P");
  const bool proxy_peers =
      opt.sim_nodes > 0 || !env_of("GSHMEM_HOSTID").empty() ||
      (!p2p_off.empty() && p2p_off != "0" && p2p_off != "no" && p2p_off != "false" && p2p_off != "off");
  Supervisor sup(cfg, signal_fd);
  for (int rank = 0; rank < opt.np; ++rank) {
    SpawnSpec spec;
    spec.rank = rank;
    spec.path = path;
    spec.argv = opt.command;
    spec.env = base_env;
    spec.env.push_back("GSHMEM_RANK=" + std::to_string(rank));
    spec.env.push_back("GSHMEM_SIZE=" + std::to_string(opt.np));
    spec.env.push_back("GSHMEM_LOCAL_RANK=" + std::to_string(rank));
    spec.env.push_back("GSHMEM_LOCAL_SIZE=" + std::to_string(opt.np));
    spec.env.push_back("GSHMEM_UNIQUEID=" + uniqueid);
    if (opt.sim_nodes > 0) {
      const std::string id = sim_node_hostid(host, rank, opt.np, opt.sim_nodes);
      spec.env.push_back("GSHMEM_HOSTID=" + id);
      // NCCL in the same job (perftest's anchor, a user's program) sees the same nodes unless
      // told otherwise: without it NCCL would join the groups through shared memory and NVLink.
      if (env_lookup(base_env, "NCCL_HOSTID") == nullptr) spec.env.push_back("NCCL_HOSTID=" + id);
    }
    // Proxy peers (simulated nodes, GSHMEM_HOSTID, GSHMEM_DISABLE_P2P) need eager kernel loading
    // (src/host/proxy/proxy.h, prefer_eager_loading); a PE may start CUDA before gshmem_init,
    // too late for the library to ask for it.
    if (proxy_peers && env_of("CUDA_MODULE_LOADING").empty()) spec.env.push_back("CUDA_MODULE_LOADING=EAGER");
    // ... and 16 hardware queues (CUDA's 8, fewer under MPS), which the library cannot set once
    // the PE has started CUDA: where the proxy applies in the application's context (outside
    // MPS, by default), an apply stream sharing a queue with a waiting kernel's stream hangs
    // (docs/internode.md section 9).
    if (proxy_peers && env_of("CUDA_DEVICE_MAX_CONNECTIONS").empty())
      spec.env.push_back(std::string("CUDA_DEVICE_MAX_CONNECTIONS=") + gshmem::hproxy::kProxyConnections);
    if (rank == 0) {
      spec.listen_fd = listener.fd;
      spec.env.push_back("GSHMEM_BOOTSTRAP_LISTEN_FD=" + std::to_string(listener.fd));
    }
    // Stdin goes to PE 0 only. A terminal is not passed on: the PEs are not in
    // the foreground process group, so a read from it would stop the PE.
    if (rank != 0 || stdin_is_tty) spec.stdin_fd = devnull;
    spec.restore = &restore;

    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    if (opt.tag_output) {
      if (!make_pipe(out_pipe) || !make_pipe(err_pipe)) {
        fprintf(stderr, "gshmrun: cannot create output pipes for PE %d: %s\n", rank, strerror(errno));
        close_fd(&out_pipe[0]);
        close_fd(&out_pipe[1]);
        sup.abort_start(1);
        break;
      }
      spec.stdout_fd = out_pipe[1];
      spec.stderr_fd = err_pipe[1];
    }

    int exec_errno = 0;
    const pid_t pid = spawn_pe(spec, &exec_errno, &err);
    close_fd(&out_pipe[1]);
    close_fd(&err_pipe[1]);
    if (pid < 0) {
      close_fd(&out_pipe[0]);
      close_fd(&err_pipe[0]);
      if (exec_errno != 0) {
        fprintf(stderr, "gshmrun: cannot execute '%s': %s\n", opt.command[0].c_str(), strerror(exec_errno));
        sup.abort_start(127);
      } else {
        fprintf(stderr, "gshmrun: cannot start PE %d: %s\n", rank, err.c_str());
        sup.abort_start(1);
      }
      break;
    }
    sup.add_pe(rank, pid, out_pipe[0], err_pipe[0]);
  }
  // Rank 0 holds the only remaining copy of the listening socket.
  close(listener.fd);
  if (devnull >= 0) close(devnull);

  const int code = sup.run();
  fflush(stdout);
  return code;
}
