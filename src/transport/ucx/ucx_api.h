// SPDX-License-Identifier: BSD-3-Clause
// The part of UCX's public C API (UCP) that the plugin calls, declared here so that the plugin
// builds without UCX's headers and runs with whichever libucp.so.0 it finds. The names, values
// and layouts follow UCX's public ABI (ucp/api/ucp.h, ucp_def.h, ucs/type/status.h; UCX is
// BSD-licensed), which UCX keeps stable across 1.x: parameter structs grow only at their end
// and UCX reads only the fields their field_mask names. Each struct here is the prefix the
// plugin fills, padded with zeros so that a field UCX might read without a mask bit still lies
// inside the object. test_transport_ucx_api.cpp compares them with UCX's headers where those
// are installed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gshmem::ucx {

// ucs_status_t is a packed enum: one signed byte, also as a return value.
using status_t = int8_t;
constexpr status_t kOk = 0;
constexpr status_t kInProgress = 1;
constexpr status_t kErrBusy = -15;  // UCS_ERR_BUSY: ucp_worker_arm with events pending
constexpr intptr_t kErrLast = -100;
// A ucs_status_ptr_t is a request pointer, NULL (done at once) or an error status in
// [UCS_ERR_LAST, -1] cast to a pointer.
inline bool ptr_is_err(const void* p) { return reinterpret_cast<uintptr_t>(p) >= static_cast<uintptr_t>(kErrLast); }
inline status_t ptr_status(const void* p) { return static_cast<status_t>(reinterpret_cast<intptr_t>(p)); }

using context_h = struct context_s*;
using worker_h = struct worker_s*;
using ep_h = struct ep_s*;
using config_t = struct config_s;
using address_t = struct address_s;

// ucp_params_t
constexpr uint64_t kParamFieldFeatures = 1u << 0;
constexpr uint64_t kFeatureRma = 1u << 1;
constexpr uint64_t kFeatureWakeup = 1u << 4;
constexpr uint64_t kFeatureAm = 1u << 6;
struct params_t {
  uint64_t field_mask;
  uint64_t features;
  uint8_t zero_tail[256];
};

// ucp_worker_params_t
constexpr uint64_t kWorkerParamFieldThreadMode = 1u << 0;
constexpr int kThreadModeSingle = 0;  // UCS_THREAD_MODE_SINGLE
struct worker_params_t {
  uint64_t field_mask;
  int thread_mode;  // ucs_thread_mode_t
  uint8_t zero_tail[512];
};

// ucp_ep_params_t
constexpr uint64_t kEpParamFieldRemoteAddress = 1u << 0;
constexpr uint64_t kEpParamFieldErrHandlingMode = 1u << 1;
constexpr uint64_t kEpParamFieldErrHandler = 1u << 2;
constexpr int kErrHandlingModePeer = 1;  // UCP_ERR_HANDLING_MODE_PEER
using err_handler_cb_t = void (*)(void* arg, ep_h ep, status_t status);
struct ep_params_t {
  uint64_t field_mask;
  const address_t* address;
  int err_mode;  // ucp_err_handling_mode_t
  struct {
    err_handler_cb_t cb;
    void* arg;
  } err_handler;
  uint8_t zero_tail[256];
};
constexpr uint32_t kEpCloseFlagForce = 1u << 0;

// ucp_worker_attr_t (ucp_worker_query): the address and the largest active-message header.
constexpr uint64_t kWorkerAttrFieldAddress = 1u << 1;
constexpr uint64_t kWorkerAttrFieldMaxAmHeader = 1u << 3;
struct worker_attr_t {
  uint64_t field_mask;
  int thread_mode;         // ucs_thread_mode_t
  uint32_t address_flags;  // UCP_WORKER_ADDRESS_FLAG_*
  address_t* address;
  size_t address_length;
  size_t max_am_header;
  uint8_t zero_tail[512];  // the name and later fields: UCX writes only what the mask asks
};

// ucp_request_param_t
constexpr uint32_t kOpAttrFieldCallback = 1u << 1;
constexpr uint32_t kOpAttrFieldUserData = 1u << 2;
constexpr uint32_t kOpAttrFieldFlags = 1u << 4;
constexpr uint32_t kOpAttrFieldMemoryType = 1u << 6;
constexpr int kMemoryTypeHost = 0;  // UCS_MEMORY_TYPE_HOST
using send_nbx_callback_t = void (*)(void* request, status_t status, void* user_data);
using am_recv_data_nbx_callback_t = void (*)(void* request, status_t status, size_t length, void* user_data);
struct request_param_t {
  uint32_t op_attr_mask;
  uint32_t flags;
  void* request;
  union {
    send_nbx_callback_t send;
    am_recv_data_nbx_callback_t recv_am;
  } cb;
  uint64_t datatype;  // ucp_datatype_t
  void* user_data;
  void* reply_buffer;
  int memory_type;  // ucs_memory_type_t
  uint8_t zero_tail[128];
};

// Active messages.
constexpr uint64_t kAmRecvAttrFlagRndv = 1u << 17;  // `data` is a descriptor for recv_data_nbx
struct am_recv_param_t {
  uint64_t recv_attr;
  ep_h reply_ep;
};
using am_recv_callback_t = status_t (*)(void* arg, const void* header, size_t header_length, void* data, size_t length,
                                        const am_recv_param_t* param);
constexpr uint64_t kAmHandlerParamFieldId = 1u << 0;
constexpr uint64_t kAmHandlerParamFieldFlags = 1u << 1;
constexpr uint64_t kAmHandlerParamFieldCb = 1u << 2;
constexpr uint64_t kAmHandlerParamFieldArg = 1u << 3;
constexpr uint32_t kAmFlagWholeMsg = 1u << 0;
struct am_handler_param_t {
  uint64_t field_mask;
  unsigned id;
  uint32_t flags;
  am_recv_callback_t cb;
  void* arg;
  uint8_t zero_tail[64];
};

// RMA (the bulk path): a registered window (ucp_mem_map) and the peers' remote keys.
using mem_h = struct mem_s*;
using rkey_h = struct rkey_s*;
constexpr uint64_t kMemMapParamFieldAddress = 1u << 0;
constexpr uint64_t kMemMapParamFieldLength = 1u << 1;
constexpr uint64_t kMemMapParamFieldMemoryType = 1u << 4;
struct mem_map_params_t {
  uint64_t field_mask;
  void* address;
  size_t length;
  unsigned flags;
  unsigned prot;
  int memory_type;  // ucs_memory_type_t
  const void* exported_memh_buffer;
  uint8_t zero_tail[128];
};

// The functions, resolved by name from libucp.so.0 (ucs_status_string lives in libucs, which
// libucp brings; a lookup through libucp's handle finds it).
struct Api {
  void (*get_version)(unsigned*, unsigned*, unsigned*);
  const char* (*get_version_string)();
  status_t (*config_read)(const char*, const char*, config_t**);
  status_t (*config_modify)(config_t*, const char*, const char*);
  void (*config_release)(config_t*);
  status_t (*init_version)(unsigned, unsigned, const params_t*, const config_t*, context_h*);
  void (*cleanup)(context_h);
  status_t (*worker_create)(context_h, const worker_params_t*, worker_h*);
  void (*worker_destroy)(worker_h);
  status_t (*worker_query)(worker_h, worker_attr_t*);
  void (*worker_release_address)(worker_h, address_t*);
  unsigned (*worker_progress)(worker_h);
  status_t (*worker_get_efd)(worker_h, int*);
  status_t (*worker_arm)(worker_h);
  status_t (*worker_set_am_recv_handler)(worker_h, const am_handler_param_t*);
  status_t (*ep_create)(worker_h, const ep_params_t*, ep_h*);
  void* (*ep_close_nbx)(ep_h, const request_param_t*);
  void* (*am_send_nbx)(ep_h, unsigned, const void*, size_t, const void*, size_t, const request_param_t*);
  void* (*am_recv_data_nbx)(worker_h, void*, void*, size_t, const request_param_t*);
  status_t (*request_check_status)(void*);
  void (*request_free)(void*);
  const char* (*status_string)(status_t);
  // RMA
  status_t (*mem_map)(context_h, const mem_map_params_t*, mem_h*);
  status_t (*mem_unmap)(context_h, mem_h);
  status_t (*rkey_pack)(context_h, mem_h, void**, size_t*);
  void (*rkey_buffer_release)(void*);
  status_t (*ep_rkey_unpack)(ep_h, const void*, rkey_h*);
  void (*rkey_destroy)(rkey_h);
  void* (*put_nbx)(ep_h, const void*, size_t, uint64_t, rkey_h, const request_param_t*);
  void* (*ep_flush_nbx)(ep_h, const request_param_t*);
};

}  // namespace gshmem::ucx
