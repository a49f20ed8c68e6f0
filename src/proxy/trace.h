// SPDX-License-Identifier: BSD-3-Clause
// The proxy trace (GSHMEM_PROXY_TRACE, docs/internode.md section 13, "Tracing the proxy"): what
// the engine and the proxy thread did and when, for finding where a microsecond goes between a
// device's entry and its apply at the target. One record per stage of each operation and
// message (entry taken from the ring, handed to the transport, send complete, received, apply
// submitted and observed complete, acknowledgement and reply sent and received, completion
// published) and per nap that held up work, each stamped with CLOCK_MONOTONIC, which all
// processes of a host share: on simulated nodes the PEs' records merge into one timeline (on
// real nodes each PE's own deltas still hold). Loop counters (passes, time per phase of a pass,
// naps) sum up the rest.
//
// Recording costs no allocation and no I/O: the records go into a buffer allocated up front,
// and once it is full later records are only counted (the first ones are kept: a benchmark's
// first rounds are its timeline). write() saves everything as tab-separated text at finalize;
// tools/proxy_trace.py merges the PEs' files and reports. With tracing off the engine holds a
// null Trace pointer: each recording site is one test of it, no clock read.
//
// One thread records (the proxy thread, or a test's pump): no locking. Records are kept in the
// order they were made; one stamped at the start of a call (a send, an apply, a slow pass) comes
// after those made during the call, so readers sort by time.
#pragma once

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gshmem::proxy {

// What a record says; the names tools/proxy_trace.py reads are trace_event_name()'s.
enum class TraceEv : uint8_t {
  kRing = 1,       // an entry taken from the ring: a = ticket, peer = target, op, flags
  kHost,           // a host-queue op taken: a = its id, peer = target, op, flags
  kSend,           // a message handed to the transport: kind, peer = destination, a = seq (an ack: the
                   // count acknowledged), b = token; dur = the send call. An ack riding on another
                   // message (WireHeader::ack): an ack record of its own at that send, b = 1
  kSendDone,       // the transport completed a send locally: b = token
  kRecv,           // a message arrived: kind, peer = source, a = seq (ack: the count), b = token, op, flags;
                   // an ack riding on it: an ack record of its own, b = 1
  kApply,          // an op submitted to the stager (an apply kernel, a copy, a stream write): peer =
                   // source, a = seq, op, flags; dur = the submit call (the CUDA launch)
  kApplied,        // the stager reported that op complete: peer = source, a = seq
  kReply,          // reply words written into a ring slot (a blocking put's tag, a fetched value): a = ticket
  kCompleted,      // the ring's `completed` published: a = the lowest incomplete ticket
  kHostCompleted,  // the host queue's completion count published: a
  kBulkPut,        // a bulk chunk's RMA write started: peer = target, a = seq, b = completion token
  kNap,            // the proxy thread slept and the pass after it found work: dur; a = 1 when an fd woke it
  kSlowPass,       // an engine pass that took at least kSlowPassNs: dur; a = its slowest phase, b = that phase's ns
};
const char* trace_event_name(TraceEv ev);

// The phases of an engine pass (Engine::progress), for the counters and kSlowPass.
enum TracePhase : uint8_t {
  kPhaseTransport,  // Transport::progress: arrivals (and the applies they submit), send completions
  kPhaseStager,     // polling the stager's completions
  kPhaseRing,       // parsing the ring and sending what it held
  kPhaseHost,       // the host queue
  kPhaseBulk,       // the bulk path
  kPhaseAcks,       // acknowledgements
  kPhasePublish,    // `released`, `completed`, host completion
  kPhases
};
const char* trace_phase_name(int phase);

struct TraceRecord {
  uint64_t t_ns;
  uint64_t a, b;
  int32_t peer;
  uint32_t dur_ns;  // saturates at 2^32 - 1
  uint8_t ev, kind, op, pad;
  uint16_t flags, pad2;
};
static_assert(sizeof(TraceRecord) == 40, "trace record layout");

struct TraceCounters {
  uint64_t passes = 0;          // engine passes
  uint64_t passes_moved = 0;    // ... that moved something
  uint64_t transport_busy = 0;  // Transport::progress calls that delivered a callback
  uint64_t phase_ns[kPhases] = {};
  uint64_t phase_max_ns[kPhases] = {};
  uint64_t pass_hist[16] = {};  // passes by duration: [0] < 512 ns, [i] < 512 << i ns, [15] the rest
  uint64_t naps = 0, nap_ns = 0, nap_max_ns = 0;
  uint64_t nap_fd_wakeups = 0;  // naps an fd ended (the network or the host queue), not the timeout
  uint64_t nap_refused = 0;     // arm() said events were pending: no sleep
  uint64_t messages_sent[4] = {}, messages_received[4] = {};  // by MsgKind (1 op, 2 ack, 3 reply)
};

class Trace {
 public:
  // A pass at least this long is recorded (kSlowPass).
  static constexpr uint64_t kSlowPassNs = 4000;

  explicit Trace(size_t capacity);

  static uint64_t now_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
  }

  void add(TraceEv ev, int peer, uint64_t a, uint64_t b = 0, uint8_t kind = 0, uint8_t op = 0, uint16_t flags = 0,
           uint64_t dur_ns = 0) {
    add_at(now_ns(), ev, peer, a, b, kind, op, flags, dur_ns);
  }
  void add_at(uint64_t t_ns, TraceEv ev, int peer, uint64_t a, uint64_t b = 0, uint8_t kind = 0, uint8_t op = 0,
              uint16_t flags = 0, uint64_t dur_ns = 0) {
    if (n_ == recs_.size()) {
      ++dropped_;
      return;
    }
    TraceRecord& r = recs_[n_++];
    r.t_ns = t_ns;
    r.a = a;
    r.b = b;
    r.peer = peer;
    r.dur_ns = dur_ns > 0xffffffffull ? 0xffffffffu : static_cast<uint32_t>(dur_ns);
    r.ev = static_cast<uint8_t>(ev);
    r.kind = kind;
    r.op = op;
    r.pad = 0;
    r.flags = flags;
    r.pad2 = 0;
  }
  // One engine pass of `total` ns, of which phase p took phase_ns[p].
  void pass(uint64_t start_ns, uint64_t total_ns, const uint64_t* phase_ns, bool moved, bool transport_busy);

  TraceCounters& counters() { return c_; }
  const TraceCounters& counters() const { return c_; }
  size_t size() const { return n_; }
  uint64_t dropped() const { return dropped_; }
  const TraceRecord& operator[](size_t i) const { return recs_[i]; }

  // Writes the records and counters as tab-separated text (format: tools/proxy_trace.py).
  bool write(const std::string& path, int my_pe, int n_pes, std::string* why) const;

 private:
  std::vector<TraceRecord> recs_;
  size_t n_ = 0;
  uint64_t dropped_ = 0;
  TraceCounters c_;
};

}  // namespace gshmem::proxy
