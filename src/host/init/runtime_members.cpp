// SPDX-License-Identifier: BSD-3-Clause
// Runtime's constructor and destructor. host/core/runtime.h only names the bootstrap, the
// heap, the allocator, the live ranges and the proxy (core includes nothing above it, src/README.md); here, above them
// all, their types are complete.
#include "bootstrap/bootstrap.h"
#include "host/core/runtime.h"
#include "host/mem/allocator.h"
#include "host/mem/heap.h"
#include "host/mem/live_track.h"
#include "host/proxy/proxy.h"

namespace gshmem {

Runtime::Runtime() : alloc(std::make_unique<mem::Allocator>()), live(std::make_unique<mem::LiveTracker>()) {}
Runtime::~Runtime() = default;

}  // namespace gshmem
