// SPDX-License-Identifier: BSD-3-Clause
// NCCL loaded at run time (nccl.h). The types below are NCCL's published C ABI
// (nccl.h of NCCL 2.x): enums are ints, ncclUniqueId is 128 bytes passed by
// value, ncclComm_t is an opaque pointer. NCCL's own header is not used, so the
// build never depends on it.
#include "nccl.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <gshmem/gshmem.h>

#include "context.h"

namespace perf {
namespace nccl {
namespace {

struct UniqueId {
  char internal[128];
};
using Result = int;  // ncclResult_t; 0 = ncclSuccess
using CommHandle = void*;

// ncclDataType_t / ncclRedOp_t values.
constexpr int kInt32 = 2, kUint32 = 3, kInt64 = 4, kUint64 = 5, kFloat32 = 7, kFloat64 = 8;
constexpr int kSum = 0, kProd = 1, kMax = 2, kMin = 3;

struct Api {
  void* lib = nullptr;
  std::string path;
  int version = 0;
  Result (*GetVersion)(int*) = nullptr;
  Result (*GetUniqueId)(UniqueId*) = nullptr;
  Result (*CommInitRank)(CommHandle*, int, UniqueId, int) = nullptr;
  Result (*CommDestroy)(CommHandle) = nullptr;
  const char* (*GetErrorString)(Result) = nullptr;
  Result (*AllReduce)(const void*, void*, size_t, int, int, CommHandle, cudaStream_t) = nullptr;
  Result (*Broadcast)(const void*, void*, size_t, int, int, CommHandle, cudaStream_t) = nullptr;
  Result (*AllGather)(const void*, void*, size_t, int, CommHandle, cudaStream_t) = nullptr;
  Result (*ReduceScatter)(const void*, void*, size_t, int, int, CommHandle, cudaStream_t) = nullptr;
  Result (*AlltoAll)(const void*, void*, size_t, int, CommHandle, cudaStream_t) = nullptr;  // NCCL >= 2.28
  Result (*Send)(const void*, size_t, int, int, CommHandle, cudaStream_t) = nullptr;
  Result (*Recv)(void*, size_t, int, int, CommHandle, cudaStream_t) = nullptr;
  Result (*GroupStart)() = nullptr;
  Result (*GroupEnd)() = nullptr;
};

Api g_api;
bool g_loaded = false;

std::string wheel_library() {
  FILE* p = popen(
      "python3 -c \"import nvidia.nccl as m, os; "
      "print(os.path.dirname(m.__file__) if getattr(m, '__file__', None) else list(m.__path__)[0])\" "
      "2>/dev/null",
      "r");
  if (!p) return "";
  char buf[1024] = "";
  if (!fgets(buf, sizeof(buf), p)) buf[0] = '\0';
  pclose(p);
  size_t n = strlen(buf);
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = '\0';
  if (!n) return "";
  return std::string(buf) + "/lib/libnccl.so.2";
}

template <class F>
bool sym(void* lib, const char* name, F* out, std::string* missing) {
  *out = reinterpret_cast<F>(dlsym(lib, name));
  if (!*out && missing) *missing += std::string(missing->empty() ? "" : ", ") + name;
  return *out != nullptr;
}

bool load(std::string* why) {
  if (g_loaded) return true;
  std::vector<std::string> tried;
  void* lib = nullptr;
  std::string path;
  const char* env = getenv("NCCL_LIB");
  if (env && *env) {
    path = env;
    lib = dlopen(env, RTLD_NOW | RTLD_LOCAL);
    if (!lib) tried.push_back(std::string("$NCCL_LIB=") + env + " (" + dlerror() + ")");
  } else {
    path = "libnccl.so.2";
    lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      tried.push_back("libnccl.so.2 on the loader path");
      path = wheel_library();
      if (!path.empty()) {
        lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) tried.push_back(path + " (" + dlerror() + ")");
      } else {
        tried.push_back("the nvidia-nccl Python wheel (python3 -c 'import nvidia.nccl' failed)");
      }
    }
  }
  if (!lib) {
    *why = "NCCL not found; tried ";
    for (size_t i = 0; i < tried.size(); ++i) *why += (i ? ", " : "") + tried[i];
    *why += " (set NCCL_LIB=/path/libnccl.so.2)";
    return false;
  }
  Api a;
  a.lib = lib;
  a.path = path;
  std::string missing;
  sym(lib, "ncclGetVersion", &a.GetVersion, &missing);
  sym(lib, "ncclGetUniqueId", &a.GetUniqueId, &missing);
  sym(lib, "ncclCommInitRank", &a.CommInitRank, &missing);
  sym(lib, "ncclCommDestroy", &a.CommDestroy, &missing);
  sym(lib, "ncclGetErrorString", &a.GetErrorString, &missing);
  sym(lib, "ncclAllReduce", &a.AllReduce, &missing);
  sym(lib, "ncclBroadcast", &a.Broadcast, &missing);
  sym(lib, "ncclAllGather", &a.AllGather, &missing);
  sym(lib, "ncclReduceScatter", &a.ReduceScatter, &missing);
  sym(lib, "ncclSend", &a.Send, &missing);
  sym(lib, "ncclRecv", &a.Recv, &missing);
  sym(lib, "ncclGroupStart", &a.GroupStart, &missing);
  sym(lib, "ncclGroupEnd", &a.GroupEnd, &missing);
  sym(lib, "ncclAlltoAll", &a.AlltoAll, nullptr);  // optional
  if (!missing.empty()) {
    *why = path + " lacks " + missing;
    dlclose(lib);
    return false;
  }
  a.GetVersion(&a.version);
  g_api = a;
  g_loaded = true;
  return true;
}

int dtype(DType t) {
  switch (t) {
    case DType::int32:
      return kInt32;
    case DType::int64:
      return kInt64;
    case DType::uint32:
      return kUint32;
    case DType::uint64:
      return kUint64;
    case DType::float32:
      return kFloat32;
    case DType::float64:
      return kFloat64;
  }
  return kInt32;
}

int redop(const std::string& op) {
  if (op == "prod") return kProd;
  if (op == "max") return kMax;
  if (op == "min") return kMin;
  return kSum;
}

int check(Result rc, const char* call, std::string* err) {
  if (rc != 0 && err) *err = std::string(call) + ": " + (g_api.GetErrorString ? g_api.GetErrorString(rc) : "error");
  return rc;
}

}  // namespace

struct Comm {
  CommHandle h = nullptr;
};

std::string version() {
  if (!g_loaded) return "";
  const int v = g_api.version;
  char buf[32];
  if (v >= 10000)
    snprintf(buf, sizeof(buf), "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
  else
    snprintf(buf, sizeof(buf), "%d.%d.%d", v / 1000, (v % 1000) / 100, v % 100);
  return buf;
}

std::string library() { return g_loaded ? g_api.path : ""; }

bool supports(const std::string& op) { return op == "sum" || op == "prod" || op == "min" || op == "max"; }
bool supports(DType) { return true; }

const char* alltoall_method() { return g_loaded && g_api.AlltoAll ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv"; }

Comm* create(Ctx& ctx, std::string* why) {
  std::string my_why;
  const bool ok = load(&my_why);
  if (!ctx.all(ok)) {
    *why = ok ? "NCCL skipped: another PE could not load it" : "NCCL skipped: " + my_why;
    return nullptr;
  }
  // Never NVLink multicast (NVLS) in these comparisons.
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  // Simulated nodes (gshmrun --sim-nodes, GSHMEM_HOSTID): NCCL splits the PEs the same way, so
  // the comparison takes NCCL's inter-node path (add NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1 for
  // its socket transport, the anchor of docs/internode.md section 13).
  if (const char* host = getenv("GSHMEM_HOSTID")) setenv("NCCL_HOSTID", host, 0);
  UniqueId id;
  memset(&id, 0, sizeof(id));
  Result rc = 0;
  if (ctx.me == 0) rc = g_api.GetUniqueId(&id);
  if (!ctx.all(rc == 0)) {
    *why = "NCCL skipped: ncclGetUniqueId failed on PE 0";
    return nullptr;
  }
  // The id travels through gshmem: PE 0 writes it into a symmetric buffer, the others get it.
  void* sym_id = gshmem_malloc(sizeof(id));
  if (!sym_id) {
    *why = "NCCL skipped: gshmem_malloc for the unique id failed";
    return nullptr;
  }
  if (ctx.me == 0) ctx.cuda(cudaMemcpy(sym_id, &id, sizeof(id), cudaMemcpyHostToDevice), "cudaMemcpy (NCCL id)");
  ctx.barrier();
  if (ctx.me != 0) gshmem_getmem(&id, sym_id, sizeof(id), 0);
  ctx.barrier();
  gshmem_free(sym_id);
  Comm* c = new Comm;
  rc = g_api.CommInitRank(&c->h, ctx.npes, id, ctx.me);
  std::string err;
  check(rc, "ncclCommInitRank", &err);
  if (!ctx.all(rc == 0)) {
    *why = "NCCL skipped: " + (rc ? err : std::string("ncclCommInitRank failed on another PE"));
    if (rc == 0) g_api.CommDestroy(c->h);
    delete c;
    return nullptr;
  }
  return c;
}

void destroy(Comm* c) {
  if (!c) return;
  if (c->h) g_api.CommDestroy(c->h);
  delete c;
}

int allreduce(Comm* c, const void* src, void* dst, size_t count, DType t, const std::string& op, cudaStream_t s,
              std::string* err) {
  return check(g_api.AllReduce(src, dst, count, dtype(t), redop(op), c->h, s), "ncclAllReduce", err);
}

int broadcast(Comm* c, const void* src, void* dst, size_t count, DType t, int root, cudaStream_t s, std::string* err) {
  return check(g_api.Broadcast(src, dst, count, dtype(t), root, c->h, s), "ncclBroadcast", err);
}

int allgather(Comm* c, const void* src, void* dst, size_t count, DType t, cudaStream_t s, std::string* err) {
  return check(g_api.AllGather(src, dst, count, dtype(t), c->h, s), "ncclAllGather", err);
}

int reducescatter(Comm* c, const void* src, void* dst, size_t count, DType t, const std::string& op, cudaStream_t s,
                  std::string* err) {
  return check(g_api.ReduceScatter(src, dst, count, dtype(t), redop(op), c->h, s), "ncclReduceScatter", err);
}

int alltoall(Comm* c, const void* src, void* dst, size_t count, DType t, cudaStream_t s, std::string* err) {
  if (g_api.AlltoAll) return check(g_api.AlltoAll(src, dst, count, dtype(t), c->h, s), "ncclAlltoAll", err);
  // Fallback: one grouped send/receive per peer (what nccl-tests' alltoall does).
  const int npes = gshmem_n_pes();
  const size_t chunk = count * size_of(t);
  std::vector<SendRecv> x(npes);
  for (int peer = 0; peer < npes; ++peer)
    x[peer] = {peer, static_cast<const char*>(src) + chunk * peer, static_cast<char*>(dst) + chunk * peer};
  return sendrecv(c, x.data(), npes, count, t, s, err);
}

int sendrecv(Comm* c, const SendRecv* x, int n, size_t count, DType t, cudaStream_t s, std::string* err) {
  Result rc = g_api.GroupStart();
  if (rc) return check(rc, "ncclGroupStart", err);
  for (int i = 0; i < n && rc == 0; ++i) {
    if (x[i].pe < 0) continue;
    rc = g_api.Send(x[i].send, count, dtype(t), x[i].pe, c->h, s);
    if (rc == 0) rc = g_api.Recv(x[i].recv, count, dtype(t), x[i].pe, c->h, s);
  }
  const Result end = g_api.GroupEnd();
  if (rc) return check(rc, "ncclSend/ncclRecv", err);
  return check(end, "ncclGroupEnd", err);
}

}  // namespace nccl
}  // namespace perf
