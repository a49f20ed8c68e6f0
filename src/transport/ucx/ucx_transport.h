// SPDX-License-Identifier: BSD-3-Clause
// One PE's UCX state behind the plugin table (docs/internode.md section 5): one context with
// the active-message and wakeup features and one worker in UCS_THREAD_MODE_SINGLE (only the
// proxy thread touches it), an endpoint per peer made at the first send to it, with peer error
// handling so that a dead peer ends in peer_failed instead of a hang.
//
// On the wire every message is one UCX active message (id kAmId): its header is a small plugin
// header {magic, source PE} followed by the engine's header (sequence, op, offsets, ...); its
// data is the engine's payload. UCX sends small messages eagerly and large ones by rendezvous;
// a rendezvous arrival is received into a buffer of its own and delivered once complete. Memory
// is always host memory (UCS_MEMORY_TYPE_HOST is passed, the memory-type cache is off): the
// engine stages device data itself.
//
// The bulk path's puts (mem_register, put) run, with UCX 1.20 or later, on a second context and
// worker of their own, made by mem_register, with only the RMA feature and rendezvous off: UCX
// gives an endpoint with peer error handling a zero-copy RMA lane only where the transport can
// invalidate memory or (from 1.20) rendezvous is off, and tcp cannot invalidate, so on the
// active-message context a put over tcp is emulated by active messages (8 KiB fragments, each
// answered by a completion message: ~1.3 GB/s on 127.0.0.1 where a put moves 4-8 GB/s). Older
// UCX emulates it on any context: there the puts stay on the first. docs/internode.md section 5.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gshmem/detail/transport_abi.h"
#include "ucx_lib.h"

namespace gshmem::ucx {

constexpr unsigned kAmId = 7;            // any small id: UCX sizes its handler table by it
constexpr uint32_t kMagic = 0x67736831;  // "gsh1": a message of this plugin, wire version 1

struct WireHead {
  uint32_t magic;
  int32_t src_pe;
};

class Transport;

struct Peer {
  Transport* t = nullptr;
  int pe = -1;
  std::vector<uint8_t> address;
  ep_h ep = nullptr;
  bool failed = false;
  bool close_pending = false;        // failed with an endpoint: force-closed after the progress call
  std::vector<uint8_t> rkey_buffer;  // its window's packed key (mem_connect); unpacked at the first put
  uint64_t window = 0;               // its window's address
  rkey_h rkey = nullptr;             // unpacked on the endpoint the puts use (rma_endpoint)
  std::vector<uint8_t> rma_address;  // its RMA worker's address (mem_connect)
  ep_h rma_ep = nullptr;             // on the RMA worker (UCX >= 1.20), made at the first put
};

class Transport {
 public:
  // False with *error set; the object is then destroyed by the caller.
  bool init(const gshmemi_transport_init_args_v1& args, std::string* error);
  ~Transport();

  size_t max_header() const { return max_am_header_ > sizeof(WireHead) ? max_am_header_ - sizeof(WireHead) : 0; }
  int address(const void** a, size_t* n);
  int connect(int pe, const void* address, size_t size);
  int send(int pe, const void* header, size_t header_size, const void* payload, size_t payload_size, uint64_t token);
  int progress();
  int mem_register(void* base, size_t size, const void** key, size_t* key_size);
  int mem_connect(int pe, const void* key, size_t key_size);
  int put(int pe, uint64_t local_offset, uint64_t remote_offset, size_t size, uint64_t token);
  int wait_fd();
  int arm();
  const char* last_error() const { return error_.c_str(); }

 private:
  struct SendReq;
  struct RecvReq;
  static void on_err(void* arg, ep_h ep, status_t status);
  static void on_send(void* request, status_t status, void* user_data);
  static status_t on_am(void* arg, const void* header, size_t header_length, void* data, size_t length,
                        const am_recv_param_t* param);
  static void on_recv(void* request, status_t status, size_t length, void* user_data);
  struct FlushReq;
  static void on_flush(void* request, status_t status, void* user_data);

  int set_error(std::string msg);
  std::string status_text(status_t s) const;
  ep_h endpoint(int pe);      // nullptr with error_ set
  ep_h rma_endpoint(int pe);  // the same, on the RMA worker
  ep_h make_endpoint(worker_h w, Peer& p, const std::vector<uint8_t>& address, const char* what);
  bool make_rma(std::string* why);  // the RMA context and worker (mem_register)
  unsigned progress_workers();
  void fail(int pe, const std::string& why);
  void close_endpoints(bool all);

  Lib lib_;
  context_h ctx_ = nullptr;
  worker_h worker_ = nullptr;
  address_t* address_ = nullptr;
  size_t address_length_ = 0;
  size_t max_am_header_ = 0;
  int my_pe_ = 0;
  gshmemi_transport_callbacks_v1 cb_{};
  std::vector<Peer> peers_;
  std::vector<uint64_t> completed_;                  // send tokens, reported by progress()
  std::vector<std::pair<int, std::string>> failed_;  // peers, reported by progress()
  int events_ = 0;
  int in_flight_ = 0;  // sends and rendezvous receives not yet completed
  std::string error_;
  context_h rma_ctx_ = nullptr;  // the bulk path's context and worker (make_rma)
  worker_h rma_worker_ = nullptr;
  address_t* rma_address_ = nullptr;
  size_t rma_address_length_ = 0;
  int wake_fd_ = -1;  // with the RMA worker: an epoll set of both workers' fds
  int rma_hot_ = 0;   // progress_workers: rounds the RMA worker is still polled in each
  unsigned rma_idle_rounds_ = 0;
  int rma_in_flight_ = 0;   // puts whose flush has not completed
  mem_h window_ = nullptr;  // this PE's registered window (mem_register, on rma_ctx_)
  uint8_t* window_base_ = nullptr;
  size_t window_size_ = 0;
  std::vector<uint8_t> window_key_;  // its address, the RMA worker's address, the packed rkey
};

}  // namespace gshmem::ucx
