// SPDX-License-Identifier: BSD-3-Clause
#include "host/proxy/cuda_stager.h"

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "gshmem/detail/proxy_abi.h"
#include "host/core/call_memory.h"
#include "host/core/driver.h"
#include "host/core/log.h"
#include "host/proxy/apply_kernel.h"
#include "host/proxy/connections.h"

namespace gshmem::hproxy {
namespace {

// Large enough for the bounce chunks of section 5 (1 MiB) several times over; an operation
// larger than the ring copies from pageable memory instead (correct, only slower: the driver
// then waits for the stream).
constexpr uint64_t kStageBytes = 8ull << 20;
// Device payloads up to this size are read into pinned memory (source_view), larger ones into
// pageable memory.
constexpr uint64_t kViewBytes = 4ull << 20;
constexpr uint64_t kAlign = 16;
// Puts of whole words up to this size are applied by stream memory operations, not a copy.
constexpr uint64_t kMemopPutMax = 64;

unsigned width_of(uint16_t flags) {
  return 1u << ((flags & GSHMEMI_PROXY_F_WIDTH_MASK) >> GSHMEMI_PROXY_F_WIDTH_SHIFT);
}

}  // namespace

// The apply context of each device, made by the first gshmem_init that needs it and kept for
// the process's life: later inits reuse it. Measured under MPS (test_soak, 40 init/finalize
// cycles across 2 simulated nodes): a context made and destroyed every cycle cost 1.2 s a cycle
// and let the resident memory drift by megabytes; CUDA frees it at exit.
namespace {
std::mutex g_contexts_mutex;
std::map<int, CUcontext> g_contexts;
}  // namespace

bool CudaStager::make_context(std::string* why) {
  const cu::Api* api = nullptr;
  if (cu::load(&api) != GSHMEM_SUCCESS || api->CtxCreate == nullptr) {
    *why = "this driver offers no cuCtxCreate (CUDA 12.5 or later)";
    return false;
  }
  int dev = 0;
  if (!cuda("cudaGetDevice", cudaGetDevice(&dev), why)) return false;
  std::lock_guard<std::mutex> lock(g_contexts_mutex);
  CUcontext& kept = g_contexts[dev];
  if (kept != nullptr) {
    // Reused unless an error stuck to it (a fault in an earlier job's apply): then a new one.
    if (api->CtxPushCurrent(kept) == CUDA_SUCCESS) {
      if (cudaDeviceSynchronize() == cudaSuccess) {
        ctx_ = kept;
        return true;
      }
      cudaGetLastError();
      (void)api->CtxPopCurrent(nullptr);
    }
    GSHMEM_LOG_INFO("proxy: the kept apply context of GPU %d is unusable; making a new one", dev);
    (void)api->CtxDestroy(kept);
    kept = nullptr;
  }
  const CUresult r = api->CtxCreate(&ctx_, nullptr, 0, static_cast<CUdevice>(dev));
  if (r != CUDA_SUCCESS) {
    ctx_ = nullptr;
    *why = std::string("cuCtxCreate failed: ") + cu::error_string(r);
    return false;
  }
  // Its one kernel needs no stack, printf buffer or device heap: half the context's memory
  // (measured on one H200: ~520 MiB with CUDA's defaults, ~255 MiB without them).
  (void)api->CtxSetLimit(CU_LIMIT_STACK_SIZE, 0);
  (void)api->CtxSetLimit(CU_LIMIT_PRINTF_FIFO_SIZE, 0);
  (void)api->CtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE, 0);
  kept = ctx_;
  return true;
}

Status CudaStager::create(const char* call, char* heap_base, std::function<uint64_t()> heap_size,
                          const char* own_context, std::unique_ptr<CudaStager>* out) {
  std::unique_ptr<CudaStager> s(new CudaStager());
  s->heap_ = heap_base;
  s->heap_size_ = std::move(heap_size);
  std::string why;
  const auto fail = [&](const char* what) {
    GSHMEM_LOG_ERROR("%s: proxy apply stream: %s: %s", call, what, why.c_str());
    return GSHMEM_ERROR_CUDA;
  };
  // Pinned memory first, in the application's context: portable, so the apply context reaches
  // it too, and it outlives that context at teardown.
  void* p = nullptr;
  void* d = nullptr;
  if (!s->cuda("cudaHostAlloc", cudaHostAlloc(&p, 64, cudaHostAllocPortable | cudaHostAllocMapped), &why))
    return fail("completion word");
  s->done_h_ = static_cast<uint64_t*>(p);
  *s->done_h_ = 0;
  if (!s->cuda("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&d, s->done_h_, 0), &why))
    return fail("completion word");
  s->done_d_ = reinterpret_cast<uint64_t>(d);
  if (!s->cuda("cudaHostAlloc", cudaHostAlloc(&p, kStageBytes, cudaHostAllocPortable | cudaHostAllocMapped), &why))
    return fail("staging");
  s->stage_h_ = static_cast<uint8_t*>(p);
  s->stage_cap_ = kStageBytes;
  if (!s->cuda("cudaHostGetDevicePointer", cudaHostGetDevicePointer(&d, s->stage_h_, 0), &why)) return fail("staging");
  s->stage_d_ = reinterpret_cast<uint64_t>(d);
  // source_view's pinned buffer, made now: cudaHostAlloc later, on the proxy thread, would wait
  // for the GPU's running kernels (source_view says why that hangs).
  if (!s->cuda("cudaHostAlloc", cudaHostAlloc(&p, kViewBytes, cudaHostAllocPortable), &why))
    return fail("payload view");
  s->view_ = static_cast<uint8_t*>(p);
  s->view_cap_ = kViewBytes;

  // The apply context, current on this thread until the end of create (popped by `leave`).
  const cu::Api* api = nullptr;
  const bool have_api = cu::load(&api) == GSHMEM_SUCCESS;
  std::string ctx_why;
  if (own_context != nullptr && !s->make_context(&ctx_why))
    GSHMEM_LOG_WARN(
        "%s: the proxy's apply context (%s) could not be made: %s. Applies go on a stream of the application's "
        "context, where a kernel that waits for them can hold them back (a hang): set CUDA_DEVICE_MAX_CONNECTIONS=%s "
        "in every PE's environment (docs/internode.md section 9)",
        call, own_context, ctx_why.c_str(), kProxyConnections);
  struct Leave {
    CUcontext ctx;
    ~Leave() {
      if (ctx) (void)cu::api().CtxPopCurrent(nullptr);
    }
  } leave{s->ctx_};

  int least = 0, greatest = 0;
  if (!s->cuda("cudaDeviceGetStreamPriorityRange", cudaDeviceGetStreamPriorityRange(&least, &greatest), &why) ||
      !s->cuda("cudaStreamCreateWithPriority",
               cudaStreamCreateWithPriority(&s->apply_, cudaStreamNonBlocking, greatest), &why) ||
      !s->cuda("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s->copy_, cudaStreamNonBlocking), &why))
    return fail("streams");
  for (cudaEvent_t& e : s->copy_events_)
    if (!s->cuda("cudaEventCreateWithFlags", cudaEventCreateWithFlags(&e, cudaEventDisableTiming), &why))
      return fail("events");
  // Stream memory operations need the driver's entry and the device's support; without them
  // the apply kernel stores the counts and SET signals (an SM each, otherwise the same).
  int dev = 0, v = 0;
  if (have_api && api->StreamWriteValue64 && cudaGetDevice(&dev) == cudaSuccess &&
      api->DeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev) == CUDA_SUCCESS && v)
    s->memops_ = true;
  // One driver call for an operation's stores and its count (flush): the apply call of an 8-byte
  // SET signal 3.0-3.8 -> 2.0-2.6 us p50 (proxy trace, one H200 under MPS).
  s->batch_ = s->memops_ && api->StreamBatchMemOp != nullptr;
  // The stores tried before the first apply (try_stores) and, in the apply context, the apply
  // kernel loaded now, not at its first AMO (a load then could wait for running kernels): a
  // store of the count's initial 0.
  if (!s->try_stores(&why)) return fail("stream writes");
  if (s->ctx_ && (!s->kernel(kApplyStoreRelease, 0, 8, s->done_d_, 0, 0, nullptr, &why) ||
                  !s->cuda("cudaStreamSynchronize", cudaStreamSynchronize(s->apply_), &why)))
    return fail("the apply kernel in the apply context");
  char where[128] = "a stream of the application's context";
  if (s->ctx_) std::snprintf(where, sizeof where, "a context of its own (%s)", own_context);
  GSHMEM_LOG_INFO("proxy: applies on %s, at priority %d, %llu KiB of pinned staging, completion by %s", where, greatest,
                  (unsigned long long)(kStageBytes >> 10),
                  s->batch_    ? "cuStreamBatchMemOp"
                  : s->memops_ ? "cuStreamWriteValue64"
                               : "a one-thread kernel (no 64-bit stream memory operations)");
  *out = std::move(s);
  return GSHMEM_SUCCESS;
}

CudaStager::~CudaStager() {
  // The streams and events belong to the apply context, if any: destroyed there.
  if (ctx_) (void)cu::api().CtxPushCurrent(ctx_);
  if (apply_) cudaStreamSynchronize(apply_);
  if (copy_) cudaStreamSynchronize(copy_);
  if (apply_) cudaStreamDestroy(apply_);
  if (copy_) cudaStreamDestroy(copy_);
  for (cudaEvent_t e : copy_events_)
    if (e) cudaEventDestroy(e);
  if (ctx_) (void)cu::api().CtxPopCurrent(nullptr);  // the context stays for the next init
  if (view_) cudaFreeHost(view_);
  if (window_) cudaFreeHost(window_);
  if (stage_h_) cudaFreeHost(stage_h_);
  if (done_h_) cudaFreeHost(done_h_);
}

bool CudaStager::cuda(const char* what, cudaError_t e, std::string* why) {
  if (e == cudaSuccess) return true;
  cudaGetLastError();
  *why = std::string(what) + " failed: " + cudaGetErrorString(e);
  return false;
}

bool CudaStager::in_heap(uint64_t offset, uint64_t size, unsigned align, std::string* why) const {
  const uint64_t heap = heap_size_();
  if (offset <= heap && size <= heap - offset && offset % align == 0) return true;
  char buf[160];
  std::snprintf(buf, sizeof buf,
                "offset 0x%" PRIx64 " + %" PRIu64 " B (aligned to %u) is outside the heap of %" PRIu64 " B", offset,
                size, align, heap);
  *why = buf;
  return false;
}

uint8_t* CudaStager::stage(uint64_t bytes, uint64_t* end) {
  if (bytes > stage_cap_) return nullptr;
  for (int attempt = 0;; ++attempt) {
    uint64_t pos = (stage_head_ + kAlign - 1) / kAlign * kAlign;
    if (pos % stage_cap_ + bytes > stage_cap_) pos = (pos / stage_cap_ + 1) * stage_cap_;  // no split slots
    if (pos + bytes - stage_tail_ <= stage_cap_) {
      stage_head_ = pos + bytes;
      *end = stage_head_;
      return stage_h_ + pos % stage_cap_;
    }
    // Full: free what completed; then wait for the stream (rare: 8 MiB in flight). A stream
    // that cannot drain (a GPU error) gives no slot: the caller falls back or fails the op.
    retire();
    if (attempt > 0) {
      if (attempt > 2) return nullptr;
      cudaStreamSynchronize(apply_);
      cudaGetLastError();
      retire();
    }
  }
}

void CudaStager::add_one(uint64_t* count) {
  // This thread is the only writer; the release orders the applies before it for the waiter's
  // acquire load on the GPU.
  __atomic_store_n(count, __atomic_load_n(count, __ATOMIC_RELAXED) + 1, __ATOMIC_RELEASE);
}

// Whether the driver refused a stream memory operation as such (the stager then takes the next
// way), rather than failing because the context did (a kernel trapped: the error is sticky, and
// another way would fail the same).
static bool refused(CUresult r) { return r == CUDA_ERROR_INVALID_VALUE || r == CUDA_ERROR_NOT_SUPPORTED; }

bool CudaStager::write_value(uint64_t addr, uint64_t value, std::string* why, bool no_barrier) {
  no_barrier = no_barrier && relaxed_;
  if (batch_) {
    CUstreamBatchMemOpParams p{};
    p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    p.writeValue.address = static_cast<CUdeviceptr>(addr);
    p.writeValue.value64 = value;
    p.writeValue.flags = no_barrier ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : CU_STREAM_WRITE_VALUE_DEFAULT;
    batched_.push_back(p);
    return true;
  }
  if (memops_) {
    // Default flags: a memory barrier before the write, so the write is ordered after the
    // stream's earlier copies for every observer (a release, as the signal contract needs).
    // no_barrier: a data word right after one written with the barrier.
    const CUresult r = cu::api().StreamWriteValue64(
        reinterpret_cast<CUstream>(apply_), static_cast<CUdeviceptr>(addr), value,
        no_barrier ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : CU_STREAM_WRITE_VALUE_DEFAULT);
    if (r == CUDA_SUCCESS) return true;
    if (!refused(r)) {
      *why = std::string("cuStreamWriteValue64 failed: ") + cu::error_string(r);
      return false;
    }
    GSHMEM_LOG_INFO("proxy: cuStreamWriteValue64 refused (%s); the apply kernel stores values from now on",
                    cu::error_string(r));
    memops_ = false;
  }
  return kernel(kApplyStoreRelease, 0, 8, addr, value, 0, nullptr, why);
}

bool CudaStager::flush(std::string* why) {
  if (batched_.empty()) return true;
  const CUresult r = cu::api().StreamBatchMemOp(reinterpret_cast<CUstream>(apply_),
                                                static_cast<unsigned>(batched_.size()), batched_.data(), 0);
  if (r == CUDA_SUCCESS) {
    batched_.clear();
    return true;
  }
  if (!refused(r)) {
    batched_.clear();
    *why = std::string("cuStreamBatchMemOp failed: ") + cu::error_string(r);
    return false;
  }
  // Nothing of the batch was enqueued: one store at a time from now on.
  GSHMEM_LOG_INFO("proxy: cuStreamBatchMemOp refused (%s); stores go one at a time from now on", cu::error_string(r));
  batch_ = false;
  std::vector<CUstreamBatchMemOpParams> q;
  q.swap(batched_);
  bool ok = true;
  for (const CUstreamBatchMemOpParams& p : q)
    ok = write_value(p.writeValue.address, p.writeValue.value64, why,
                     p.writeValue.flags == CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) &&
         ok;
  return ok;
}

// Once, before the first apply: the stores an apply makes (one with the memory barrier, one
// without), to the completion word. The apply context refuses the one without (measured,
// CUDA 13.0 driver: "invalid argument", where the application's context takes it): then every
// store takes the barrier, a cost of nanoseconds for the few words of a small put.
bool CudaStager::try_stores(std::string* why) {
  if (!memops_) return true;
  std::vector<CUstreamBatchMemOpParams> q;
  for (bool relaxed : {false, true}) {
    CUstreamBatchMemOpParams p{};
    p.writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    p.writeValue.address = static_cast<CUdeviceptr>(done_d_);
    p.writeValue.value64 = 0;
    p.writeValue.flags = relaxed ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : CU_STREAM_WRITE_VALUE_DEFAULT;
    q.push_back(p);
  }
  const CUstream st = reinterpret_cast<CUstream>(apply_);
  const auto take = [&](size_t n) {
    if (batch_) return cu::api().StreamBatchMemOp(st, static_cast<unsigned>(n), q.data(), 0) == CUDA_SUCCESS;
    for (size_t i = 0; i < n; ++i)
      if (cu::api().StreamWriteValue64(st, q[i].writeValue.address, 0, q[i].writeValue.flags) != CUDA_SUCCESS)
        return false;
    return true;
  };
  if (!take(2)) {
    relaxed_ = false;
    if (!take(1)) {
      GSHMEM_LOG_INFO("proxy: stream memory operations refused here; the apply kernel stores values");
      memops_ = batch_ = false;
    } else {
      GSHMEM_LOG_INFO("proxy: stores without a memory barrier refused here; every store takes one");
    }
  }
  return cuda("cudaStreamSynchronize", cudaStreamSynchronize(apply_), why);
}

bool CudaStager::kernel(uint8_t kind, uint8_t op, uint8_t width, uint64_t addr, uint64_t operand, uint64_t compare,
                        const uint8_t* result, std::string* why) {
  if (!flush(why)) return false;  // the stores queued before it
  ApplyArgs a;
  a.kind = kind;
  a.op = op;
  a.width = width;
  a.addr = addr;
  a.operand = operand;
  a.compare = compare;
  a.result = result ? device_of(result) : 0;
  return cuda("the apply kernel's launch", launch_apply(a, apply_), why);
}

void CudaStager::apply_target(const proxy::ApplyOp& op, InFlight& f) {
  const uint64_t heap = reinterpret_cast<uint64_t>(heap_);
  const bool signal = op.op == GSHMEMI_PROXY_OP_SIGNAL || (op.flags & GSHMEMI_PROXY_F_HAS_SIGNAL);
  if (signal && !in_heap(op.sig_offset, 8, 8, &f.error)) return;
  uint8_t* staged = nullptr;
  switch (op.op) {
    case GSHMEMI_PROXY_OP_PUT:
      if (!in_heap(op.offset, op.size, 1, &f.error)) return;
      if (op.size == 0) break;
      if (op.staged) {  // in the pinned window, untouched until this op completes: DMA from it
        if (!cuda("cudaMemcpyAsync (put chunk)",
                  cudaMemcpyAsync(heap_ + op.offset, op.data, op.size, cudaMemcpyHostToDevice, apply_), &f.error))
          return;
        break;
      }
      if (memops_ && op.size % 8 == 0 && op.size <= kMemopPutMax && op.offset % 8 == 0) {
        // A few words (p, an 8- or 16-byte put_signal, a small reduction's data): stream
        // memory operations, no copy engine. A copy's dispatch costs several microseconds more
        // (perftest pingpong_put_signal: 8 B 12.8 us one-way this way, 16 B 25.2 us by a copy).
        // The first write's barrier orders them after the stream's earlier work; the signal's
        // own barrier orders them before it.
        for (uint64_t w = 0; w < op.size; w += 8) {
          uint64_t v = 0;
          std::memcpy(&v, op.data + w, 8);
          if (!write_value(heap + op.offset + w, v, &f.error, w != 0)) return;
        }
        break;
      }
      if ((staged = stage(op.size, &f.stage_end)) != nullptr) {
        std::memcpy(staged, op.data, op.size);
        if (!cuda("cudaMemcpyAsync (put data)",
                  cudaMemcpyAsync(heap_ + op.offset, staged, op.size, cudaMemcpyHostToDevice, apply_), &f.error))
          return;
      } else if (!cuda("cudaMemcpyAsync (put data)",
                       cudaMemcpyAsync(heap_ + op.offset, op.data, op.size, cudaMemcpyHostToDevice, apply_),
                       &f.error)) {
        return;
      }
      break;
    case GSHMEMI_PROXY_OP_GET: {
      const bool fetch = op.flags & GSHMEMI_PROXY_F_FETCH;
      if (!in_heap(op.offset, op.size, 1, &f.error)) return;
      if (fetch && op.size > 8) {
        f.error = "a fetching get of " + std::to_string(op.size) + " B (at most 8)";
        return;
      }
      if (op.size == 0) return;
      staged = stage(fetch ? 8 : op.size, &f.stage_end);
      if (fetch && !staged) {
        f.error = "no staging memory for the value (the apply stream does not drain)";
        return;
      }
      uint8_t* to = staged ? staged : op.local;  // too large to stage: straight into the engine's buffer
      if (!cuda("cudaMemcpyAsync (get data)",
                cudaMemcpyAsync(to, heap_ + op.offset, op.size, cudaMemcpyDeviceToHost, apply_), &f.error))
        return;
      f.staged = staged;
      f.size = op.size;
      f.value = fetch;
      if (!fetch && staged) f.copy_to = op.local;
      return;
    }
    case GSHMEMI_PROXY_OP_SIGNAL:
      break;
    default: {
      const unsigned width = width_of(op.flags);
      if (op.op < GSHMEMI_PROXY_OP_AMO_SET || op.op > GSHMEMI_PROXY_OP_AMO_FETCH) {
        f.error = "unknown operation " + std::to_string(op.op);
        return;
      }
      if (width != 4 && width != 8) {
        f.error = "an atomic of " + std::to_string(width) + " B (4 or 8 only)";
        return;
      }
      if (!in_heap(op.offset, width, width, &f.error)) return;
      staged = stage(8, &f.stage_end);
      if (!staged) {
        f.error = "no staging memory for the value (the apply stream does not drain)";
        return;
      }
      if (!kernel(kApplyAmo, op.op, static_cast<uint8_t>(width), heap + op.offset, op.operand, op.compare, staged,
                  &f.error))
        return;
      f.staged = staged;
      f.size = width;
      f.value = true;
      return;
    }
  }
  if (!signal) return;
  // After the data on the same stream: the signal never overtakes it (docs/internode.md
  // section 6, put_signal). SET needs no SM; ADD is an atomic, which only the GPU makes atomic
  // with the GPUs' own atomics on the word.
  if (op.flags & GSHMEMI_PROXY_F_SIGNAL_ADD)
    kernel(kApplyAddRelease, 0, 8, heap + op.sig_offset, op.sig_value, 0, nullptr, &f.error);
  else
    write_value(heap + op.sig_offset, op.sig_value, &f.error);
}

void CudaStager::apply_local_write(const proxy::ApplyOp& op, InFlight& f) {
  if (op.size == 0) return;
  if (in_host_memory(op.local)) {  // a host call's destination in host memory: done here and now
    std::memcpy(op.local, op.data, op.size);
    return;
  }
  uint8_t* staged = stage(op.size, &f.stage_end);
  if (staged) std::memcpy(staged, op.data, op.size);
  cuda("cudaMemcpyAsync (get data to its destination)",
       cudaMemcpyAsync(op.local, staged ? staged : op.data, op.size, cudaMemcpyDefault, apply_), &f.error);
}

void CudaStager::submit(const proxy::ApplyOp& op) {
  InFlight f;
  if (op.kind == proxy::ApplyOp::kTarget && op.op == GSHMEMI_PROXY_OP_SIGNAL && (op.flags & GSHMEMI_PROXY_F_SYNC) &&
      sync_word_ && (f.count = sync_word_(op.sig_offset)) != nullptr) {
    // A team sync's signal: counted in host memory (impl/sync.cuh, take_proxied_signal) after
    // every operation submitted before it completed; no count of its own on the stream.
    f.need = submitted_;
    if (inflight_.empty()) {
      add_one(f.count);
      ready_.emplace_back();
    } else {
      inflight_.push_back(std::move(f));
    }
    return;
  }
  if (op.kind == proxy::ApplyOp::kLocalWrite)
    apply_local_write(op, f);
  else
    apply_target(op, f);
  // Every operation, failed ones too, takes a count: completion stays in submission order.
  f.need = ++submitted_;
  std::string why;
  if (!write_value(done_d_, f.need, &why) || !flush(&why)) {
    // Nothing will store the count: wait for the stream here, then store it ourselves.
    cudaStreamSynchronize(apply_);
    cudaGetLastError();
    __atomic_store_n(done_h_, f.need, __ATOMIC_RELEASE);
    if (f.error.empty()) f.error = "the completion count could not be written: " + why;
  }
  inflight_.push_back(std::move(f));
}

// The oldest in-flight operation waits: after kStallNs say so once, with the likely cause (a
// kernel of this PE that waits for it sits in front of the apply stream on one of CUDA's
// hardware queues: found with 4 PEs on one GPU under MPS, where a put's copy and its count
// write stayed queued until the wait bound fired). retire() says when it went on.
void CudaStager::watch_stall(uint64_t done) {
  constexpr uint64_t kStallNs = 2000000000;
  const uint64_t need = inflight_.front().need, now = clock_.now_ns();
  if (need != stall_need_) {
    stall_need_ = need;
    stall_since_ns_ = now;
    return;
  }
  if (stall_warned_ || now - stall_since_ns_ < kStallNs) return;
  stall_warned_ = true;
  const double s = static_cast<double>(now - stall_since_ns_) * 1e-9;
  const char* query = cudaGetErrorName(cudaStreamQuery(apply_));
  cudaGetLastError();
  if (ctx_) {  // no application stream shares its queues: the GPU itself does not get to it
    GSHMEM_LOG_WARN(
        "proxy: the GPU has not run this PE's proxy applies for %.1f s: %zu operations from other nodes wait on the "
        "apply context's stream (completed %llu of %llu; cudaStreamQuery: %s). Outside MPS the apply context takes "
        "turns with the application's: a GPU kept busy may hold it back this long",
        s, inflight_.size(), (unsigned long long)done, (unsigned long long)submitted_, query);
    return;
  }
  const char* conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  GSHMEM_LOG_WARN(
      "proxy: the GPU has not run this PE's proxy applies for %.1f s: %zu operations from other nodes wait on the "
      "apply stream (completed %llu of %llu; cudaStreamQuery: %s). If a kernel of this PE waits for them, CUDA may "
      "have queued the apply stream behind that kernel's stream on one hardware queue: a hang. "
      "CUDA_DEVICE_MAX_CONNECTIONS is %s; use %s, set before the PE starts CUDA, or GSHMEM_PROXY_APPLY_CONTEXT=1 "
      "(docs/internode.md section 9)",
      s, inflight_.size(), (unsigned long long)done, (unsigned long long)submitted_, query, conn ? conn : "unset",
      kProxyConnections);
}

void CudaStager::retire() {
  // Kicks the stream: the driver may hold the last commands of a stream (a copy, the count's
  // write) until another call reaches the GPU, and a kernel that waits for this apply would
  // wait for ever (measured: a lone p through the proxy never completed without it).
  if (!inflight_.empty()) (void)cudaStreamQuery(apply_);
  const uint64_t done = __atomic_load_n(done_h_, __ATOMIC_ACQUIRE);
  while (!inflight_.empty() && inflight_.front().need <= done) {
    InFlight& f = inflight_.front();
    Done d;
    d.error = std::move(f.error);
    if (d.error.empty() && f.value && f.staged) std::memcpy(&d.value, f.staged, f.size);
    if (d.error.empty() && f.copy_to) std::memcpy(f.copy_to, f.staged, f.size);
    if (f.count) add_one(f.count);
    if (f.stage_end > stage_tail_) stage_tail_ = f.stage_end;
    ready_.push_back(std::move(d));
    inflight_.pop_front();
  }
  if (stall_warned_ && (inflight_.empty() || inflight_.front().need != stall_need_)) {
    GSHMEM_LOG_WARN("proxy: the apply stream went on after %.1f s",
                    static_cast<double>(clock_.now_ns() - stall_since_ns_) * 1e-9);
    stall_warned_ = false;
  }
  if (inflight_.empty())
    stage_tail_ = stage_head_;
  else
    watch_stall(done);  // its front is not done
}

void CudaStager::poll(std::vector<Done>& done) {
  retire();
  for (Done& d : ready_) done.push_back(std::move(d));
  ready_.clear();
}

// The engine hands the pointer to Transport::send at once, which copies header and payload
// before it returns (proxy/interfaces.h), and keeps nothing: the buffer only has to last until
// the next call, which reuses it.
const uint8_t* CudaStager::source_view(uint64_t addr, uint64_t size) {
  const void* p = reinterpret_cast<const void*>(static_cast<uintptr_t>(addr));
  if (size == 0 || in_host_memory(p)) return static_cast<const uint8_t*>(p);
  // Never cudaHostAlloc here: it waits for the GPU, and the kernel that posted this put may be
  // waiting for it (a blocking put of 1 MiB + 7 hung until GSHMEM_WAIT_TIMEOUT). The pinned view
  // is made at start-up; a larger payload goes through pageable memory, copied on the copy
  // stream (non-blocking, so not behind the application's kernels either).
  uint8_t* to = view_;
  if (size > view_cap_) {
    scratch_.resize(size);
    to = scratch_.data();
  }
  const cudaError_t e = cudaMemcpyAsync(to, p, size, cudaMemcpyDefault, copy_);
  const cudaError_t s = e == cudaSuccess ? cudaStreamSynchronize(copy_) : e;
  if (s != cudaSuccess) {
    cudaGetLastError();
    GSHMEM_LOG_ERROR("proxy: reading the %llu-byte payload at %p failed: %s; a put from it sends zeros",
                     (unsigned long long)size, p, cudaGetErrorString(s));
    std::memset(to, 0, size);
  }
  return to;
}

}  // namespace gshmem::hproxy

namespace gshmem::hproxy {

uint8_t* CudaStager::make_window(uint64_t bytes, std::string* why) {
  void* p = nullptr;
  if (window_ || !cuda("cudaHostAlloc (bulk staging window)", cudaHostAlloc(&p, bytes, cudaHostAllocPortable), why))
    return nullptr;
  window_ = static_cast<uint8_t*>(p);
  return window_;
}

// On the copy stream, as source_view: not behind the application's kernels (one of which may
// be the producer waiting for this put), nor behind the applies.
bool CudaStager::copy_source(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) {
  const void* p = reinterpret_cast<const void*>(static_cast<uintptr_t>(addr));
  if (size == 0) return true;
  if (in_host_memory(p)) {
    std::memcpy(to, p, size);
    return true;
  }
  const cudaError_t e = cudaMemcpyAsync(to, p, size, cudaMemcpyDefault, copy_);
  return cuda("cudaMemcpyAsync (put chunk to the window)", e == cudaSuccess ? cudaStreamSynchronize(copy_) : e, why);
}

bool CudaStager::start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) {
  const void* p = reinterpret_cast<const void*>(static_cast<uintptr_t>(addr));
  ++copies_started_;
  if (size == 0 || in_host_memory(p)) {
    if (size) std::memcpy(to, p, size);
    copies_.push_back(-1);
    return true;
  }
  const int ev = static_cast<int>(copies_started_ % kCopyEvents);
  if (!cuda("cudaMemcpyAsync (put chunk to the window)", cudaMemcpyAsync(to, p, size, cudaMemcpyDefault, copy_), why) ||
      !cuda("cudaEventRecord (put chunk)", cudaEventRecord(copy_events_[ev], copy_), why)) {
    copies_.push_back(-1);  // failed: counted as done, reported by the caller
    return false;
  }
  copies_.push_back(ev);
  return true;
}

uint64_t CudaStager::copies_done() {
  while (!copies_.empty()) {
    const int ev = copies_.front();
    if (ev >= 0) {
      const cudaError_t e = cudaEventQuery(copy_events_[ev]);
      if (e == cudaErrorNotReady) break;
      if (e != cudaSuccess) {  // the copy failed: the chunk carries what the slot holds
        cudaGetLastError();
        GSHMEM_LOG_ERROR("proxy: copying a put's chunk to the staging window failed: %s", cudaGetErrorString(e));
      }
    }
    copies_.pop_front();
    ++copies_done_;
  }
  return copies_done_;
}

}  // namespace gshmem::hproxy
