// SPDX-License-Identifier: BSD-3-Clause
// Host-side timing: CUDA events around batches of stream-ordered work (optionally
// replayed from a CUDA graph) and a wall clock for host-initiated operations.
// Device-side per-iteration timing (clock64 inside the kernel) is in devclock.cuh.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace perf {

struct Ctx;

// Times `reps` repetitions of `batch`, which enqueues `per_batch` operations on
// ctx.stream. Before each repetition the stream is idle and the PEs meet in a host
// barrier, so every PE starts its batch at about the same time. One sample per
// repetition: elapsed / per_batch, in microseconds.
// graph = true: `batch` is captured once into a CUDA graph (global capture mode)
// and each repetition replays it; if capturing fails (the operation did something
// a graph cannot hold), returns no samples and explains in *note.
std::vector<double> time_batches(Ctx& ctx, int reps, int per_batch, const std::function<void()>& batch, bool graph,
                                 std::string* note);

// Monotonic wall clock in microseconds.
double now_us();

}  // namespace perf
