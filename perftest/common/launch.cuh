// SPDX-License-Identifier: BSD-3-Clause
// collective_launch(kernel, ctas, threads, stream, args...): gshmemx_collective_launch
// with the argument array built from typed arguments. A launch the GPU cannot hold
// co-resident ends the process with the library's message (every PE fails alike,
// since every PE asks for the same grid).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <utility>

#include <gshmem/gshmem.h>

#include "context.h"

namespace perf {

namespace detail {
template <class Tuple, size_t... I>
int launch_tuple(const void* k, dim3 g, dim3 b, cudaStream_t s, Tuple& t, std::index_sequence<I...>) {
  void* args[] = {static_cast<void*>(&std::get<I>(t))..., nullptr};
  return gshmemx_collective_launch(k, g, b, args, 0, s);
}
}  // namespace detail

template <class... P, class... A>
void collective_launch(Ctx& ctx, void (*kernel)(P...), int ctas, int threads, A&&... args) {
  std::tuple<P...> vals(std::forward<A>(args)...);
  const int rc = detail::launch_tuple(reinterpret_cast<const void*>(kernel), dim3(ctas), dim3(threads), ctx.stream,
                                      vals, std::index_sequence_for<P...>{});
  if (rc != 0) {
    char line[384];
    snprintf(line, sizeof(line),
             "gshmem-perf: PE %d: gshmemx_collective_launch of %s (%d CTAs x %d threads) failed: %s; "
             "lower -c / -t\n",
             ctx.me, ctx.bench_name.c_str(), ctas, threads, gshmemx_status_string(rc));
    ctx.emit(stderr, line);
    exit(1);
  }
}

}  // namespace perf
