// SPDX-License-Identifier: BSD-3-Clause
// What a tool is told about the heap (host/mem/sanitizer_nvtx.h): a fake NVTX tool, linked into
// this test by NVTX's static injection (a strong InitializeInjectionNvtx2_fnptr and
// InitializeInjectionNvtxExtension_fnptr, as nvtx3/nvtxDetail/nvtxInit.h describes), records the
// pools and regions the way compute-sanitizer would be given them: one sub-allocator pool of the
// heap's extent per mapped window, every live range a named region of each, inside its pool;
// add/remove in every window; a new extent re-registers the pools with the live ranges; a pool
// the tool refuses gets no regions; detach leaves nothing registered. No GPU: the windows are
// host buffers (the tool only records addresses).
#define NVTX_NO_IMPL 1  // this file is the tool: NVTX's types only (sanitizer_nvtx.cpp has the loader)
#include <nvtx3/nvToolsExtMem.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "host/mem/sanitizer_nvtx.h"

using gshmem::mem::SanitizerHeap;

namespace {

struct Pool {
  const char* base;
  size_t size;
  bool live;
};
struct Region {
  size_t size;
  size_t pool;  // index in pools
  std::string name;
};

struct Tool {
  int domains_created = 0, domains_destroyed = 0;
  std::vector<Pool> pools;
  std::map<const void*, Region> regions;
  int bad_pool_desc = 0, outside_pool = 0, duplicate = 0, unknown_unregister = 0, unknown_name = 0;
  const char* refuse_base = nullptr;  // a pool at this base is refused (NVTX_MEM_HEAP_HANDLE_NO_TOOL)
  bool no_domains = false;            // nvtxDomainCreateA answers NULL (a tool of the memory calls only)
  int null_domain_calls = 0;          // memory calls made in NVTX's global domain (NULL)
  void reset() { *this = Tool(); }
  size_t live_pools() const {
    size_t n = 0;
    for (const Pool& p : pools) n += p.live;
    return n;
  }
};
Tool tool;
int domain_token;

nvtxMemHeapHandle_t handle_of(size_t i) { return reinterpret_cast<nvtxMemHeapHandle_t>(i + 1); }
size_t index_of(nvtxMemHeapHandle_t h) { return reinterpret_cast<uintptr_t>(h) - 1; }

nvtxDomainHandle_t NVTX_API fake_domain_create(const char*) {
  if (tool.no_domains) return nullptr;
  ++tool.domains_created;
  return reinterpret_cast<nvtxDomainHandle_t>(&domain_token);
}
void NVTX_API fake_domain_destroy(nvtxDomainHandle_t) { ++tool.domains_destroyed; }

nvtxMemHeapHandle_t NVTX_API fake_heap_register(nvtxDomainHandle_t dom, nvtxMemHeapDesc_t const* d) {
  tool.null_domain_calls += dom == nullptr;
  if (d->extCompatID != NVTX_EXT_COMPATID_MEM || d->structSize != sizeof(*d) ||
      d->usage != NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR || d->type != NVTX_MEM_TYPE_VIRTUAL_ADDRESS ||
      d->typeSpecificDescSize != sizeof(nvtxMemVirtualRangeDesc_t)) {
    ++tool.bad_pool_desc;
    return nullptr;
  }
  const auto* r = static_cast<const nvtxMemVirtualRangeDesc_t*>(d->typeSpecificDesc);
  if (r->ptr == tool.refuse_base) return reinterpret_cast<nvtxMemHeapHandle_t>(static_cast<intptr_t>(-1));
  tool.pools.push_back(Pool{static_cast<const char*>(r->ptr), r->size, true});
  return handle_of(tool.pools.size() - 1);
}

void NVTX_API fake_heap_unregister(nvtxDomainHandle_t, nvtxMemHeapHandle_t h) {
  const size_t i = index_of(h);
  if (i >= tool.pools.size()) return;
  tool.pools[i].live = false;
  for (auto it = tool.regions.begin(); it != tool.regions.end();)  // a pool's regions go with it
    it = it->second.pool == i ? tool.regions.erase(it) : std::next(it);
}

void NVTX_API fake_regions_register(nvtxDomainHandle_t, nvtxMemRegionsRegisterBatch_t const* b) {
  const size_t i = index_of(b->heap);
  const auto* d = static_cast<const nvtxMemVirtualRangeDesc_t*>(b->regionDescElements);
  for (size_t k = 0; k < b->regionCount; ++k) {
    const char* p = static_cast<const char*>(d[k].ptr);
    const Pool& pool = tool.pools.at(i);
    if (!pool.live || p < pool.base || p + d[k].size > pool.base + pool.size) ++tool.outside_pool;
    if (!tool.regions.emplace(p, Region{d[k].size, i, ""}).second) ++tool.duplicate;
  }
}

void NVTX_API fake_regions_unregister(nvtxDomainHandle_t, nvtxMemRegionsUnregisterBatch_t const* b) {
  for (size_t k = 0; k < b->refCount; ++k)
    if (tool.regions.erase(b->refElements[k].pointer) == 0) ++tool.unknown_unregister;
}

void NVTX_API fake_regions_name(nvtxDomainHandle_t, nvtxMemRegionsNameBatch_t const* b) {
  for (size_t k = 0; k < b->regionCount; ++k) {
    auto it = tool.regions.find(b->regionElements[k].region.pointer);
    if (it == tool.regions.end()) {
      ++tool.unknown_name;
      continue;
    }
    it->second.name = b->regionElements[k].name.ascii;
  }
}

int NVTX_API fake_init(NvtxGetExportTableFunc_t get) {
  const auto* cb = static_cast<const NvtxExportTableCallbacks*>(get(NVTX_ETID_CALLBACKS));
  NvtxFunctionTable t = nullptr;
  unsigned int n = 0;
  if (cb == nullptr || !cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n) || n <= NVTX_CBID_CORE2_DomainDestroy)
    return 0;
  *t[NVTX_CBID_CORE2_DomainCreateA] = reinterpret_cast<NvtxFunctionPointer>(fake_domain_create);
  *t[NVTX_CBID_CORE2_DomainDestroy] = reinterpret_cast<NvtxFunctionPointer>(fake_domain_destroy);
  return 1;
}

int NVTX_API fake_ext_init(nvtxExtModuleInfo_t* m) {
  if (m->moduleId != NVTX_EXT_MODULEID_MEM || m->segmentsCount < 1) return 0;
  intptr_t* s = m->segments[0].functionSlots;
  s[NVTX3EXT_CBID_nvtxMemHeapRegister] = reinterpret_cast<intptr_t>(fake_heap_register);
  s[NVTX3EXT_CBID_nvtxMemHeapUnregister] = reinterpret_cast<intptr_t>(fake_heap_unregister);
  s[NVTX3EXT_CBID_nvtxMemRegionsRegister] = reinterpret_cast<intptr_t>(fake_regions_register);
  s[NVTX3EXT_CBID_nvtxMemRegionsUnregister] = reinterpret_cast<intptr_t>(fake_regions_unregister);
  s[NVTX3EXT_CBID_nvtxMemRegionsName] = reinterpret_cast<intptr_t>(fake_regions_name);
  return 1;
}

}  // namespace

// NVTX's static injection: these override the weak definitions the NVTX headers make elsewhere.
extern "C" {
NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = fake_init;
NvtxExtInitializeInjectionFunc_t InitializeInjectionNvtxExtension_fnptr = fake_ext_init;
}

namespace {

void expect_clean() {
  EXPECT_EQ(0, tool.bad_pool_desc);
  EXPECT_EQ(0, tool.outside_pool);
  EXPECT_EQ(0, tool.duplicate);
  EXPECT_EQ(0, tool.unknown_unregister);
  EXPECT_EQ(0, tool.unknown_name);
}

// The region of window `base` at `off` of `bytes`, in a live pool, named for PE `pe`.
void expect_region(const char* base, int pe, uint64_t off, uint64_t bytes) {
  auto it = tool.regions.find(base + off);
  ASSERT_NE(it, tool.regions.end()) << "no region at PE " << pe << " +" << off;
  EXPECT_EQ(bytes, it->second.size);
  EXPECT_TRUE(tool.pools[it->second.pool].live);
  EXPECT_EQ(base, tool.pools[it->second.pool].base);
  char want[96];
  snprintf(want, sizeof(want), "gshmem PE %d heap +0x%llx (%llu bytes)", pe, static_cast<unsigned long long>(off),
           static_cast<unsigned long long>(bytes));
  EXPECT_EQ(want, it->second.name);
}

TEST(SanitizerHeapTool, PoolsPerWindowRegionsPerRangeThroughAddRemoveResizeDetach) {
  if (getenv("NVTX_INJECTION64_PATH")) GTEST_SKIP() << "another NVTX tool is attached";
  tool.reset();
  std::vector<char> w0(256 << 10), w2(256 << 10);
  const std::vector<char*> windows = {w0.data(), nullptr, w2.data()};  // PE 1: not mapped here
  SanitizerHeap h;
  ASSERT_TRUE(h.attach(windows, 64 << 10, {{0, 100}, {256, 1000}, {4096, 3}}));
  EXPECT_TRUE(h.active());
  ASSERT_EQ(2u, tool.live_pools());
  EXPECT_EQ(64u << 10, tool.pools[0].size);
  EXPECT_EQ(w0.data(), tool.pools[0].base);
  EXPECT_EQ(w2.data(), tool.pools[1].base);
  EXPECT_EQ(6u, tool.regions.size());
  for (const char* b : {w0.data(), w2.data()}) {
    const int pe = b == w0.data() ? 0 : 2;
    expect_region(b, pe, 0, 100);
    expect_region(b, pe, 256, 1000);
    expect_region(b, pe, 4096, 3);
  }
  h.add({8192, 77});
  h.remove(256);
  EXPECT_EQ(6u, tool.regions.size());
  expect_region(w2.data(), 2, 8192, 77);
  EXPECT_EQ(0u, tool.regions.count(w0.data() + 256));
  EXPECT_EQ(0u, tool.regions.count(w2.data() + 256));
  // Growth: new pools of the new extent, the live ranges in them (one now beyond the old extent).
  h.resize(200 << 10, {{0, 100}, {4096, 3}, {8192, 77}, {100 << 10, 5000}});
  EXPECT_EQ(2u, tool.live_pools());
  EXPECT_EQ(4u, tool.pools.size());
  EXPECT_EQ(200u << 10, tool.pools[3].size);
  EXPECT_EQ(8u, tool.regions.size());
  expect_region(w0.data(), 0, 100 << 10, 5000);
  expect_region(w2.data(), 2, 100 << 10, 5000);
  expect_clean();
  h.detach();
  EXPECT_FALSE(h.active());
  EXPECT_EQ(0u, tool.live_pools());
  EXPECT_EQ(0u, tool.regions.size());
  EXPECT_EQ(1, tool.domains_created);
  EXPECT_EQ(1, tool.domains_destroyed);
  expect_clean();
}

TEST(SanitizerHeapTool, ARefusedPoolGetsNoRegionsAndAllRefusedMeansInactive) {
  if (getenv("NVTX_INJECTION64_PATH")) GTEST_SKIP() << "another NVTX tool is attached";
  tool.reset();
  std::vector<char> w0(64 << 10), w1(64 << 10);
  const std::vector<char*> windows = {w0.data(), w1.data()};
  SanitizerHeap h;
  tool.refuse_base = w1.data();  // e.g. memory the tool does not know as an allocation
  ASSERT_TRUE(h.attach(windows, 64 << 10, {{512, 64}}));
  EXPECT_EQ(1u, tool.live_pools());
  EXPECT_EQ(1u, tool.regions.size());
  expect_region(w0.data(), 0, 512, 64);
  h.add({1024, 8});
  h.remove(512);
  EXPECT_EQ(1u, tool.regions.size());
  expect_region(w0.data(), 0, 1024, 8);
  h.detach();
  expect_clean();
  // Every pool refused: nothing registered, and nothing is called afterwards.
  tool.reset();
  std::vector<char> only(64 << 10);
  tool.refuse_base = only.data();
  EXPECT_FALSE(h.attach({only.data()}, 64 << 10, {{0, 8}}));
  EXPECT_FALSE(h.active());
  h.add({64, 8});
  EXPECT_EQ(0u, tool.regions.size());
  EXPECT_EQ(tool.domains_created, tool.domains_destroyed);
  expect_clean();
}

// A tool that implements the memory calls but not domains (nvtxDomainCreateA answers NULL, as
// compute-sanitizer may): the pools and regions go to NVTX's global domain, and the heap is
// described all the same. (Before, a NULL domain was taken for "no tool": nothing was described.)
TEST(SanitizerHeapTool, ToolWithoutDomainsStillGetsThePools) {
  if (getenv("NVTX_INJECTION64_PATH")) GTEST_SKIP() << "another NVTX tool is attached";
  tool.reset();
  tool.no_domains = true;
  std::vector<char> w0(64 << 10), w1(64 << 10);
  SanitizerHeap h;
  ASSERT_TRUE(h.attach({w0.data(), w1.data()}, 64 << 10, {{256, 40}, {1024, 7}}));
  EXPECT_TRUE(h.active());
  EXPECT_EQ(2u, tool.live_pools());
  EXPECT_EQ(2, tool.null_domain_calls);
  expect_region(w0.data(), 0, 256, 40);
  expect_region(w1.data(), 1, 1024, 7);
  h.remove(256);
  EXPECT_EQ(2u, tool.regions.size());
  h.detach();
  EXPECT_EQ(0u, tool.live_pools());
  EXPECT_EQ(0, tool.domains_created);
  EXPECT_EQ(0, tool.domains_destroyed);
  expect_clean();
}

}  // namespace
