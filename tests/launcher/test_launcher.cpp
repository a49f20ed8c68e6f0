// SPDX-License-Identifier: BSD-3-Clause
// Behaviour tests of gshmrun: each test fork/execs gshmrun on launcher_probe
// and checks exit status, timing, stderr text and what the PEs saw.
// Host only; timings are generous (a loaded 2-core machine) but bounded.

#include "launcher_harness.h"

namespace {

using namespace launcher_test;

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
// loading, 16 CUDA hardware queues, and NCCL_HOSTID with the same value unless the user set
// NCCL_HOSTID; the user's CUDA_DEVICE_MAX_CONNECTIONS stays.
TEST(Launcher, SimulatedNodesSetTheHostIdsOfGshmemAndNccl) {
  TempDir dir;
  Result r = run({"-n", "3", "--sim-nodes", "2", "--", kProbe, "report", dir.path(), "GSHMEM_HOSTID", "NCCL_HOSTID",
                  "CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS"},
                 {{"GSHMEM_HOSTID", "inherited"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "", true}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  std::string ids[3];
  for (int rank = 0; rank < 3; ++rank) {
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    ids[rank] = kv["env.GSHMEM_HOSTID"];
    EXPECT_NE(ids[rank].find("-sim"), std::string::npos) << ids[rank];
    EXPECT_EQ(kv["env.NCCL_HOSTID"], ids[rank]) << rank;
    EXPECT_EQ(kv["env.CUDA_MODULE_LOADING"], "EAGER");
    EXPECT_EQ(kv["env.CUDA_DEVICE_MAX_CONNECTIONS"], "16");
  }
  EXPECT_EQ(ids[0], ids[1]);  // groups of PEs i * K / N: {0, 1} and {2}
  EXPECT_NE(ids[1], ids[2]);
  r = run(
      {"-n", "2", "--sim-nodes", "2", "--", kProbe, "report", dir.path(), "NCCL_HOSTID", "CUDA_DEVICE_MAX_CONNECTIONS"},
      {{"NCCL_HOSTID", "mine"}, {"CUDA_DEVICE_MAX_CONNECTIONS", "4"}});
  ASSERT_TRUE(r.exited && r.code == 0) << describe(r);
  for (int rank = 0; rank < 2; ++rank) {
    auto kv = read_report(dir.file("pe" + std::to_string(rank) + ".txt"));
    EXPECT_EQ(kv["env.NCCL_HOSTID"], "mine");
    EXPECT_EQ(kv["env.CUDA_DEVICE_MAX_CONNECTIONS"], "4");
  }
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

}  // namespace
