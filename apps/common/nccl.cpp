// SPDX-License-Identifier: BSD-3-Clause
// NCCL through dlopen (nccl.h). The types are NCCL 2.x's published C ABI: enums are ints,
// ncclUniqueId is 128 bytes passed by value, ncclComm_t an opaque pointer; NCCL's header is not
// used, so the build never depends on it.
#include "nccl.h"

#include <dlfcn.h>

#include <gshmem/gshmem.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "app.h"

namespace app {
namespace nccl {
namespace {

struct UniqueId {
  char internal[128];
};
using Comm = void*;

struct Api {
  int (*GetUniqueId)(UniqueId*);
  int (*CommInitRank)(Comm*, int, UniqueId, int);
  int (*CommDestroy)(Comm);
  const char* (*GetErrorString)(int);
  int (*AllReduce)(const void*, void*, size_t, int, int, Comm, cudaStream_t);
  int (*AllGather)(const void*, void*, size_t, int, Comm, cudaStream_t);
  int (*Send)(const void*, size_t, int, int, Comm, cudaStream_t);
  int (*Recv)(void*, size_t, int, int, Comm, cudaStream_t);
  int (*GroupStart)();
  int (*GroupEnd)();
} api;
Comm comm = nullptr;

std::string wheel_library() {
  FILE* p = popen("python3 -c \"import nvidia.nccl as m; print(list(m.__path__)[0])\" 2>/dev/null", "r");
  if (!p) return "";
  char buf[1024] = "";
  if (!fgets(buf, sizeof(buf), p)) buf[0] = '\0';
  pclose(p);
  std::string s = buf;
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s.empty() ? s : s + "/lib/libnccl.so.2";
}

bool load(std::string* why) {
  void* lib = nullptr;
  if (const char* env = getenv("NCCL_LIB"); env && *env) {
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
  } else {
    lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const std::string w = wheel_library();
      if (!w.empty()) lib = dlopen(w.c_str(), RTLD_NOW | RTLD_LOCAL);
    }
  }
  if (!lib) {
    *why = "NCCL not found ($NCCL_LIB, libnccl.so.2, the nvidia-nccl wheel; set NCCL_LIB=/path/libnccl.so.2)";
    return false;
  }
  bool ok = true;
  auto sym = [&](const char* name, auto* out) {
    *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(dlsym(lib, name));
    if (!*out) {
      *why = std::string("NCCL lacks ") + name;
      ok = false;
    }
  };
  sym("ncclGetUniqueId", &api.GetUniqueId);
  sym("ncclCommInitRank", &api.CommInitRank);
  sym("ncclCommDestroy", &api.CommDestroy);
  sym("ncclGetErrorString", &api.GetErrorString);
  sym("ncclAllReduce", &api.AllReduce);
  sym("ncclAllGather", &api.AllGather);
  sym("ncclSend", &api.Send);
  sym("ncclRecv", &api.Recv);
  sym("ncclGroupStart", &api.GroupStart);
  sym("ncclGroupEnd", &api.GroupEnd);
  return ok;
}

void check(int rc, const char* call) {
  if (rc == 0) return;
  fprintf(stderr, "%s: PE %d: %s failed: %s\n", prog(), me(), call, api.GetErrorString(rc));
  exit(1);
}

}  // namespace

bool init(std::string* why) {
  std::string mine;
  const bool loaded = load(&mine);
  if (!all_pes(loaded)) {
    *why = loaded ? "another PE could not load NCCL" : mine;
    return false;
  }
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  // The unique id travels through gshmem: PE 0 writes it into a symmetric buffer, the others get it.
  UniqueId id;
  memset(&id, 0, sizeof(id));
  const int rc = me() == 0 ? api.GetUniqueId(&id) : 0;
  if (!all_pes(rc == 0)) {
    *why = "ncclGetUniqueId failed on PE 0";
    return false;
  }
  void* sym = gshmem_malloc(sizeof(id));
  if (me() == 0) APP_CUDA(cudaMemcpy(sym, &id, sizeof(id), cudaMemcpyHostToDevice));
  gshmem_barrier_all();
  if (me() != 0) gshmem_getmem(&id, sym, sizeof(id), 0);
  gshmem_barrier_all();
  gshmem_free(sym);
  const int init_rc = api.CommInitRank(&comm, npes(), id, me());
  if (!all_pes(init_rc == 0)) {
    *why = init_rc ? std::string("ncclCommInitRank: ") + api.GetErrorString(init_rc)
                   : "ncclCommInitRank failed on another PE";
    if (init_rc == 0) api.CommDestroy(comm);
    comm = nullptr;
    return false;
  }
  return true;
}

void fini() {
  if (comm) api.CommDestroy(comm);
  comm = nullptr;
}

void alltoallv(const void* const* send, void* const* recv, const size_t* count, Type t, cudaStream_t stream) {
  check(api.GroupStart(), "ncclGroupStart");
  for (int p = 0; p < npes(); ++p) {
    if (count[p] == 0) continue;
    check(api.Send(send[p], count[p], t, p, comm, stream), "ncclSend");
    check(api.Recv(recv[p], count[p], t, p, comm, stream), "ncclRecv");
  }
  check(api.GroupEnd(), "ncclGroupEnd");
}

void allgather(const void* send, void* recv, size_t count, Type t, cudaStream_t stream) {
  check(api.AllGather(send, recv, count, t, comm, stream), "ncclAllGather");
}

void allreduce_sum(const void* send, void* recv, size_t count, Type t, cudaStream_t stream) {
  check(api.AllReduce(send, recv, count, t, 0 /* ncclSum */, comm, stream), "ncclAllReduce");
}

}  // namespace nccl
}  // namespace app
