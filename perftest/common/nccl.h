// SPDX-License-Identifier: BSD-3-Clause
// NCCL side by side: the few NCCL C calls the on-stream collectives are compared
// with, loaded at run time (dlopen), so building needs no NCCL and a machine
// without it runs the gshmem half and prints why NCCL was skipped.
//
// Library search order: $NCCL_LIB (a path), libnccl.so.2 through the default
// loader path, then the nvidia-nccl Python wheel (<site-packages>/nvidia/nccl/lib).
// The communicator spans all PEs; its unique id travels through gshmem (PE 0
// writes it into a symmetric buffer, the others get it). NCCL_NVLS_ENABLE=0 is
// forced before the communicator is made: these runs never use NVLink multicast.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "bench.h"

namespace perf {
struct Ctx;
namespace nccl {

struct Comm;

// Creates the communicator over every PE (collective). nullptr + *why when NCCL
// cannot be loaded on some PE or its initialisation fails.
Comm* create(Ctx& ctx, std::string* why);
void destroy(Comm* c);

// "2.27.3" and the library path once loaded; "" before.
std::string version();
std::string library();

bool supports(const std::string& op);  // sum | prod | min | max
bool supports(DType t);

// Enqueue one collective on `stream`; 0 on success, else the error is in *err.
// Counts as nccl-tests and the NCCL API take them: allreduce/broadcast count =
// elements of the array, allgather = elements per PE, reducescatter = elements
// per PE of the output, alltoall = elements per PE pair.
int allreduce(Comm* c, const void* src, void* dst, size_t count, DType t, const std::string& op, cudaStream_t s,
              std::string* err);
int broadcast(Comm* c, const void* src, void* dst, size_t count, DType t, int root, cudaStream_t s, std::string* err);
int allgather(Comm* c, const void* src, void* dst, size_t count, DType t, cudaStream_t s, std::string* err);
int reducescatter(Comm* c, const void* src, void* dst, size_t count, DType t, const std::string& op, cudaStream_t s,
                  std::string* err);
int alltoall(Comm* c, const void* src, void* dst, size_t count, DType t, cudaStream_t s, std::string* err);
// How alltoall is done: "ncclAlltoAll" or "grouped ncclSend/ncclRecv".
const char* alltoall_method();

// One grouped exchange (ncclGroupStart, ncclSend + ncclRecv per peer, ncclGroupEnd): with
// each x[i].pe, send `count` elements from x[i].send and receive as many into x[i].recv.
// Entries with pe < 0 are skipped (a halo exchange at the end of a chain).
struct SendRecv {
  int pe = -1;
  const void* send = nullptr;
  void* recv = nullptr;
};
int sendrecv(Comm* c, const SendRecv* x, int n, size_t count, DType t, cudaStream_t s, std::string* err);

}  // namespace nccl
}  // namespace perf
