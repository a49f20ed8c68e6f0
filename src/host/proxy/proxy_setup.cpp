// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init's part of the proxy (proxy.h, setup): load the transport, exchange addresses,
// connect, make the pieces; every step agreed by all PEs, each failure named on every PE.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>

#include "bootstrap/bootstrap.h"
#include "bootstrap/init_exchange.h"
#include "host/core/config.h"
#include "host/core/driver.h"
#include "host/core/log.h"
#include "host/mem/heap.h"
#include "host/proxy/channel.h"
#include "host/proxy/connections.h"
#include "host/proxy/cuda_stager.h"
#include "host/proxy/proxy.h"

namespace gshmem::hproxy {
namespace {

constexpr const char* kCall = "gshmem_init";

// One PE's answer to a step, all-gathered: whether it succeeded, its node (for messages) and
// the length of its text (an address on success, the cause on failure), which follows in a
// second all-gather of records of the longest length (variable-length data over a fixed-size
// all-gather).
struct Header {
  uint32_t ok;
  uint32_t len;
  int32_t group;  // the first PE of its node: PEs of one group map one another's heaps
  char node[52];
};
static_assert(sizeof(Header) == 64, "Header travels as raw bytes");

struct Answers {
  std::vector<Header> head;
  std::vector<std::string> text;
};

std::string node_name() {
  const std::string& id = config::get().hostid;
  if (!id.empty()) return id;
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  return name;
}

Status exchange(Runtime& r, bool ok, const std::string& text, Answers* out) {
  bootstrap::Bootstrap& b = *r.boot;
  Header mine{};
  mine.ok = ok ? 1 : 0;
  mine.len = static_cast<uint32_t>(text.size());
  mine.group = r.local_pes.empty() ? r.my_pe : r.local_pes[0];
  std::snprintf(mine.node, sizeof mine.node, "%s", node_name().c_str());
  out->head.assign(r.n_pes, Header{});
  GSHMEM_TRY(b.allgather(&mine, out->head.data(), sizeof(Header)));
  uint32_t max = 0;
  for (const Header& h : out->head) max = std::max(max, h.len);
  out->text.assign(r.n_pes, std::string());
  if (max == 0) return GSHMEM_SUCCESS;
  std::vector<char> record(max, 0), all(static_cast<size_t>(max) * r.n_pes);
  std::memcpy(record.data(), text.data(), text.size());
  GSHMEM_TRY(b.allgather(record.data(), all.data(), max));
  for (int pe = 0; pe < r.n_pes; ++pe)
    out->text[pe].assign(all.data() + static_cast<size_t>(pe) * max, out->head[pe].len);
  return GSHMEM_SUCCESS;
}

// The lowest failed PE p and a PE q of another node, which therefore cannot reach it, in the
// one line every PE logs. false: every PE succeeded.
bool report(const Answers& a, const char* step) {
  const int n = static_cast<int>(a.head.size());
  int p = 0;
  while (p < n && a.head[p].ok) ++p;
  if (p == n) return false;
  int q = 0;
  while (q < n && (q == p || a.head[q].group == a.head[p].group)) ++q;
  if (q == n) q = p == 0 ? (n > 1 ? 1 : 0) : 0;
  GSHMEM_LOG_ERROR("%s: PE %d (node '%s') is not reachable from PE %d (node '%s'): %s: %s", kCall, q, a.head[q].node, p,
                   a.head[p].node, step, a.text[p].c_str());
  return true;
}

std::unique_ptr<proxy::PluginTransport> load_transport(const Runtime& r, std::string* why) {
  const config::Values& cfg = config::get();
  if (cfg.remote_transport == "none" || cfg.remote_transport.empty()) {
    *why =
        "GSHMEM_REMOTE_TRANSPORT=none; unset it (the default, ucx, reaches other nodes) or run every PE on one node "
        "(and leave GSHMEM_DISABLE_P2P unset)";
    return nullptr;
  }
  proxy::PluginOptions o;
  o.name = cfg.remote_transport;
  o.library = cfg.ucx_lib;
  o.my_pe = r.my_pe;
  o.n_pes = r.n_pes;
  std::string err;
  auto t = proxy::PluginTransport::load(o, &err);
  if (!t)
    *why = err +
           "; install UCX (pip install libucx-cu13) or set GSHMEM_UCX_LIB to a libucp.so.0, or run every PE on "
           "one node";
  return t;
}

}  // namespace

bool needed(const Runtime& r) { return r.n_pes > 1 && (r.n_nodes > 1 || config::get().disable_p2p); }

void prefer_eager_loading(const Runtime& r) {
  if (!needed(r) || getenv("CUDA_MODULE_LOADING") != nullptr) return;
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);
  GSHMEM_LOG_INFO(
      "proxy: CUDA_MODULE_LOADING=EAGER for this process (a PE on another node is reached through the "
      "proxy; set CUDA_MODULE_LOADING to choose otherwise)");
}

namespace {
// Whether an MPS control daemon serves this process's user (its pipe directory has `control`).
bool mps_daemon_present() {
  const char* dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
  const std::string control = std::string(dir && *dir ? dir : "/tmp/nvidia-mps") + "/control";
  return access(control.c_str(), F_OK) == 0;
}

// Whether CUDA has started in this process (cuInit called): then CUDA_DEVICE_MAX_CONNECTIONS,
// read when CUDA starts, can no longer change. Asked of the driver already loaded, if any
// (RTLD_NOLOAD): cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED before cuInit.
bool cuda_started() {
  void* h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (h == nullptr) return false;
  using CountFn = CUresult (*)(int*);
  const auto count = reinterpret_cast<CountFn>(dlsym(h, "cuDeviceGetCount"));
  int n = 0;
  const bool started = count != nullptr && count(&n) != CUDA_ERROR_NOT_INITIALIZED;
  dlclose(h);
  return started;
}

ApplyContext apply_context() {
  return apply_context_choice(config::get().proxy_apply_context, getenv("CUDA_DEVICE_MAX_CONNECTIONS"),
                              mps_daemon_present());
}

// Why the proxy applies from a context of its own (for the log), or nullptr: it does not.
const char* apply_context_cause(ApplyContext c) {
  switch (c) {
    case ApplyContext::kAsked:
      return "GSHMEM_PROXY_APPLY_CONTEXT=1";
    case ApplyContext::kMps:
      return "under MPS";
    case ApplyContext::kFewConnections:
      return "CUDA_DEVICE_MAX_CONNECTIONS below 4";
    case ApplyContext::kNo:
      break;
  }
  return nullptr;
}
}  // namespace

void prefer_connections(const Runtime& r) {
  if (!needed(r)) return;
  const char* v = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  if (const ApplyContext c = apply_context(); c != ApplyContext::kNo) {
    // The apply context has queues of its own: the application's count no longer matters to
    // the proxy. Outside MPS it costs time slices, which only few queues justify: say so.
    if (c == ApplyContext::kFewConnections)
      GSHMEM_LOG_WARN(
          "gshmem_init: PE %d: CUDA_DEVICE_MAX_CONNECTIONS=%s puts this process's streams on so few hardware queues "
          "that the proxy's apply stream would queue behind kernels that wait for it (a hang), so the proxy applies "
          "what other nodes send from a CUDA context of its own: outside MPS each apply then waits for a time slice "
          "(0.15-2 ms). With %s or more, applies stay in this context and take microseconds "
          "(GSHMEM_PROXY_APPLY_CONTEXT; docs/internode.md section 9)",
          r.my_pe, v, kProxyConnections);
    return;
  }
  const ConnectionsAdvice a = connections_advice(v, v == nullptr && mps_daemon_present());
  if (a.set != nullptr && cuda_started()) {
    GSHMEM_LOG_WARN(
        "gshmem_init: PE %d runs under MPS with PEs on several nodes, and CUDA started in this process before "
        "gshmem_init: too late to set CUDA_DEVICE_MAX_CONNECTIONS=%s, so the proxy's apply stream may queue behind a "
        "kernel of this PE that waits for what it applies, a hang. Set CUDA_DEVICE_MAX_CONNECTIONS=%s in every PE's "
        "environment (gshmrun does), or leave GSHMEM_PROXY_APPLY_CONTEXT unset (docs/internode.md section 9)",
        r.my_pe, a.set, a.set);
  } else if (a.set != nullptr) {
    setenv("CUDA_DEVICE_MAX_CONNECTIONS", a.set, 0);
    GSHMEM_LOG_INFO(
        "proxy: CUDA_DEVICE_MAX_CONNECTIONS=%s for this process (under MPS; a PE on another node is reached through "
        "the proxy, whose apply stream must not queue behind kernels that wait for it: docs/internode.md section 9; "
        "set CUDA_DEVICE_MAX_CONNECTIONS to choose otherwise)",
        a.set);
  } else if (a.too_few > 0) {
    GSHMEM_LOG_WARN(
        "gshmem_init: PE %d: CUDA_DEVICE_MAX_CONNECTIONS=%s puts this process's streams on %ld hardware queue(s): the "
        "proxy's apply stream (the data and signals PEs on other nodes send here) can then queue behind a kernel of "
        "this PE that waits for them, a hang. Use %ld or more with PEs on several nodes, or leave "
        "GSHMEM_PROXY_APPLY_CONTEXT unset (docs/internode.md section 9)",
        r.my_pe, v, a.too_few, kMinConnections);
  }
}

namespace {
// Lazy loading with a proxy can deadlock (prefer_eager_loading): say so once, with the remedy.
void warn_if_lazy(const Runtime& r) {
  const cu::Api* api = nullptr;
  CUmoduleLoadingMode mode = CU_MODULE_EAGER_LOADING;
  if (cu::load(&api) != GSHMEM_SUCCESS || !api->ModuleGetLoadingMode ||
      api->ModuleGetLoadingMode(&mode) != CUDA_SUCCESS || mode != CU_MODULE_LAZY_LOADING)
    return;
  GSHMEM_LOG_WARN(
      "gshmem_init: PE %d: CUDA loads kernels lazily (CUDA_MODULE_LOADING=LAZY, or CUDA started before "
      "gshmem_init): the first launch of a kernel then waits for running kernels, and a running kernel that "
      "waits for a PE on another node waits for this PE's proxy, which that launch holds up: a hang. Set "
      "CUDA_MODULE_LOADING=EAGER in the environment (gshmrun --sim-nodes does), or launch every kernel once "
      "before kernels that wait on other nodes run",
      r.my_pe);
}
}  // namespace

Status setup(Runtime& r, PeerFailureFn on_failure, SyncWordFn sync_word) {
  warn_if_lazy(r);
  const config::Values& cfg = config::get();
  std::unique_ptr<Proxy> px(new Proxy());
  px->device_ = r.device;
  px->my_pe_ = r.my_pe;
  px->n_pes_ = r.n_pes;
  // Allocated now: recording never allocates (proxy/trace.h).
  if (!cfg.proxy_trace.empty()) px->trace_ = std::make_unique<proxy::Trace>(cfg.proxy_trace_events);
  px->on_failure_ = on_failure;
  px->reported_.assign(r.n_pes, 0);

  // 1. The transport, and its worker address for the others.
  std::string why;
  px->transport_ = load_transport(r, &why);
  std::string mine = why;
  if (px->transport_) {
    const std::vector<uint8_t> addr = px->transport_->address();
    mine.assign(addr.begin(), addr.end());
    if (addr.empty()) {
      mine = "the transport '" + std::string(px->transport_->name()) +
             "' gave no worker address: " + px->transport_->last_error();
      px->transport_.reset();
    }
  }
  Answers a;
  GSHMEM_TRY(exchange(r, px->transport_ != nullptr, mine, &a));
  if (report(a, "no network transport")) return GSHMEM_ERROR_UNSUPPORTED;

  // 2. Endpoints to the proxy peers; the channel, the stager and the engine.
  bool ok = true;
  std::vector<int> peers;
  for (int pe = 0; pe < r.n_pes; ++pe)
    if (pe != r.my_pe && r.heap->peer_base(pe) == nullptr) peers.push_back(pe);
  for (int pe : peers) {
    std::vector<uint8_t> addr(a.text[pe].begin(), a.text[pe].end());
    std::string err;
    if (!px->transport_->connect(pe, addr, &err)) {
      why = "connecting to PE " + std::to_string(pe) + " failed: " + err;
      ok = false;
      break;
    }
  }
  const mem::Heap* heap = r.heap.get();
  if (ok && Channel::create(kCall, static_cast<uint64_t>(cfg.proxy_ring_entries), &px->channel_) != GSHMEM_SUCCESS) {
    why = "its proxy channel could not be made (see its log)";
    ok = false;
  }
  // The heap's size is read at every apply: it grows collectively, and an offset another PE
  // sends after its gshmem_malloc returned lies below the size this PE reached in that call.
  if (ok && CudaStager::create(
                kCall, r.heap->base(), [heap] { return heap->size(); }, apply_context_cause(apply_context()),
                &px->stager_) != GSHMEM_SUCCESS) {
    why = "its proxy apply stream could not be made (see its log)";
    ok = false;
  }
  if (ok && sync_word) px->stager_->set_sync_words(sync_word);

  // 3. The bulk path (docs/internode.md section 5, "Bulk data"): a pinned window registered
  // with the transport, its key to every PE. On only if every PE offers one (the engine puts
  // into any peer's window), so a PE without RMA or memory turns it off for all, quietly.
  proxy::BulkConfig bulk;
  bulk.chunk = static_cast<uint64_t>(cfg.proxy_chunk);
  bulk.slots_per_source = bulk.out_slots = static_cast<uint32_t>(cfg.proxy_bulk_slots);
  bulk.min_size = static_cast<uint64_t>(cfg.proxy_bulk_min);
  std::string key, bulk_why = !cfg.proxy_bulk ? "GSHMEM_PROXY_BULK=0" : "";
  if (ok && cfg.proxy_bulk && !px->transport_->has_rma())
    bulk_why = "the transport '" + std::string(px->transport_->name()) + "' has no RMA";
  if (ok && bulk_why.empty()) {
    std::vector<uint8_t> k;
    uint8_t* w = px->stager_->make_window(bulk.window_bytes(r.n_pes), &bulk_why);
    if (w && px->transport_->bulk_register(w, bulk.window_bytes(r.n_pes), &k, &bulk_why)) {
      // The layout first: a source computes its slots' offsets in the target's window from its
      // own chunk and slot count, so every PE must have the same.
      const uint64_t layout[2] = {bulk.chunk, bulk.slots_per_source};
      key.assign(reinterpret_cast<const char*>(layout), sizeof layout);
      key.append(k.begin(), k.end());
      bulk.window = w;
    }
  }
  GSHMEM_TRY(exchange(r, true, key, &a));
  // Decided from what every PE sees alike (all texts), so that all decide the same.
  constexpr size_t kLayout = 2 * sizeof(uint64_t);
  bool all_bulk = true, same_layout = true;
  for (int pe = 0; pe < r.n_pes; ++pe) {
    all_bulk = all_bulk && a.text[pe].size() > kLayout;
    same_layout = same_layout && all_bulk && a.text[pe].compare(0, kLayout, a.text[0], 0, kLayout) == 0;
  }
  if (!all_bulk && bulk.window && bulk_why.empty()) bulk_why = "another PE has no staging window";
  if (all_bulk && !same_layout) {
    bulk_why = "GSHMEM_PROXY_CHUNK or GSHMEM_PROXY_BULK_SLOTS differs between PEs; set the same on every PE";
    GSHMEM_LOG_WARN("gshmem_init: PE %d: proxy bulk path off: %s", r.my_pe, bulk_why.c_str());
    all_bulk = false;
  }
  for (int pe : peers) {
    std::string err;
    if (all_bulk &&
        !px->transport_->bulk_connect(pe, std::vector<uint8_t>(a.text[pe].begin() + kLayout, a.text[pe].end()), &err)) {
      why = "the staging window key of PE " + std::to_string(pe) + " was refused: " + err;
      ok = false;
    }
  }
  if (!all_bulk) bulk.window = nullptr;
  GSHMEM_LOG_INFO("proxy: bulk path %s%s%s", all_bulk ? "on: chunks of " : "off (",
                  all_bulk ? (std::to_string(bulk.chunk >> 10) + " KiB, " + std::to_string(bulk.slots_per_source) +
                              " in flight per peer, puts from " + std::to_string(bulk.min_size) + " B")
                                 .c_str()
                           : bulk_why.c_str(),
                  all_bulk ? "" : ")");
  if (ok) {
    proxy::EngineConfig ec;
    ec.my_pe = r.my_pe;
    ec.n_pes = r.n_pes;
    ec.ring = px->channel_->region();
    ec.host_queue = &px->queue_;
    ec.bulk = bulk;
    ec.trace = px->trace_.get();
    ec.ack_delay_ns = static_cast<uint64_t>(cfg.proxy_ack_delay_us) * 1000;
    px->engine_ = std::make_unique<proxy::Engine>(ec, *px->transport_, *px->stager_, px->clock_);
  }
  GSHMEM_TRY(exchange(r, ok, ok ? std::string() : why, &a));
  if (report(a, "the proxy could not start")) return GSHMEM_ERROR_UNSUPPORTED;

  try {
    px->thread_ = std::thread([p = px.get()] { p->run(); });
    if (px->trace_) px->trace_at_exit();
  } catch (const std::exception& e) {
    // The last step that can fail alone: the others are ready, so this is fatal for the job.
    fatal("gshmem_init: PE %d could not start its proxy thread: %s", r.my_pe, e.what());
  }
  GSHMEM_LOG_INFO(
      "proxy: PE %d reaches %zu of %d PEs through '%s' (%s); ring of %lld entries, host queue%s; "
      "GSHMEM_DISABLE_P2P=%d",
      r.my_pe, peers.size(), r.n_pes, px->transport_->name(), px->transport_->path().c_str(),
      static_cast<long long>(cfg.proxy_ring_entries), px->queue_.error().empty() ? "" : " without eventfd",
      cfg.disable_p2p ? 1 : 0);
  r.dstate.proxy = px->device_channel();
  r.dstate.proxy.sync_words = r.team_proxy_sync_d;  // the teams' (team::setup); null: GSHMEM_PROXY_HOST_SYNC=0
  r.proxy = std::move(px);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::hproxy
