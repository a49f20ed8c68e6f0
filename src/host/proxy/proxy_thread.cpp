// SPDX-License-Identifier: BSD-3-Clause
// The proxy thread (docs/internode.md section 5, "Worker, threads, progress") and the Proxy's
// own small parts: host-op waits, teardown.
#include <poll.h>
#include <time.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

#include "host/core/abort.h"
#include "host/core/config.h"
#include "host/core/driver.h"
#include "host/core/log.h"
#include "host/proxy/channel.h"
#include "host/proxy/cuda_stager.h"
#include "host/proxy/proxy.h"

namespace gshmem::hproxy {
namespace {

// Spin this long after the last pass that moved something: a burst's next entry usually comes
// within microseconds, and a sleeping thread adds its wake-up time to every operation.
constexpr uint64_t kSpinNs = 100 * 1000;
// Then sleep in naps of at most this long: the GPU cannot signal an fd, so a nap bounds the
// latency an idle proxy adds to a device operation.
constexpr long kNapNs = 50 * 1000;

// The traced proxy of this process, for the at-exit writer: a PE that fails (a test's exit(1)
// after a kernel trapped) leaves its trace too, not only one that finalizes.
std::atomic<Proxy*> g_traced{nullptr};

void write_trace_at_exit() {
  if (Proxy* p = g_traced.exchange(nullptr, std::memory_order_acq_rel)) p->stop_and_write_trace();
}

uint64_t now_ns() {
  return static_cast<uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

}  // namespace

void Proxy::run() {
  // The stager's copies and kernels must go to this PE's GPU, in its apply context if it has one:
  // the current context is per thread.
  if (CUcontext ctx = stager_->context()) {
    const CUresult r = cu::api().CtxSetCurrent(ctx);
    if (r != CUDA_SUCCESS)
      GSHMEM_LOG_ERROR(
          "proxy: PE %d's proxy thread cannot use its apply context (%s); operations through it will "
          "not complete",
          my_pe_, cu::error_string(r));
  } else if (cudaSetDevice(device_) != cudaSuccess) {
    cudaGetLastError();
    GSHMEM_LOG_ERROR("proxy: PE %d's proxy thread cannot use GPU %d; operations through it will not complete", my_pe_,
                     device_);
  }
  GSHMEM_LOG_INFO("proxy: thread of PE %d started on GPU %d (spins %llu us after work, then naps of %ld us%s)", my_pe_,
                  device_, (unsigned long long)(kSpinNs / 1000), kNapNs / 1000,
                  transport_->wait_fd() >= 0 ? " or until the network wakes it" : "");
  size_t seen = 0;
  bool diag_reported = false;
  uint64_t last_work = now_ns();
  proxy::Trace* const trace = trace_.get();
  uint64_t nap_start = 0, nap_naps = 0;  // traced: the last nap's start, and the nap count before it
  while (!stop_.load(std::memory_order_acquire)) {
    const bool moved = engine_->progress();
    if (trace && nap_start) {
      // A nap matters to latency only when work waited through it: recorded then (an idle
      // proxy naps 20,000 times a second, which the counters hold).
      if (moved && trace->counters().naps != nap_naps) {
        trace->add_at(nap_start, proxy::TraceEv::kNap, -1, nap_fd_, 0, 0, 0, 0, nap_last_ns_);
      }
      nap_start = 0;
    }
    if (!diag_reported && channel_->diag() != 0) diag_reported = report_device_failure();
    if (engine_->failures().size() != seen) report_failures(&seen);
    if (moved) {
      last_work = now_ns();
      continue;
    }
    if (now_ns() - last_work < kSpinNs) continue;
    if (trace) {
      nap_naps = trace->counters().naps;
      nap_start = proxy::Trace::now_ns();
    }
    nap();
  }
}

// Sleeps until the network or the host queue has something, or kNapNs passed. arm() false
// means events are pending: no sleep, progress first.
void Proxy::nap() {
  struct pollfd fds[2];
  int n = 0;
  const int wfd = transport_->wait_fd();
  if (wfd >= 0) {
    if (!transport_->arm()) {
      if (trace_) ++trace_->counters().nap_refused;
      return;
    }
    fds[n++] = {wfd, POLLIN, 0};
  }
  if (queue_.event_fd() >= 0) fds[n++] = {queue_.event_fd(), POLLIN, 0};
  const struct timespec t = {0, kNapNs};
  const uint64_t t0 = trace_ ? proxy::Trace::now_ns() : 0;
  int woke = 0;
  if (n > 0) {
    woke = ppoll(fds, n, &t, nullptr);
  } else {
    nanosleep(&t, nullptr);
  }
  if (trace_) {
    proxy::TraceCounters& c = trace_->counters();
    const uint64_t d = proxy::Trace::now_ns() - t0;
    ++c.naps;
    c.nap_ns += d;
    nap_last_ns_ = d;
    if (d > c.nap_max_ns) c.nap_max_ns = d;
    nap_fd_ = woke > 0;
    c.nap_fd_wakeups += nap_fd_;
  }
}

void Proxy::trace_at_exit() {
  static const bool registered = atexit(write_trace_at_exit) == 0;
  if (!registered) {
    GSHMEM_LOG_WARN("proxy: PE %d: no at-exit handler for the proxy trace: it is written at finalize only", my_pe_);
    return;
  }
  g_traced.store(this, std::memory_order_release);
}

// At exit (the process did not finalize) or from the destructor. The records are the proxy
// thread's: it is stopped first, unless this is that thread (then it adds none while writing).
// Untraced, only the stop.
void Proxy::stop_and_write_trace() {
  stop_.store(true, std::memory_order_release);
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
  if (trace_ && !trace_written_) {
    trace_written_ = true;
    write_trace();
  }
}

// GSHMEM_PROXY_TRACE: this PE's records to <prefix>.<pe>.tsv, after the thread stopped.
void Proxy::write_trace() {
  const std::string path = config::get().proxy_trace + "." + std::to_string(my_pe_) + ".tsv";
  std::string why;
  if (trace_->write(path, my_pe_, n_pes_, &why))
    GSHMEM_LOG_INFO("proxy: PE %d: trace of %zu records (%llu more not kept) written to %s", my_pe_, trace_->size(),
                    (unsigned long long)trace_->dropped(), path.c_str());
  else
    GSHMEM_LOG_WARN("proxy: PE %d: the proxy trace (GSHMEM_PROXY_TRACE) was not written: %s", my_pe_, why.c_str());
}

// A device thread failed on the proxy path and trapped (include/gshmem/device/impl/proxy.cuh:
// the GPU does not print there): its diagnostic words say what and where.
bool Proxy::report_device_failure() {
  const uint64_t d = channel_->diag();
  const unsigned why = static_cast<unsigned>((d >> 56) & 15u), op = static_cast<unsigned>((d >> 48) & 63u);
  const int target = static_cast<int>(d & 0xffffffu);
  static const char* const ops[] = {
      "quiet",      "put",       "get",        "signal",      "atomic set",          "atomic add",
      "atomic and", "atomic or", "atomic xor", "atomic swap", "atomic compare-swap", "atomic fetch"};
  const char* name = op < sizeof(ops) / sizeof(ops[0]) ? ops[op] : "operation";
  const char* cause = why == GSHMEMI_PROXY_DIAG_RING_FULL  ? "found no free slot in the proxy ring"
                      : why == GSHMEMI_PROXY_DIAG_NO_REPLY ? "got no reply from the proxy"
                                                           : "saw its operations through the proxy not complete";
  const unsigned long long limit = static_cast<unsigned long long>(config::get().wait_timeout);
  const std::string to = op ? " to PE " + std::to_string(target) : std::string();
  const uint64_t fault = channel_->fault();
  if (abort_word::value() != 0) {  // the abort word ended the wait (device/impl/proxy.cuh, poll)
    char reason[96];
    GSHMEM_LOG_ERROR("PE %d: a device %s%s stopped waiting: %s (the abort word); the kernel trapped", my_pe_, name,
                     to.c_str(), abort_word::reason(reason, sizeof(reason)));
  } else if (why == GSHMEMI_PROXY_DIAG_FAILED)
    GSHMEM_LOG_ERROR("PE %d: a device %s%s failed: PE %lld failed (ticket %llu); the kernel trapped", my_pe_, name,
                     to.c_str(), static_cast<long long>(fault) - 1, (unsigned long long)channel_->diag_ticket());
  else
    GSHMEM_LOG_ERROR(
        "PE %d: a device %s%s %s within %llu s (GSHMEM_WAIT_TIMEOUT; ticket %llu, %llu parsed, %llu complete); "
        "the kernel trapped. The proxy thread of this PE or of the target, or the network, is stuck",
        my_pe_, name, to.c_str(), cause, limit, (unsigned long long)channel_->diag_ticket(),
        (unsigned long long)engine_->parsed(), (unsigned long long)engine_->completed());
  return true;
}

void Proxy::report_failures(size_t* seen) {
  const std::vector<proxy::Failure>& f = engine_->failures();
  const bool finalizing = finalizing_.load(std::memory_order_acquire);
  for (; *seen < f.size(); ++*seen) {
    const proxy::Failure& x = f[*seen];
    if (finalizing)
      GSHMEM_LOG_INFO("proxy (finalizing): %s", x.message.c_str());
    else
      GSHMEM_LOG_ERROR("proxy: %s", x.message.c_str());
    const int q = x.target;
    if (q < 0 || q >= static_cast<int>(reported_.size()) || reported_[q] || !engine_->peer_failed(q)) continue;
    reported_[q] = 1;
    // A peer that went away: the path the bootstrap's failure monitor takes (log; end this PE
    // under GSHMEM_PEER_FAILURE_ABORT). Not at finalize, where PEs close their endpoints.
    if (!finalizing && on_failure_) on_failure_(q, "the network transport reported it: " + x.message);
  }
}

uint64_t Proxy::push(const proxy::HostOp& op) {
  const uint64_t id = queue_.push(op);
  // Host calls are serialised (GSHMEM_THREAD_SERIALIZED at most), but keep the maximum anyway.
  uint64_t cur = pushed_.load(std::memory_order_relaxed);
  while (cur < id + 1 && !pushed_.compare_exchange_weak(cur, id + 1, std::memory_order_acq_rel)) {
  }
  return id;
}

void Proxy::wait_host(uint64_t end) const {
  const uint64_t start = now_ns();
  while (queue_.completed() < end) {
    if (now_ns() - start < kSpinNs) {
      std::this_thread::yield();
    } else {
      const struct timespec t = {0, 20 * 1000};
      nanosleep(&t, nullptr);
    }
  }
}

gshmemi_proxy_channel Proxy::device_channel() const { return channel_->device(); }

Proxy::~Proxy() {
  Proxy* self = this;
  g_traced.compare_exchange_strong(self, nullptr, std::memory_order_acq_rel);  // not at exit any more
  stop_and_write_trace();
  engine_.reset();  // before the transport it registered its callbacks with
}

}  // namespace gshmem::hproxy
