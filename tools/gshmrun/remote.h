// SPDX-License-Identifier: BSD-3-Clause
// gshmrun across hosts (-H / --hostfile): the host list, the placement of PEs
// on it, and the command each PE runs through the remote shell (--rsh, ssh by
// default). Pure functions of their inputs, so the unit tests
// (tests/unit/test_gshmrun_options.cpp) call them directly.
//
// How a remote PE starts: gshmrun runs `RSH... HOST STRING`, where STRING is a
// POSIX sh command line (what ssh hands to the remote login shell). STRING sets
// the PE's non-secret variables with `env NAME=VALUE ...` on its own command
// line; the secrets (GSHMEM_UNIQUEID, which holds the job secret, and
// GSHMEM_BOOTSTRAP_SECRET) would be visible to every user of both hosts in
// argv (ps, /proc/PID/cmdline), so they travel on the remote command's stdin
// instead: "NAME=VALUE" lines and an empty line, read by STRING before it
// starts the PE. gshmrun keeps that stdin open while the job runs; when it
// closes (gshmrun stops the job, dies, or the connection drops) a watcher left
// by STRING sends SIGTERM to the PE's process group, then SIGKILL after the
// kill grace -- so a remote PE never outlives its launcher, even where the
// remote shell would not pass on a hang-up. The watcher only signals a process
// whose environment still holds the job's GSHMRUN_PE token, never a process
// that reused the pid of a PE that already exited.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace gshmrun {

struct HostSlots {
  std::string host;
  int slots = 1;
};

// -H "a:2,b:2,c" (slots default to 1). Errors name the bad entry.
bool parse_host_list(const std::string& text, std::vector<HostSlots>* out, std::string* err);
// A hostfile: one host per line as "host", "host:N" or "host slots=N"; '#'
// starts a comment; blank lines are skipped. Errors name the line.
bool parse_hostfile(const std::string& text, std::vector<HostSlots>* out, std::string* err);

// Where PE `rank` runs: hosts filled in order, each up to its slots.
struct Placement {
  std::string host;
  int local_rank = 0;  // among the PEs of the same host name
  int local_size = 0;
};
// `np` PEs over `hosts` (np <= total slots, checked by the caller).
std::vector<Placement> place(const std::vector<HostSlots>& hosts, int np);
int total_slots(const std::vector<HostSlots>& hosts);
// The number of distinct host names among the first `np` placements.
int distinct_hosts(const std::vector<Placement>& p);

// The remote shell: --rsh, else GSHMRUN_RSH, else "ssh"; split on white space
// (no quoting: use a wrapper script for anything fancier).
std::vector<std::string> split_rsh(const std::string& text);

// 'text' for sh, with ' escaped: safe for any bytes but NUL.
std::string shell_quote(const std::string& text);

// Whether a variable is sent on stdin instead of the command line.
bool is_secret_env(const std::string& name);

struct RemoteSpec {
  std::string cwd;                                       // cd there first (if it exists)
  std::vector<std::pair<std::string, std::string>> env;  // non-secret variables
  std::vector<std::string> command;                      // program and arguments, as given
  std::string token;                                     // value of GSHMRUN_PE for this PE
  double kill_grace_s = 3;
};
// The sh command line a remote PE's shell runs (see the top of this file).
std::string remote_command(const RemoteSpec& spec);
// The stdin text with the secret variables: "NAME=VALUE\n"... then "\n".
// Returns false (and *err) if a value holds a newline or NUL.
bool secret_lines(const std::vector<std::pair<std::string, std::string>>& secrets, std::string* out, std::string* err);

}  // namespace gshmrun
