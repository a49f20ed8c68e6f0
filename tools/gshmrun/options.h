// SPDX-License-Identifier: BSD-3-Clause
// gshmrun command line: the parsed options, the parser and the usage text.
// Pure functions of their inputs (no process state), so the unit tests
// (tests/unit/test_gshmrun_options.cpp) call them directly.
#pragma once

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "remote.h"

namespace gshmrun {

constexpr int kMaxPes = 4096;             // upper bound accepted for -n
constexpr long kMaxTimeoutS = 100000000;  // upper bound accepted for --timeout
constexpr double kDefaultKillGraceS = 3.0;
constexpr double kMaxKillGraceS = 3600.0;

struct Options {
  int np = 0;                                            // -n/--np; 0 = not given (use the number of visible GPUs)
  long timeout_s = 0;                                    // --timeout; 0 = no limit
  bool tag_output = false;                               // --tag-output
  int sim_nodes = 0;                                     // --sim-nodes K; 0 = not given (one node)
  std::vector<std::pair<std::string, std::string>> env;  // -x NAME=VALUE, in order
  std::vector<std::string> command;                      // program and its arguments (non-empty on success)
  std::vector<HostSlots> hosts;                          // -H; empty = this node only (or --hostfile)
  std::string hostfile;                                  // --hostfile PATH (read by main)
  std::string rsh;                                       // --rsh CMD; empty = GSHMRUN_RSH, else "ssh"
};

enum class ParseAction { run, help, version, error };

struct ParseResult {
  ParseAction action = ParseAction::error;
  std::string error;  // one line without "gshmrun: " prefix, when action == error
};

// Parses the arguments after argv[0]. Options end at "--" or at the first
// argument that is not an option; everything from there on is the command.
// --help / --version win as soon as they are seen.
ParseResult parse_options(const std::vector<std::string>& args, Options* out);

// The variables gshmrun sets for each PE itself; -x may not name them.
bool is_reserved_env(const std::string& name);
const std::vector<std::string>& reserved_env_names();

// Strict decimal parsers: the whole text must be a number in range.
bool parse_int_in_range(const char* text, long lo, long hi, long* out);
// Non-negative seconds, decimals allowed ("0.5"), at most kMaxKillGraceS.
bool parse_seconds(const char* text, double* out);

// --sim-nodes: the GSHMEM_HOSTID of PE `rank` of `np` split into `k` contiguous groups, as
// "<host>-sim<group>" (group = rank * k / np: sizes differ by at most one); "" when k is 0.
std::string sim_node_hostid(const std::string& host, int rank, int np, int k);

void print_usage(FILE* out);
const char* version_string();

}  // namespace gshmrun
