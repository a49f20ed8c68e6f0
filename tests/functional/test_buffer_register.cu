// SPDX-License-Identifier: BSD-3-Clause
// Registered user buffers: gshmemx_buffer_register_symmetric / _unregister_symmetric.
//   - every PE allocates an odd size (rounded up to the granularity) with the CUDA VMM API
//     (cuMemCreate with a POSIX fd handle type, cuMemAddressReserve, cuMemMap, cuMemSetAccess),
//     poisons it and registers it: the alias is accessible (host gshmem_ptr to itself is the
//     alias, to every PE non-NULL; device gshmem_ptr too, which needs the republished extent),
//     and stores through the alias show through the user's pointer and back (same memory);
//   - device puts (gshmem_int_put per thread, gshmemx_int_put_block) and a host gshmem_int_put
//     of a pattern depending on the sender and the index into the next PE's alias: every element
//     checked through the owner's own pointer; host and device atomic adds from every PE sum up;
//   - gshmem_malloc after registering gives a block disjoint from the buffer, usable remotely;
//     a large malloc grows the heap above the buffer, which keeps its data (through both
//     addresses on this PE and through the peer's mapping) and still takes puts;
//   - a second buffer registered at the top and unregistered gives the address range back
//     (gshmem_ptr NULL there afterwards); the first, unregistered below the top, leaves a hole
//     that the next registration that fits reuses (same address); after unregistering, the
//     user's memory still holds the data and the user releases it;
//   - errors, NULL or non-zero on every PE with a log line saying why, nothing changed: sizes
//     that differ between PEs (a malloc after it lands where it would have), plain cudaMalloc
//     memory, an address inside an allocation, an allocation without the POSIX fd handle type,
//     flags != 0, size 0, registering a buffer twice, unregistering an unknown pointer, a wrong
//     size or different arguments between PEs, gshmem_free of the alias;
//   - with GSHMEM_DISABLE_VMM=1 (the cudaMalloc + CUDA IPC heap, "buffer_register_ipc"):
//     registering fails on every PE with a message, and the heap keeps working.
// The log lines are read back from this process's GSHMEM_DEBUG_FILE, which main sets.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "common.cuh"

using namespace gt;

namespace {

// The driver's VMM calls, reached through the runtime (cudaGetDriverEntryPointByVersion) so that
// the test does not link libcuda: without a GPU it loads and reports "skipped" (77).
struct Driver {
  PFN_cuInit_v2000 Init;
  PFN_cuDeviceGet_v2000 DeviceGet;
  PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
  PFN_cuGetErrorString_v6000 GetErrorString;
  PFN_cuMemAddressFree_v10020 MemAddressFree;
  PFN_cuMemAddressReserve_v10020 MemAddressReserve;
  PFN_cuMemCreate_v10020 MemCreate;
  PFN_cuMemGetAllocationGranularity_v10020 MemGetAllocationGranularity;
  PFN_cuMemMap_v10020 MemMap;
  PFN_cuMemRelease_v10020 MemRelease;
  PFN_cuMemSetAccess_v10020 MemSetAccess;
  PFN_cuMemUnmap_v10020 MemUnmap;
};
Driver drv;

void load_driver() {
  auto get = [](const char* name, auto* out) {
    cudaDriverEntryPointQueryResult q;
    void* fn = nullptr;
    const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || fn == nullptr) {
      fprintf(stderr, "FAIL: cannot load CUDA driver function %s (%s)\n", name,
              e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
      exit(1);
    }
    *out = reinterpret_cast<std::remove_pointer_t<decltype(out)>>(fn);
  };
  get("cuInit", &drv.Init);
  get("cuDeviceGet", &drv.DeviceGet);
  get("cuDeviceGetAttribute", &drv.DeviceGetAttribute);
  get("cuGetErrorString", &drv.GetErrorString);
  get("cuMemAddressFree", &drv.MemAddressFree);
  get("cuMemAddressReserve", &drv.MemAddressReserve);
  get("cuMemCreate", &drv.MemCreate);
  get("cuMemGetAllocationGranularity", &drv.MemGetAllocationGranularity);
  get("cuMemMap", &drv.MemMap);
  get("cuMemRelease", &drv.MemRelease);
  get("cuMemSetAccess", &drv.MemSetAccess);
  get("cuMemUnmap", &drv.MemUnmap);
}

constexpr size_t kMiB = 1u << 20;
uint64_t g_salt = 51000;
std::string g_log;  // this process's GSHMEM_DEBUG_FILE

#define CU_CHECK(call)                                                                                         \
  do {                                                                                                         \
    CUresult gt_cu_ = (call);                                                                                  \
    if (gt_cu_ != CUDA_SUCCESS) {                                                                              \
      const char* gt_s_ = nullptr;                                                                             \
      drv.GetErrorString(gt_cu_, &gt_s_);                                                                      \
      emit(stderr, "PE %d: FAIL %s:%d [%s] CUDA driver error %d (%s) from %s\n", log_pe(), __FILE__, __LINE__, \
           stats().context, static_cast<int>(gt_cu_), gt_s_ ? gt_s_ : "?", #call);                             \
      exit(1);                                                                                                 \
    }                                                                                                          \
  } while (0)

// ------------------------------------------------------------------ the log
size_t log_mark() {
  struct stat st {};
  return stat(g_log.c_str(), &st) == 0 ? static_cast<size_t>(st.st_size) : 0;
}

// What the log gained since `mark`.
std::string log_since(size_t mark) {
  std::ifstream f(g_log, std::ios::binary);
  if (!f) return "";
  f.seekg(static_cast<std::streamoff>(mark));
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// One check: since `mark` the log has a gshmem ERROR line that contains `needle`.
bool logged(size_t mark, const char* needle, const char* file, int line) {
  const std::string text = log_since(mark);
  size_t at = 0;
  bool found = false;
  while (!found && at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string l = text.substr(at, end - at);
    found = l.find("gshmem ERROR") != std::string::npos && l.find(needle) != std::string::npos;
    at = end + 1;
  }
  ++stats().checks;
  if (!found) {
    ++stats().failures;
    fail_line(file, line, "no gshmem ERROR line containing \"%s\" in %s; it gained: %.300s", needle, g_log.c_str(),
              text.c_str());
  }
  return found;
}
#define GT_CHECK_LOGGED(mark, needle) logged((mark), (needle), __FILE__, __LINE__)

// ------------------------------------------------------------------ CUDA VMM buffers
struct VmmBuffer {
  CUdeviceptr ptr = 0;
  size_t bytes = 0;
  CUmemGenericAllocationHandle handle = 0;
  int* ints() const { return reinterpret_cast<int*>(ptr); }
  size_t n() const { return bytes / sizeof(int); }
};

CUmemAllocationProp vmm_prop(bool posix_fd) {
  int dev = 0;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  prop.location.id = dev;
  prop.requestedHandleTypes = posix_fd ? CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR : CU_MEM_HANDLE_TYPE_NONE;
  return prop;
}

size_t vmm_granularity() {
  CUmemAllocationProp prop = vmm_prop(true);
  size_t gran = 0;
  CU_CHECK(drv.MemGetAllocationGranularity(&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  return gran;
}

// `want` bytes rounded up to the granularity: one allocation of this PE's GPU, mapped read-write.
VmmBuffer vmm_alloc(size_t want, bool posix_fd = true) {
  CUmemAllocationProp prop = vmm_prop(posix_fd);
  const size_t gran = vmm_granularity();
  VmmBuffer b;
  b.bytes = (want + gran - 1) / gran * gran;
  CU_CHECK(drv.MemCreate(&b.handle, b.bytes, &prop, 0));
  CU_CHECK(drv.MemAddressReserve(&b.ptr, b.bytes, gran, 0, 0));
  CU_CHECK(drv.MemMap(b.ptr, b.bytes, 0, b.handle, 0));
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CU_CHECK(drv.MemSetAccess(b.ptr, b.bytes, &access, 1));
  return b;
}

void vmm_free(VmmBuffer& b) {
  if (!b.ptr) return;
  CUDA_CHECK(cudaDeviceSynchronize());
  CU_CHECK(drv.MemUnmap(b.ptr, b.bytes));
  CU_CHECK(drv.MemAddressFree(b.ptr, b.bytes));
  CU_CHECK(drv.MemRelease(b.handle));
  b = VmmBuffer{};
}

bool disjoint(const void* a, size_t a_bytes, const void* b, size_t b_bytes) {
  const char *x = static_cast<const char*>(a), *y = static_cast<const char*>(b);
  return x + a_bytes <= y || y + b_bytes <= x;
}

// ------------------------------------------------------------------ kernels
// Each thread puts `per` elements (thread-scope gshmem_int_put), then quiet.
__global__ void k_put_thread(int* dst, const int* src, size_t n, size_t per, int pe) {
  const size_t off = (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) * per;
  if (off < n) gshmem_int_put(dst + off, src + off, n - off < per ? n - off : per, pe);
  gshmem_quiet();
}

// Block b puts chunks b, b + gridDim.x, ... (block-scope gshmemx_int_put_block), then quiet.
__global__ void k_put_block(int* dst, const int* src, size_t n, size_t chunk, int pe) {
  for (size_t off = blockIdx.x * chunk; off < n; off += static_cast<size_t>(gridDim.x) * chunk)
    gshmemx_int_put_block(dst + off, src + off, n - off < chunk ? n - off : chunk, pe);
  gshmem::quiet<gshmem::block_scope>();
}

// Thread p adds `value` to *dst on PE p, then quiet.
__global__ void k_atomic_add(int* dst, int value, int npes) {
  const int pe = static_cast<int>(threadIdx.x);
  if (pe < npes) gshmem_int_atomic_add(dst, value, pe);
  gshmem_quiet();
}

// out[pe] = 1 when the device's gshmem_ptr reaches the last int of `sym` on pe.
__global__ void k_device_ptr(const int* sym, size_t n, int npes, int* out) {
  const int pe = static_cast<int>(threadIdx.x);
  if (pe < npes) out[pe] = gshmem_ptr(sym + n - 1, pe) != nullptr ? 1 : 0;
}

// Every element of PE pe's copy of `sym`, read through the device gshmem_ptr, against value(writer, i, salt).
__global__ void k_check_remote(const int* sym, size_t n, int pe, int writer, uint64_t salt, DevErrors* err) {
  const int* q = static_cast<const int*>(gshmem_ptr(sym, pe));
  if (q == nullptr) {
    if (blockIdx.x == 0 && threadIdx.x == 0) dev_fail(err, ~0ull, static_cast<unsigned long long>(pe), 1, 0);
    return;
  }
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    const int e = value<int>(writer, i, salt);
    if (q[i] != e)
      dev_fail(err, i, static_cast<unsigned long long>(pe), static_cast<unsigned>(e), static_cast<unsigned>(q[i]));
  }
}

// ------------------------------------------------------------------ helpers
enum class Put { kThread, kBlock, kHost };
const char* put_name(Put p) {
  return p == Put::kThread  ? "device gshmem_int_put"
         : p == Put::kBlock ? "device gshmemx_int_put_block"
                            : "host gshmem_int_put";
}

// Every element of `local` (n ints on this GPU) against what the previous PE wrote with `salt`.
void verify_local(const int* local, size_t n, uint64_t salt, const char* what) {
  const int npes = gshmem_n_pes(), prev = (gshmem_my_pe() + npes - 1) % npes;
  std::vector<int> h(n);
  CUDA_CHECK(cudaMemcpy(h.data(), local, n * sizeof(int), cudaMemcpyDeviceToHost));
  GT_VERIFY(what, h.data(), n, [&](size_t i) { return value<int>(prev, i, salt); });
}

// Collective: every PE puts value<int>(me, i, salt) into n ints at symmetric `sym` on the next
// PE; each PE then checks every element through `local` (its own view of the same memory: the
// user's pointer of a registered buffer). Returns the salt (the data stays there).
uint64_t put_and_verify(int* sym, int* local, size_t n, Put how, const char* what) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), next = (me + 1) % npes;
  const uint64_t salt = ++g_salt;
  set_context("%s: %s of %zu ints into the next PE's %p", what, put_name(how), n, static_cast<void*>(sym));
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, n * sizeof(int)));
  fill_device(src, n, me, salt);
  poison_device(local, n * sizeof(int));
  gshmem_barrier_all();
  if (how == Put::kThread) {
    constexpr size_t kPer = 1000;  // not a power of two: pieces straddle every alignment
    const size_t threads = (n + kPer - 1) / kPer;
    k_put_thread<<<static_cast<unsigned>((threads + 127) / 128), 128>>>(sym, src, n, kPer, next);
    KERNEL_CHECK();
  } else if (how == Put::kBlock) {
    k_put_block<<<48, 256>>>(sym, src, n, 65536 + 7, next);
    KERNEL_CHECK();
  } else {
    gshmem_int_put(sym, src, n, next);
  }
  gshmem_barrier_all();
  verify_local(local, n, salt, "element");
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
  return salt;
}

int* register_ints(const VmmBuffer& b, size_t bytes) {
  return static_cast<int*>(gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(b.ptr), bytes, 0));
}

// ------------------------------------------------------------------ the main path
void registered_buffer() {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes(), next = (me + 1) % npes;
  set_context("setup");
  void* early = gshmem_malloc(kMiB);  // a block from before the registration
  GT_CHECK(early != nullptr);
  VmmBuffer ub = vmm_alloc(3 * kMiB + 12345);  // an odd size, rounded up to the granularity
  const size_t n = ub.n();
  int* user = ub.ints();
  poison_device(user, ub.bytes);

  set_context("gshmemx_buffer_register_symmetric of %zu bytes at %p", ub.bytes, static_cast<void*>(user));
  int* sym = register_ints(ub, ub.bytes);
  if (!GT_CHECK(sym != nullptr)) {  // NULL on every PE alike: nothing collective follows
    vmm_free(ub);
    return;
  }
  GT_CHECK(static_cast<void*>(sym) != static_cast<void*>(user));
  GT_CHECK_EQ(static_cast<void*>(sym), gshmem_ptr(sym, me));
  for (int pe = 0; pe < npes; ++pe) {
    GT_CHECK(gshmem_ptr(sym + n - 1, pe) != nullptr);
    GT_CHECK_EQ(1, gshmem_addr_accessible(sym + n - 1, pe));
  }
  GT_CHECK(disjoint(sym, ub.bytes, early, kMiB));
  {
    int* d_out = nullptr;
    CUDA_CHECK(cudaMalloc(&d_out, sizeof(int) * npes));
    CUDA_CHECK(cudaMemset(d_out, 0, sizeof(int) * npes));
    k_device_ptr<<<1, 128>>>(sym, n, npes, d_out);
    KERNEL_CHECK();
    std::vector<int> out(npes);
    CUDA_CHECK(cudaMemcpy(out.data(), d_out, sizeof(int) * npes, cudaMemcpyDeviceToHost));
    GT_VERIFY("device gshmem_ptr(last int of the alias, pe) != NULL", out.data(), out.size(), [](size_t) { return 1; });
    CUDA_CHECK(cudaFree(d_out));
  }

  set_context("the alias and the user's pointer are the same memory");
  {
    std::vector<unsigned char> h(4096);
    CUDA_CHECK(cudaMemset(sym, 0x3C, 4096));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), user, h.size(), cudaMemcpyDeviceToHost));
    GT_VERIFY("user bytes after a store through the alias", h.data(), h.size(),
              [](size_t) { return static_cast<unsigned char>(0x3C); });
    CUDA_CHECK(cudaMemset(user + n - 1024, 0x5A, 4096));
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(h.data(), sym + n - 1024, h.size(), cudaMemcpyDeviceToHost));
    GT_VERIFY("alias bytes after a store through the user's pointer", h.data(), h.size(),
              [](size_t) { return static_cast<unsigned char>(0x5A); });
  }
  gshmem_barrier_all();

  put_and_verify(sym, user, n, Put::kThread, "registered buffer");
  put_and_verify(sym, user, n, Put::kBlock, "registered buffer");
  uint64_t salt = put_and_verify(sym, user, n, Put::kHost, "registered buffer");

  set_context("atomic adds into the registered buffer");
  {
    const int total = npes * (npes + 1) / 2;
    // ints 0 and 1 (host and device adds): zero them; the rest keeps the host put's pattern
    std::vector<int> keep(2);
    CUDA_CHECK(cudaMemcpy(keep.data(), user, 2 * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemset(user, 0, 2 * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    gshmem_barrier_all();
    for (int k = 0; k < npes; ++k) {
      const int pe = (me + k) % npes;
      const int old = gshmem_int_atomic_fetch_add(sym, me + 1, pe);
      GT_CHECK(old >= 0 && old <= total - (me + 1));
    }
    k_atomic_add<<<1, 128>>>(sym + 1, me + 1, npes);
    KERNEL_CHECK();
    gshmem_barrier_all();
    int got[2] = {0, 0};
    CUDA_CHECK(cudaMemcpy(got, user, sizeof(got), cudaMemcpyDeviceToHost));
    GT_CHECK_EQ(total, got[0]);
    GT_CHECK_EQ(total, got[1]);
    gshmem_barrier_all();
    CUDA_CHECK(cudaMemcpy(user, keep.data(), 2 * sizeof(int), cudaMemcpyHostToDevice));
    gshmem_barrier_all();
  }

  set_context("gshmem_malloc after registering");
  const size_t mb = 2 * kMiB + 777 * sizeof(int);
  int* m = static_cast<int*>(gshmem_malloc(mb));
  GT_CHECK(m != nullptr);
  if (m) {
    GT_CHECK(disjoint(m, mb, sym, ub.bytes));
    GT_CHECK(disjoint(m, mb, early, kMiB));
    put_and_verify(m, m, mb / sizeof(int), Put::kBlock, "gshmem_malloc block");
  }

  set_context("heap growth with a registered buffer");
  const size_t big_bytes = 96 * kMiB;  // more than GSHMEM_SYMMETRIC_SIZE=64M: the heap grows
  char* big = static_cast<char*>(gshmem_malloc(big_bytes));
  GT_CHECK(big != nullptr);
  if (big) {
    GT_CHECK(disjoint(big, big_bytes, sym, ub.bytes));
    // Growth maps from the top, which the registration holds: the new block lies above it.
    GT_CHECK(big >= reinterpret_cast<char*>(sym) + ub.bytes);
    if (m) GT_CHECK(disjoint(big, big_bytes, m, mb));
  }
  set_context("the registered data after the heap grew");
  verify_local(user, n, salt, "through the user's pointer");
  verify_local(sym, n, salt, "through the alias");
  {
    gshmem_barrier_all();
    DevErrorsHost err;  // the next PE's buffer holds what this PE wrote
    k_check_remote<<<256, 256>>>(sym, n, next, me, salt, err.d);
    KERNEL_CHECK();
    err.check("int", "PE", __FILE__, __LINE__);
    gshmem_barrier_all();
  }
  put_and_verify(sym, user, n, Put::kBlock, "registered buffer after growth");
  if (big) {  // the grown part itself takes puts: 4 MiB at its far end
    const size_t tail = 4 * kMiB / sizeof(int);
    int* t = reinterpret_cast<int*>(big + big_bytes) - tail;
    put_and_verify(t, t, tail, Put::kBlock, "the end of the block that grew the heap");
  }
  salt = put_and_verify(sym, user, n, Put::kHost, "registered buffer after growth");

  set_context("a second buffer, registered at the top and unregistered");
  {
    VmmBuffer ub2 = vmm_alloc(kMiB + 1);
    int* sym2 = register_ints(ub2, ub2.bytes);
    if (GT_CHECK(sym2 != nullptr)) {
      if (big) GT_CHECK(reinterpret_cast<char*>(sym2) >= big + big_bytes);
      GT_CHECK(disjoint(sym2, ub2.bytes, sym, ub.bytes));
      put_and_verify(sym2, ub2.ints(), ub2.n(), Put::kBlock, "second registered buffer");
      set_context("unregistering the second buffer");
      GT_CHECK_EQ(0, gshmemx_buffer_unregister_symmetric(sym2, ub2.bytes));
      // It was the top of the heap's range: the range ends below it again.
      GT_CHECK(gshmem_ptr(sym2, me) == nullptr);
      GT_CHECK(gshmem_ptr(sym2, next) == nullptr);
    }
    vmm_free(ub2);
  }

  set_context("unregistering with the wrong size");
  size_t mark = log_mark();
  GT_CHECK(gshmemx_buffer_unregister_symmetric(sym, ub.bytes - vmm_granularity()) != 0);
  GT_CHECK_LOGGED(mark, "was registered with");
  GT_CHECK(gshmem_ptr(sym, next) != nullptr);  // still registered
  set_context("gshmem_free of the alias");
  mark = log_mark();
  gshmem_free(sym);
  GT_CHECK_LOGGED(mark, "registered buffer");
  set_context("unregistering with different sizes on different PEs");
  mark = log_mark();
  GT_CHECK_EQ(static_cast<int>(GSHMEM_ERROR_MISMATCH),
              gshmemx_buffer_unregister_symmetric(sym, me == 0 ? ub.bytes : ub.bytes - vmm_granularity()));
  GT_CHECK_LOGGED(mark, "the PEs made different calls");
  verify_local(user, n, salt, "after the failed calls");  // all of them left it alone
  put_and_verify(sym, user, n, Put::kThread, "registered buffer after the failed calls");
  salt = put_and_verify(sym, user, n, Put::kHost, "registered buffer after the failed calls");

  set_context("gshmemx_buffer_unregister_symmetric");
  GT_CHECK_EQ(0, gshmemx_buffer_unregister_symmetric(sym, ub.bytes));
  verify_local(user, n, salt, "the user's memory after unregistering");
  mark = log_mark();
  GT_CHECK(gshmemx_buffer_unregister_symmetric(sym, ub.bytes) != 0);  // twice
  GT_CHECK_LOGGED(mark, "is not an address returned by gshmemx_buffer_register_symmetric");

  set_context("a buffer that fits the hole the first one left");
  {
    VmmBuffer ub3 = vmm_alloc(kMiB + 3);
    int* sym3 = register_ints(ub3, ub3.bytes);
    if (GT_CHECK(sym3 != nullptr)) {
      GT_CHECK_EQ(static_cast<void*>(sym), static_cast<void*>(sym3));  // best fit: the hole
      put_and_verify(sym3, ub3.ints(), ub3.n(), Put::kBlock, "buffer in the hole");
      GT_CHECK_EQ(0, gshmemx_buffer_unregister_symmetric(sym3, ub3.bytes));
    }
    vmm_free(ub3);
  }

  set_context("teardown");
  if (big) gshmem_free(big);
  if (m) gshmem_free(m);
  gshmem_free(early);
  verify_local(user, n, salt, "the user's memory before the user releases it");
  vmm_free(ub);
}

// ------------------------------------------------------------------ errors
void error_cases() {
  const int me = gshmem_my_pe();
  const size_t gran = vmm_granularity();
  VmmBuffer ub = vmm_alloc(2 * gran);

  set_context("sizes that differ between PEs");
  void* p1 = gshmem_malloc(12345);
  GT_CHECK(p1 != nullptr);
  gshmem_free(p1);
  size_t mark = log_mark();
  void* bad = gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), me == 0 ? 2 * gran : gran, 0);
  GT_CHECK(bad == nullptr);
  GT_CHECK_LOGGED(mark, "the PEs passed different sizes");
  {
    char pe0[64];
    snprintf(pe0, sizeof(pe0), "PE 0: %zu bytes, PE 1: %zu bytes", 2 * gran, gran);
    GT_CHECK_LOGGED(mark, pe0);
  }
  void* p2 = gshmem_malloc(12345);  // the heap is as it was: the same place
  GT_CHECK_EQ(p1, p2);
  if (p2) gshmem_free(p2);

  set_context("plain cudaMalloc memory");
  {
    void* d = nullptr;
    CUDA_CHECK(cudaMalloc(&d, 4 * kMiB));
    mark = log_mark();
    GT_CHECK(gshmemx_buffer_register_symmetric(d, 4 * kMiB, 0) == nullptr);
    const std::string text = log_since(mark);
    const bool said = text.find("is cudaMalloc memory") != std::string::npos ||
                      text.find("is not memory mapped with cuMemMap") != std::string::npos ||
                      text.find("without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR") != std::string::npos;
    GT_CHECK(said);
    CUDA_CHECK(cudaFree(d));
  }

  set_context("host memory");
  {
    std::vector<char> h(gran);
    mark = log_mark();
    GT_CHECK(gshmemx_buffer_register_symmetric(h.data(), h.size(), 0) == nullptr);
    GT_CHECK_LOGGED(mark, "is not memory mapped with cuMemMap");
  }

  set_context("an address inside an allocation");
  {
    mark = log_mark();
    void* inside = gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr + gran), gran, 0);
    GT_CHECK(inside == nullptr);
    GT_CHECK_LOGGED(mark, "bytes into the allocation mapped at");
    if (inside) gshmemx_buffer_unregister_symmetric(inside, gran);  // every PE alike
  }

  set_context("a size larger than the allocation");
  {
    mark = log_mark();
    void* over = gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), 3 * gran, 0);
    GT_CHECK(over == nullptr);
    GT_CHECK_LOGGED(mark, "is larger than the allocation");
    if (over) gshmemx_buffer_unregister_symmetric(over, 3 * gran);
  }

  set_context("a size that is not a multiple of the granularity");
  mark = log_mark();
  GT_CHECK(gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), gran + 4096, 0) == nullptr);
  GT_CHECK_LOGGED(mark, "must be multiples of the allocation granularity");

  if (env_int("GSHMEM_LOCAL_SIZE", 1) > 1) {
    set_context("an allocation without the POSIX fd handle type");
    VmmBuffer nofd = vmm_alloc(gran, false);
    mark = log_mark();
    GT_CHECK(gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(nofd.ptr), nofd.bytes, 0) == nullptr);
    GT_CHECK_LOGGED(mark, "without CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR");
    vmm_free(nofd);
  }

  set_context("flags != 0, size 0");
  mark = log_mark();
  GT_CHECK(gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), ub.bytes, 1) == nullptr);
  GT_CHECK_LOGGED(mark, "no flags are defined");
  mark = log_mark();
  GT_CHECK(gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), 0, 0) == nullptr);
  GT_CHECK_LOGGED(mark, "pass a buffer and its size");

  set_context("registering a buffer twice");
  int* sym = register_ints(ub, ub.bytes);
  if (GT_CHECK(sym != nullptr)) {
    mark = log_mark();
    GT_CHECK(register_ints(ub, ub.bytes) == nullptr);
    GT_CHECK_LOGGED(mark, "is registered already");
    put_and_verify(sym, ub.ints(), ub.n(), Put::kBlock, "buffer after the failed second registration");
    GT_CHECK_EQ(0, gshmemx_buffer_unregister_symmetric(sym, ub.bytes));
  }

  set_context("unregistering what is not registered");
  void* block = gshmem_malloc(kMiB);
  GT_CHECK(block != nullptr);
  mark = log_mark();
  GT_CHECK_EQ(static_cast<int>(GSHMEM_ERROR_INVALID_VALUE), gshmemx_buffer_unregister_symmetric(block, kMiB));
  GT_CHECK_LOGGED(mark, "is not an address returned by gshmemx_buffer_register_symmetric");
  int local = 0;
  GT_CHECK(gshmemx_buffer_unregister_symmetric(&local, sizeof(local)) != 0);
  put_and_verify(static_cast<int*>(block), static_cast<int*>(block), kMiB / sizeof(int), Put::kHost,
                 "gshmem_malloc block after the failed calls");
  gshmem_free(block);
  vmm_free(ub);
}

// With the cudaMalloc + CUDA IPC heap (GSHMEM_DISABLE_VMM=1): registering fails on every PE
// with a message saying why, unregistering finds nothing, and the heap keeps working.
void ipc_heap() {
  VmmBuffer ub = vmm_alloc(kMiB);
  set_context("gshmemx_buffer_register_symmetric with the CUDA IPC heap");
  size_t mark = log_mark();
  void* sym = gshmemx_buffer_register_symmetric(reinterpret_cast<void*>(ub.ptr), ub.bytes, 0);
  GT_CHECK(sym == nullptr);
  GT_CHECK_LOGGED(mark, "cudaMalloc + CUDA IPC heap");
  if (sym) gshmemx_buffer_unregister_symmetric(sym, ub.bytes);  // every PE alike
  mark = log_mark();
  GT_CHECK_EQ(static_cast<int>(GSHMEM_ERROR_INVALID_VALUE),
              gshmemx_buffer_unregister_symmetric(reinterpret_cast<void*>(ub.ptr), ub.bytes));
  GT_CHECK_LOGGED(mark, "registers none");
  int* block = static_cast<int*>(gshmem_malloc(kMiB));
  if (GT_CHECK(block != nullptr)) {
    put_and_verify(block, block, kMiB / sizeof(int), Put::kBlock, "gshmem_malloc block");
    gshmem_free(block);
  }
  vmm_free(ub);
}

}  // namespace

int main() {
  // A heap that starts small (so that a 96 MiB block grows it), unless the caller chose sizes.
  setenv("GSHMEM_SYMMETRIC_SIZE", "64M", 0);
  setenv("GSHMEM_SYMMETRIC_SIZE_MAX", "1G", 0);
  // This process's log, read back to check the error messages (errors reach stderr too).
  const char* tmp = getenv("TMPDIR");
  g_log = std::string(tmp && *tmp ? tmp : "/tmp") + "/gshmem_buffer_register." + std::to_string(getpid()) + ".log";
  setenv("GSHMEM_DEBUG_FILE", g_log.c_str(), 1);
  require_gpus(2, 0);
  load_driver();
  int vmm = 0, fd = 0;
  CUdevice dev0 = 0;
  if (drv.Init(0) != CUDA_SUCCESS || drv.DeviceGet(&dev0, 0) != CUDA_SUCCESS ||
      drv.DeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev0) != CUDA_SUCCESS ||
      drv.DeviceGetAttribute(&fd, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED, dev0) !=
          CUDA_SUCCESS ||
      !vmm || !fd) {
    emit(stdout, "SKIP: the GPU lacks CUDA VMM with POSIX fd handles (registered buffers need the VMM heap)\n");
    return 77;
  }
  gshmem_init();
  stats().me = gshmem_my_pe();
  CUDA_CHECK(cudaFree(nullptr));  // the runtime's context is current for the driver calls
  const char* no_vmm = getenv("GSHMEM_DISABLE_VMM");
  if (no_vmm && (!strcmp(no_vmm, "1") || !strcasecmp(no_vmm, "true") || !strcasecmp(no_vmm, "yes") ||
                 !strcasecmp(no_vmm, "on"))) {
    ipc_heap();
  } else {
    registered_buffer();
    error_cases();
  }
  const int rc = test_main_epilogue("buffer_register");
  if (rc == 0) unlink(g_log.c_str());  // kept when a check failed
  return rc;
}
