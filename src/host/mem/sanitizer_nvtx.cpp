// SPDX-License-Identifier: BSD-3-Clause
#include "sanitizer_nvtx.h"

#if __has_include(<nvtx3/nvToolsExtMem.h>)
#include <nvtx3/nvToolsExtMem.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "host/core/log.h"

namespace gshmem::mem {
namespace {

nvtxDomainHandle_t domain_of(void* d) { return static_cast<nvtxDomainHandle_t>(d); }

// NVTX_MEM_HEAP_HANDLE_NO_TOOL (-1), spelled out: the header's macro does not compile as C++.
bool no_tool(nvtxMemHeapHandle_t h) { return reinterpret_cast<intptr_t>(h) == static_cast<intptr_t>(-1); }
bool refused(nvtxMemHeapHandle_t h) { return h == nullptr || no_tool(h); }

nvtxMemHeapHandle_t register_pool(nvtxDomainHandle_t d, const char* base, uint64_t extent) {
  nvtxMemVirtualRangeDesc_t range = {};
  range.ptr = base;
  range.size = extent;
  nvtxMemHeapDesc_t desc = {};
  desc.extCompatID = NVTX_EXT_COMPATID_MEM;
  desc.structSize = sizeof(desc);
  desc.usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR;
  desc.type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
  desc.typeSpecificDescSize = sizeof(range);
  desc.typeSpecificDesc = &range;
  return nvtxMemHeapRegister(d, &desc);
}

}  // namespace

bool SanitizerHeap::attach(const std::vector<char*>& bases, uint64_t extent,
                           const std::vector<gshmemi_live_range>& live) {
  detach();
  // NULL is NVTX's global domain, valid for the memory calls: a tool may implement the memory
  // extension without domains (compute-sanitizer's answer to nvtxDomainCreateA is not documented),
  // so only the pools' answer says whether a tool listens.
  domain_ = nvtxDomainCreateA("gshmem");
  bases_ = bases;
  attached_ = true;  // for register_pools and detach
  if (register_pools(extent) == 0) {
    if (domain_ != nullptr)
      GSHMEM_LOG_INFO("NVTX: a tool is attached but took no pool for the symmetric heap; not describing it");
    detach();  // usually no tool at all: NVTX answered every call with nothing
    return false;
  }
  register_ranges(live.data(), live.size());
  GSHMEM_LOG_INFO("NVTX: the symmetric heap's windows are sub-allocator pools of %llu bytes, %zu live ranges",
                  static_cast<unsigned long long>(extent), live.size());
  return true;
}

void SanitizerHeap::decline_vmm() {
  // Whether a tool is attached: it made our domain, or it named itself to NVTX's loader.
  nvtxDomainHandle_t d = nvtxDomainCreateA("gshmem");
  if (d != nullptr) nvtxDomainDestroy(d);
  if (d == nullptr && std::getenv("NVTX_INJECTION64_PATH") == nullptr) return;
  GSHMEM_LOG_INFO(
      "NVTX: a tool is attached; the symmetric heap (cuMemMap'd windows) is not described to it, since "
      "compute-sanitizer refuses such memory as NVTX pools. For memcheck to check accesses between the "
      "heap's allocations, run with GSHMEM_DISABLE_VMM=1 (a cudaMalloc'd heap it takes)");
}

int SanitizerHeap::register_pools(uint64_t extent) {
  pools_.assign(bases_.size(), nullptr);
  if (extent == 0) return 0;
  int taken = 0;
  for (size_t pe = 0; pe < bases_.size(); ++pe) {
    if (bases_[pe] == nullptr) continue;
    nvtxMemHeapHandle_t h = register_pool(domain_of(domain_), bases_[pe], extent);
    if (refused(h)) {
      // Without a tool NVTX answers NO_TOOL to every call; a tool may answer it for a pool it
      // refuses. A tool that made our domain is certainly there: only then is a refusal news.
      if (domain_ == nullptr && no_tool(h)) continue;
      GSHMEM_LOG_INFO(
          "NVTX: the tool refused PE %zu's heap window [%p, +%llu bytes) as a pool; its accesses are "
          "checked against the heap's mapping only",
          pe, static_cast<const void*>(bases_[pe]), static_cast<unsigned long long>(extent));
      continue;
    }
    pools_[pe] = h;
    ++taken;
  }
  return taken;
}

void SanitizerHeap::register_ranges(const gshmemi_live_range* r, size_t n) {
  if (!active() || n == 0) return;
  std::vector<nvtxMemVirtualRangeDesc_t> descs(n);
  std::vector<std::string> names(n);
  std::vector<nvtxMemRegionNameDesc_t> labels(n);
  for (size_t pe = 0; pe < bases_.size(); ++pe) {
    if (pools_[pe] == nullptr) continue;
    for (size_t i = 0; i < n; ++i) {
      descs[i].ptr = bases_[pe] + r[i].offset;
      descs[i].size = r[i].bytes;
    }
    nvtxMemRegionsRegisterBatch_t batch = {};
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof(batch);
    batch.regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS;
    batch.heap = static_cast<nvtxMemHeapHandle_t>(pools_[pe]);
    batch.regionCount = n;
    batch.regionDescElementSize = sizeof(nvtxMemVirtualRangeDesc_t);
    batch.regionDescElements = descs.data();
    nvtxMemRegionsRegister(domain_of(domain_), &batch);
    // Names, so that a report on the region says whose heap and which allocation it is.
    for (size_t i = 0; i < n; ++i) {
      char buf[96];
      snprintf(buf, sizeof(buf), "gshmem PE %zu heap +0x%llx (%llu bytes)", pe,
               static_cast<unsigned long long>(r[i].offset), static_cast<unsigned long long>(r[i].bytes));
      names[i] = buf;
      labels[i] = {};
      labels[i].regionRefType = NVTX_MEM_REGION_REF_TYPE_POINTER;
      labels[i].nameType = NVTX_MESSAGE_TYPE_ASCII;
      labels[i].region.pointer = descs[i].ptr;
      labels[i].name.ascii = names[i].c_str();
    }
    nvtxMemRegionsNameBatch_t named = {};
    named.extCompatID = NVTX_EXT_COMPATID_MEM;
    named.structSize = sizeof(named);
    named.regionCount = n;
    named.regionElementSize = sizeof(nvtxMemRegionNameDesc_t);
    named.regionElements = labels.data();
    nvtxMemRegionsName(domain_of(domain_), &named);
  }
}

void SanitizerHeap::resize(uint64_t extent, const std::vector<gshmemi_live_range>& live) {
  if (!active()) return;
  for (size_t pe = 0; pe < pools_.size(); ++pe)
    if (pools_[pe] != nullptr) nvtxMemHeapUnregister(domain_of(domain_), static_cast<nvtxMemHeapHandle_t>(pools_[pe]));
  register_pools(extent);
  register_ranges(live.data(), live.size());
}

void SanitizerHeap::add(const gshmemi_live_range& r) { register_ranges(&r, 1); }

void SanitizerHeap::remove(uint64_t offset) {
  if (!active()) return;
  for (size_t pe = 0; pe < bases_.size(); ++pe) {
    if (pools_[pe] == nullptr) continue;
    nvtxMemRegionRef_t ref;
    ref.pointer = bases_[pe] + offset;
    nvtxMemRegionsUnregisterBatch_t batch = {};
    batch.extCompatID = NVTX_EXT_COMPATID_MEM;
    batch.structSize = sizeof(batch);
    batch.refType = NVTX_MEM_REGION_REF_TYPE_POINTER;
    batch.refCount = 1;
    batch.refElementSize = sizeof(ref);
    batch.refElements = &ref;
    nvtxMemRegionsUnregister(domain_of(domain_), &batch);
  }
}

void SanitizerHeap::detach() {
  if (!attached_) return;
  // Unregistering a pool drops its regions too.
  for (void* p : pools_)
    if (p != nullptr) nvtxMemHeapUnregister(domain_of(domain_), static_cast<nvtxMemHeapHandle_t>(p));
  if (domain_ != nullptr) nvtxDomainDestroy(domain_of(domain_));
  domain_ = nullptr;
  attached_ = false;
  pools_.clear();
  bases_.clear();
}

}  // namespace gshmem::mem

#else  // a CUDA toolkit without the NVTX memory API (older than 12): the heap is not described

#include "host/core/log.h"

namespace gshmem::mem {

bool SanitizerHeap::attach(const std::vector<char*>&, uint64_t, const std::vector<gshmemi_live_range>&) {
  GSHMEM_LOG_INFO("NVTX: built without nvtx3/nvToolsExtMem.h; the heap is not described to compute-sanitizer");
  return false;
}
void SanitizerHeap::resize(uint64_t, const std::vector<gshmemi_live_range>&) {}
void SanitizerHeap::add(const gshmemi_live_range&) {}
void SanitizerHeap::remove(uint64_t) {}
void SanitizerHeap::detach() {}
void SanitizerHeap::decline_vmm() {}
int SanitizerHeap::register_pools(uint64_t) { return 0; }
void SanitizerHeap::register_ranges(const gshmemi_live_range*, size_t) {}

}  // namespace gshmem::mem

#endif
