// SPDX-License-Identifier: BSD-3-Clause
// The engine's Transport over a network-engine plugin loaded at run time
// (include/gshmem/detail/transport_abi.h, docs/internode.md section 5). The library links no
// network library: only a job with a remote peer loads `libgshmem_transport_<name>.so`, and a
// machine without it (or without UCX) still runs single-node.
//
// Where the plugin is looked for, first hit wins: an explicit path (a name with a '/'); the
// folder of the object that holds this code (libgshmem.so, or a test binary) and the `lib/`
// beside it; then the dynamic loader's own search (LD_LIBRARY_PATH, rpath). A failure names
// every file tried and dlerror's answer for each.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gshmem/detail/transport_abi.h"
#include "interfaces.h"

namespace gshmem::proxy {

struct PluginOptions {
  std::string name = "ucx";              // libgshmem_transport_<name>.so, or a path to the plugin itself
  std::vector<std::string> search_dirs;  // tried before the default places
  std::string library;                   // the network library for the plugin ("": its default)
  int my_pe = 0;
  int n_pes = 1;
};

class PluginTransport final : public Transport {
 public:
  // Loads and initialises the plugin; nullptr with *error set (the file, dlerror, or the
  // plugin's own message: a missing libucp, symbol or version) when it cannot.
  static std::unique_ptr<PluginTransport> load(const PluginOptions& opt, std::string* error);
  ~PluginTransport() override;
  PluginTransport(const PluginTransport&) = delete;
  PluginTransport& operator=(const PluginTransport&) = delete;

  // Transport
  void set_callbacks(TransportCallbacks* cb) override { cb_ = cb; }
  bool send(int dst, const uint8_t* header, size_t header_size, const uint8_t* payload, size_t payload_size,
            uint64_t token) override;
  void progress() override;
  // The bulk path, when the plugin has RMA (has_rma): bulk_register once at set-up (its key
  // goes to every peer), bulk_connect for each peer's key.
  bool bulk_put(int dst, uint64_t local_off, uint64_t remote_off, uint64_t size, uint64_t token) override;
  bool has_rma() const;
  bool bulk_register(uint8_t* base, uint64_t size, std::vector<uint8_t>* key, std::string* error);
  bool bulk_connect(int pe, const std::vector<uint8_t>& key, std::string* error);

  // For start-up (the address exchange) and the proxy thread's sleep.
  const std::string& path() const { return path_; }  // the plugin file that was loaded
  const char* name() const { return table_->name; }
  uint64_t capabilities() const { return table_->capabilities(state_); }
  std::vector<uint8_t> address() const;
  bool connect(int pe, const std::vector<uint8_t>& address, std::string* error);
  int wait_fd() const { return table_->wait_fd(state_); }
  bool arm() { return table_->arm(state_) == GSHMEMI_TRANSPORT_OK; }  // false: progress first
  std::string last_error() const;

 private:
  PluginTransport() = default;
  static void cb_message(void* ctx, int src, const void* header, size_t header_size, const void* payload,
                         size_t payload_size);
  static void cb_send_complete(void* ctx, uint64_t token);
  static void cb_peer_failed(void* ctx, int pe, const char* why);

  void* dl_ = nullptr;
  const gshmemi_transport_v1* table_ = nullptr;
  void* state_ = nullptr;
  std::string path_;
  int my_pe_ = 0;
  TransportCallbacks* cb_ = nullptr;
  std::vector<uint8_t> joined_;  // a message's header and payload, joined for on_message
};

}  // namespace gshmem::proxy
