// SPDX-License-Identifier: BSD-3-Clause
// Rank/size/rendezvous discovery from launcher variables (see env.h).
//
// Ids derived here (torchrun, Open MPI, Slurm) are computed independently by
// every rank from values all ranks share: the port and the secret come from a
// hash of the job id (or of MASTER_ADDR/MASTER_PORT/TORCHELASTIC_RUN_ID).
// A process of another job that reaches our port therefore holds another
// secret and is rejected, but anyone who can read those variables can compute
// the secret: it prevents accidents, it is not a security boundary -- unless
// GSHMEM_BOOTSTRAP_SECRET is set, which every launcher's secret is mixed with.
#include "bootstrap/env.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <atomic>

#include "bootstrap/hostlist.h"
#include "bootstrap/tcp/auth.h"
#include "bootstrap/tcp/uniqueid.h"
#include "host/core/config.h"

namespace gshmem::bootstrap {
namespace {

using Getenv = const char* (*)(const char*);

const char* system_getenv(const char* name) { return ::getenv(name); }

// A variable counts as set when it is non-empty.
const char* get(Getenv g, const char* name) {
  const char* v = g(name);
  return v && *v ? v : nullptr;
}

// FNV-1a, then a SplitMix64 finaliser: stable across hosts and compilers.
uint64_t hash64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  h ^= h >> 31;
  return h;
}

// Range of the rendezvous ports derived from a job id (see jobid_id).
constexpr int kDerivedPortLo = 16384;
constexpr int kDerivedPorts = 16384;

// Integer variable `name` (must be set) in [lo, hi].
Status int_var(Getenv g, const char* name, long long lo, long long hi, int* out) {
  const char* text = get(g, name);
  long long v = 0;
  if (!config::parse_int(text, &v)) {
    GSHMEM_LOG_ERROR("bootstrap: environment variable %s=\"%s\" is not an integer", name, text ? text : "");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (v < lo || v > hi) {
    GSHMEM_LOG_ERROR("bootstrap: environment variable %s=%lld is out of range (must be %lld..%lld)", name, v, lo, hi);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  *out = static_cast<int>(v);
  return GSHMEM_SUCCESS;
}

struct Launcher {
  const char* name;
  const char* rank_var;
  const char* size_var;
  const char* local_rank_var;
  const char* local_size_var;
  std::vector<const char*> required;  // besides rank_var and size_var
};

const std::vector<Launcher>& launchers() {
  static const std::vector<Launcher> l = {
      {"gshmrun", "GSHMEM_RANK", "GSHMEM_SIZE", "GSHMEM_LOCAL_RANK", "GSHMEM_LOCAL_SIZE", {"GSHMEM_UNIQUEID"}},
      {"torchrun", "RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", {"MASTER_ADDR", "MASTER_PORT"}},
      {"openmpi",
       "OMPI_COMM_WORLD_RANK",
       "OMPI_COMM_WORLD_SIZE",
       "OMPI_COMM_WORLD_LOCAL_RANK",
       "OMPI_COMM_WORLD_LOCAL_SIZE",
       {}},
      {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", nullptr, {"SLURM_JOB_ID"}},
  };
  return l;
}

// Slurm's alternative spellings.
const char* slurm_get(Getenv g, const char* name) {
  if (const char* v = get(g, name)) return v;
  if (!strcmp(name, "SLURM_NTASKS")) return get(g, "SLURM_NPROCS");
  if (!strcmp(name, "SLURM_JOB_ID")) return get(g, "SLURM_JOBID");
  if (!strcmp(name, "SLURM_STEP_ID")) return get(g, "SLURM_STEPID");
  return nullptr;
}

const char* launcher_get(const Launcher& l, Getenv g, const char* name) {
  return !strcmp(l.name, "slurm") ? slurm_get(g, name) : get(g, name);
}

// A positive integer variable, or 0 when unset or not a positive integer.
long long positive_var(Getenv g, const char* name) {
  long long v = 0;
  return config::parse_int(get(g, name), &v) && v > 0 ? v : 0;
}

// Tasks per node from a Slurm tasks-per-node list ("4", "4(x2)", "2,1", "3(x2),2"),
// when it is the same on every node and fits a job of `size` tasks (tasks x
// nodes == size when the list says how many nodes), else -1.
int uniform_tasks_per_node(const char* t, int size) {
  char* end = nullptr;
  errno = 0;
  long v = strtol(t, &end, 10);
  if (errno || end == t || v <= 0 || v > size) return -1;
  if (*end == '\0') return size % v == 0 ? static_cast<int>(v) : -1;
  if (end[0] != '(' || end[1] != 'x') return -1;  // several entries: not uniform
  const char* n_text = end + 2;
  long nodes = strtol(n_text, &end, 10);
  if (end == n_text || strcmp(end, ")") != 0 || nodes <= 0 || v * nodes != size) return -1;
  return static_cast<int>(v);
}

// Slurm does not export a plain "tasks on this node". The step's own variables
// come first: SLURM_STEP_NUM_NODES (1: all tasks are local) and
// SLURM_STEP_TASKS_PER_NODE. Only without them are the allocation's
// SLURM_NTASKS_PER_NODE, SLURM_NNODES / SLURM_JOB_NUM_NODES and
// SLURM_TASKS_PER_NODE consulted; those are inherited by every step, so
// `srun -n 2` inside an allocation made with --ntasks-per-node=8 still sees 8.
// A value that does not fit this job of `size` tasks (or a step whose
// SLURM_STEP_NUM_TASKS is not `size`) means "unknown" (-1), logged at INFO,
// never an error: the value is only a hint (whether the job is on one node,
// the range of SLURM_LOCALID); gshmem_init finds the PEs on each node from
// their host names itself.
void slurm_local_size(Getenv g, int size, int* out) {
  *out = -1;
  auto unfit = [&](const char* name) {
    GSHMEM_LOG_INFO("bootstrap: ignoring %s=\"%s\": it does not fit this Slurm step of %d tasks", name, get(g, name),
                    size);
  };
  // The step's variables.
  if (get(g, "SLURM_STEP_NUM_TASKS") && positive_var(g, "SLURM_STEP_NUM_TASKS") != size) {
    unfit("SLURM_STEP_NUM_TASKS");  // these variables describe another step
    return;
  }
  if (get(g, "SLURM_STEP_NUM_NODES")) {
    const long long nodes = positive_var(g, "SLURM_STEP_NUM_NODES");
    if (nodes == 1) {
      *out = size;
      return;
    }
    if (nodes < 1 || nodes > size) unfit("SLURM_STEP_NUM_NODES");
  }
  if (const char* t = get(g, "SLURM_STEP_TASKS_PER_NODE")) {
    *out = uniform_tasks_per_node(t, size);
    if (*out < 0 && !strchr(t, ',')) unfit("SLURM_STEP_TASKS_PER_NODE");
    return;  // the step said how its tasks are spread (perhaps unevenly): that is the answer
  }
  if (get(g, "SLURM_STEP_NUM_NODES")) return;  // several nodes; tasks per node not given
  // Older Slurm, or step variables missing: the allocation's (and srun's) variables.
  if (get(g, "SLURM_NTASKS_PER_NODE")) {
    const long long v = positive_var(g, "SLURM_NTASKS_PER_NODE");
    if (v >= 1 && v <= size && size % v == 0) {
      *out = static_cast<int>(v);
      return;
    }
    unfit("SLURM_NTASKS_PER_NODE");
  }
  for (const char* nodes_var : {"SLURM_NNODES", "SLURM_JOB_NUM_NODES"}) {
    if (!get(g, nodes_var)) continue;
    const long long nodes = positive_var(g, nodes_var);
    if (nodes == 1) {
      *out = size;
      return;
    }
    if (nodes < 1 || nodes > size) unfit(nodes_var);
    break;
  }
  if (const char* t = get(g, "SLURM_TASKS_PER_NODE")) {
    *out = uniform_tasks_per_node(t, size);
    if (*out < 0 && !strchr(t, ',')) unfit("SLURM_TASKS_PER_NODE");
  }
}

// GSHMEM_BOOTSTRAP_PORT: 0 when unset or 0.
Status port_override(Getenv g, int* port) {
  *port = 0;
  if (!get(g, "GSHMEM_BOOTSTRAP_PORT")) return GSHMEM_SUCCESS;
  return int_var(g, "GSHMEM_BOOTSTRAP_PORT", 0, 65535, port);
}

// Rendezvous for torchrun: MASTER_ADDR : (GSHMEM_BOOTSTRAP_PORT or MASTER_PORT+1).
Status torchrun_id(Getenv g, EnvInfo* out) {
  const char* addr = get(g, "MASTER_ADDR");
  int master_port = 0, port = 0;
  GSHMEM_TRY(int_var(g, "MASTER_PORT", 1, 65535, &master_port));
  GSHMEM_TRY(port_override(g, &port));
  if (port == 0) {
    if (master_port == 65535) {
      GSHMEM_LOG_ERROR(
          "bootstrap: MASTER_PORT=65535 leaves no room for the gshmem rendezvous on "
          "MASTER_PORT+1; set GSHMEM_BOOTSTRAP_PORT to a free port");
      return GSHMEM_ERROR_INVALID_VALUE;
    }
    port = master_port + 1;
  }
  const char* run = get(g, "TORCHELASTIC_RUN_ID");
  std::string job = std::string("torchrun|") + (run ? run : "") + "|" + addr + "|" + std::to_string(master_port);
  Status st = make_uniqueid(addr, static_cast<uint16_t>(port), hash64("secret|" + job), hash64("job|" + job), &out->id);
  if (st != GSHMEM_SUCCESS)
    GSHMEM_LOG_ERROR(
        "bootstrap: MASTER_ADDR=\"%s\" cannot be used as the rendezvous address "
        "(see the previous message)",
        addr);
  return st;
}

// Where rank 0 listens when the job spans nodes and no address was given: a
// launcher that can tell (Slurm: the first host of the step's nodelist) fills
// `host` and `origin` (for messages); one that cannot leaves `host` empty and
// says in `advice` what the user must do. An error (e.g. a malformed nodelist)
// has been reported when it returns non-success.
struct MultiNodeHost {
  std::string host;
  std::string origin;  // "the first host of SLURM_STEP_NODELIST=\"...\""
  std::string advice;  // when host is empty: how to give the address
};

// Slurm: task 0 runs on the first host of the step's nodelist under the block,
// cyclic and plane distributions (every one but arbitrary, whose order comes
// from SLURM_HOSTFILE). SLURM_STEP_NODELIST is the step's; SLURM_NODELIST is
// set to it by srun too; SLURM_JOB_NODELIST is the allocation's, whose first
// host is the step's only when the step uses all of it (rank 0 checks below).
Status slurm_multi_node_host(Getenv g, const EnvInfo& info, MultiNodeHost* out) {
  const char* set_addr =
      "set GSHMEM_BOOTSTRAP_ADDR to the host of task 0 (e.g. srun --export=ALL,GSHMEM_BOOTSTRAP_ADDR=<host>)";
  const char* dist = get(g, "SLURM_DISTRIBUTION");
  const char* hostfile = get(g, "SLURM_HOSTFILE");
  if ((dist && !strncmp(dist, "arbitrary", 9)) || hostfile) {
    GSHMEM_LOG_ERROR(
        "bootstrap: Slurm step with %s: task 0 runs on the host the hostfile names first, which "
        "gshmem cannot know from the nodelist; %s",
        hostfile ? (std::string("SLURM_HOSTFILE=") + hostfile).c_str() : "--distribution=arbitrary", set_addr);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const char* var = nullptr;
  for (const char* v : {"SLURM_STEP_NODELIST", "SLURM_NODELIST", "SLURM_JOB_NODELIST"})
    if (get(g, v)) {
      var = v;
      break;
    }
  if (!var) {
    out->advice = std::string("no SLURM_STEP_NODELIST, SLURM_NODELIST or SLURM_JOB_NODELIST: ") + set_addr;
    return GSHMEM_SUCCESS;
  }
  std::string err;
  if (!first_host(get(g, var), &out->host, &err)) {
    GSHMEM_LOG_ERROR("bootstrap: %s is not a Slurm host list: %s; %s", var, err.c_str(), set_addr);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  out->origin = std::string("the first host of ") + var + "=\"" + get(g, var) + "\"";
  // Task 0 knows where it runs: a step laid out otherwise than assumed fails here, at
  // once, rather than every other task waiting for a rendezvous nobody listens to.
  const char* me = get(g, "SLURMD_NODENAME");
  if (info.rank == 0 && me && out->host != me) {
    GSHMEM_LOG_ERROR(
        "bootstrap: task 0 runs on %s, not on %s (a custom task layout?); set "
        "GSHMEM_BOOTSTRAP_ADDR=%s for every task (e.g. srun --export=ALL,GSHMEM_BOOTSTRAP_ADDR=%s)",
        me, out->origin.c_str(), me, me);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

// Rendezvous for Open MPI / Slurm: address from GSHMEM_BOOTSTRAP_ADDR or
// MASTER_ADDR, else loopback for a single-node job, else the launcher's own
// answer (`multi`); port and secret from the job id.
Status jobid_id(Getenv g, const char* launcher, const std::string& jobid, const char* jobid_vars,
                const char* local_size_var, const MultiNodeHost& multi, bool defer_missing_address, EnvInfo* out) {
  const char* addr_var = get(g, "GSHMEM_BOOTSTRAP_ADDR") ? "GSHMEM_BOOTSTRAP_ADDR" : "MASTER_ADDR";
  const char* addr = get(g, addr_var);
  std::string origin;
  if (addr) {
    origin = addr_var;
  } else if (out->local_size == out->size) {
    addr = "127.0.0.1";
  } else if (!multi.host.empty()) {
    addr = multi.host.c_str();
    origin = multi.origin;
  } else {
    out->address_missing = true;
    out->address_error =
        std::string("bootstrap: ") + launcher + " job with " + std::to_string(out->size) + " PEs " +
        (out->local_size < 0 ? std::string("and no ") + local_size_var + ": cannot tell whether it runs on one node"
                             : "and " + std::to_string(out->local_size) + " on this node: it spans several nodes") +
        ": " + multi.advice;
    if (!defer_missing_address) GSHMEM_LOG_ERROR("%s", out->address_error.c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  int port = 0;
  GSHMEM_TRY(port_override(g, &port));
  if (jobid.empty() && port == 0) {
    GSHMEM_LOG_ERROR(
        "bootstrap: %s job id not found (%s unset): set GSHMEM_BOOTSTRAP_PORT to a "
        "free port so every PE finds the rendezvous",
        launcher, jobid_vars);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::string job = std::string(launcher) + "|" + jobid;
  // Derived ports lie in kDerivedPortLo .. kDerivedPortLo + kDerivedPorts - 1
  // (16384..32767): below Linux's default ephemeral range (32768..60999), from
  // which the kernel picks the local port of every outgoing connection, so
  // another connection on rank 0's host cannot be holding ours by chance (and
  // a PE retrying before rank 0 listens cannot connect to itself).
  if (port == 0) port = kDerivedPortLo + static_cast<int>(hash64("port|" + job) % kDerivedPorts);
  if (jobid.empty()) job += "|" + std::string(addr) + "|" + std::to_string(port);
  Status st = make_uniqueid(addr, static_cast<uint16_t>(port), hash64("secret|" + job), hash64("job|" + job), &out->id);
  if (st != GSHMEM_SUCCESS && !origin.empty())
    GSHMEM_LOG_ERROR(
        "bootstrap: \"%s\" (%s) cannot be used as the rendezvous address (see the previous message); "
        "set GSHMEM_BOOTSTRAP_ADDR to an address of rank 0's host that every PE can resolve",
        addr, origin.c_str());
  else if (st == GSHMEM_SUCCESS && addr == multi.host.c_str() && out->rank == 0)
    GSHMEM_LOG_INFO("bootstrap: rendezvous on %s:%d (%s)", addr, port, origin.c_str());
  return st;
}

// GSHMEM_BOOTSTRAP_SECRET (any string, the same on every PE): the job's secret is mixed with it,
// so that only processes given it can join, even where the launcher's own secret is derived
// from variables anyone can read. Without it, such a job is protected against accidents only:
// rank 0 says so once, at INFO (not a WARN: for one user's own machine it is the usual case).
void apply_user_secret(const Launcher& l, Getenv g, EnvInfo* out) {
  UniqueIdData d = uniqueid_data(out->id);
  if (const char* user = get(g, "GSHMEM_BOOTSTRAP_SECRET")) {
    d.secret = tcp::secret_from_text(user, d.secret);
    tcp::store_uniqueid(d, &out->id);
    return;
  }
  static std::atomic<bool> said{false};
  if (strcmp(l.name, "gshmrun") != 0 && out->rank == 0 && !said.exchange(true))
    GSHMEM_LOG_INFO(
        "bootstrap: the job secret is derived from %s's variables, which other users of these hosts can "
        "compute: it keeps other jobs out by accident, not other local users. To keep them out, set "
        "GSHMEM_BOOTSTRAP_SECRET to the same random string on every PE (docs/reliability.md)",
        l.name);
}

Status fill(const Launcher& l, Getenv g, bool defer, EnvInfo* out) {
  auto lget = [&](const char* n) { return launcher_get(l, g, n); };
  const char* size_name = lget(l.size_var) == get(g, l.size_var) ? l.size_var : "SLURM_NPROCS";
  out->launcher = l.name;
  GSHMEM_TRY(int_var(g, size_name, 1, 1 << 30, &out->size));
  long long rank = 0;
  const char* rank_text = lget(l.rank_var);
  if (!config::parse_int(rank_text, &rank)) {
    GSHMEM_LOG_ERROR("bootstrap: environment variable %s=\"%s\" is not an integer", l.rank_var,
                     rank_text ? rank_text : "");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (rank < 0 || rank >= out->size) {
    GSHMEM_LOG_ERROR("bootstrap: %s=%lld is not a valid rank for %s=%d (must be 0..%d)", l.rank_var, rank, size_name,
                     out->size, out->size - 1);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  out->rank = static_cast<int>(rank);
  out->local_rank = out->local_size = -1;
  if (l.local_size_var && get(g, l.local_size_var))
    GSHMEM_TRY(int_var(g, l.local_size_var, 1, out->size, &out->local_size));
  else if (!strcmp(l.name, "slurm"))
    slurm_local_size(g, out->size, &out->local_size);
  if (get(g, l.local_rank_var)) {
    int hi = out->local_size > 0 ? out->local_size - 1 : out->rank;
    GSHMEM_TRY(int_var(g, l.local_rank_var, 0, hi, &out->local_rank));
  }
  if (!strcmp(l.name, "gshmrun")) {
    Status st = decode_uniqueid(get(g, "GSHMEM_UNIQUEID"), &out->id);
    if (st != GSHMEM_SUCCESS)
      GSHMEM_LOG_ERROR(
          "bootstrap: GSHMEM_UNIQUEID is malformed (see the previous message); it is "
          "set by gshmrun: unset it unless launching with gshmrun");
    return st;
  }
  if (!strcmp(l.name, "torchrun")) return torchrun_id(g, out);
  if (!strcmp(l.name, "openmpi")) {
    const char* jobid = get(g, "OMPI_MCA_ess_base_jobid");
    if (!jobid) jobid = get(g, "OMPI_MCA_orte_hnp_uri");
    if (!jobid) jobid = get(g, "PMIX_NAMESPACE");
    // Open MPI 4.1 does not tell a task where rank 0 runs (only mpirun's own address, in
    // OMPI_MCA_orte_hnp_uri, which need not be a host of the job): see docs/launch.md.
    MultiNodeHost multi;
    multi.advice =
        "Open MPI does not tell a process where rank 0 runs, so pass the host of rank 0 (the first host "
        "of -H or of the hostfile, for the default mapping) to every process: mpirun -x "
        "GSHMEM_BOOTSTRAP_ADDR=<host of rank 0> ...; or call MPI_Init before gshmem_init, which then "
        "sends the rendezvous through MPI_COMM_WORLD (docs/launch.md)";
    return jobid_id(g, "Open MPI", jobid ? jobid : "",
                    "OMPI_MCA_ess_base_jobid, OMPI_MCA_orte_hnp_uri and PMIX_NAMESPACE", l.local_size_var, multi, defer,
                    out);
  }
  std::string jobid = std::string(slurm_get(g, "SLURM_JOB_ID")) + "." + slurm_get(g, "SLURM_STEP_ID");
  MultiNodeHost multi;
  if (!get(g, "GSHMEM_BOOTSTRAP_ADDR") && !get(g, "MASTER_ADDR") && out->local_size != out->size)
    GSHMEM_TRY(slurm_multi_node_host(g, *out, &multi));
  return jobid_id(g, "Slurm", jobid, "SLURM_JOB_ID", "usable SLURM_STEP_NUM_NODES / SLURM_STEP_TASKS_PER_NODE", multi,
                  defer, out);
}

// Launchers gshmem does not read: MPICH / Intel MPI hydra (PMI_*, MPI_LOCAL*),
// MVAPICH2 (MV2_COMM_WORLD_*), PMIx launchers without Open MPI (PMIX_RANK).
// When their variables say this process is one of several, running it as a
// 1-PE job would silently turn one job into many: an error, as for a launcher
// whose variables are only partly set. One process (or only a rank 0 and no
// size) is fine.
Status check_foreign_launcher(Getenv g) {
  static const struct {
    const char* name;
    bool is_size;  // else a rank: several processes when > 0
  } kVars[] = {{"PMI_SIZE", true},        {"PMI_RANK", false},           {"PMIX_SIZE", true},
               {"PMIX_RANK", false},      {"MV2_COMM_WORLD_SIZE", true}, {"MV2_COMM_WORLD_RANK", false},
               {"MPI_LOCALNRANKS", true}, {"MPI_LOCALRANKID", false}};
  std::string found;
  bool several = false;
  for (const auto& v : kVars) {
    const char* text = get(g, v.name);
    if (!text) continue;
    found += (found.empty() ? "" : ", ") + std::string(v.name) + "=" + text;
    long long n = 0;
    if (config::parse_int(text, &n) && n > (v.is_size ? 1 : 0)) several = true;
  }
  if (!several) return GSHMEM_SUCCESS;
  GSHMEM_LOG_ERROR(
      "bootstrap: %s: this process is one of several started by a launcher gshmem does "
      "not read (MPICH or Intel MPI hydra, MVAPICH2, a PMIx launcher), and would run as "
      "a job of its own with 1 PE. Launch with gshmrun, torchrun, srun, or Open MPI's "
      "mpirun; or initialise with a unique id (gshmemx_get_uniqueid on one process, "
      "sent to the others e.g. with MPI_Bcast, then gshmemx_init_attr with "
      "GSHMEMX_INIT_WITH_UNIQUEID). To run each process as a separate 1-PE job, unset "
      "these variables",
      found.c_str());
  return GSHMEM_ERROR_INVALID_VALUE;
}

}  // namespace

Status detect_from_env(EnvInfo* out, const char* (*getenv_fn)(const char*), bool defer_missing_address) {
  if (!out) {
    GSHMEM_LOG_ERROR("bootstrap: detect_from_env: output pointer is NULL");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  Getenv g = getenv_fn ? getenv_fn : system_getenv;
  *out = EnvInfo{};
  memset(&out->id, 0, sizeof(out->id));
  std::string incomplete;  // first launcher whose variables are only partly set
  for (const Launcher& l : launchers()) {
    std::vector<const char*> vars{l.rank_var, l.size_var};
    vars.insert(vars.end(), l.required.begin(), l.required.end());
    bool slurm = !strcmp(l.name, "slurm");
    bool present = launcher_get(l, g, l.rank_var) || launcher_get(l, g, l.size_var) ||
                   (!strcmp(l.name, "gshmrun") && get(g, "GSHMEM_UNIQUEID"));
    if (!present) continue;
    if (slurm && !slurm_get(g, "SLURM_STEP_ID")) {
      // A batch script (SLURM_PROCID=0, SLURM_NTASKS=n) is not a task of an srun step.
      GSHMEM_LOG_INFO(
          "bootstrap: Slurm variables without SLURM_STEP_ID (not started by srun?): "
          "not using them");
      continue;
    }
    std::string set, missing;
    for (const char* v : vars) {
      std::string& list = launcher_get(l, g, v) ? set : missing;
      list += (list.empty() ? "" : ", ") + std::string(v);
    }
    if (!missing.empty()) {
      if (incomplete.empty())
        incomplete = "bootstrap: " + set + (set.find(',') == std::string::npos ? " is" : " are") + " set but " +
                     missing + (missing.find(',') == std::string::npos ? " is" : " are") + " not: " + l.name +
                     " variables must come together (set them all or unset them)";
      continue;
    }
    if (!incomplete.empty()) GSHMEM_LOG_WARN("%s; using the %s variables instead", incomplete.c_str(), l.name);
    Status st = fill(l, g, defer_missing_address, out);
    if (st == GSHMEM_SUCCESS) apply_user_secret(l, g, out);
    if (st == GSHMEM_SUCCESS)
      GSHMEM_LOG_INFO("bootstrap: %s: PE %d of %d (local %d of %d)", l.name, out->rank, out->size, out->local_rank,
                      out->local_size);
    return st;
  }
  if (!incomplete.empty()) {
    GSHMEM_LOG_ERROR("%s", incomplete.c_str());
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  GSHMEM_TRY(check_foreign_launcher(g));
  // Single PE: no rendezvous; still give the id a job key for node-local names.
  out->launcher = "singleton";
  out->rank = 0;
  out->size = 1;
  out->local_rank = 0;
  out->local_size = 1;
  UniqueIdData d{};
  d.magic = kUniqueIdMagic;
  d.version = 1;
  d.secret = tcp::random_u64();
  d.job_key = tcp::random_u64();
  d.family = AF_INET;
  d.addr[0] = 127;
  d.addr[3] = 1;
  tcp::store_uniqueid(d, &out->id);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::bootstrap
