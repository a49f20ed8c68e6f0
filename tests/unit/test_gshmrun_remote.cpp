// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of gshmrun across hosts (tools/gshmrun/remote.cpp and the -H / --hostfile /
// --rsh options): host lists and hostfiles with their errors, the placement of PEs, shell
// quoting (run through sh), and the remote command line, run here through sh as a remote
// login shell would: the PE's variables, the secrets from stdin and not from argv, the
// working directory, and the watcher that stops the PE when stdin closes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "options.h"
#include "remote.h"

namespace {

using namespace gshmrun;
using Args = std::vector<std::string>;

std::string hosts_text(const std::vector<HostSlots>& h) {
  std::string s;
  for (const HostSlots& x : h) s += (s.empty() ? "" : ",") + x.host + ":" + std::to_string(x.slots);
  return s;
}

TEST(GshmrunRemote, HostLists) {
  std::vector<HostSlots> h;
  std::string err;
  ASSERT_TRUE(parse_host_list("a:2,b:2", &h, &err)) << err;
  EXPECT_EQ(hosts_text(h), "a:2,b:2");
  ASSERT_TRUE(parse_host_list("gpu001,gpu002:4,10.0.0.7:3,n-1.example_org", &h, &err)) << err;
  EXPECT_EQ(hosts_text(h), "gpu001:1,gpu002:4,10.0.0.7:3,n-1.example_org:1");
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "needs a list"},
           {"a,,b", "empty entry"},
           {"a,", "empty entry"},
           {"a:", "missing after ':'"},
           {"a:0", "slots of a must be 1.."},
           {"a:x", "not 'x'"},
           {"a:-1", "not '-1'"},
           {"-oProxyCommand=x", "is not a host name"},  // never an option to ssh
           {"a b", "is not a host name"},
           {"a;rm", "is not a host name"},
           {"a:2:3", "not '2:3'"},
       }) {
    EXPECT_FALSE(parse_host_list(text, &h, &err)) << text;
    EXPECT_NE(err.find(says), std::string::npos) << text << ": " << err;
  }
}

TEST(GshmrunRemote, Hostfiles) {
  std::vector<HostSlots> h;
  std::string err;
  ASSERT_TRUE(parse_hostfile("# cluster\n\nnode1 slots=4\nnode2:2   # two GPUs\n  node3\nnode4 slots=1 max_slots=8\n",
                             &h, &err))
      << err;
  EXPECT_EQ(hosts_text(h), "node1:4,node2:2,node3:1,node4:1");
  for (const auto& [text, says] : std::vector<std::pair<std::string, std::string>>{
           {"", "names no host"},
           {"# only a comment\n", "names no host"},
           {"a\nb slots=0\n", "line 2: the number of slots of b"},
           {"a slots=\n", "line 1"},
           {"a\n\nb cpus=3\n", "line 3: unexpected 'cpus=3'"},
           {"a:\n", "line 1: the number of slots is missing"},
           {"-bad\n", "line 1: '-bad' is not a host name"},
       }) {
    EXPECT_FALSE(parse_hostfile(text, &h, &err)) << text;
    EXPECT_NE(err.find(says), std::string::npos) << text << ": " << err;
  }
}

TEST(GshmrunRemote, Placement) {
  const std::vector<HostSlots> h = {{"a", 2}, {"b", 3}, {"a", 1}};
  EXPECT_EQ(total_slots(h), 6);
  std::vector<Placement> p = place(h, 6);
  ASSERT_EQ(p.size(), 6u);
  const char* host[] = {"a", "a", "b", "b", "b", "a"};
  const int lrank[] = {0, 1, 0, 1, 2, 2}, lsize[] = {3, 3, 3, 3, 3, 3};
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(p[r].host, host[r]) << r;
    EXPECT_EQ(p[r].local_rank, lrank[r]) << r;
    EXPECT_EQ(p[r].local_size, lsize[r]) << r;
  }
  EXPECT_EQ(distinct_hosts(p), 2);
  p = place(h, 3);  // fewer PEs than slots: the first hosts fill first
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[2].host, "b");
  EXPECT_EQ(p[2].local_size, 1);
  EXPECT_EQ(p[0].local_size, 2);
}

TEST(GshmrunRemote, Options) {
  Options o;
  ASSERT_EQ(parse_options({"-H", "a:2,b", "--rsh", "ssh -p 2222", "prog"}, &o).action, ParseAction::run);
  EXPECT_EQ(hosts_text(o.hosts), "a:2,b:1");
  EXPECT_EQ(o.rsh, "ssh -p 2222");
  EXPECT_EQ(split_rsh(o.rsh), (Args{"ssh", "-p", "2222"}));
  ASSERT_EQ(parse_options({"--host=a", "-n", "1", "prog"}, &o).action, ParseAction::run);
  ASSERT_EQ(parse_options({"--hostfile", "/tmp/h", "prog"}, &o).action, ParseAction::run);
  EXPECT_EQ(o.hostfile, "/tmp/h");
  for (const auto& [args, says] : std::vector<std::pair<Args, std::string>>{
           {{"-H", "a", "--hostfile", "f", "p"}, "cannot be used together"},
           {{"-H", "a", "-H", "b", "p"}, "given twice"},
           {{"-H", "a", "--sim-nodes", "2", "p"}, "--sim-nodes"},
           {{"--rsh", "ssh", "p"}, "--rsh needs -H or --hostfile"},
           {{"-H", "a", "--rsh", " ", "p"}, "--rsh needs a command"},
           {{"-H", "a:2,b", "-n", "4", "p"}, "-n 4 needs more slots than -H gives (3)"},
           {{"-H", "a::2", "p"}, "not ':2'"},
       }) {
    ParseResult r = parse_options(args, &o);
    EXPECT_EQ(r.action, ParseAction::error) << args[1];
    EXPECT_NE(r.error.find(says), std::string::npos) << r.error;
  }
}

// Runs `sh -c SCRIPT` with `input` on stdin, which stays open until the shell exits (as gshmrun
// keeps a remote PE's stdin: at EOF the watcher stops the PE); returns its stdout, sets *status.
// `close_stdin`: EOF right after `input` instead.
std::string run_sh(const std::string& script, const std::string& input, int* status, bool close_stdin = false) {
  int in[2], out[2];
  // Close-on-exec, as gshmrun's: a copy left in the shell would keep the pipe open for the watcher.
  EXPECT_EQ(pipe2(in, O_CLOEXEC), 0);
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    close(in[1]);
    close(out[0]);
    execl("/bin/sh", "sh", "-c", script.c_str(), static_cast<char*>(nullptr));
    _exit(126);
  }
  close(in[0]);
  close(out[1]);
  EXPECT_EQ(write(in[1], input.data(), input.size()), static_cast<ssize_t>(input.size()));
  if (close_stdin) close(in[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = read(out[0], buf, sizeof(buf))) > 0;) text.append(buf, static_cast<size_t>(n));
  close(out[0]);
  waitpid(pid, status, 0);
  if (!close_stdin) close(in[1]);
  return text;
}

TEST(GshmrunRemote, ShellQuoteSurvivesSh) {
  for (const std::string& s : {std::string("plain"), std::string(""), std::string("it's"), std::string("a b\tc"),
                               std::string("$HOME `id` $(id) \"q\" \\ ; & | > < * ? ~ # !"), std::string("''''"),
                               std::string("line1\nline2")}) {
    int st = 0;
    const std::string got = run_sh("printf '%s' " + shell_quote(s), "", &st);
    EXPECT_EQ(got, s);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
  }
}

TEST(GshmrunRemote, SecretLines) {
  std::string text, err;
  ASSERT_TRUE(
      secret_lines({{"GSHMEM_UNIQUEID", "10.0.0.1:5:ab:cd"}, {"GSHMEM_BOOTSTRAP_SECRET", "s e=c"}}, &text, &err));
  EXPECT_EQ(text, "GSHMEM_UNIQUEID=10.0.0.1:5:ab:cd\nGSHMEM_BOOTSTRAP_SECRET=s e=c\n\n");
  EXPECT_FALSE(secret_lines({{"GSHMEM_BOOTSTRAP_SECRET", "a\nb"}}, &text, &err));
  EXPECT_NE(err.find("GSHMEM_BOOTSTRAP_SECRET holds a newline"), std::string::npos) << err;
  EXPECT_TRUE(is_secret_env("GSHMEM_UNIQUEID"));
  EXPECT_TRUE(is_secret_env("GSHMEM_BOOTSTRAP_SECRET"));
  EXPECT_FALSE(is_secret_env("GSHMEM_RANK"));
}

// The remote command as a login shell runs it: the variables, the secrets read from stdin,
// the directory, and the program's arguments byte for byte.
TEST(GshmrunRemote, RemoteCommandRunsTheProgramWithItsEnvironment) {
  RemoteSpec rs;
  rs.cwd = "/tmp";
  rs.env = {{"GSHMEM_RANK", "3"}, {"ODD", "it's $x"}};
  rs.command = {"/bin/sh", "-c",
                "pwd; echo \"$GSHMEM_RANK|$ODD|$GSHMEM_UNIQUEID|$GSHMEM_BOOTSTRAP_SECRET|$GSHMRUN_PE|$1\"", "sh",
                "a'b c"};
  rs.token = "feed.3";
  const std::string cmd = remote_command(rs);
  // Nothing secret on the command line.
  EXPECT_EQ(cmd.find("10.1.2.3:4567"), std::string::npos);
  EXPECT_EQ(cmd.find("hunter2"), std::string::npos);
  std::string input;
  std::string err;
  ASSERT_TRUE(
      secret_lines({{"GSHMEM_UNIQUEID", "10.1.2.3:4567:aa:bb"}, {"GSHMEM_BOOTSTRAP_SECRET", "hunter2"}}, &input, &err));
  int st = 0;
  const std::string out = run_sh(cmd, input, &st);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << st;
  EXPECT_EQ(out, "/tmp\n3|it's $x|10.1.2.3:4567:aa:bb|hunter2|feed.3|a'b c\n");
  // The program's exit status is the command's; a missing directory is not fatal.
  rs.cwd = "/nonexistent/dir";
  rs.command = {"/bin/sh", "-c", "exit 7"};
  run_sh(remote_command(rs), input, &st);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 7) << st;
  rs.command = {"/nonexistent/prog"};
  run_sh(remote_command(rs), input, &st);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 127) << st;
  // A remote shell that does not pass stdin on (ssh -n): a clear error, the program never runs.
  rs.command = {"/bin/sh", "-c", "echo ran"};
  const std::string none = run_sh(remote_command(rs) + " 2>&1", "GSHMEM_UNIQUEID=x\n", &st, true);
  EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 1) << st;
  EXPECT_NE(none.find("gshmrun: the remote shell passed on no job data"), std::string::npos) << none;
  EXPECT_EQ(none.find("ran"), std::string::npos) << none;
}

double now_s() {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Closing the remote command's stdin stops the PE: SIGTERM, and SIGKILL after the grace for a
// PE that ignores it -- the way a remote PE ends with its launcher even where no signal of
// gshmrun's reaches it. The PE runs in a session of its own here, as under sshd.
TEST(GshmrunRemote, ClosingStdinStopsThePe) {
  for (const bool ignore_term : {false, true}) {
    RemoteSpec rs;
    rs.command = {
        "/bin/sh", "-c",
        ignore_term ? "trap '' TERM; echo up; while :; do sleep 0.05; done" : "echo up; while :; do sleep 0.05; done"};
    rs.token = "t" + std::to_string(getpid()) + (ignore_term ? "i" : "t");
    rs.kill_grace_s = 0.5;
    int in[2], out[2];
    ASSERT_EQ(pipe2(in, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    const pid_t pid = fork();
    if (pid == 0) {
      setsid();
      dup2(in[0], 0);
      dup2(out[1], 1);
      close(in[1]);
      close(out[0]);
      execl("/bin/sh", "sh", "-c", remote_command(rs).c_str(), static_cast<char*>(nullptr));
      _exit(126);
    }
    close(in[0]);
    close(out[1]);
    ASSERT_EQ(write(in[1], "\n", 1), 1);  // no secrets: the empty line only
    char buf[8] = {};
    ASSERT_EQ(read(out[0], buf, 3), 3);  // the PE runs
    EXPECT_EQ(std::string(buf, 3), "up\n");
    const double t0 = now_s();
    close(in[1]);  // gshmrun goes away
    int st = 0;
    ASSERT_EQ(waitpid(pid, &st, 0), pid);
    const double took = now_s() - t0;
    ASSERT_TRUE(WIFSIGNALED(st)) << st;
    EXPECT_EQ(WTERMSIG(st), ignore_term ? SIGKILL : SIGTERM);
    EXPECT_LT(took, ignore_term ? 3.0 : 2.0);
    if (ignore_term) EXPECT_GE(took, 0.4);  // not before the grace
    close(out[0]);
  }
}

}  // namespace
