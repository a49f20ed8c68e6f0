// SPDX-License-Identifier: BSD-3-Clause
#include "trace.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gshmem::proxy {

const char* trace_event_name(TraceEv ev) {
  switch (ev) {
    case TraceEv::kRing:
      return "ring";
    case TraceEv::kHost:
      return "host";
    case TraceEv::kSend:
      return "send";
    case TraceEv::kSendDone:
      return "sdone";
    case TraceEv::kRecv:
      return "recv";
    case TraceEv::kApply:
      return "apply";
    case TraceEv::kApplied:
      return "applied";
    case TraceEv::kReply:
      return "reply";
    case TraceEv::kCompleted:
      return "completed";
    case TraceEv::kHostCompleted:
      return "hcompleted";
    case TraceEv::kBulkPut:
      return "bulkput";
    case TraceEv::kNap:
      return "nap";
    case TraceEv::kSlowPass:
      return "slowpass";
  }
  return "unknown";
}

const char* trace_phase_name(int phase) {
  static const char* const names[kPhases] = {"transport", "stager", "ring", "host", "bulk", "acks", "publish"};
  return phase >= 0 && phase < kPhases ? names[phase] : "unknown";
}

Trace::Trace(size_t capacity) : recs_(capacity) {}

void Trace::pass(uint64_t start_ns, uint64_t total_ns, const uint64_t* phase_ns, bool moved, bool transport_busy) {
  ++c_.passes;
  c_.passes_moved += moved;
  c_.transport_busy += transport_busy;
  int slowest = 0;
  for (int p = 0; p < kPhases; ++p) {
    c_.phase_ns[p] += phase_ns[p];
    if (phase_ns[p] > c_.phase_max_ns[p]) c_.phase_max_ns[p] = phase_ns[p];
    if (phase_ns[p] > phase_ns[slowest]) slowest = p;
  }
  int bucket = 0;
  while (bucket < 15 && total_ns >= (512ull << bucket)) ++bucket;
  ++c_.pass_hist[bucket];
  if (total_ns >= kSlowPassNs)
    add_at(start_ns, TraceEv::kSlowPass, -1, static_cast<uint64_t>(slowest), phase_ns[slowest], 0, 0, 0, total_ns);
}

bool Trace::write(const std::string& path, int my_pe, int n_pes, std::string* why) const {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *why = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fprintf(f, "# gshmem proxy trace v1\tpe=%d\tn_pes=%d\tclock=CLOCK_MONOTONIC\trecords=%zu\tdropped=%" PRIu64 "\n",
               my_pe, n_pes, n_, dropped_);
  std::fprintf(f, "t_ns\tev\tpeer\tkind\top\tflags\ta\tb\tdur_ns\n");
  for (size_t i = 0; i < n_; ++i) {
    const TraceRecord& r = recs_[i];
    std::fprintf(f, "%" PRIu64 "\t%s\t%d\t%u\t%u\t%u\t%" PRIu64 "\t%" PRIu64 "\t%u\n", r.t_ns,
                 trace_event_name(static_cast<TraceEv>(r.ev)), r.peer, r.kind, r.op, r.flags, r.a, r.b, r.dur_ns);
  }
  // Counters as comment lines: "# counter <name> <value>".
  auto counter = [f](const std::string& name, uint64_t v) {
    std::fprintf(f, "# counter\t%s\t%" PRIu64 "\n", name.c_str(), v);
  };
  counter("passes", c_.passes);
  counter("passes_moved", c_.passes_moved);
  counter("transport_busy", c_.transport_busy);
  for (int p = 0; p < kPhases; ++p) {
    counter(std::string("phase_ns.") + trace_phase_name(p), c_.phase_ns[p]);
    counter(std::string("phase_max_ns.") + trace_phase_name(p), c_.phase_max_ns[p]);
  }
  for (int b = 0; b < 16; ++b) counter("pass_hist." + std::to_string(b), c_.pass_hist[b]);
  counter("naps", c_.naps);
  counter("nap_ns", c_.nap_ns);
  counter("nap_max_ns", c_.nap_max_ns);
  counter("nap_fd_wakeups", c_.nap_fd_wakeups);
  counter("nap_refused", c_.nap_refused);
  static const char* const kinds[4] = {"none", "op", "ack", "reply"};
  for (int k = 1; k < 4; ++k) {
    counter(std::string("sent.") + kinds[k], c_.messages_sent[k]);
    counter(std::string("received.") + kinds[k], c_.messages_received[k]);
  }
  const bool ok = std::fflush(f) == 0 && !std::ferror(f);
  if (std::fclose(f) != 0 || !ok) {
    *why = "writing " + path + " failed: " + std::strerror(errno);
    return false;
  }
  return true;
}

}  // namespace gshmem::proxy
