// SPDX-License-Identifier: BSD-3-Clause
// gshmrun -H / --hostfile: starts every PE through the remote shell and
// supervises the remote shells as it does local PEs (see remote.h).
#pragma once

#include "options.h"
#include "supervise.h"

namespace gshmrun {

// CUDA_DEVICE_MAX_CONNECTIONS given to PEs that have proxy peers (--sim-nodes, GSHMEM_HOSTID,
// GSHMEM_DISABLE_P2P, other hosts) unless set: the value the library asks for under MPS
// (src/host/proxy/connections.h), which it cannot set itself once the PE has started CUDA.
constexpr const char* kProxyConnections = "16";

// opt.hosts is non-empty and opt.np <= total_slots(opt.hosts). Returns
// gshmrun's exit code (as for local PEs; 127 if the remote shell cannot run).
int launch_remote(const Options& opt, const SupervisorConfig& cfg, const char* const* inherited_env);

}  // namespace gshmrun
