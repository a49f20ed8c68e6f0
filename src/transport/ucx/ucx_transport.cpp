// SPDX-License-Identifier: BSD-3-Clause
#include "ucx_transport.h"

#include <sys/epoll.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace gshmem::ucx {

struct Transport::SendReq {
  Transport* t;
  int pe;
  uint64_t token;
  std::vector<uint8_t> header;   // WireHead + the engine's header
  std::vector<uint8_t> payload;  // copied: the engine's buffer is gone when send() returns
};

struct Transport::RecvReq {
  Transport* t;
  int src;
  std::vector<uint8_t> header;  // the engine's header (the callback's copy is gone)
  std::vector<uint8_t> data;
};

namespace {

constexpr uint64_t kAddressFlagNetOnly = 1u << 0;  // UCP_WORKER_ADDRESS_FLAG_NET_ONLY
constexpr uint64_t kWorkerAttrFieldAddressFlags = 1u << 2;

request_param_t host_param(void* user_data) {
  request_param_t p{};
  p.op_attr_mask = kOpAttrFieldCallback | kOpAttrFieldUserData | kOpAttrFieldMemoryType;
  p.user_data = user_data;
  p.memory_type = kMemoryTypeHost;
  return p;
}

// What both contexts ask of UCX: every buffer the plugin hands it is host memory and says so, so
// UCX never has to probe a pointer's memory type, and it needs none of UCX's CUDA transports.
// Those are left out unless UCX_TLS names the transports itself: with the PyPI wheel's
// cuda_copy/cuda_ipc loaded, the proxy's first messages across simulated nodes never arrived on
// 2 x H200 (UCX 1.22, driver 580: the barrier timed out, then cuda_copy_md failed at exit);
// leaving them out, the same run passed (bulk 1 MiB: 3.0 GB/s).
void host_memory_only(const Api& a, config_t* cfg) {
  a.config_modify(cfg, "MEMTYPE_CACHE", "n");
  if (!std::getenv("UCX_TLS")) a.config_modify(cfg, "TLS", "^cuda_copy,cuda_ipc,gdr_copy");
}

}  // namespace

bool Transport::init(const gshmemi_transport_init_args_v1& args, std::string* error) {
  my_pe_ = args.my_pe;
  cb_ = args.callbacks;
  peers_.resize(args.n_pes > 0 ? args.n_pes : 0);
  for (int q = 0; q < static_cast<int>(peers_.size()); ++q) {
    peers_[q].t = this;
    peers_[q].pe = q;
  }
  if (!load(args.library, &lib_, error)) return false;
  const Api& a = lib_.api;
  const std::string who = "UCX " + std::string(a.get_version_string()) + " (" + lib_.path + ")";
  config_t* cfg = nullptr;
  if (status_t s = a.config_read(nullptr, nullptr, &cfg); s != kOk) {
    *error = who + ": ucp_config_read failed: " + status_text(s) + " (check the UCX_* variables)";
    return false;
  }
  host_memory_only(a, cfg);
  params_t p{};
  p.field_mask = kParamFieldFeatures;
  p.features = kFeatureAm | kFeatureWakeup | kFeatureRma;  // RMA: the bulk path's put
  status_t s = a.init_version(kApiMajor, kApiMinor, &p, cfg, &ctx_);
  a.config_release(cfg);
  if (s != kOk) {
    *error = who + ": ucp_init failed: " + status_text(s) + " (UCX_TLS names no usable transport?)";
    return false;
  }
  worker_params_t wp{};
  wp.field_mask = kWorkerParamFieldThreadMode;
  wp.thread_mode = kThreadModeSingle;
  if ((s = a.worker_create(ctx_, &wp, &worker_)) != kOk) {
    *error = who + ": ucp_worker_create failed: " + status_text(s);
    return false;
  }
  // A network-only address: the peers are other nodes (or stand for them), and it keeps the
  // address small (tens of bytes over tcp) for the all-gather at start-up.
  worker_attr_t wa{};
  wa.field_mask = kWorkerAttrFieldAddress | kWorkerAttrFieldAddressFlags | kWorkerAttrFieldMaxAmHeader;
  wa.address_flags = kAddressFlagNetOnly;
  if ((s = a.worker_query(worker_, &wa)) != kOk) {
    *error = who + ": ucp_worker_query failed: " + status_text(s);
    return false;
  }
  address_ = wa.address;
  address_length_ = wa.address_length;
  max_am_header_ = wa.max_am_header;
  am_handler_param_t h{};
  h.field_mask = kAmHandlerParamFieldId | kAmHandlerParamFieldFlags | kAmHandlerParamFieldCb | kAmHandlerParamFieldArg;
  h.id = kAmId;
  h.flags = kAmFlagWholeMsg;
  h.cb = &on_am;
  h.arg = this;
  if ((s = a.worker_set_am_recv_handler(worker_, &h)) != kOk) {
    *error = who + ": ucp_worker_set_am_recv_handler failed: " + status_text(s);
    return false;
  }
  return true;
}

Transport::~Transport() {
  const Api& a = lib_.api;
  if (worker_) close_endpoints(true);  // the peers' rkeys first, then the endpoints of both workers
  if (wake_fd_ >= 0) close(wake_fd_);
  if (rma_worker_) {
    if (rma_address_) a.worker_release_address(rma_worker_, rma_address_);
    a.worker_destroy(rma_worker_);
  }
  if (window_) a.mem_unmap(rma_ctx_ ? rma_ctx_ : ctx_, window_);
  if (rma_ctx_) a.cleanup(rma_ctx_);
  if (worker_) {
    if (address_) a.worker_release_address(worker_, address_);
    a.worker_destroy(worker_);
  }
  if (ctx_) a.cleanup(ctx_);
}

// Closes the endpoints of failed peers (forced: nothing to flush) or, at finalize, all of them:
// live ones flushed, with progress bounded in time so that a peer that died unnoticed cannot
// hold finalize.
void Transport::close_endpoints(bool all) {
  const Api& a = lib_.api;
  std::vector<void*> reqs;
  for (Peer& p : peers_) {
    if ((!p.ep && !p.rma_ep) || !(all || p.close_pending)) continue;
    if (p.rkey) {  // unpacked on the endpoint the puts use: goes before it
      a.rkey_destroy(p.rkey);
      p.rkey = nullptr;
    }
    request_param_t prm{};
    prm.op_attr_mask = kOpAttrFieldFlags;
    prm.flags = p.failed ? kEpCloseFlagForce : 0;
    for (ep_h* ep : {&p.ep, &p.rma_ep}) {
      if (!*ep) continue;
      void* r = a.ep_close_nbx(*ep, &prm);
      if (r && !ptr_is_err(r)) reqs.push_back(r);
      *ep = nullptr;
    }
    p.close_pending = false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (void* r : reqs) {
    while (a.request_check_status(r) == kInProgress && std::chrono::steady_clock::now() < deadline) progress_workers();
    a.request_free(r);  // freed now or, if still running, by UCX when it completes
  }
}

// One round of each worker; what they did, as ucp_worker_progress counts it. The RMA worker
// is polled every round while it is busy (puts or flushes of this PE in flight, or it did
// something in the last kRmaHot rounds: a target receiving puts) and after arm() (a wakeup may
// be its), else every kRmaIdleEvery-th round: each poll costs a tcp epoll_wait, ~1.2 us of an
// 8 B round trip when made every round, and an idle target notices a first put a few rounds
// later at most, as tcp needs its progress to receive it.
unsigned Transport::progress_workers() {
  constexpr int kRmaHot = 64;
  constexpr unsigned kRmaIdleEvery = 8;
  unsigned n = lib_.api.worker_progress(worker_);
  if (rma_worker_ && (rma_hot_ > 0 || rma_in_flight_ > 0 || ++rma_idle_rounds_ % kRmaIdleEvery == 0)) {
    const unsigned m = lib_.api.worker_progress(rma_worker_);
    rma_hot_ = m || rma_in_flight_ > 0 ? kRmaHot : rma_hot_ - (rma_hot_ > 0);
    n += m;
  }
  return n;
}

int Transport::set_error(std::string msg) {
  error_ = std::move(msg);
  return GSHMEMI_TRANSPORT_ERROR;
}

std::string Transport::status_text(status_t s) const {
  const char* t = lib_.api.status_string ? lib_.api.status_string(s) : nullptr;
  return std::string(t ? t : "unknown status") + " (" + std::to_string(static_cast<int>(s)) + ")";
}

int Transport::address(const void** a, size_t* n) {
  *a = address_;
  *n = address_length_;
  return GSHMEMI_TRANSPORT_OK;
}

int Transport::connect(int pe, const void* address, size_t size) {
  if (pe < 0 || pe >= static_cast<int>(peers_.size()))
    return set_error("connect: PE " + std::to_string(pe) + " is out of range");
  const auto* b = static_cast<const uint8_t*>(address);
  peers_[pe].address.assign(b, b + size);  // the endpoint is made at the first send
  return GSHMEMI_TRANSPORT_OK;
}

ep_h Transport::endpoint(int pe) {
  Peer& p = peers_[pe];
  if (!p.ep) p.ep = make_endpoint(worker_, p, p.address, "UCX address");
  return p.ep;
}

ep_h Transport::rma_endpoint(int pe) {
  if (!rma_worker_) return endpoint(pe);  // UCX before 1.20: puts share the active messages' endpoint
  Peer& p = peers_[pe];
  if (!p.rma_ep) p.rma_ep = make_endpoint(rma_worker_, p, p.rma_address, "RMA worker address");
  return p.rma_ep;
}

// Both workers' endpoints report a failure of the peer the same way (on_err).
ep_h Transport::make_endpoint(worker_h w, Peer& p, const std::vector<uint8_t>& address, const char* what) {
  if (address.empty() || !w) {
    set_error("PE " + std::to_string(my_pe_) + ": no " + what + " for PE " + std::to_string(p.pe) + " (not connected)");
    return nullptr;
  }
  ep_params_t ep{};
  ep.field_mask = kEpParamFieldRemoteAddress | kEpParamFieldErrHandlingMode | kEpParamFieldErrHandler;
  ep.address = reinterpret_cast<const address_t*>(address.data());
  ep.err_mode = kErrHandlingModePeer;
  ep.err_handler.cb = &on_err;
  ep.err_handler.arg = &p;
  ep_h h = nullptr;
  if (status_t s = lib_.api.ep_create(w, &ep, &h); s != kOk) {
    set_error("PE " + std::to_string(my_pe_) + ": ucp_ep_create to PE " + std::to_string(p.pe) + " (" + what +
              ") failed: " + status_text(s));
    return nullptr;
  }
  return h;
}

void Transport::fail(int pe, const std::string& why) {
  Peer& p = peers_[pe];
  if (p.failed) return;
  p.failed = true;
  p.close_pending = p.ep != nullptr || p.rma_ep != nullptr;
  failed_.emplace_back(pe, why);
}

int Transport::send(int pe, const void* header, size_t header_size, const void* payload, size_t payload_size,
                    uint64_t token) {
  if (pe < 0 || pe >= static_cast<int>(peers_.size()))
    return set_error("send: PE " + std::to_string(pe) + " is out of range");
  if (peers_[pe].failed) return set_error("PE " + std::to_string(pe) + " has failed"), GSHMEMI_TRANSPORT_PEER_FAILED;
  ep_h ep = endpoint(pe);
  if (!ep) return GSHMEMI_TRANSPORT_ERROR;
  auto* r = new SendReq{this, pe, token, {}, {}};
  const WireHead wh{kMagic, my_pe_};
  r->header.resize(sizeof wh + header_size);
  std::memcpy(r->header.data(), &wh, sizeof wh);
  if (header_size) std::memcpy(r->header.data() + sizeof wh, header, header_size);
  const auto* pl = static_cast<const uint8_t*>(payload);
  if (payload_size) r->payload.assign(pl, pl + payload_size);
  request_param_t prm = host_param(r);
  prm.cb.send = &on_send;
  void* req =
      lib_.api.am_send_nbx(ep, kAmId, r->header.data(), r->header.size(), r->payload.data(), r->payload.size(), &prm);
  if (req == nullptr) {  // done at once; reported by the next progress(), as callbacks must be
    completed_.push_back(token);
    delete r;
  } else if (ptr_is_err(req)) {
    const std::string why = "ucp_am_send_nbx to it failed: " + status_text(ptr_status(req));
    delete r;
    fail(pe, why);
    return set_error("PE " + std::to_string(pe) + ": " + why), GSHMEMI_TRANSPORT_PEER_FAILED;
  } else {
    ++in_flight_;  // on_send completes it and frees the request
  }
  return GSHMEMI_TRANSPORT_OK;
}

void Transport::on_send(void* request, status_t status, void* user_data) {
  auto* r = static_cast<SendReq*>(user_data);
  Transport* t = r->t;
  --t->in_flight_;
  ++t->events_;
  if (status == kOk)
    t->completed_.push_back(r->token);
  else  // a failed send means a failed peer: the engine must not take it as delivered
    t->fail(r->pe, "a send to it failed: " + t->status_text(status));
  t->lib_.api.request_free(request);
  delete r;
}

void Transport::on_err(void* arg, ep_h, status_t status) {
  auto* p = static_cast<Peer*>(arg);
  ++p->t->events_;
  p->t->fail(p->pe, "UCX reported " + p->t->status_text(status) + " on the endpoint to it");
}

status_t Transport::on_am(void* arg, const void* header, size_t header_length, void* data, size_t length,
                          const am_recv_param_t* param) {
  auto* t = static_cast<Transport*>(arg);
  WireHead wh{};
  if (header_length < sizeof wh) return kOk;  // not ours: nothing to answer
  std::memcpy(&wh, header, sizeof wh);
  const int src = wh.src_pe;
  if (wh.magic != kMagic || src < 0 || src >= static_cast<int>(t->peers_.size()) || t->peers_[src].failed) return kOk;
  ++t->events_;
  const auto* h = static_cast<const uint8_t*>(header) + sizeof wh;
  const size_t hn = header_length - sizeof wh;
  if (!(param->recv_attr & kAmRecvAttrFlagRndv)) {
    t->cb_.message(t->cb_.ctx, src, h, hn, data, length);
    return kOk;
  }
  // Rendezvous: `data` is a descriptor; fetch the payload into a buffer of our own.
  auto* r = new RecvReq{t, src, std::vector<uint8_t>(h, h + hn), std::vector<uint8_t>(length)};
  request_param_t prm = host_param(r);
  prm.cb.recv_am = &on_recv;
  void* req = t->lib_.api.am_recv_data_nbx(t->worker_, data, r->data.data(), length, &prm);
  if (req == nullptr) {
    t->cb_.message(t->cb_.ctx, src, r->header.data(), r->header.size(), r->data.data(), r->data.size());
    delete r;
  } else if (ptr_is_err(req)) {
    t->fail(src,
            "receiving a " + std::to_string(length) + " B message from it failed: " + t->status_text(ptr_status(req)));
    delete r;
  } else {
    ++t->in_flight_;
  }
  return kOk;
}

void Transport::on_recv(void* request, status_t status, size_t, void* user_data) {
  auto* r = static_cast<RecvReq*>(user_data);
  Transport* t = r->t;
  --t->in_flight_;
  ++t->events_;
  if (status == kOk && !t->peers_[r->src].failed)
    t->cb_.message(t->cb_.ctx, r->src, r->header.data(), r->header.size(), r->data.data(), r->data.size());
  else if (status != kOk)
    t->fail(r->src,
            "receiving a " + std::to_string(r->data.size()) + " B message from it failed: " + t->status_text(status));
  t->lib_.api.request_free(request);
  delete r;
}

int Transport::progress() {
  events_ = 0;
  // A bounded number of rounds: the engine has its own work (the ring, the stager) between them.
  for (int i = 0; i < 16 && progress_workers() != 0; ++i) {
  }
  close_endpoints(false);
  // Completions first, then failures, as the loopback transport reports them.
  std::vector<uint64_t> done;
  done.swap(completed_);
  for (uint64_t token : done) cb_.send_complete(cb_.ctx, token);
  std::vector<std::pair<int, std::string>> failed;
  failed.swap(failed_);
  for (const auto& [pe, why] : failed) cb_.peer_failed(cb_.ctx, pe, why.c_str());
  return events_ + static_cast<int>(done.size() + failed.size());
}

// The bulk path's context and worker (ucx_transport.h says why a second one). Rendezvous off
// costs nothing here: nothing but puts and flushes goes through this context.
bool Transport::make_rma(std::string* why) {
  const Api& a = lib_.api;
  config_t* cfg = nullptr;
  if (status_t s = a.config_read(nullptr, nullptr, &cfg); s != kOk) {
    *why = "ucp_config_read failed: " + status_text(s);
    return false;
  }
  host_memory_only(a, cfg);
  a.config_modify(cfg, "RNDV_THRESH", "inf");  // UCX >= 1.20: no invalidation asked for then
  // Poll the interfaces from the start: with adaptive progress UCX polls an interface only once
  // an active message arrived on it, and a target that only receives puts never gets one (its
  // tcp receives would run on UCX's async thread, one wakeup per event).
  a.config_modify(cfg, "ADAPTIVE_PROGRESS", "n");
  params_t p{};
  p.field_mask = kParamFieldFeatures;
  p.features = kFeatureRma | kFeatureWakeup;
  status_t s = a.init_version(kApiMajor, kApiMinor, &p, cfg, &rma_ctx_);
  a.config_release(cfg);
  if (s != kOk) {
    rma_ctx_ = nullptr;
    *why = "ucp_init of the RMA context failed: " + status_text(s);
    return false;
  }
  worker_params_t wp{};
  wp.field_mask = kWorkerParamFieldThreadMode;
  wp.thread_mode = kThreadModeSingle;
  if ((s = a.worker_create(rma_ctx_, &wp, &rma_worker_)) != kOk) {
    rma_worker_ = nullptr;
    *why = "ucp_worker_create of the RMA worker failed: " + status_text(s);
    return false;
  }
  worker_attr_t wa{};
  wa.field_mask = kWorkerAttrFieldAddress | kWorkerAttrFieldAddressFlags;
  wa.address_flags = kAddressFlagNetOnly;
  if ((s = a.worker_query(rma_worker_, &wa)) != kOk) {
    *why = "ucp_worker_query of the RMA worker failed: " + status_text(s);
    return false;
  }
  rma_address_ = wa.address;
  rma_address_length_ = wa.address_length;
  // One fd for the proxy thread's sleep that wakes for either worker.
  int fds[2] = {-1, -1};
  if (a.worker_get_efd(worker_, &fds[0]) == kOk && a.worker_get_efd(rma_worker_, &fds[1]) == kOk) {
    wake_fd_ = epoll_create1(EPOLL_CLOEXEC);
    for (int fd : fds) {
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.fd = fd;
      if (wake_fd_ >= 0 && epoll_ctl(wake_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
        close(wake_fd_);
        wake_fd_ = -1;
      }
    }
  }
  if (wake_fd_ < 0) {
    *why = "no wakeup fd for the RMA worker (ucp_worker_get_efd, epoll)";
    return false;
  }
  return true;
}

// The bulk path. A window key is {the window's address, the length of the RMA worker's address,
// that address, UCX's packed rkey}.
int Transport::mem_register(void* base, size_t size, const void** key, size_t* key_size) {
  if (window_) return set_error("mem_register: a window is registered already");
  // Before 1.20 UCX asks for invalidation whatever the rendezvous setting, so a put over tcp
  // stays emulated on any context, and a second one only costs (measured with Debian's 1.13:
  // 1.0 GB/s on its own context, 1.3 on the active messages'): the puts stay on the first.
  std::string why;
  const bool separate = lib_.major > 1 || lib_.minor >= 20;
  if (separate && !rma_worker_ && !make_rma(&why)) return set_error("the bulk path's UCX worker: " + why);
  context_h ctx = rma_ctx_ ? rma_ctx_ : ctx_;
  const address_t* rma_address = rma_worker_ ? rma_address_ : address_;
  const size_t rma_address_length = rma_worker_ ? rma_address_length_ : address_length_;
  mem_map_params_t mp{};
  mp.field_mask = kMemMapParamFieldAddress | kMemMapParamFieldLength | kMemMapParamFieldMemoryType;
  mp.address = base;
  mp.length = size;
  mp.memory_type = kMemoryTypeHost;
  if (status_t s = lib_.api.mem_map(ctx, &mp, &window_); s != kOk) {
    window_ = nullptr;
    return set_error("ucp_mem_map of the " + std::to_string(size) + " B staging window failed: " + status_text(s));
  }
  void* rk = nullptr;
  size_t rn = 0;
  if (status_t s = lib_.api.rkey_pack(ctx, window_, &rk, &rn); s != kOk)
    return set_error("ucp_rkey_pack of the staging window failed: " + status_text(s));
  const uint64_t addr = reinterpret_cast<uintptr_t>(base);
  const uint32_t an = static_cast<uint32_t>(rma_address_length);
  window_key_.resize(sizeof addr + sizeof an + an + rn);
  uint8_t* k = window_key_.data();
  std::memcpy(k, &addr, sizeof addr);
  std::memcpy(k + sizeof addr, &an, sizeof an);
  std::memcpy(k + sizeof addr + sizeof an, rma_address, an);
  std::memcpy(k + sizeof addr + sizeof an + an, rk, rn);
  lib_.api.rkey_buffer_release(rk);
  window_base_ = static_cast<uint8_t*>(base);
  window_size_ = size;
  *key = window_key_.data();
  *key_size = window_key_.size();
  return GSHMEMI_TRANSPORT_OK;
}

int Transport::mem_connect(int pe, const void* key, size_t key_size) {
  if (pe < 0 || pe >= static_cast<int>(peers_.size()))
    return set_error("mem_connect: PE " + std::to_string(pe) + " is out of range");
  const auto* b = static_cast<const uint8_t*>(key);
  uint32_t an = 0;
  if (key_size > sizeof(uint64_t) + sizeof an) std::memcpy(&an, b + sizeof(uint64_t), sizeof an);
  const size_t head = sizeof(uint64_t) + sizeof an;
  if (key_size <= head || an == 0 || an >= key_size - head)
    return set_error("mem_connect: PE " + std::to_string(pe) + "'s window key of " + std::to_string(key_size) +
                     " B is malformed (a plugin of another gshmem version?)");
  Peer& p = peers_[pe];
  std::memcpy(&p.window, b, sizeof p.window);
  p.rma_address.assign(b + head, b + head + an);
  p.rkey_buffer.assign(b + head + an, b + key_size);
  return GSHMEMI_TRANSPORT_OK;
}

struct Transport::FlushReq {
  Transport* t;
  int pe;
  uint64_t token;
};

// A put, then a flush of the endpoint, both on the RMA worker: the flush completes once every
// RMA issued on it before is complete at the target, which is what the engine's descriptor (an
// active message on the other worker) must wait for.
int Transport::put(int pe, uint64_t local_offset, uint64_t remote_offset, size_t size, uint64_t token) {
  if (pe < 0 || pe >= static_cast<int>(peers_.size()))
    return set_error("put: PE " + std::to_string(pe) + " is out of range");
  Peer& p = peers_[pe];
  if (p.failed) return set_error("PE " + std::to_string(pe) + " has failed"), GSHMEMI_TRANSPORT_PEER_FAILED;
  if (!window_ || local_offset > window_size_ || size > window_size_ - local_offset)
    return set_error("put: " + std::to_string(size) + " B at offset " + std::to_string(local_offset) +
                     " is outside this PE's staging window");
  if (p.rkey_buffer.empty()) return set_error("put: no window key for PE " + std::to_string(pe));
  ep_h ep = rma_endpoint(pe);
  if (!ep) return GSHMEMI_TRANSPORT_ERROR;
  if (!p.rkey) {
    if (status_t s = lib_.api.ep_rkey_unpack(ep, p.rkey_buffer.data(), &p.rkey); s != kOk) {
      p.rkey = nullptr;
      return set_error("ucp_ep_rkey_unpack of PE " + std::to_string(pe) + "'s window key failed: " + status_text(s));
    }
  }
  request_param_t prm{};
  prm.op_attr_mask = kOpAttrFieldMemoryType;
  prm.memory_type = kMemoryTypeHost;
  void* req = lib_.api.put_nbx(ep, window_base_ + local_offset, size, p.window + remote_offset, p.rkey, &prm);
  if (ptr_is_err(req)) {
    const std::string why = "ucp_put_nbx to it failed: " + status_text(ptr_status(req));
    fail(pe, why);
    return set_error("PE " + std::to_string(pe) + ": " + why), GSHMEMI_TRANSPORT_PEER_FAILED;
  }
  if (req) lib_.api.request_free(req);  // released by UCX once done; the flush reports the outcome
  auto* f = new FlushReq{this, pe, token};
  request_param_t fp{};
  fp.op_attr_mask = kOpAttrFieldCallback | kOpAttrFieldUserData;
  fp.cb.send = &on_flush;
  fp.user_data = f;
  void* fr = lib_.api.ep_flush_nbx(ep, &fp);
  if (fr == nullptr) {
    completed_.push_back(token);
    delete f;
  } else if (ptr_is_err(fr)) {
    const std::string why = "ucp_ep_flush_nbx to it failed: " + status_text(ptr_status(fr));
    delete f;
    fail(pe, why);
    return set_error("PE " + std::to_string(pe) + ": " + why), GSHMEMI_TRANSPORT_PEER_FAILED;
  } else {
    ++in_flight_;
    ++rma_in_flight_;
  }
  return GSHMEMI_TRANSPORT_OK;
}

void Transport::on_flush(void* request, status_t status, void* user_data) {
  auto* f = static_cast<FlushReq*>(user_data);
  Transport* t = f->t;
  --t->in_flight_;
  --t->rma_in_flight_;
  ++t->events_;
  if (status == kOk)
    t->completed_.push_back(f->token);
  else
    t->fail(f->pe, "a put to it failed: " + t->status_text(status));
  t->lib_.api.request_free(request);
  delete f;
}

int Transport::wait_fd() {
  if (wake_fd_ >= 0) return wake_fd_;
  int fd = -1;
  return lib_.api.worker_get_efd(worker_, &fd) == kOk ? fd : -1;
}

int Transport::arm() {
  if (!completed_.empty() || !failed_.empty()) return GSHMEMI_TRANSPORT_AGAIN;
  for (worker_h w : {worker_, rma_worker_}) {
    if (!w) continue;
    const status_t s = lib_.api.worker_arm(w);
    if (s == kErrBusy) return GSHMEMI_TRANSPORT_AGAIN;
    if (s != kOk) return set_error("ucp_worker_arm failed: " + status_text(s));
  }
  rma_hot_ = 1;  // the wakeup that ends the sleep may be the RMA worker's: poll it at once
  return GSHMEMI_TRANSPORT_OK;
}

}  // namespace gshmem::ucx
