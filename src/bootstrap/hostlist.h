// SPDX-License-Identifier: BSD-3-Clause
// Slurm's hostlist syntax (SLURM_STEP_NODELIST, SLURM_JOB_NODELIST): the
// rendezvous of an srun job on several nodes is on the first host of its step.
//
//   list   := item ("," item)*          commas inside brackets belong to the bracket
//   item   := (text | "[" ranges "]")+  several bracket groups: every combination,
//                                       the first group varying slowest
//   ranges := range ("," range)*
//   range  := N | N "-" M               decimal, N <= M; the width of N is kept
//                                       ("[08-11]" -> 08 09 10 11)
// Examples: "gpu[001-004,007],login1", "a-[1-3]-b", "r[1-2]n[01-02]".
// Written here (no libslurm): a compute node need not have Slurm's development
// files, and the job only needs the first host.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace gshmem::bootstrap {

// Expands `text` into host names, in order. At most `max_hosts` names: more is an
// error (a malformed range such as "[0-999999999]" must not exhaust memory).
// On a syntax error returns false and sets *err to what is wrong and where
// ("unbalanced '[' at offset 3 of \"gpu[1-2\""); *hosts is then unspecified.
bool expand_hostlist(const std::string& text, std::vector<std::string>* hosts, std::string* err,
                     size_t max_hosts = 1u << 20);

// The first host of `text`, after checking the whole list's syntax.
bool first_host(const std::string& text, std::string* host, std::string* err);

}  // namespace gshmem::bootstrap
