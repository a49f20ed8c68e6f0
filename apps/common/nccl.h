// SPDX-License-Identifier: BSD-3-Clause
// The offload model beside each app: NCCL's C API, loaded at run time (dlopen), so that the apps
// build without NCCL and a machine without it runs the gshmem forms and prints why the NCCL row
// is missing. Only the calls the apps use. Search order as perftest's (perftest/common/nccl.h):
// $NCCL_LIB, libnccl.so.2 on the loader path, the nvidia-nccl Python wheel. The communicator
// spans every PE; its unique id travels through gshmem. NVLink multicast is turned off
// (NCCL_NVLS_ENABLE=0), as in every comparison of this project.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace app {
namespace nccl {

// ncclDataType_t values (NCCL's published ABI; bfloat16 since NCCL 2.10).
enum Type { int8 = 0, uint8 = 1, int32 = 2, uint32 = 3, int64 = 4, uint64 = 5, float32 = 7, float64 = 8, bfloat16 = 9 };

// Collective: loads NCCL and creates the communicator over every PE. false (and *why) when some
// PE cannot; then no other call here may be made.
bool init(std::string* why);
void fini();  // destroys the communicator (collective)

// Enqueue on `stream`; each ends the process with the NCCL error, naming the call, on failure.
// One grouped exchange: to every PE p, send count[p] elements at send[p]; receive count[p] from p
// into recv[p] (pointers per PE; count 0: nothing with that PE).
void alltoallv(const void* const* send, void* const* recv, const size_t* count, Type t, cudaStream_t stream);
void allgather(const void* send, void* recv, size_t count, Type t, cudaStream_t stream);
void allreduce_sum(const void* send, void* recv, size_t count, Type t, cudaStream_t stream);

}  // namespace nccl
}  // namespace app
