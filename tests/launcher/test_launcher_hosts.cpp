// SPDX-License-Identifier: BSD-3-Clause
// Behaviour tests of gshmrun across hosts (-H, --hostfile, --rsh): a fake remote shell starts
// every PE here, recording what it was given. Host only (launcher_harness.h).

#include <sys/stat.h>

#include "launcher_harness.h"

namespace {

using namespace launcher_test;

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
                        "CUDA_MODULE_LOADING", "CUDA_DEVICE_MAX_CONNECTIONS", "GSHMRUN_PE", "NOT_PASSED"},
                       {{"GSHMEM_DEBUG", "WARN"},
                        {"CUDA_DEVICE_MAX_CONNECTIONS", "", true},
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
    EXPECT_EQ(kv["env.CUDA_DEVICE_MAX_CONNECTIONS"], "16");
    EXPECT_EQ(kv["env.NOT_PASSED"], "x");  // (the fake remote shell inherits it)
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
