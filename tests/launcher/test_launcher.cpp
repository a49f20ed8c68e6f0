// SPDX-License-Identifier: BSD-3-Clause
// Behaviour tests of gshmrun: each test fork/execs gshmrun on launcher_probe
// and checks exit status, timing, stderr text and what the PEs saw.
// Host only; timings are generous (a loaded 2-core machine) but bounded.
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bootstrap/bootstrap.h"

#ifndef GSHMRUN_PATH
#error "GSHMRUN_PATH must name the gshmrun binary"
#endif
#ifndef LAUNCHER_PROBE_PATH
#error "LAUNCHER_PROBE_PATH must name the launcher_probe binary"
#endif
#ifndef LAUNCHER_BOOTSTRAP_PROBE_PATH
#error "LAUNCHER_BOOTSTRAP_PROBE_PATH must name the launcher_bootstrap_probe binary"
#endif

namespace {

const char* const kGshmrun = GSHMRUN_PATH;
const char* const kProbe = LAUNCHER_PROBE_PATH;
const char* const kBootstrapProbe = LAUNCHER_BOOTSTRAP_PROBE_PATH;
const char* const kInitConfigProbe = INIT_CONFIG_PROBE_PATH;

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void sleep_s(double s) {
  struct timespec ts = {static_cast<time_t>(s),
                        static_cast<long>((s - static_cast<double>(static_cast<time_t>(s))) * 1e9)};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

struct Result {
  bool exited = false;        // normal exit (else killed by a signal, or hung)
  int code = -1;              // exit code when exited
  int signal = 0;             // terminating signal otherwise
  bool hung = false;          // had to be killed by the test
  double seconds = 0;         // from start (or from mark()) until gshmrun exited
  bool pipes_closed = false;  // stdout/stderr reached EOF soon after: no PE left
  std::string out, err;
};

// Environment edits for the gshmrun process: {NAME, VALUE} sets, {NAME} with
// unset=true removes.
struct EnvEdit {
  std::string name, value;
  bool unset = false;
};

class Launch {
 public:
  Launch(const std::vector<std::string>& args, const std::vector<EnvEdit>& env = {},
         const std::string& stdin_path = "/dev/null") {
    int out[2], err[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    EXPECT_EQ(pipe2(err, O_CLOEXEC), 0);
    std::vector<std::string> argv_s = {kGshmrun};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    start_ = now_s();
    pid_ = fork();
    if (pid_ == 0) {
      int in = open(stdin_path.c_str(), O_RDONLY);
      dup2(in, 0);
      dup2(out[1], 1);
      dup2(err[1], 2);
      // Only fds 0-2 reach gshmrun, so the PEs' fd lists show gshmrun's leaks only.
#ifdef SYS_close_range
      if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
#endif
        for (int fd = 3; fd < 4096; ++fd) close(fd);
      for (const EnvEdit& e : env) {
        if (e.unset)
          unsetenv(e.name.c_str());
        else
          setenv(e.name.c_str(), e.value.c_str(), 1);
      }
      sigset_t none;
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      execv(kGshmrun, argv.data());
      _exit(126);
    }
    close(out[1]);
    close(err[1]);
    fd_[0] = out[0];
    fd_[1] = err[0];
    for (int fd : fd_) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  ~Launch() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      int st;
      waitpid(pid_, &st, 0);
    }
    for (int fd : fd_)
      if (fd >= 0) close(fd);
  }

  pid_t pid() const { return pid_; }
  // Later timings count from now (e.g. from when a signal was sent).
  void mark() { start_ = now_s(); }
  void signal(int sig) { ASSERT_EQ(kill(pid_, sig), 0); }

  // Waits for gshmrun to exit (at most limit_s, then kills it and reports
  // hung), then up to 5 s for the pipes to close.
  Result wait(double limit_s = 40) {
    Result r;
    const double deadline = now_s() + limit_s;
    double exit_time = -1;
    while (true) {
      pump(100);
      if (!reaped_) {
        int st = 0;
        pid_t p = waitpid(pid_, &st, WNOHANG);
        if (p == pid_) {
          reaped_ = true;
          exit_time = now_s();
          r.exited = WIFEXITED(st);
          r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
          r.signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
          r.seconds = exit_time - start_;
        } else if (now_s() > deadline) {
          kill(pid_, SIGKILL);
          waitpid(pid_, &st, 0);
          reaped_ = true;
          r.hung = true;
          exit_time = now_s();
          r.seconds = exit_time - start_;
        }
      }
      if (reaped_ && (fd_[0] < 0 && fd_[1] < 0)) {
        r.pipes_closed = true;
        break;
      }
      if (reaped_ && now_s() > exit_time + 5) break;
    }
    r.out = out_;
    r.err = err_;
    return r;
  }

 private:
  void pump(int timeout_ms) {
    struct pollfd p[2];
    int n = 0;
    for (int i = 0; i < 2; ++i)
      if (fd_[i] >= 0) p[n++] = {fd_[i], POLLIN, 0};
    if (n == 0) {
      sleep_s(timeout_ms / 1000.0);
      return;
    }
    poll(p, static_cast<nfds_t>(n), timeout_ms);
    for (int i = 0; i < 2; ++i) {
      if (fd_[i] < 0) continue;
      char buf[4096];
      for (;;) {
        ssize_t r = read(fd_[i], buf, sizeof(buf));
        if (r > 0) {
          (i == 0 ? out_ : err_).append(buf, static_cast<size_t>(r));
          continue;
        }
        if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          close(fd_[i]);
          fd_[i] = -1;
        }
        break;
      }
    }
  }

  pid_t pid_ = -1;
  bool reaped_ = false;
  int fd_[2] = {-1, -1};
  double start_ = 0;
  std::string out_, err_;
};

Result run(const std::vector<std::string>& args, const std::vector<EnvEdit>& env = {},
           const std::string& stdin_path = "/dev/null") {
  Launch l(args, env, stdin_path);
  return l.wait();
}

std::string describe(const Result& r) {
  std::ostringstream s;
  s << "exited=" << r.exited << " code=" << r.code << " signal=" << r.signal << " hung=" << r.hung
    << " seconds=" << r.seconds << " pipes_closed=" << r.pipes_closed << "\n--- stdout ---\n"
    << r.out << "\n--- stderr ---\n"
    << r.err;
  return s.str();
}

int count_of(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) v.push_back(line);
  return v;
}

class TempDir {
 public:
  TempDir() {
    const char* base = getenv("TMPDIR");
    std::string tmpl = std::string(base && *base ? base : "/tmp") + "/gshmrun-test-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (mkdtemp(buf.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp: " << strerror(errno);
    }
    char* real = realpath(buf.data(), nullptr);  // readlink() in the PEs shows resolved paths
    path_ = real ? real : buf.data();
    free(real);
  }
  ~TempDir() {
    nftw(
        path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return remove(p); }, 16,
        FTW_DEPTH | FTW_PHYS);
  }
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  bool has(const std::string& name) const { return access(file(name).c_str(), F_OK) == 0; }
  // Waits (bounded) until every name exists.
  bool wait_for(const std::vector<std::string>& names, double limit_s = 20) const {
    const double deadline = now_s() + limit_s;
    while (now_s() < deadline) {
      if (std::all_of(names.begin(), names.end(), [this](const std::string& n) { return has(n); })) return true;
      sleep_s(0.02);
    }
    return false;
  }

 private:
  std::string path_;
};

std::vector<std::string> per_rank(const std::string& prefix, int n, const std::string& suffix = "") {
  std::vector<std::string> v;
  for (int r = 0; r < n; ++r) v.push_back(prefix + std::to_string(r) + suffix);
  return v;
}

std::map<std::string, std::string> read_report(const std::string& path) {
  std::map<std::string, std::string> kv;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return kv;
}

// ---------------------------------------------------------------- environment

class LauncherEnv : public ::testing::TestWithParam<int> {};

TEST_P(LauncherEnv, EachPeSeesItsRankTheSameIdAndOnlyRankZeroHasTheListener) {
  const int n = GetParam();
  TempDir dir;
  // Stale launcher variables in gshmrun's own environment must not leak through.
  const Result r = run({"-n", std::to_string(n), "--", kProbe, "report", dir.path()},
                       {{"GSHMEM_RANK", "7"}, {"GSHMEM_BOOTSTRAP_LISTEN_FD", "99"}, {"GSHMEM_UNIQUEID", "stale"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);

  const std::regex id_re("^127\\.0\\.0\\.1:([0-9]+):[0-9a-f]{16}:[0-9a-f]{16}$");
  std::string uid;
  std::set<std::string> pids;
  for (int rank = 0; rank < n; ++rank) {
    SCOPED_TRACE("rank " + std::to_string(rank));
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    ASSERT_FALSE(kv.empty()) << "no report from PE " << rank << "\n" << describe(r);
    EXPECT_EQ(kv["rank"], std::to_string(rank));
    EXPECT_EQ(kv["size"], std::to_string(n));
    EXPECT_EQ(kv["local_rank"], std::to_string(rank));
    EXPECT_EQ(kv["local_size"], std::to_string(n));
    EXPECT_EQ(kv["pgid"], kv["pid"]) << "each PE leads its own process group";
    pids.insert(kv["pid"]);
    if (rank == 0) uid = kv["uniqueid"];
    EXPECT_EQ(kv["uniqueid"], uid) << "every PE gets the same GSHMEM_UNIQUEID";

    std::smatch m;
    ASSERT_TRUE(std::regex_match(kv["uniqueid"], m, id_re)) << kv["uniqueid"];
    const std::string id_port = m[1];

    if (rank == 0) {
      const std::string fd = kv["listen_fd_env"];
      ASSERT_NE(fd, "<unset>");
      EXPECT_EQ(kv["listen_ok"], "1") << "fd " << fd << " is not a listening socket";
      EXPECT_EQ(kv["listen_addr"], "127.0.0.1");
      EXPECT_EQ(kv["listen_port"], id_port) << "listener port differs from the unique id's";
      EXPECT_EQ(kv["listening_fds"], fd);
      EXPECT_EQ(kv["open_fds"], fd) << "rank 0 inherited fds besides the listener";
    } else {
      EXPECT_EQ(kv["listen_fd_env"], "<unset>");
      EXPECT_EQ(kv["listening_fds"], "") << "a listening socket leaked to rank " << rank;
      EXPECT_EQ(kv["open_fds"], "") << "fds leaked to rank " << rank;
      EXPECT_EQ(kv["stdin"], "/dev/null");
    }
  }
  EXPECT_EQ(pids.size(), static_cast<size_t>(n));

  // The library's own decoder agrees with what gshmrun encoded.
  gshmemx_uniqueid_t id;
  ASSERT_EQ(gshmem::bootstrap::decode_uniqueid(uid.c_str(), &id), GSHMEM_SUCCESS) << uid;
  const gshmem::bootstrap::UniqueIdData d = gshmem::bootstrap::uniqueid_data(id);
  EXPECT_EQ(d.magic, gshmem::bootstrap::kUniqueIdMagic);
  EXPECT_EQ(d.family, AF_INET);
  EXPECT_EQ(std::to_string(d.port), read_report(dir.file("pe0.txt"))["listen_port"]);
  EXPECT_EQ(d.addr[0], 127);
  EXPECT_EQ(d.addr[3], 1);
  EXPECT_EQ(gshmem::bootstrap::encode_uniqueid(id), uid);
}

INSTANTIATE_TEST_SUITE_P(Np, LauncherEnv, ::testing::Values(1, 3, 4));

TEST(Launcher, StdinGoesToRankZeroOnly) {
  TempDir dir;
  const std::string input = dir.file("input");
  {
    std::ofstream f(input);
    f << "data\n";
  }
  const Result r = run({"-n", "2", kProbe, "report", dir.path()}, {}, input);
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_EQ(read_report(dir.file("pe0.txt"))["stdin"], input);
  EXPECT_EQ(read_report(dir.file("pe1.txt"))["stdin"], "/dev/null");
}

TEST(Launcher, EachJobGetsAFreshSecretAndJobKey) {
  TempDir a, b;
  ASSERT_EQ(run({"-n", "1", kProbe, "report", a.path()}).code, 0);
  ASSERT_EQ(run({"-n", "1", kProbe, "report", b.path()}).code, 0);
  const std::string ua = read_report(a.file("pe0.txt"))["uniqueid"];
  const std::string ub = read_report(b.file("pe0.txt"))["uniqueid"];
  ASSERT_FALSE(ua.empty());
  ASSERT_FALSE(ub.empty());
  // "addr:port:secret:job" -> compare secret and job key.
  EXPECT_NE(ua.substr(ua.find(':', 10)), ub.substr(ub.find(':', 10)));
}

TEST(Launcher, ExtraEnvironmentReachesEveryPe) {
  TempDir dir;
  const Result r = run({"-n", "2", "-x", "FOO=bar", "-x", "EMPTY=", "-xSP=a b=c", "-x", "FOO=baz", "--", kProbe,
                        "report", dir.path(), "FOO", "EMPTY", "SP", "INHERITED"},
                       {{"INHERITED", "yes"}, {"FOO", "from-parent"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  for (int rank = 0; rank < 2; ++rank) {
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    EXPECT_EQ(kv["env.FOO"], "baz") << "the last -x of a name wins over the inherited value";
    EXPECT_EQ(kv["env.EMPTY"], "");
    EXPECT_EQ(kv["env.SP"], "a b=c");
    EXPECT_EQ(kv["env.INHERITED"], "yes");
  }
}

// --sim-nodes: each PE gets its group's GSHMEM_HOSTID (an inherited one replaced), eager module
// loading, and NCCL_HOSTID with the same value unless the user set NCCL_HOSTID.
TEST(Launcher, SimulatedNodesSetTheHostIdsOfGshmemAndNccl) {
  TempDir dir;
  Result r = run({"-n", "3", "--sim-nodes", "2", "--", kProbe, "report", dir.path(), "GSHMEM_HOSTID", "NCCL_HOSTID",
                  "CUDA_MODULE_LOADING"},
                 {{"GSHMEM_HOSTID", "inherited"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  std::string ids[3];
  for (int rank = 0; rank < 3; ++rank) {
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    ids[rank] = kv["env.GSHMEM_HOSTID"];
    EXPECT_NE(ids[rank].find("-sim"), std::string::npos) << ids[rank];
    EXPECT_EQ(kv["env.NCCL_HOSTID"], ids[rank]) << rank;
    EXPECT_EQ(kv["env.CUDA_MODULE_LOADING"], "EAGER");
  }
  EXPECT_EQ(ids[0], ids[1]);  // groups of PEs i * K / N: {0, 1} and {2}
  EXPECT_NE(ids[1], ids[2]);
  r = run({"-n", "2", "--sim-nodes", "2", "--", kProbe, "report", dir.path(), "NCCL_HOSTID"},
          {{"NCCL_HOSTID", "mine"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  for (int rank = 0; rank < 2; ++rank)
    EXPECT_EQ(read_report(dir.file("pe" + std::to_string(rank) + ".txt"))["env.NCCL_HOSTID"], "mine");
}

// End to end: the PEs find themselves through bootstrap::detect_from_env and
// rendezvous through bootstrap::connect, rank 0 on the inherited listener
// (binding the id's port itself would fail while that socket is open, and a
// refused GSHMEM_BOOTSTRAP_LISTEN_FD is logged at WARN or ERROR); a late
// connection to that port after start-up is refused, not left hanging; and a
// second init after finalize rendezvouses again on the same port.
class LauncherBootstrap : public ::testing::TestWithParam<int> {};

TEST_P(LauncherBootstrap, PesJoinTheRendezvousGshmrunSetUp) {
  const int n = GetParam();
  const Result r = run({"-n", std::to_string(n), "--timeout", "45", "--tag-output", "--", kBootstrapProbe},
                       {{"GSHMEM_DEBUG", "", true}, {"GSHMEM_BOOTSTRAP_TIMEOUT", "", true}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  for (int rank = 0; rank < n; ++rank) {
    const std::string line = "[" + std::to_string(rank) + "] bootstrap ok " + std::to_string(rank) + "\n";
    EXPECT_EQ(count_of(r.out, line), 1) << describe(r);
  }
  EXPECT_EQ(r.err.find("GSHMEM_BOOTSTRAP_LISTEN_FD"), std::string::npos) << describe(r);
  EXPECT_EQ(r.err.find("ERROR"), std::string::npos) << describe(r);
}

INSTANTIATE_TEST_SUITE_P(Np, LauncherBootstrap, ::testing::Values(1, 2, 4));

// ---------------------------------------------------------------- failures

// Variables that size shared state must agree: gshmem_init says which one differs, on
// which PE, and fails before it takes a GPU, instead of hanging in the first collective.
TEST(Launcher, InitRefusesConfigThatDiffersBetweenPes) {
  const Result r = run({"-n", "3", "--", kInitConfigProbe, "GSHMEM_LL_MAX_BYTES", "1K"});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 10) << "GSHMEM_ERROR_MISMATCH\n" << describe(r);
  // PE 0 has the default, 256 (kLLDefaultBytes in include/gshmem/device/impl/ll_layout.cuh).
  EXPECT_EQ(count_of(r.err, "gshmem_init: GSHMEM_LL_MAX_BYTES differs between PEs (PE 0: 256, PE 1: 1024)"), 3)
      << "every PE names the variable, the PEs and their values\n"
      << describe(r);
  // The same values everywhere pass the check (without a GPU, init fails later).
  const Result same = run({"-n", "3", "--", kInitConfigProbe, "GSHMEM_LL_MAX_BYTES", "256"});
  ASSERT_TRUE(same.exited) << describe(same);
  EXPECT_NE(same.code, 10) << describe(same);
  EXPECT_EQ(same.err.find("differs between PEs"), std::string::npos) << describe(same);
}

TEST(Launcher, NonZeroExitStopsTheJobAndNamesThePe) {
  const Result r = run({"-n", "4", "--", kProbe, "--only", "2", "exit", "3", "300"});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 3) << describe(r);
  EXPECT_LT(r.seconds, 6.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << "PEs left running\n" << describe(r);
  EXPECT_NE(r.err.find("gshmrun: PE 2 (pid "), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find(") exited with status 3; stopping the other 3 PEs"), std::string::npos) << describe(r);
  EXPECT_EQ(count_of(r.err, "gshmrun: PE "), 1) << "only the first failure is reported\n" << describe(r);
}

TEST(Launcher, PeKilledBySignalGives128PlusSignal) {
  const Result r = run({"-n", "3", "--", kProbe, "--only", "1", "kill", "9", "300"});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 137) << describe(r);
  EXPECT_LT(r.seconds, 6.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
  EXPECT_NE(r.err.find("gshmrun: PE 1 (pid "), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("was killed by signal 9 (Killed); stopping the other 2 PEs"), std::string::npos) << describe(r);
}

TEST(Launcher, PeIgnoringSigtermIsKilledAfterTheGrace) {
  const Result r = run({"-n", "3", "--", kProbe, "--ignore", "15", "--only", "0", "exit", "5", "300"},
                       {{"GSHMRUN_KILL_GRACE", "1"}});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 5) << describe(r);
  EXPECT_GE(r.seconds, 1.0) << "SIGKILL came before the grace period\n" << describe(r);
  EXPECT_LT(r.seconds, 8.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
  EXPECT_NE(r.err.find("2 PEs still running 1 s after SIGTERM; sending SIGKILL"), std::string::npos) << describe(r);
}

TEST(Launcher, DefaultGraceIsThreeSeconds) {
  const Result r = run({"-n", "2", "--", kProbe, "--ignore", "15", "--only", "1", "exit", "4", "200"},
                       {{"GSHMRUN_KILL_GRACE", "", true}});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 4) << describe(r);
  EXPECT_GE(r.seconds, 3.0) << describe(r);
  EXPECT_LT(r.seconds, 12.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
}

TEST(Launcher, BadKillGraceIsRejected) {
  const Result r = run({"-n", "1", kProbe, "exit", "0"}, {{"GSHMRUN_KILL_GRACE", "soon"}});
  EXPECT_TRUE(r.exited && r.code == 2) << describe(r);
  EXPECT_NE(r.err.find("GSHMRUN_KILL_GRACE"), std::string::npos) << describe(r);
}

TEST(Launcher, SkipStatus77Propagates) {
  Result r = run({"-n", "3", "--", kProbe, "exit", "77"});
  EXPECT_TRUE(r.exited && r.code == 77) << describe(r);
  EXPECT_NE(r.err.find("exited with status 77 (skipped)"), std::string::npos) << describe(r);
  r = run({"-n", "3", "--", kProbe, "--only", "1", "exit", "77", "100"});
  EXPECT_TRUE(r.exited && r.code == 77) << describe(r);
  EXPECT_LT(r.seconds, 6.0) << describe(r);
}

TEST(Launcher, AllZeroIsZeroAndEarlyZeroExitsAreFine) {
  Result r = run({"-n", "4", "--", kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_EQ(r.err, "") << describe(r);
  // Rank r exits 0 after r*400 ms: gshmrun waits for the last one.
  r = run({"-n", "3", "--", kProbe, "exit-staggered", "0", "400"});
  EXPECT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_GE(r.seconds, 0.8) << describe(r);
  EXPECT_EQ(r.err, "") << describe(r);
}

TEST(Launcher, TimeoutStopsTheJobWith124) {
  const Result r = run({"-n", "2", "--timeout", "1", "--", kProbe, "sleep"});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 124) << describe(r);
  EXPECT_GE(r.seconds, 1.0) << describe(r);
  EXPECT_LT(r.seconds, 10.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
  EXPECT_NE(r.err.find("gshmrun: job exceeded --timeout 1 s; stopping 2 PEs"), std::string::npos) << describe(r);
}

TEST(Launcher, TimeoutKillsPesThatIgnoreSigterm) {
  const Result r = run({"-n", "2", "--timeout=1", kProbe, "--ignore", "15", "sleep"}, {{"GSHMRUN_KILL_GRACE", "0.5"}});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 124) << describe(r);
  EXPECT_GE(r.seconds, 1.5) << describe(r);
  EXPECT_LT(r.seconds, 10.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
}

// ---------------------------------------------------------------- signals

TEST(Launcher, SigtermIsForwardedToEveryPeAndItsChildren) {
  TempDir dir;
  Launch l({"-n", "3", "--", kProbe, "--record", dir.path(), "--fork-child", "--ready", dir.path(), "sleep"});
  ASSERT_TRUE(dir.wait_for(per_rank("ready", 3))) << "PEs did not start\n" << describe(l.wait(1));
  l.mark();
  l.signal(SIGTERM);
  const Result r = l.wait();
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_NE(r.code, 0) << describe(r);
  EXPECT_EQ(r.code, 128 + SIGTERM) << describe(r);
  EXPECT_LT(r.seconds, 8.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
  for (int rank = 0; rank < 3; ++rank) {
    EXPECT_TRUE(dir.has("sig" + std::to_string(rank) + "_15")) << "PE " << rank << " did not get SIGTERM";
    EXPECT_TRUE(dir.has("child" + std::to_string(rank) + "_15")) << "PE " << rank << "'s child did not get SIGTERM";
  }
  EXPECT_NE(r.err.find("caught SIGTERM"), std::string::npos) << describe(r);
}

TEST(Launcher, Sigusr1AndSigusr2AreForwarded) {
  TempDir dir;
  Launch l({"-n", "2", "--", kProbe, "--record", dir.path(), "--ready", dir.path(), "sleep"});
  ASSERT_TRUE(dir.wait_for(per_rank("ready", 2))) << describe(l.wait(1));
  l.signal(SIGUSR1);
  EXPECT_TRUE(dir.wait_for(per_rank("sig", 2, "_" + std::to_string(SIGUSR1)), 10));
  l.signal(SIGUSR2);
  EXPECT_TRUE(dir.wait_for(per_rank("sig", 2, "_" + std::to_string(SIGUSR2)), 10));
  l.signal(SIGTERM);
  const Result r = l.wait();
  EXPECT_TRUE(r.exited && r.code == 128 + SIGTERM) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
}

TEST(Launcher, SigintIsForwarded) {
  TempDir dir;
  Launch l({"-n", "2", "--", kProbe, "--ready", dir.path(), "sleep"});
  ASSERT_TRUE(dir.wait_for(per_rank("ready", 2))) << describe(l.wait(1));
  l.mark();
  l.signal(SIGINT);
  const Result r = l.wait();
  EXPECT_TRUE(r.exited && r.code == 128 + SIGINT) << describe(r);
  EXPECT_LT(r.seconds, 8.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
}

TEST(Launcher, SecondSigintWithinTwoSecondsKills) {
  TempDir dir;
  Launch l({"-n", "2", "--", kProbe, "--ignore", "2", "--ignore", "15", "--ready", dir.path(), "sleep"},
           {{"GSHMRUN_KILL_GRACE", "100"}});
  ASSERT_TRUE(dir.wait_for(per_rank("ready", 2))) << describe(l.wait(1));
  l.mark();
  l.signal(SIGINT);
  sleep_s(0.3);
  l.signal(SIGINT);
  const Result r = l.wait();
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 128 + SIGINT) << describe(r);
  EXPECT_LT(r.seconds, 8.0) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
  EXPECT_NE(r.err.find("second SIGINT within 2 s"), std::string::npos) << describe(r);
}

// ---------------------------------------------------------------- output

TEST(Launcher, TagOutputPrefixesEveryLine) {
  const Result r = run({"-n", "2", "--tag-output", "--", kProbe, "print"});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  const std::vector<std::string> out = lines_of(r.out), err = lines_of(r.err);
  const std::multiset<std::string> out_set(out.begin(), out.end()), err_set(err.begin(), err.end());
  EXPECT_EQ(out_set, (std::multiset<std::string>{"[0] out 0 line 1", "[0] out 0 line 2", "[0] tail 0",
                                                 "[1] out 1 line 1", "[1] out 1 line 2", "[1] tail 1"}))
      << describe(r);
  EXPECT_EQ(err_set, (std::multiset<std::string>{"[0] err 0", "[1] err 1"})) << describe(r);
  for (const char* pe : {"[0] ", "[1] "}) {  // each PE's lines keep their order
    const std::string p(pe);
    EXPECT_LT(r.out.find(p + "out " + p[1] + " line 1"), r.out.find(p + "out " + p[1] + " line 2"));
    EXPECT_LT(r.out.find(p + "out " + p[1] + " line 2"), r.out.find(p + "tail " + p[1]));
  }
}

TEST(Launcher, WithoutTagOutputPesWriteDirectly) {
  const Result r = run({"-n", "2", "--", kProbe, "print"});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_EQ(count_of(r.out, "out 0 line 1\n"), 1) << describe(r);
  EXPECT_EQ(count_of(r.out, "out 1 line 2\n"), 1) << describe(r);
  EXPECT_EQ(count_of(r.err, "err 1\n"), 1) << describe(r);
  EXPECT_EQ(r.out.find('['), std::string::npos) << describe(r);
}

// ---------------------------------------------------------------- arguments

TEST(Launcher, BadArgumentsExit2WithOneLine) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "missing the program"},
      {{"-n", "2"}, "missing the program"},
      {{"-n", "2", "--"}, "missing the program"},
      {{"-n", "0", "true"}, "positive integer"},
      {{"-n", "abc", "true"}, "positive integer"},
      {{"-n", "-3", "true"}, "positive integer"},
      {{"-n", "3x", "true"}, "positive integer"},
      {{"-n"}, "needs a value"},
      {{"--bogus", "true"}, "unknown option '--bogus'"},
      {{"-q", "true"}, "unknown option '-q'"},
      {{"--timeout", "soon", "true"}, "--timeout"},
      {{"-x", "NOVALUE", "true"}, "NAME=VALUE"},
      {{"-x", "GSHMEM_RANK=3", "true"}, "GSHMEM_RANK"},
      {{"--tag-output=yes", "true"}, "takes no value"},
  };
  for (const auto& c : cases) {
    std::string joined;
    for (const auto& a : c.first) joined += a + " ";
    SCOPED_TRACE("gshmrun " + joined);
    const Result r = run(c.first);
    EXPECT_TRUE(r.exited && r.code == 2) << describe(r);
    EXPECT_EQ(lines_of(r.err).size(), 1u) << describe(r);
    EXPECT_EQ(r.err.rfind("gshmrun: ", 0), 0u) << describe(r);
    EXPECT_NE(r.err.find(c.second), std::string::npos) << describe(r);
    EXPECT_NE(r.err.find("try gshmrun --help"), std::string::npos) << describe(r);
    EXPECT_EQ(r.out, "");
  }
}

TEST(Launcher, HelpMentionsEveryOptionAndVariable) {
  for (const char* flag : {"--help", "-h"}) {
    const Result r = run({flag});
    ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
    for (const char* word : {"-n",
                             "--np",
                             "--timeout",
                             "-x NAME=VALUE",
                             "--tag-output",
                             "--help",
                             "-h,",
                             "--version",
                             "GSHMEM_RANK",
                             "GSHMEM_SIZE",
                             "GSHMEM_LOCAL_RANK",
                             "GSHMEM_LOCAL_SIZE",
                             "GSHMEM_UNIQUEID",
                             "GSHMEM_BOOTSTRAP_LISTEN_FD",
                             "GSHMRUN_KILL_GRACE",
                             "124",
                             "127",
                             "-H, --host",
                             "--hostfile",
                             "--rsh",
                             "GSHMRUN_RSH"})
      EXPECT_NE(r.out.find(word), std::string::npos) << "help lacks " << word << "\n" << r.out;
  }
  const Result v = run({"--version"});
  EXPECT_TRUE(v.exited && v.code == 0) << describe(v);
  EXPECT_EQ(v.out.rfind("gshmrun ", 0), 0u) << describe(v);
}

TEST(Launcher, ProgramThatCannotRunGives127Once) {
  TempDir dir;
  Result r = run({"-n", "2", "--", "/nonexistent/dir/prog"});
  EXPECT_TRUE(r.exited && r.code == 127) << describe(r);
  EXPECT_EQ(count_of(r.err, "gshmrun: cannot execute '/nonexistent/dir/prog': No such file or directory\n"), 1)
      << describe(r);
  EXPECT_EQ(lines_of(r.err).size(), 1u) << describe(r);

  r = run({"-n", "3", "gshmrun-test-no-such-program"});
  EXPECT_TRUE(r.exited && r.code == 127) << describe(r);
  EXPECT_EQ(count_of(r.err, "cannot execute 'gshmrun-test-no-such-program': No such file or directory"), 1)
      << describe(r);

  const std::string script = dir.file("not-executable");
  {
    std::ofstream f(script);
    f << "#!/bin/sh\nexit 0\n";
  }
  chmod(script.c_str(), 0644);
  r = run({"-n", "2", script});
  EXPECT_TRUE(r.exited && r.code == 127) << describe(r);
  EXPECT_EQ(count_of(r.err, "Permission denied"), 1) << describe(r);
}

// ---------------------------------------------------------------- -H: across hosts

// A stand-in for ssh: records its arguments (one per line) in DIR/rsh.<host>.<pid> and runs the
// command line here, as a remote login shell would.
std::string fake_rsh(const TempDir& dir) {
  const std::string path = dir.file("fake-rsh");
  std::ofstream f(path);
  f << "#!/bin/sh\nhost=$1\nprintf '%s\\n' \"$@\" > " << dir.path() << "/rsh.$host.$$\nexec sh -c \"$2\"\n";
  f.close();
  chmod(path.c_str(), 0755);
  return path;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Each PE gets its rank, its host's local rank and size, the -x and GSHMEM_* variables, one
// unique id for all on PE 0's address with a port of the derived range; the secrets reach the PE
// but appear in no remote shell's arguments; an inherited GSHMEM_HOSTID stays behind.
TEST(Launcher, HostListStartsEveryPeThroughTheRemoteShell) {
  TempDir dir;
  const std::string rsh = fake_rsh(dir);
  const Result r = run({"-H", "hostA:2,hostB:1", "--rsh", rsh, "-x", "GSHMEM_BOOTSTRAP_ADDR=127.0.0.1", "-x", "FOO=b r",
                        kProbe, "report", dir.path(), "FOO", "GSHMEM_DEBUG", "GSHMEM_BOOTSTRAP_SECRET", "GSHMEM_HOSTID",
                        "CUDA_MODULE_LOADING", "GSHMRUN_PE", "NOT_PASSED"},
                       {{"GSHMEM_DEBUG", "WARN"},
                        {"GSHMEM_BOOTSTRAP_SECRET", "hunter2-secret"},
                        {"GSHMEM_HOSTID", "inherited"},
                        {"NOT_PASSED", "x"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  const char* host[] = {"hostA", "hostA", "hostB"};
  const char* local_rank[] = {"0", "1", "0"};
  const char* local_size[] = {"2", "2", "1"};
  std::string uniqueid;
  for (int rank = 0; rank < 3; ++rank) {
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    EXPECT_EQ(kv["rank"], std::to_string(rank));
    EXPECT_EQ(kv["size"], "3");
    EXPECT_EQ(kv["local_rank"], local_rank[rank]) << host[rank];
    EXPECT_EQ(kv["local_size"], local_size[rank]) << host[rank];
    EXPECT_EQ(kv["listen_fd_env"], "<unset>");  // PE 0 binds the port itself
    EXPECT_EQ(kv["stdin"], "/dev/null");
    EXPECT_EQ(kv["env.FOO"], "b r");
    EXPECT_EQ(kv["env.GSHMEM_DEBUG"], "WARN");
    EXPECT_EQ(kv["env.GSHMEM_BOOTSTRAP_SECRET"], "hunter2-secret");
    EXPECT_EQ(kv["env.GSHMEM_HOSTID"], "<unset>");
    EXPECT_EQ(kv["env.CUDA_MODULE_LOADING"], "EAGER");  // PEs of other hosts are proxy peers
    EXPECT_EQ(kv["env.NOT_PASSED"], "x");               // (the fake remote shell inherits it)
    EXPECT_EQ(kv["env.GSHMRUN_PE"].substr(kv["env.GSHMRUN_PE"].rfind('.')), "." + std::to_string(rank));
    if (rank == 0) uniqueid = kv["uniqueid"];
    EXPECT_EQ(kv["uniqueid"], uniqueid);
  }
  gshmemx_uniqueid_t id;
  ASSERT_EQ(gshmem::bootstrap::decode_uniqueid(uniqueid.c_str(), &id), GSHMEM_SUCCESS) << uniqueid;
  const auto d = gshmem::bootstrap::uniqueid_data(id);
  EXPECT_EQ(uniqueid.rfind("127.0.0.1:", 0), 0u) << uniqueid;
  EXPECT_GE(d.port, 16384);
  EXPECT_LE(d.port, 32767);
  // Three remote shells, each "HOST COMMAND-LINE"; no secret on any command line.
  const std::string secret_hex = uniqueid.substr(uniqueid.find(':', uniqueid.find(':') + 1) + 1, 16);
  int shells = 0;
  for (const char* h : {"hostA", "hostB"}) {
    DIR* dp = opendir(dir.path().c_str());
    ASSERT_NE(dp, nullptr);
    while (struct dirent* e = readdir(dp)) {
      const std::string name = e->d_name;
      if (name.rfind(std::string("rsh.") + h + ".", 0) != 0) continue;
      ++shells;
      const std::string argv = read_file(dir.file(name));
      EXPECT_EQ(argv.rfind(std::string(h) + "\n", 0), 0u) << argv;
      EXPECT_EQ(argv.find(secret_hex), std::string::npos) << "the job secret is on a command line:\n" << argv;
      EXPECT_EQ(argv.find("hunter2"), std::string::npos) << argv;
      EXPECT_NE(argv.find("GSHMEM_RANK="), std::string::npos) << argv;
    }
    closedir(dp);
  }
  EXPECT_EQ(shells, 3);
}

// A remote PE's failure stops the job as a local one does, naming the PE and its host.
TEST(Launcher, HostListFailureStopsTheOtherPes) {
  TempDir dir;
  const Result r = run({"-H", "hostA:1,hostB:2", "--rsh", fake_rsh(dir), "-x", "GSHMEM_BOOTSTRAP_ADDR=127.0.0.1",
                        kProbe, "--only", "2", "exit", "6", "200"});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_EQ(r.code, 6) << describe(r);
  EXPECT_NE(r.err.find("gshmrun: PE 2 on hostB (remote shell pid "), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("exited with status 6; stopping the other 2 PEs"), std::string::npos) << describe(r);
  EXPECT_LT(r.seconds, 10) << describe(r);
  EXPECT_TRUE(r.pipes_closed) << describe(r);
}

TEST(Launcher, HostListErrors) {
  TempDir dir;
  const std::string rsh = fake_rsh(dir);
  Result r = run({"-H", "hostA", "--rsh", "/nonexistent/ssh", kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 127) << describe(r);
  EXPECT_NE(r.err.find("cannot execute the remote shell '/nonexistent/ssh'"), std::string::npos) << describe(r);
  r = run({"-H", "hostA"}, {{"GSHMRUN_RSH", "/nonexistent/rsh"}});
  EXPECT_TRUE(r.exited && r.code == 2) << describe(r);  // no program: a usage error first
  r = run({"-H", "hostA", kProbe, "exit", "0"}, {{"GSHMRUN_RSH", "/nonexistent/rsh"}});
  EXPECT_TRUE(r.exited && r.code == 127) << describe(r);
  // PE 0's host must resolve here (or GSHMEM_BOOTSTRAP_ADDR be given).
  r = run({"-H", "pe0-host.invalid,hostB", "--rsh", rsh, kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 1) << describe(r);
  EXPECT_NE(r.err.find("cannot resolve 'pe0-host.invalid'"), std::string::npos) << describe(r);
  EXPECT_NE(r.err.find("set GSHMEM_BOOTSTRAP_ADDR"), std::string::npos) << describe(r);
  // A name of this host that resolves to loopback cannot be reached from the others.
  r = run({"-H", "localhost,hostB", "--rsh", rsh, kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 1) << describe(r);
  EXPECT_NE(r.err.find("resolves to a loopback address"), std::string::npos) << describe(r);
  // ... which is fine when every PE is on it.
  r = run({"-H", "localhost:2", "--rsh", rsh, kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 0) << describe(r);
  // Hostfiles.
  {
    std::ofstream f(dir.file("hosts"));
    f << "# test\nlocalhost slots=2\n";
  }
  r = run({"--hostfile", dir.file("hosts"), "--rsh", rsh, kProbe, "report", dir.path()});
  EXPECT_TRUE(r.exited && r.code == 0) << describe(r);
  EXPECT_TRUE(dir.has("pe1.txt"));
  EXPECT_FALSE(dir.has("pe2.txt"));
  {
    std::ofstream f(dir.file("bad-hosts"));
    f << "localhost\nlocalhost slots=many\n";
  }
  r = run({"--hostfile", dir.file("bad-hosts"), kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 2) << describe(r);
  EXPECT_NE(r.err.find("hostfile line 2"), std::string::npos) << describe(r);
  r = run({"--hostfile", dir.file("no-such-file"), kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 2) << describe(r);
  EXPECT_NE(r.err.find("cannot read the hostfile"), std::string::npos) << describe(r);
  r = run({"--hostfile", dir.file("hosts"), "-n", "3", kProbe, "exit", "0"});
  EXPECT_TRUE(r.exited && r.code == 2) << describe(r);
  EXPECT_NE(r.err.find("-n 3 needs more slots than the hosts give (2)"), std::string::npos) << describe(r);
}

TEST(Launcher, WithoutNAndWithoutGpusItSaysSo) {
  // An empty CUDA_VISIBLE_DEVICES hides every GPU, with or without a driver.
  const Result r = run({kProbe, "exit", "0"}, {{"CUDA_VISIBLE_DEVICES", ""}});
  ASSERT_TRUE(r.exited) << describe(r);
  EXPECT_NE(r.code, 0) << describe(r);
  EXPECT_NE(r.err.find("gshmrun: no GPU visible on this node; pass -n N to choose the number of PEs"),
            std::string::npos)
      << describe(r);
}

}  // namespace
