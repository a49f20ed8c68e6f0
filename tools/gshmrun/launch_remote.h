// SPDX-License-Identifier: BSD-3-Clause
// gshmrun -H / --hostfile: starts every PE through the remote shell and
// supervises the remote shells as it does local PEs (see remote.h).
#pragma once

#include "options.h"
#include "supervise.h"

namespace gshmrun {

// opt.hosts is non-empty and opt.np <= total_slots(opt.hosts). Returns
// gshmrun's exit code (as for local PEs; 127 if the remote shell cannot run).
int launch_remote(const Options& opt, const SupervisorConfig& cfg, const char* const* inherited_env);

}  // namespace gshmrun
