// SPDX-License-Identifier: BSD-3-Clause
// The engine's Stager on this PE's GPU (docs/internode.md section 5, "Applying at the target"):
// everything other PEs asked for, and the data of this PE's gets coming back, goes on one apply
// stream of the greatest priority, in submission order: H2D copies for put data, a stream
// memory operation for a SET signal (no SM), the one-thread apply kernel for ADD signals and
// AMOs, D2H copies for gets. After each operation a cuStreamWriteValue64 stores a running count
// into a pinned word; poll() reads it, so completion needs neither events nor a sync.
//
// Not the library's internal stream: a pending host wait occupies that one, and a wait for a
// signal this stream delivers would never return.
//
// The apply context (GSHMEM_PROXY_APPLY_CONTEXT; host/proxy/connections.h, docs/internode.md
// section 9): the apply and copy streams may live in a CUDA context of the stager's own on the
// same device, whose hardware queues no application stream shares, so that no application
// command can hold an apply back. The heap, pinned memory and the application's allocations
// are reachable from it (one address space). The proxy thread makes it current (context());
// the stager's other CUDA calls are on that thread, or push it themselves. Made by the first
// gshmem_init that needs it, kept for the process's life and reused by later inits.
//
// Host bytes pass through a pinned staging ring (copies from pageable memory would first wait
// for the whole stream): put data is copied into it before its H2D copy, get data lands in it
// and is copied out at poll time. Slots are freed in completion order.
#pragma once

#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "host/core/status.h"
#include "proxy/interfaces.h"

namespace gshmem::hproxy {

class CudaStager final : public proxy::Stager {
 public:
  // `heap_base`: this PE's heap; `heap_size` is asked at every operation (the heap grows).
  // Made on the thread that holds the PE's device; used on the proxy thread afterwards.
  // `own_context`: make the apply context (its cause, for the log); if that fails, the stager
  // warns and uses the current context.
  static Status create(const char* call, char* heap_base, std::function<uint64_t()> heap_size, const char* own_context,
                       std::unique_ptr<CudaStager>* out);
  ~CudaStager() override;
  CudaStager(const CudaStager&) = delete;
  CudaStager& operator=(const CudaStager&) = delete;

  void submit(const proxy::ApplyOp& op) override;
  void poll(std::vector<Done>& done) override;
  const uint8_t* source_view(uint64_t addr, uint64_t size) override;
  // The bulk path's source side: a chunk of a put's payload into a window slot (pinned), by a
  // D2H copy on the copy stream for device memory.
  bool copy_source(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) override;
  // Asynchronous: the D2H copy and an event on the copy stream; copies_done() queries the
  // events in order. Host memory is copied at once (counted in order all the same).
  bool start_copy(uint64_t addr, uint64_t size, uint8_t* to, std::string* why) override;
  uint64_t copies_done() override;
  // The bulk path's staging window: pinned host memory owned by the stager (freed after the
  // transport that registered it is gone). Call at set-up, on the init thread: cudaHostAlloc
  // on the proxy thread could wait for a kernel that waits for the proxy. nullptr on failure.
  uint8_t* make_window(uint64_t bytes, std::string* why);
  // Where a team sync's proxied signal (GSHMEMI_PROXY_F_SYNC) to the flag at a heap offset is
  // counted (team::proxy_sync_word): in host memory, by this thread, once the operations before
  // it completed; no GPU work. Without it (or where it answers nullptr) the signal is an ADD on
  // the GPU, as any other.
  void set_sync_words(std::function<uint64_t*(uint64_t heap_offset)> f) { sync_word_ = std::move(f); }
  // The apply context, to be made current on the thread that drives the stager; nullptr: the
  // streams are in the context that was current at create().
  CUcontext context() const { return ctx_; }

 private:
  // What poll() does for an operation once the stream passed it.
  struct InFlight {
    uint64_t need = 0;                // the count the done word must reach
    uint64_t stage_end = 0;           // staging ring position freed with it
    const uint8_t* staged = nullptr;  // D2H data or the AMO's old value, in the staging ring
    uint8_t* copy_to = nullptr;       // a get's data goes here at poll time (size bytes)
    uint64_t size = 0;
    bool value = false;         // Done.value = the first `size` (<= 8) staged bytes
    uint64_t* count = nullptr;  // a proxy sync word that this op adds 1 to at poll time
    std::string error;
  };

  CudaStager() = default;
  // Makes ctx_ and leaves it current on this thread (pushed); false and *why if it cannot.
  bool make_context(std::string* why);
  bool in_heap(uint64_t offset, uint64_t size, unsigned align, std::string* why) const;
  uint8_t* stage(uint64_t bytes, uint64_t* end);  // nullptr: larger than the whole ring
  uint64_t device_of(const uint8_t* staged) const { return stage_d_ + static_cast<uint64_t>(staged - stage_h_); }
  void retire();
  void watch_stall(uint64_t done);
  static void add_one(uint64_t* count);  // a proxy sync word
  void apply_target(const proxy::ApplyOp& op, InFlight& f);
  void apply_local_write(const proxy::ApplyOp& op, InFlight& f);
  // A stream-ordered 8-byte store; no_barrier: without the memory barrier before it. With
  // batching, queued for flush() (one driver call for an operation's stores and its count).
  bool write_value(uint64_t addr, uint64_t value, std::string* why, bool no_barrier = false);
  // Tries the stores write_value makes, turning off what the driver refuses here.
  bool try_stores(std::string* why);
  // Enqueues the queued stores; false (and *why) if one could not be.
  bool flush(std::string* why);
  bool kernel(uint8_t kind, uint8_t op, uint8_t width, uint64_t addr, uint64_t operand, uint64_t compare,
              const uint8_t* result, std::string* why);
  bool cuda(const char* what, cudaError_t e, std::string* why);

  char* heap_ = nullptr;
  std::function<uint64_t()> heap_size_;
  std::function<uint64_t*(uint64_t)> sync_word_;
  CUcontext ctx_ = nullptr;       // the apply context (see above), or nullptr
  cudaStream_t apply_ = nullptr;  // every apply, in submission order
  cudaStream_t copy_ = nullptr;   // source_view's D2H reads, which must not wait for applies
  bool memops_ = false;           // cuStreamWriteValue64 usable on this GPU
  bool batch_ = false;            // and cuStreamBatchMemOp: write_value queues into `batched_`
  bool relaxed_ = true;           // and stores without a memory barrier (try_stores)
  std::vector<CUstreamBatchMemOpParams> batched_;
  uint64_t* done_h_ = nullptr;  // pinned mapped: the count of completed operations
  uint64_t done_d_ = 0;
  uint64_t submitted_ = 0;      // operations that wrote a count so far
  uint8_t* stage_h_ = nullptr;  // pinned mapped staging ring
  uint64_t stage_d_ = 0;
  uint64_t stage_cap_ = 0;
  uint64_t stage_head_ = 0, stage_tail_ = 0;  // monotonic byte positions
  uint8_t* view_ = nullptr;                   // pinned: source_view's copy of a device payload
  uint64_t view_cap_ = 0;
  std::deque<InFlight> inflight_;
  std::vector<Done> ready_;               // retired, not yet handed to poll()
  std::vector<uint8_t> scratch_;          // source_view without pinned memory
  uint8_t* window_ = nullptr;             // the bulk path's staging window (make_window)
  static constexpr int kCopyEvents = 64;  // >= the most copies outstanding (GSHMEM_PROXY_BULK_SLOTS)
  cudaEvent_t copy_events_[kCopyEvents] = {};
  std::deque<int> copies_;  // started, not yet counted: an event index, or -1 (done at once)
  uint64_t copies_started_ = 0, copies_done_ = 0;
  // The oldest in-flight operation's wait (watch_stall): since when, and whether it was reported.
  proxy::SteadyClock clock_;
  uint64_t stall_need_ = 0, stall_since_ns_ = 0;
  bool stall_warned_ = false;
};

}  // namespace gshmem::hproxy
