// SPDX-License-Identifier: BSD-3-Clause
// gshmrun option parser and usage text.
#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

#ifndef GSHMRUN_VERSION
#define GSHMRUN_VERSION "unknown"
#endif

namespace gshmrun {
namespace {

enum class Opt { np, timeout, env, tag_output, sim_nodes, hosts, hostfile, rsh, help, version, unknown };

struct OptSpec {
  const char* short_name;  // "-n" or nullptr
  const char* long_name;   // "--np"
  Opt id;
  bool takes_value;
  const char* value_help;  // what the value is, for "needs a value" messages
};

const OptSpec kSpecs[] = {
    {"-n", "--np", Opt::np, true, "the number of PEs"},
    {nullptr, "--timeout", Opt::timeout, true, "a number of seconds"},
    {"-x", nullptr, Opt::env, true, "NAME=VALUE"},
    {nullptr, "--tag-output", Opt::tag_output, false, nullptr},
    {nullptr, "--sim-nodes", Opt::sim_nodes, true, "a number of simulated nodes"},
    {"-H", "--host", Opt::hosts, true, "host[:slots],..."},
    {nullptr, "--hostfile", Opt::hostfile, true, "a file of hosts"},
    {nullptr, "--rsh", Opt::rsh, true, "a remote shell command"},
    {"-h", "--help", Opt::help, false, nullptr},
    {nullptr, "--version", Opt::version, false, nullptr},
};

ParseResult fail(std::string msg) {
  ParseResult r;
  r.action = ParseAction::error;
  r.error = std::move(msg);
  return r;
}

ParseResult done(ParseAction a) {
  ParseResult r;
  r.action = a;
  return r;
}

// Matches `arg` against the table. Sets *spec, and *value / *has_value for the
// attached forms "-n4", "-xA=B" and "--np=4".
bool match(const std::string& arg, const OptSpec** spec, std::string* value, bool* has_value) {
  *has_value = false;
  for (const OptSpec& s : kSpecs) {
    if (s.long_name) {
      const size_t len = strlen(s.long_name);
      if (arg == s.long_name) {
        *spec = &s;
        return true;
      }
      if (arg.size() > len && arg.compare(0, len, s.long_name) == 0 && arg[len] == '=') {
        *spec = &s;
        *value = arg.substr(len + 1);
        *has_value = true;
        return true;
      }
    }
    if (s.short_name) {
      if (arg == s.short_name) {
        *spec = &s;
        return true;
      }
      if (s.takes_value && arg.size() > 2 && arg.compare(0, 2, s.short_name) == 0) {
        *spec = &s;
        *value = arg.substr(2);
        *has_value = true;
        return true;
      }
    }
  }
  return false;
}

}  // namespace

const std::vector<std::string>& reserved_env_names() {
  static const std::vector<std::string> names = {"GSHMEM_RANK",       "GSHMEM_SIZE",     "GSHMEM_LOCAL_RANK",
                                                 "GSHMEM_LOCAL_SIZE", "GSHMEM_UNIQUEID", "GSHMEM_BOOTSTRAP_LISTEN_FD"};
  return names;
}

bool is_reserved_env(const std::string& name) {
  for (const std::string& n : reserved_env_names())
    if (n == name) return true;
  return false;
}

bool parse_int_in_range(const char* text, long lo, long hi, long* out) {
  if (!text || !*text) return false;
  for (const char* p = text; *p; ++p)
    if (*p < '0' || *p > '9') return false;  // no sign, no spaces, no hex
  errno = 0;
  char* end = nullptr;
  long v = strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < lo || v > hi) return false;
  *out = v;
  return true;
}

bool parse_seconds(const char* text, double* out) {
  if (!text || !*text) return false;
  for (const char* p = text; *p; ++p)
    if (!((*p >= '0' && *p <= '9') || *p == '.')) return false;
  errno = 0;
  char* end = nullptr;
  double v = strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0 || v > kMaxKillGraceS) return false;
  *out = v;
  return true;
}

ParseResult parse_options(const std::vector<std::string>& args, Options* out) {
  *out = Options();
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") {
      ++i;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // first non-option: the program

    const OptSpec* spec = nullptr;
    std::string value;
    bool has_value = false;
    if (!match(arg, &spec, &value, &has_value)) {
      std::string name = arg.substr(0, arg.find('='));
      return fail("unknown option '" + name + "'");
    }
    const std::string shown = arg.compare(0, 2, "--") == 0 ? arg.substr(0, arg.find('=')) : arg.substr(0, 2);
    if (!spec->takes_value && has_value) return fail("option '" + shown + "' takes no value");
    if (spec->takes_value && !has_value) {
      if (i + 1 >= args.size()) return fail("option '" + shown + "' needs a value (" + spec->value_help + ")");
      value = args[++i];
    }

    switch (spec->id) {
      case Opt::np: {
        long n = 0;
        if (!parse_int_in_range(value.c_str(), 1, kMaxPes, &n))
          return fail("-n needs a positive integer number of PEs (1.." + std::to_string(kMaxPes) + "), not '" + value +
                      "'");
        out->np = static_cast<int>(n);
        break;
      }
      case Opt::timeout: {
        long t = 0;
        if (!parse_int_in_range(value.c_str(), 0, kMaxTimeoutS, &t))
          return fail("--timeout needs a whole number of seconds (0 = no limit), not '" + value + "'");
        out->timeout_s = t;
        break;
      }
      case Opt::env: {
        const size_t eq = value.find('=');
        if (eq == std::string::npos) return fail("-x needs NAME=VALUE, not '" + value + "'");
        std::string name = value.substr(0, eq);
        if (name.empty()) return fail("-x needs NAME=VALUE with a non-empty NAME, not '" + value + "'");
        if (is_reserved_env(name)) return fail("-x cannot set " + name + ": gshmrun sets it for each PE itself");
        out->env.emplace_back(std::move(name), value.substr(eq + 1));
        break;
      }
      case Opt::tag_output:
        out->tag_output = true;
        break;
      case Opt::sim_nodes: {
        long k = 0;
        if (!parse_int_in_range(value.c_str(), 1, kMaxPes, &k))
          return fail("--sim-nodes needs a positive number of nodes (1.." + std::to_string(kMaxPes) + "), not '" +
                      value + "'");
        out->sim_nodes = static_cast<int>(k);
        break;
      }
      case Opt::hosts: {
        std::string err;
        if (!out->hosts.empty()) return fail("-H given twice: list every host in one -H");
        if (!parse_host_list(value, &out->hosts, &err)) return fail(err);
        break;
      }
      case Opt::hostfile:
        if (value.empty()) return fail("--hostfile needs a file name");
        out->hostfile = value;
        break;
      case Opt::rsh:
        if (split_rsh(value).empty()) return fail("--rsh needs a command (e.g. ssh)");
        out->rsh = value;
        break;
      case Opt::help:
        return done(ParseAction::help);
      case Opt::version:
        return done(ParseAction::version);
      case Opt::unknown:
        return fail("unknown option '" + arg + "'");
    }
  }
  if (out->sim_nodes > 0)
    for (const auto& kv : out->env)
      if (kv.first == "GSHMEM_HOSTID") return fail("-x GSHMEM_HOSTID conflicts with --sim-nodes, which sets it per PE");
  const bool remote = !out->hosts.empty() || !out->hostfile.empty();
  if (!out->hosts.empty() && !out->hostfile.empty()) return fail("-H and --hostfile cannot be used together");
  if (remote && out->sim_nodes > 0)
    return fail("--sim-nodes simulates nodes on this host: it cannot be used with -H or --hostfile");
  if (!remote && !out->rsh.empty()) return fail("--rsh needs -H or --hostfile (the hosts to start PEs on)");
  if (!out->hosts.empty() && out->np > total_slots(out->hosts))
    return fail("-n " + std::to_string(out->np) + " needs more slots than -H gives (" +
                std::to_string(total_slots(out->hosts)) + ")");
  if (out->sim_nodes > 0 && out->np > 0 && out->sim_nodes > out->np)
    return fail("--sim-nodes " + std::to_string(out->sim_nodes) + " needs at least as many PEs (-n " +
                std::to_string(out->np) + ")");
  out->command.assign(args.begin() + static_cast<long>(i), args.end());
  if (out->command.empty()) return fail("missing the program to run");
  if (out->command[0].empty()) return fail("the program name is empty");
  return done(ParseAction::run);
}

std::string sim_node_hostid(const std::string& host, int rank, int np, int k) {
  if (k <= 0 || np <= 0) return std::string();
  const long group = static_cast<long>(rank) * k / np;
  return host + "-sim" + std::to_string(group);
}

void print_usage(FILE* out) {
  fprintf(out,
          "usage: gshmrun [-n N] [--timeout SECONDS] [-x NAME=VALUE]... [--tag-output] [--sim-nodes K]\n"
          "               [-H HOST[:SLOTS],... | --hostfile FILE] [--rsh CMD] [--] program [args...]\n"
          "\n"
          "Starts N processes (PEs) of a gshmem program on this node (or on the hosts of -H /\n"
          "--hostfile) and supervises them.\n"
          "\n"
          "Options (they end at '--' or at the first argument that is not an option):\n"
          "  -n, --np N           number of PEs (1..%d); default: the number of GPUs visible\n"
          "                       to the CUDA driver (respects CUDA_VISIBLE_DEVICES)\n"
          "  --timeout SECONDS    stop the whole job after SECONDS and exit 124 (0 = no limit,\n"
          "                       the default)\n"
          "  -x NAME=VALUE        set an extra environment variable in every PE (repeatable)\n"
          "  --tag-output         prefix each line a PE writes to stdout/stderr with \"[i] \"\n"
          "                       (default: PEs write to gshmrun's stdout/stderr directly)\n"
          "  --sim-nodes K        simulate K nodes on this one: split the PEs into K contiguous\n"
          "                       groups and give each group its own GSHMEM_HOSTID\n"
          "                       (\"<host>-sim<k>\"), so that PEs of different groups map no\n"
          "                       heap of each other and talk through the proxy and the network\n"
          "                       transport (UCX); GPUs are still shared out by the host's rank\n"
          "                       (1..N; for tests of the inter-node path)\n"
          "  -H, --host H[:S],... start the PEs on these hosts instead, S (default 1) on each, in\n"
          "                       order (PE 0 on the first); -n defaults to the sum of the slots\n"
          "  --hostfile FILE      the hosts from FILE: one per line, \"host\", \"host:S\" or\n"
          "                       \"host slots=S\"; '#' starts a comment\n"
          "  --rsh CMD            the remote shell that starts a PE: CMD HOST COMMAND-LINE, as ssh\n"
          "                       does, passing its stdin on (not ssh -n) (default: $GSHMRUN_RSH,\n"
          "                       else ssh; split at spaces)\n"
          "  -h, --help           show this help and exit\n"
          "  --version            show the version and exit\n"
          "\n"
          "Environment of PE i (of N); anything gshmrun inherits is passed on as well:\n"
          "  GSHMEM_RANK=i  GSHMEM_SIZE=N  GSHMEM_LOCAL_RANK=i  GSHMEM_LOCAL_SIZE=N\n"
          "  GSHMEM_UNIQUEID             rendezvous id \"127.0.0.1:<port>:<secret>:<job>\",\n"
          "                              the same in every PE (treat it as a credential)\n"
          "  GSHMEM_BOOTSTRAP_LISTEN_FD  rank 0 only: an inherited socket already listening on\n"
          "                              that port\n"
          "  GSHMEM_HOSTID               with --sim-nodes only: \"<host>-sim<k>\" for PE i in\n"
          "                              group k = i * K / N (replaces an inherited value)\n"
          "  NCCL_HOSTID                 with --sim-nodes, unless set: the same value, so that\n"
          "                              NCCL in the job sees the same nodes\n"
          "Stdin goes to PE 0 unless it is a terminal; the other PEs read /dev/null.\n"
          "\n"
          "With -H / --hostfile every PE starts through CMD (this host too, if listed). Its\n"
          "command line sets GSHMEM_RANK, GSHMEM_SIZE, GSHMEM_LOCAL_RANK/_SIZE (per host),\n"
          "the -x variables and every GSHMEM_* variable of gshmrun's environment, and cd's to\n"
          "the current directory; GSHMEM_UNIQUEID (it holds the job secret) and\n"
          "GSHMEM_BOOTSTRAP_SECRET go on the command's stdin, never on a command line. PE 0\n"
          "listens on GSHMEM_BOOTSTRAP_ADDR if set, else on the first host's address as this\n"
          "host resolves it, port GSHMEM_BOOTSTRAP_PORT or a random one in 16384..32767. The\n"
          "PEs read /dev/null. When the job stops, each remote PE's group gets SIGTERM, then\n"
          "SIGKILL after the grace, however the remote shell ends (docs/launch.md).\n"
          "\n"
          "Supervision: each PE runs in its own process group. When a PE exits non-zero or is\n"
          "killed, gshmrun names it, sends SIGTERM to the other PEs, SIGKILL after a grace\n"
          "period, and exits with that PE's status (128+signal if it was killed). SIGINT,\n"
          "SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 are forwarded to every PE; a second\n"
          "SIGINT within 2 s kills the PEs with SIGKILL.\n"
          "\n"
          "Exit status: 0 when every PE exits 0; else the first failing PE's status (77, the\n"
          "\"skipped\" status of the tests, included); 124 after --timeout; 127 if the program\n"
          "cannot be executed; 128+signal when gshmrun was stopped by a signal; 2 for bad\n"
          "arguments.\n"
          "\n"
          "gshmrun reads:\n"
          "  GSHMRUN_KILL_GRACE   seconds between SIGTERM and SIGKILL when stopping PEs\n"
          "                       (default %g)\n"
          "  GSHMRUN_RSH          the remote shell when --rsh is not given (default ssh)\n",
          kMaxPes, kDefaultKillGraceS);
}

const char* version_string() { return "gshmrun (gshmem) " GSHMRUN_VERSION; }

}  // namespace gshmrun
