// SPDX-License-Identifier: BSD-3-Clause
// launcher_probe: the program test_launcher runs under gshmrun. Each PE reads
// its rank from GSHMEM_RANK and does what argv says.
//
//   launcher_probe [options] ACTION [args]
// options:
//   --only R        only rank R does ACTION; the other ranks sleep forever
//   --ignore SIG    ignore signal number SIG (repeatable)
//   --record DIR    on SIGINT/TERM/HUP/QUIT/USR1/USR2 create DIR/sig<rank>_<signo>;
//                   for all but USR1/USR2 then _exit(0)
//   --fork-child    (with --record) fork one child in the PE's process group that
//                   records as DIR/child<rank>_<signo> and sleeps
//   --ready DIR     create DIR/ready<rank> once the above is set up
// actions:
//   report DIR [NAME...]  write DIR/pe<rank>.txt (key=value lines: launcher
//                         variables, listening-socket facts, open fds, the
//                         values of the NAMEd variables) and exit 0
//   exit CODE [DELAY_MS]  exit CODE after DELAY_MS
//   exit-staggered CODE STEP_MS   exit CODE after rank*STEP_MS
//   kill SIG [DELAY_MS]   kill itself with SIG after DELAY_MS
//   sleep                 sleep until killed
//   print                 write known lines to stdout and stderr, then exit 0
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

char g_record_prefix[1024];  // "DIR/sig<rank>_" (or child...), empty = no recording
pid_t g_child = -1;          // --fork-child: the PE waits for it before exiting

[[noreturn]] void usage_error(const char* what) {
  fprintf(stderr, "launcher_probe: %s\n", what);
  _exit(99);
}

void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

[[noreturn]] void sleep_forever() {
  for (;;) pause();
}

void on_recorded_signal(int sig) {
  char path[1100];
  size_t n = strlen(g_record_prefix);
  memcpy(path, g_record_prefix, n);
  char digits[8];
  int d = 0;
  for (int v = sig; v > 0 && d < 7; v /= 10) digits[d++] = static_cast<char>('0' + v % 10);
  while (d > 0) path[n++] = digits[--d];
  path[n] = '\0';
  int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
  if (sig == SIGUSR1 || sig == SIGUSR2) return;
  // The child got the same group signal; let it record it before we go (our
  // exit would SIGKILL it through its parent-death signal).
  if (g_child > 0) waitpid(g_child, nullptr, 0);
  _exit(0);
}

void touch(const std::string& path) {
  int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) usage_error(("cannot create " + path + ": " + strerror(errno)).c_str());
  close(fd);
}

std::string env_or_unset(const char* name) {
  const char* v = getenv(name);
  return v ? v : "<unset>";
}

// 1 if fd is a socket in the listening state.
bool is_listening_socket(int fd) {
  int val = 0;
  socklen_t len = sizeof(val);
  return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &len) == 0 && val == 1;
}

std::string join(const std::vector<int>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + std::to_string(v[i]);
  return s;
}

void report(int rank, const std::string& dir, const std::vector<std::string>& names) {
  std::string out;
  auto put = [&out](const std::string& k, const std::string& v) { out += k + "=" + v + "\n"; };
  put("rank", env_or_unset("GSHMEM_RANK"));
  put("size", env_or_unset("GSHMEM_SIZE"));
  put("local_rank", env_or_unset("GSHMEM_LOCAL_RANK"));
  put("local_size", env_or_unset("GSHMEM_LOCAL_SIZE"));
  put("uniqueid", env_or_unset("GSHMEM_UNIQUEID"));
  put("listen_fd_env", env_or_unset("GSHMEM_BOOTSTRAP_LISTEN_FD"));
  put("pid", std::to_string(getpid()));
  put("pgid", std::to_string(getpgid(0)));

  // The socket named by GSHMEM_BOOTSTRAP_LISTEN_FD.
  if (const char* v = getenv("GSHMEM_BOOTSTRAP_LISTEN_FD")) {
    int fd = atoi(v);
    struct stat st;
    const bool is_sock = fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode);
    put("listen_ok", is_sock && is_listening_socket(fd) ? "1" : "0");
    struct sockaddr_in a;
    socklen_t len = sizeof(a);
    memset(&a, 0, sizeof(a));
    if (is_sock && getsockname(fd, reinterpret_cast<struct sockaddr*>(&a), &len) == 0 && a.sin_family == AF_INET) {
      char host[64];
      inet_ntop(AF_INET, &a.sin_addr, host, sizeof(host));
      put("listen_addr", host);
      put("listen_port", std::to_string(ntohs(a.sin_port)));
    }
  }

  // Every inherited fd above 2, and which of them are listening sockets.
  std::vector<int> open_fds, listening;
  if (DIR* d = opendir("/proc/self/fd")) {
    const int self = dirfd(d);
    while (struct dirent* e = readdir(d)) {
      if (e->d_name[0] == '.') continue;
      const int fd = atoi(e->d_name);
      if (fd == self) continue;
      if (fd > 2) open_fds.push_back(fd);
      if (is_listening_socket(fd)) listening.push_back(fd);
    }
    closedir(d);
  }
  put("open_fds", join(open_fds));
  put("listening_fds", join(listening));

  char target[512];
  ssize_t n = readlink("/proc/self/fd/0", target, sizeof(target) - 1);
  put("stdin", n > 0 ? std::string(target, static_cast<size_t>(n)) : "<none>");

  for (const std::string& name : names) {
    const char* v = getenv(name.c_str());
    put("env." + name, v ? v : "<unset>");
  }

  const std::string tmp = dir + "/pe" + std::to_string(rank) + ".tmp";
  const std::string final_path = dir + "/pe" + std::to_string(rank) + ".txt";
  FILE* f = fopen(tmp.c_str(), "w");
  if (!f) usage_error(("cannot write " + tmp).c_str());
  fputs(out.c_str(), f);
  if (fclose(f) != 0 || rename(tmp.c_str(), final_path.c_str()) != 0) usage_error("cannot write the report");
}

long number(const char* s) {
  char* end = nullptr;
  long v = strtol(s, &end, 10);
  if (!*s || *end) usage_error("bad number");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  const char* rank_env = getenv("GSHMEM_RANK");
  const int rank = rank_env ? atoi(rank_env) : 0;
  int only = -1;
  std::string record_dir, ready_dir;
  bool fork_child = false;

  int i = 1;
  for (; i < argc && argv[i][0] == '-'; ++i) {
    const std::string opt = argv[i];
    if (opt == "--fork-child") {
      fork_child = true;
      continue;
    }
    if (i + 1 >= argc) usage_error("option needs a value");
    const char* val = argv[++i];
    if (opt == "--only") {
      only = static_cast<int>(number(val));
    } else if (opt == "--ignore") {
      signal(static_cast<int>(number(val)), SIG_IGN);
    } else if (opt == "--record") {
      record_dir = val;
    } else if (opt == "--ready") {
      ready_dir = val;
    } else {
      usage_error("unknown option");
    }
  }
  if (i >= argc) usage_error("missing action");

  if (!record_dir.empty()) {
    snprintf(g_record_prefix, sizeof(g_record_prefix), "%s/sig%d_", record_dir.c_str(), rank);
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_recorded_signal;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2}) sigaction(sig, &sa, nullptr);
  }
  if (fork_child) {
    if (record_dir.empty()) usage_error("--fork-child needs --record");
    sigset_t all, old;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &old);
    pid_t pid = fork();
    if (pid < 0) usage_error("fork failed");
    if (pid > 0) g_child = pid;
    if (pid == 0) {
      snprintf(g_record_prefix, sizeof(g_record_prefix), "%s/child%d_", record_dir.c_str(), rank);
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // never outlive the PE
      sigprocmask(SIG_SETMASK, &old, nullptr);
      sleep_forever();
    }
    sigprocmask(SIG_SETMASK, &old, nullptr);
  }
  if (!ready_dir.empty()) touch(ready_dir + "/ready" + std::to_string(rank));

  const std::string action = argv[i];
  const int nargs = argc - i - 1;
  char** args = argv + i + 1;
  if (action == "sleep" || (only >= 0 && rank != only)) sleep_forever();

  if (action == "report") {
    if (nargs < 1) usage_error("report needs DIR");
    report(rank, args[0], std::vector<std::string>(args + 1, args + nargs));
    return 0;
  }
  if (action == "exit") {
    if (nargs < 1) usage_error("exit needs CODE");
    if (nargs > 1) sleep_ms(number(args[1]));
    return static_cast<int>(number(args[0]));
  }
  if (action == "exit-staggered") {
    if (nargs < 2) usage_error("exit-staggered needs CODE STEP_MS");
    sleep_ms(number(args[1]) * rank);
    return static_cast<int>(number(args[0]));
  }
  if (action == "kill") {
    if (nargs < 1) usage_error("kill needs SIG");
    if (nargs > 1) sleep_ms(number(args[1]));
    const int sig = static_cast<int>(number(args[0]));
    signal(sig, SIG_DFL);
    kill(getpid(), sig);
    sleep_forever();
  }
  if (action == "print") {
    printf("out %d line 1\nout %d line 2\n", rank, rank);
    fflush(stdout);
    fprintf(stderr, "err %d\n", rank);
    printf("tail %d", rank);  // no newline: gshmrun must still show it
    fflush(stdout);
    return 0;
  }
  usage_error("unknown action");
}
