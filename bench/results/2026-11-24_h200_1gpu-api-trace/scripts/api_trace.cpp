// SPDX-License-Identifier: BSD-3-Clause
// api_trace: a CUDA injection library (CUDA_INJECTION64_PATH) that records every CUDA
// driver and runtime API call a process makes through CUPTI's callback API, to see from outside
// which CUDA calls a library's host operation reduces to (black-box observation of a
// binary: no source read). Each call: thread, CUPTI timestamp at entry and exit, name,
// and for copies the byte count and stream, for launches the kernel and its grid.
//   API_TRACE_OUT=<prefix>  writes <prefix>.<pid>.txt at exit (default /tmp/api_trace)
//   API_TRACE_MAX=<n>       keeps the first n calls (default 400000)
// Build: g++ -std=c++17 -O2 -shared -fPIC -I<cupti>/include -I/usr/local/cuda/include
//        api_trace.cpp -o libapi_trace.so -L<cupti>/lib -l:libcupti.so.13
#include <cuda.h>
#include <cupti.h>

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Rec {
  uint64_t t0, t1;
  int tid;
  CUpti_CallbackDomain dom;
  CUpti_CallbackId cbid;
  uint64_t bytes;
  uintptr_t stream;
  char what[128];
};

std::vector<Rec> g_recs;
std::atomic<size_t> g_n{0};
size_t g_max = 400000;
CUpti_SubscriberHandle g_sub;

thread_local size_t t_open[2] = {SIZE_MAX, SIZE_MAX};  // this thread's calls in progress (runtime, driver)

int tid() { return static_cast<int>(syscall(SYS_gettid)); }

void fill(Rec& r, CUpti_CallbackId id, const CUpti_CallbackData* d) {
  r.bytes = 0;
  r.stream = 0;
  r.what[0] = 0;
  const void* p = d->functionParams;
  switch (id) {
#define COPY4(ID, T)                                  \
  case CUPTI_DRIVER_TRACE_CBID_##ID: {                \
    const auto* q = static_cast<const T*>(p);         \
    r.bytes = q->ByteCount;                           \
    r.stream = reinterpret_cast<uintptr_t>(q->hStream); \
    break;                                            \
  }
    COPY4(cuMemcpyAsync, cuMemcpyAsync_params)
    COPY4(cuMemcpyAsync_ptsz, cuMemcpyAsync_ptsz_params)
    COPY4(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync_v2_params)
    COPY4(cuMemcpyDtoDAsync_v2_ptsz, cuMemcpyDtoDAsync_v2_ptsz_params)
    COPY4(cuMemcpyPeerAsync, cuMemcpyPeerAsync_params)
    COPY4(cuMemcpyPeerAsync_ptsz, cuMemcpyPeerAsync_ptsz_params)
    COPY4(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync_v2_params)
    COPY4(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync_v2_params)
#undef COPY4
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpy: r.bytes = static_cast<const cuMemcpy_params*>(p)->ByteCount; break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2: r.bytes = static_cast<const cuMemcpyDtoD_v2_params*>(p)->ByteCount; break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemcpyPeer: r.bytes = static_cast<const cuMemcpyPeer_params*>(p)->ByteCount; break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize:
      r.stream = reinterpret_cast<uintptr_t>(static_cast<const cuStreamSynchronize_params*>(p)->hStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz:
      r.stream = reinterpret_cast<uintptr_t>(static_cast<const cuStreamSynchronize_ptsz_params*>(p)->hStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel: {
      const auto* q = static_cast<const cuLaunchKernel_params*>(p);
      r.stream = reinterpret_cast<uintptr_t>(q->hStream);
      snprintf(r.what, sizeof r.what, "<%ux%u,%u> %s", q->gridDimX, q->gridDimY, q->blockDimX,
               d->symbolName ? d->symbolName : "?");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx: {
      const auto* q = static_cast<const cuLaunchKernelEx_params*>(p);
      r.stream = reinterpret_cast<uintptr_t>(q->config->hStream);
      snprintf(r.what, sizeof r.what, "<%ux%u,%u> %s", q->config->gridDimX, q->config->gridDimY,
               q->config->blockDimX, d->symbolName ? d->symbolName : "?");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel: {
      const auto* q = static_cast<const cuLaunchCooperativeKernel_params*>(p);
      r.stream = reinterpret_cast<uintptr_t>(q->hStream);
      snprintf(r.what, sizeof r.what, "coop <%u,%u> %s", q->gridDimX, q->blockDimX,
               d->symbolName ? d->symbolName : "?");
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
      snprintf(r.what, sizeof r.what, "flags=%u", static_cast<const cuStreamCreate_params*>(p)->Flags);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority: {
      const auto* q = static_cast<const cuStreamCreateWithPriority_params*>(p);
      snprintf(r.what, sizeof r.what, "flags=%u priority=%d", q->flags, q->priority);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
      const auto* q = static_cast<const cuMemCreate_params*>(p);
      r.bytes = q->size;
      snprintf(r.what, sizeof r.what, "type=%d loc=%d/%d handles=%#x compression=%u rdma=%u usage=%u",
               q->prop->type, q->prop->location.type, q->prop->location.id, q->prop->requestedHandleTypes,
               q->prop->allocFlags.compressionType, q->prop->allocFlags.gpuDirectRDMACapable,
               q->prop->allocFlags.usage);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemMap: {
      const auto* q = static_cast<const cuMemMap_params*>(p);
      r.bytes = q->size;
      snprintf(r.what, sizeof r.what, "ptr=%#llx offset=%zu", static_cast<unsigned long long>(q->ptr), q->offset);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve: {
      const auto* q = static_cast<const cuMemAddressReserve_params*>(p);
      r.bytes = q->size;
      snprintf(r.what, sizeof r.what, "align=%zu addr=%#llx", q->alignment, static_cast<unsigned long long>(q->addr));
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemSetAccess: {
      const auto* q = static_cast<const cuMemSetAccess_params*>(p);
      r.bytes = q->size;
      int n = snprintf(r.what, sizeof r.what, "ptr=%#llx", static_cast<unsigned long long>(q->ptr));
      for (size_t k = 0; k < q->count && n < static_cast<int>(sizeof r.what) - 16; ++k)
        n += snprintf(r.what + n, sizeof r.what - n, " dev%d:%d", q->desc[k].location.id, q->desc[k].flags);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemGetAllocationGranularity: {
      const auto* q = static_cast<const cuMemGetAllocationGranularity_params*>(p);
      snprintf(r.what, sizeof r.what, "option=%d", q->option);
      break;
    }
    case CUPTI_DRIVER_TRACE_CBID_cuMemImportFromShareableHandle:
      snprintf(r.what, sizeof r.what, "type=%d", static_cast<const cuMemImportFromShareableHandle_params*>(p)->shHandleType);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: r.bytes = static_cast<const cuMemAlloc_v2_params*>(p)->bytesize; break;
    default: break;
  }
  // Copies: where from and to.
  if (r.bytes != 0 && r.what[0] == 0 && (id == CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync || id == CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz)) {
    const auto* q = static_cast<const cuMemcpyAsync_params*>(p);
    snprintf(r.what, sizeof r.what, "dst=%#llx src=%#llx", static_cast<unsigned long long>(q->dst),
             static_cast<unsigned long long>(q->src));
  }
}

// What a few calls returned: the address reserved or allocated, the stream made.
void fill_exit(Rec& r, CUpti_CallbackId id, const CUpti_CallbackData* d) {
  const void* p = d->functionParams;
  unsigned long long v = 0;
  switch (id) {
    case CUPTI_DRIVER_TRACE_CBID_cuMemAddressReserve: v = *static_cast<const cuMemAddressReserve_params*>(p)->ptr; break;
    case CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2: v = *static_cast<const cuMemAlloc_v2_params*>(p)->dptr; break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreate:
      v = reinterpret_cast<uintptr_t>(*static_cast<const cuStreamCreate_params*>(p)->phStream);
      break;
    case CUPTI_DRIVER_TRACE_CBID_cuStreamCreateWithPriority:
      v = reinterpret_cast<uintptr_t>(*static_cast<const cuStreamCreateWithPriority_params*>(p)->phStream);
      break;
    default: return;
  }
  const size_t n = strlen(r.what);
  snprintf(r.what + n, sizeof r.what - n, " -> %#llx", v);
}

void CUPTIAPI on_call(void*, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void* data) {
  if (dom != CUPTI_CB_DOMAIN_DRIVER_API && dom != CUPTI_CB_DOMAIN_RUNTIME_API) return;
  const auto* d = static_cast<const CUpti_CallbackData*>(data);
  uint64_t now = 0;
  cuptiGetTimestamp(&now);
  if (d->callbackSite == CUPTI_API_ENTER) {
    const size_t i = g_n.fetch_add(1);
    if (i >= g_max) return;
    Rec& r = g_recs[i];
    r.t0 = now;
    r.t1 = 0;
    r.tid = tid();
    r.dom = dom;
    r.cbid = id;
    if (dom == CUPTI_CB_DOMAIN_DRIVER_API) {
      fill(r, id, d);
    } else {
      r.bytes = 0;
      r.stream = 0;
      snprintf(r.what, sizeof r.what, "%s", d->symbolName ? d->symbolName : "");
    }
    t_open[dom == CUPTI_CB_DOMAIN_DRIVER_API] = i;
  } else {
    size_t& o = t_open[dom == CUPTI_CB_DOMAIN_DRIVER_API];
    if (o < g_max && g_recs[o].cbid == id && g_recs[o].dom == dom) {
      g_recs[o].t1 = now;
      if (dom == CUPTI_CB_DOMAIN_DRIVER_API) fill_exit(g_recs[o], id, d);
      o = SIZE_MAX;
    }
  }
}

void dump() {
  cuptiUnsubscribe(g_sub);
  const char* pre = getenv("API_TRACE_OUT");
  const std::string path = std::string(pre ? pre : "/tmp/api_trace") + "." + std::to_string(getpid()) + ".txt";
  FILE* f = fopen(path.c_str(), "w");
  if (!f) return;
  const size_t n = std::min(g_n.load(), g_max);
  fprintf(f, "# pid %d, %zu driver calls (%zu recorded); t0_us dur_us tid name bytes stream what\n", getpid(),
          g_n.load(), n);
  const uint64_t base = n ? g_recs[0].t0 : 0;
  for (size_t i = 0; i < n; ++i) {
    const Rec& r = g_recs[i];
    const char* name = nullptr;
    cuptiGetCallbackName(r.dom, r.cbid, &name);
    fprintf(f, "%.3f %.3f %d %s%s %" PRIu64 " %#" PRIxPTR " %s\n", (r.t0 - base) / 1e3,
            r.t1 ? (r.t1 - r.t0) / 1e3 : -1.0, r.tid, r.dom == CUPTI_CB_DOMAIN_RUNTIME_API ? "rt:" : "", name ? name : "?", r.bytes, r.stream, r.what);
  }
  fclose(f);
}

}  // namespace

extern "C" int InitializeInjection() {
  if (const char* m = getenv("API_TRACE_MAX")) g_max = strtoull(m, nullptr, 10);
  g_recs.resize(g_max);
  if (cuptiSubscribe(&g_sub, on_call, nullptr) != CUPTI_SUCCESS) {
    fprintf(stderr, "api_trace: cuptiSubscribe failed\n");
    return 0;
  }
  cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_DRIVER_API);
  cuptiEnableDomain(1, g_sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  atexit(dump);
  return 1;
}
