// SPDX-License-Identifier: BSD-3-Clause
// Number of GPUs the CUDA driver shows this user (CUDA_VISIBLE_DEVICES applies),
// used as the default for -n.
#pragma once

#include <string>

namespace gshmrun {

// Returns the device count (0 or more), or -1 when it cannot be known; *why
// then (or for 0) says what happened ("libcuda.so.1 not found: ...",
// "cuInit failed: CUDA_ERROR_NO_DEVICE"). The driver is loaded in a short-lived
// child process, so gshmrun itself never starts driver threads.
int count_visible_gpus(std::string* why);

}  // namespace gshmrun
