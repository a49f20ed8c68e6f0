// SPDX-License-Identifier: BSD-3-Clause
// The UCX plugin declares the UCX API it calls itself (src/transport/ucx/ucx_api.h) instead of
// building against UCX's headers. Where those headers are installed (the pinned wheel in CI),
// this compares the two: every constant, and the offset of every field the plugin fills. Built
// only where the headers are found (tests/unit/CMakeLists.txt); it needs no libucp to run.
#include <gtest/gtest.h>
#include <ucp/api/ucp.h>

#include <cstddef>

#include "transport/ucx/ucx_lib.h"

namespace u = gshmem::ucx;

#define SAME_FIELD(ours, theirs, field) static_assert(offsetof(u::ours, field) == offsetof(theirs, field), #field)

static_assert(sizeof(u::status_t) == sizeof(ucs_status_t), "ucs_status_t is one byte");
static_assert(u::kOk == UCS_OK && u::kInProgress == UCS_INPROGRESS && u::kErrBusy == UCS_ERR_BUSY);
static_assert(u::kErrLast == UCS_ERR_LAST);
static_assert(u::kParamFieldFeatures == UCP_PARAM_FIELD_FEATURES);
static_assert(u::kFeatureAm == UCP_FEATURE_AM && u::kFeatureWakeup == UCP_FEATURE_WAKEUP);
static_assert(u::kWorkerParamFieldThreadMode == UCP_WORKER_PARAM_FIELD_THREAD_MODE);
static_assert(u::kThreadModeSingle == UCS_THREAD_MODE_SINGLE);
static_assert(u::kEpParamFieldRemoteAddress == UCP_EP_PARAM_FIELD_REMOTE_ADDRESS);
static_assert(u::kEpParamFieldErrHandlingMode == UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE);
static_assert(u::kEpParamFieldErrHandler == UCP_EP_PARAM_FIELD_ERR_HANDLER);
static_assert(u::kErrHandlingModePeer == UCP_ERR_HANDLING_MODE_PEER);
static_assert(u::kEpCloseFlagForce == UCP_EP_CLOSE_FLAG_FORCE);
static_assert(u::kWorkerAttrFieldAddress == UCP_WORKER_ATTR_FIELD_ADDRESS);
static_assert(u::kWorkerAttrFieldMaxAmHeader == UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER);
static_assert(u::kOpAttrFieldCallback == UCP_OP_ATTR_FIELD_CALLBACK);
static_assert(u::kOpAttrFieldUserData == UCP_OP_ATTR_FIELD_USER_DATA);
static_assert(u::kOpAttrFieldFlags == UCP_OP_ATTR_FIELD_FLAGS);
static_assert(u::kOpAttrFieldMemoryType == UCP_OP_ATTR_FIELD_MEMORY_TYPE);
static_assert(u::kMemoryTypeHost == UCS_MEMORY_TYPE_HOST);
static_assert(u::kAmRecvAttrFlagRndv == UCP_AM_RECV_ATTR_FLAG_RNDV);
static_assert(u::kAmHandlerParamFieldId == UCP_AM_HANDLER_PARAM_FIELD_ID);
static_assert(u::kAmHandlerParamFieldFlags == UCP_AM_HANDLER_PARAM_FIELD_FLAGS);
static_assert(u::kAmHandlerParamFieldCb == UCP_AM_HANDLER_PARAM_FIELD_CB);
static_assert(u::kAmHandlerParamFieldArg == UCP_AM_HANDLER_PARAM_FIELD_ARG);
static_assert(u::kAmFlagWholeMsg == UCP_AM_FLAG_WHOLE_MSG);

SAME_FIELD(params_t, ucp_params_t, features);
SAME_FIELD(worker_params_t, ucp_worker_params_t, thread_mode);
SAME_FIELD(ep_params_t, ucp_ep_params_t, address);
SAME_FIELD(ep_params_t, ucp_ep_params_t, err_mode);
SAME_FIELD(ep_params_t, ucp_ep_params_t, err_handler);
static_assert(offsetof(u::ep_params_t, err_handler.arg) == offsetof(ucp_ep_params_t, err_handler.arg));
SAME_FIELD(worker_attr_t, ucp_worker_attr_t, address_flags);
SAME_FIELD(worker_attr_t, ucp_worker_attr_t, address);
SAME_FIELD(worker_attr_t, ucp_worker_attr_t, address_length);
SAME_FIELD(worker_attr_t, ucp_worker_attr_t, max_am_header);
SAME_FIELD(request_param_t, ucp_request_param_t, flags);
SAME_FIELD(request_param_t, ucp_request_param_t, cb);
SAME_FIELD(request_param_t, ucp_request_param_t, datatype);
SAME_FIELD(request_param_t, ucp_request_param_t, user_data);
SAME_FIELD(request_param_t, ucp_request_param_t, memory_type);
SAME_FIELD(am_handler_param_t, ucp_am_handler_param_t, id);
SAME_FIELD(am_handler_param_t, ucp_am_handler_param_t, flags);
SAME_FIELD(am_handler_param_t, ucp_am_handler_param_t, cb);
SAME_FIELD(am_handler_param_t, ucp_am_handler_param_t, arg);
SAME_FIELD(am_recv_param_t, ucp_am_recv_param_t, reply_ep);
static_assert(u::kFeatureRma == UCP_FEATURE_RMA);
static_assert(u::kMemMapParamFieldAddress == UCP_MEM_MAP_PARAM_FIELD_ADDRESS);
static_assert(u::kMemMapParamFieldLength == UCP_MEM_MAP_PARAM_FIELD_LENGTH);
static_assert(u::kMemMapParamFieldMemoryType == UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, address);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, length);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, flags);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, prot);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, memory_type);
SAME_FIELD(mem_map_params_t, ucp_mem_map_params_t, exported_memh_buffer);

// UCX's structs must fit in ours, padding included: UCX may read any field of the struct of
// its own build (under a mask bit the plugin leaves clear, so zero).
static_assert(sizeof(u::params_t) >= sizeof(ucp_params_t));
static_assert(sizeof(u::worker_params_t) >= sizeof(ucp_worker_params_t));
static_assert(sizeof(u::ep_params_t) >= sizeof(ucp_ep_params_t));
static_assert(sizeof(u::worker_attr_t) >= sizeof(ucp_worker_attr_t));
static_assert(sizeof(u::request_param_t) >= sizeof(ucp_request_param_t));
static_assert(sizeof(u::am_handler_param_t) >= sizeof(ucp_am_handler_param_t));
static_assert(sizeof(u::mem_map_params_t) >= sizeof(ucp_mem_map_params_t));

// The API level the plugin passes to ucp_init_version is one these headers provide.
TEST(TransportUcxApi, ApiLevelNotNewerThanTheHeaders) {
  EXPECT_EQ(UCP_API_MAJOR, u::kApiMajor);
  EXPECT_GE(UCP_API_MINOR, u::kApiMinor);
}
