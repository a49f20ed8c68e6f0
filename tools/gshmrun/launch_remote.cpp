// SPDX-License-Identifier: BSD-3-Clause
#include "launch_remote.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "host/proxy/connections.h"
#include "remote.h"
#include "spawn.h"

namespace gshmrun {
namespace {

bool make_pipe(int fds[2]) {
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return true;
}

void close_fd(int* fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

bool write_all_fd(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t w = write(fd, s.data() + done, s.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    done += static_cast<size_t>(w);
  }
  return true;
}

std::string name_of(const std::string& entry) { return entry.substr(0, entry.find('=')); }

}  // namespace

int launch_remote(const Options& opt, const SupervisorConfig& cfg, const char* const* inherited_env) {
  const std::vector<Placement> where = place(opt.hosts, opt.np);
  const int nhosts = distinct_hosts(where);

  // The remote shell, found here as execvp would.
  std::string rsh_text = opt.rsh;
  if (rsh_text.empty()) {
    const char* e = getenv("GSHMRUN_RSH");
    rsh_text = e && *e ? e : "ssh";
  }
  const std::vector<std::string> rsh = split_rsh(rsh_text);
  if (rsh.empty()) {
    fprintf(stderr, "gshmrun: GSHMRUN_RSH is blank; set it to a remote shell command (e.g. ssh)\n");
    return 2;
  }
  // The remote shell runs with gshmrun's environment, without the variables gshmrun sets per PE,
  // nor GSHMEM_HOSTID (a local "remote" shell such as netns-nodes.sh would pass it on: all hosts
  // would be one node).
  std::vector<std::string> rsh_env;
  for (std::string& e : base_environment(inherited_env, {}))
    if (e.compare(0, 14, "GSHMEM_HOSTID=") != 0) rsh_env.push_back(std::move(e));
  std::string rsh_path;
  if (int e = resolve_program(rsh[0], env_lookup(rsh_env, "PATH"), &rsh_path); e != 0) {
    fprintf(stderr, "gshmrun: cannot execute the remote shell '%s': %s\n", rsh[0].c_str(), strerror(e));
    return 127;
  }

  // What every PE gets: GSHMEM_* of gshmrun's environment (with -x applied), and the -x
  // variables. GSHMEM_HOSTID only from -x: inherited, it would make all hosts one node.
  std::vector<std::pair<std::string, std::string>> env, secrets;
  const std::vector<std::string> with_x = base_environment(inherited_env, opt.env);
  auto add = [&](const std::string& name, const std::string& value) {
    (is_secret_env(name) ? secrets : env).emplace_back(name, value);
  };
  for (const std::string& e : with_x) {
    const std::string name = name_of(e);
    if (name.compare(0, 7, "GSHMEM_") != 0 || is_reserved_env(name)) continue;
    bool from_x = false;
    for (const auto& kv : opt.env) from_x = from_x || kv.first == name;
    if (name == "GSHMEM_HOSTID" && !from_x) continue;
    add(name, e.substr(name.size() + 1));
  }
  for (const auto& kv : opt.env)
    if (kv.first.compare(0, 7, "GSHMEM_") != 0) add(kv.first, kv.second);
  // PEs on other hosts are proxy peers, which need eager kernel loading and more hardware
  // queues for the proxy's apply stream (as with --sim-nodes): gshmrun's value of each, else
  // the default, unless -x passes it.
  const auto proxy_default = [&](const char* name, const char* dflt) {
    for (const auto& kv : opt.env)
      if (kv.first == name) return;
    const char* v = env_lookup(with_x, name);
    env.emplace_back(name, v ? v : dflt);
  };
  if (nhosts > 1) {
    proxy_default("CUDA_MODULE_LOADING", "EAGER");
    proxy_default("CUDA_DEVICE_MAX_CONNECTIONS", gshmem::hproxy::kProxyConnections);
  }

  // PE 0's address, as the other hosts will reach it.
  std::string err;
  const char* addr_env = env_lookup(with_x, "GSHMEM_BOOTSTRAP_ADDR");
  const std::string addr_host = addr_env && *addr_env ? addr_env : where[0].host;
  HostAddr addr;
  if (!resolve_host(addr_host, &addr, &err)) {
    fprintf(stderr,
            "gshmrun: PE 0's host: %s; set GSHMEM_BOOTSTRAP_ADDR (or -x GSHMEM_BOOTSTRAP_ADDR=...) to an address of "
            "%s that the other hosts reach\n",
            err.c_str(), where[0].host.c_str());
    return 1;
  }
  if (nhosts > 1 && addr.loopback() && addr_host == where[0].host) {  // a given address is trusted
    fprintf(stderr,
            "gshmrun: PE 0's host '%s' resolves to a loopback address here, which the other hosts cannot reach; "
            "set GSHMEM_BOOTSTRAP_ADDR (or -x GSHMEM_BOOTSTRAP_ADDR=...) to its address on the network\n",
            addr_host.c_str());
    return 1;
  }
  uint16_t port = 0;
  if (const char* p = env_lookup(with_x, "GSHMEM_BOOTSTRAP_PORT"); p && *p && strcmp(p, "0") != 0) {
    long v = 0;
    if (!parse_int_in_range(p, 1, 65535, &v)) {
      fprintf(stderr, "gshmrun: GSHMEM_BOOTSTRAP_PORT='%s' is not a port number (1..65535)\n", p);
      return 2;
    }
    port = static_cast<uint16_t>(v);
  } else if (!random_port(&port, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 1;
  }
  std::string uniqueid;
  if (!make_uniqueid_text_at(addr, port, &uniqueid, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 1;
  }
  secrets.insert(secrets.begin(), {"GSHMEM_UNIQUEID", uniqueid});
  std::string stdin_text;
  if (!secret_lines(secrets, &stdin_text, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 2;
  }

  char cwd_buf[4096];
  const std::string cwd = getcwd(cwd_buf, sizeof(cwd_buf)) ? cwd_buf : "";
  // The token the remote watcher looks for before it signals a pid: this job's id and the rank.
  const std::string job_tag = uniqueid.substr(uniqueid.rfind(':') + 1);

  int signal_fd = -1;
  ChildRestore restore;
  if (!setup_signals(&signal_fd, &restore, &err)) {
    fprintf(stderr, "gshmrun: %s\n", err.c_str());
    return 1;
  }
  Supervisor sup(cfg, signal_fd);
  for (int rank = 0; rank < opt.np; ++rank) {
    const Placement& p = where[static_cast<size_t>(rank)];
    RemoteSpec rs;
    rs.cwd = cwd;
    rs.env = env;
    rs.env.emplace_back("GSHMEM_RANK", std::to_string(rank));
    rs.env.emplace_back("GSHMEM_SIZE", std::to_string(opt.np));
    rs.env.emplace_back("GSHMEM_LOCAL_RANK", std::to_string(p.local_rank));
    rs.env.emplace_back("GSHMEM_LOCAL_SIZE", std::to_string(p.local_size));
    rs.command = opt.command;
    rs.token = job_tag + "." + std::to_string(rank);
    rs.kill_grace_s = cfg.kill_grace_s;

    SpawnSpec spec;
    spec.rank = rank;
    spec.path = rsh_path;
    spec.argv = rsh;
    spec.argv.push_back(p.host);
    spec.argv.push_back(remote_command(rs));
    spec.env = rsh_env;
    spec.restore = &restore;

    int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
    bool ok = pipe2(in_pipe, O_CLOEXEC) == 0;
    if (ok && opt.tag_output) ok = make_pipe(out_pipe) && make_pipe(err_pipe);
    // The secrets fit in the pipe's buffer: written now, read by the remote side when it starts.
    if (ok) ok = write_all_fd(in_pipe[1], stdin_text);
    if (!ok) {
      fprintf(stderr, "gshmrun: cannot create the pipes of PE %d: %s\n", rank, strerror(errno));
      for (int* fd : {&in_pipe[0], &in_pipe[1], &out_pipe[0], &out_pipe[1], &err_pipe[0], &err_pipe[1]}) close_fd(fd);
      sup.abort_start(1);
      break;
    }
    spec.stdin_fd = in_pipe[0];
    spec.stdout_fd = out_pipe[1];
    spec.stderr_fd = err_pipe[1];
    int exec_errno = 0;
    const pid_t pid = spawn_pe(spec, &exec_errno, &err);
    for (int* fd : {&in_pipe[0], &out_pipe[1], &err_pipe[1]}) close_fd(fd);
    if (pid < 0) {
      for (int* fd : {&in_pipe[1], &out_pipe[0], &err_pipe[0]}) close_fd(fd);
      if (exec_errno != 0) {
        fprintf(stderr, "gshmrun: cannot execute the remote shell '%s': %s\n", rsh_path.c_str(), strerror(exec_errno));
        sup.abort_start(127);
      } else {
        fprintf(stderr, "gshmrun: cannot start PE %d: %s\n", rank, err.c_str());
        sup.abort_start(1);
      }
      break;
    }
    sup.add_pe(rank, pid, out_pipe[0], err_pipe[0], p.host, in_pipe[1]);
  }
  const int code = sup.run();
  fflush(stdout);
  return code;
}

}  // namespace gshmrun
