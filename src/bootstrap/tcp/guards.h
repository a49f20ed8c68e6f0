// SPDX-License-Identifier: BSD-3-Clause
// The checks both TCP bootstraps (the star, TcpBootstrap; the tree, TreeBootstrap) make before
// every call: not in a fork()ed child, not after finalize or an earlier failure.
#pragma once

#include <sys/types.h>

#include <string>

#include "host/core/status.h"

namespace gshmem::bootstrap::tcp {

// Fails (with the message that says why and what to do) when called in a process other than
// `owner`, the one that made PE `rank`'s connections: a child that fork()ed without exec.
Status refuse_in_forked_child(const char* what, pid_t owner, int rank);
// Fails after finalize (`closed`) or after an earlier failure (`failed`, `failed_msg`), whose
// code it returns again.
Status refuse_if_unusable(const char* what, bool closed, Status failed, const std::string& failed_msg);

}  // namespace gshmem::bootstrap::tcp
