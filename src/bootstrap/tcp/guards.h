// SPDX-License-Identifier: BSD-3-Clause
// The checks both TCP bootstraps (the star, TcpBootstrap; the tree, TreeBootstrap) make before
// every call: not in a fork()ed child, not after finalize or an earlier failure; the arguments of
// their collectives.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>

#include "host/core/status.h"

namespace gshmem::bootstrap::tcp {

// Fails (with the message that says why and what to do) when called in a process other than
// `owner`, the one that made PE `rank`'s connections: a child that fork()ed without exec.
Status refuse_in_forked_child(const char* what, pid_t owner, int rank);
// Fails after finalize (`closed`) or after an earlier failure (`failed`, `failed_msg`), whose
// code it returns again.
Status refuse_if_unusable(const char* what, bool closed, Status failed, const std::string& failed_msg);
// Fails (logged) when an allgather of `bytes` a PE among `size` PEs has a NULL buffer or
// overflows size_t.
Status check_allgather_args(const void* mine, const void* all, size_t bytes, int size);
// Fails (logged) when a broadcast's root is not a PE or its buffer is NULL.
Status check_broadcast_args(const void* buf, size_t bytes, int root, int size);

}  // namespace gshmem::bootstrap::tcp
