// SPDX-License-Identifier: BSD-3-Clause
// Initialisation and finalisation.
//   test_init            gshmem_init (launcher environment) -> checks -> finalize;
//                        gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID) -> checks ->
//                        finalize; gshmem_init again -> checks, host calls from
//                        another thread -> finalize;
//                        gshmem_init_thread(MULTIPLE) -> provided and
//                        gshmem_query_thread are SERIALIZED -> checks -> finalize;
//                        gshmem_init_thread with a level out of range fails
//                        without initialising.
//   test_init uniqueid   the first initialisation of the process goes through
//                        gshmemx_init_attr with a unique id (never through the
//                        environment bootstrap), twice, with a fresh id each time.
// Unique id exchange: rank 0 calls gshmemx_get_uniqueid and writes the id to a
// file (mode 0600, written under a temporary name and renamed) in
// $GSHMEM_TEST_TMPDIR, $TMPDIR or /tmp, named after a hash of this job's
// GSHMEM_UNIQUEID (set by gshmrun, identical on every PE) and gshmrun's pid; the
// other ranks poll for it. Rank and size come from GSHMEM_RANK / GSHMEM_SIZE.
// Checks after each initialisation: gshmemx_initialized, my_pe / n_pes on the
// host and on the device against GSHMEM_RANK / GSHMEM_SIZE, and RMA (device put
// ring + host g) on a freshly allocated symmetric buffer.
// Another thread (SERIALIZED allows it), its current GPU another one than the
// PE's where the node has two: gshmem_free waits for the PE's 200 ms kernel still
// writing the block, malloc, host p, barrier_all and free act on the PE's GPU,
// and the thread is left with the PE's GPU current.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

#include "common.cuh"

using namespace gt;

namespace {

__global__ void k_ids(int* out) {
  out[0] = gshmem_my_pe();
  out[1] = gshmem_n_pes();
  out[2] = gshmem::my_pe();
  out[3] = gshmem::n_pes();
}

__global__ void k_ring(int* buf, const int* src, size_t n, uint64_t salt) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  gshmemx_int_put_block(buf, src, n, (me + 1) % npes);
  gshmem_quiet();
  gshmemx_barrier_all_block();
  (void)salt;
}

void check_identity(const char* phase) {
  const int rank = env_int("GSHMEM_RANK", 0), size = env_int("GSHMEM_SIZE", 1);
  set_context("%s: identity", phase);
  GT_CHECK_EQ(1, gshmemx_initialized());
  GT_CHECK_EQ(rank, gshmem_my_pe());
  GT_CHECK_EQ(size, gshmem_n_pes());
  stats().me = gshmem_my_pe();
  int* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, 4 * sizeof(int)));
  CUDA_CHECK(cudaMemset(d, 0xFF, 4 * sizeof(int)));
  k_ids<<<1, 1>>>(d);
  KERNEL_CHECK();
  int h[4];
  CUDA_CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));
  GT_CHECK_EQ(rank, h[0]);
  GT_CHECK_EQ(size, h[1]);
  GT_CHECK_EQ(rank, h[2]);
  GT_CHECK_EQ(size, h[3]);
}

void check_rma(const char* phase, uint64_t salt) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  constexpr size_t n = 50021;
  set_context("%s: device put ring and host g", phase);
  Guarded g = make_symmetric(n * sizeof(int));
  int* src = nullptr;
  CUDA_CHECK(cudaMalloc(&src, n * sizeof(int)));
  fill_device(src, n, me, salt);
  poison_device(g.base, g.bytes);
  gshmem_barrier_all();
  k_ring<<<1, 512>>>(g.at<int>(0), src, n, salt);
  KERNEL_CHECK();
  GT_VERIFY_GUARDED(int, g, 0, n, [&](size_t i) { return value<int>(prev, i, salt); });
  // Host g of the next PE's buffer: it holds what I put there.
  GT_CHECK_EQ(value<int>(me, 0, salt), gshmem_int_g(g.at<int>(0), next));
  GT_CHECK_EQ(value<int>(me, n - 1, salt), gshmem_int_g(g.at<int>(n - 1), next));
  gshmem_barrier_all();
  CUDA_CHECK(cudaFree(src));
  release(g);
}

__global__ void k_busy_then_write(int* p, unsigned long long ns, int v) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  while (t - t0 < ns);
  *p = v;
}

void check_other_thread(const char* phase) {
  const int me = gshmem_my_pe(), npes = gshmem_n_pes();
  const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
  int count = 0, mine = -1;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  CUDA_CHECK(cudaGetDevice(&mine));
  const int other = (mine + 1) % count;
  set_context("%s: host calls from a thread whose current GPU is %d (this PE's: %d)", phase, other, mine);
  int* block = static_cast<int*>(gshmem_malloc(sizeof(int)));
  GT_CHECK(block != nullptr);
  cudaStream_t s = nullptr;
  CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  k_busy_then_write<<<1, 1, 0, s>>>(block, 200000000ull, 7);
  CUDA_CHECK(cudaGetLastError());
  cudaError_t at_free = cudaErrorUnknown;
  int current_after = -1, got = 0;
  bool allocated = false;
  std::thread worker([&] {
    if (cudaSetDevice(other) != cudaSuccess) return;
    gshmem_free(block);  // waits for this PE's kernel, which still writes the block
    at_free = cudaStreamQuery(s);
    int* q = static_cast<int*>(gshmem_malloc(npes * sizeof(int)));
    allocated = q != nullptr;
    if (!allocated) return;
    cudaMemset(q, 0xA5, npes * sizeof(int));
    gshmem_barrier_all();
    gshmem_int_p(&q[me], 1000 + me, next);
    gshmem_barrier_all();
    cudaMemcpy(&got, &q[prev], sizeof(int), cudaMemcpyDeviceToHost);
    cudaGetDevice(&current_after);
    gshmem_free(q);
  });
  worker.join();
  GT_CHECK_EQ(static_cast<int>(cudaSuccess),
              static_cast<int>(at_free));  // cudaErrorNotReady: the free did not wait for the PE's GPU
  GT_CHECK(allocated);
  GT_CHECK_EQ(1000 + prev, got);
  GT_CHECK_EQ(mine, current_after);
  CUDA_CHECK(cudaStreamSynchronize(s));
  CUDA_CHECK(cudaStreamDestroy(s));
}

void finalize_and_check(const char* phase) {
  emit(stdout, "PE %d: %s: checks done, finalizing\n", gshmem_my_pe(), phase);
  gshmem_finalize();
  set_context("%s: after gshmem_finalize", phase);
  GT_CHECK_EQ(0, gshmemx_initialized());
}

// ------------------------------------------------------------------ unique id by file
uint64_t fnv1a(const char* s) {
  uint64_t h = 1469598103934665603ull;
  for (; s && *s; ++s) h = (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull;
  return h;
}

std::string id_path(const char* tag) {
  const char* dir = getenv("GSHMEM_TEST_TMPDIR");
  if (!dir || !*dir) dir = getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  // Same on every PE of this job, different for every job: the id gshmrun made (random), else
  // the launcher's pid. Not the parent's pid with gshmrun: a wrapper between it and the test
  // (compute-sanitizer, valgrind) gives every PE a parent of its own.
  const char* uid = getenv("GSHMEM_UNIQUEID");
  const uint64_t job = uid != nullptr && *uid != '\0' ? fnv1a(uid) : static_cast<uint64_t>(getppid()) << 20;
  char name[256];
  snprintf(name, sizeof(name), "%s/gshmem-test-%016llx-%s.id", dir, static_cast<unsigned long long>(job), tag);
  return name;
}

bool write_id(const std::string& path, const gshmemx_uniqueid_t& id) {
  const std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);  // the id holds a job secret
  if (fd < 0) {
    perror(("open " + tmp).c_str());
    return false;
  }
  const ssize_t w = write(fd, &id, sizeof(id));
  const bool ok = w == static_cast<ssize_t>(sizeof(id)) && fsync(fd) == 0;
  close(fd);
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    perror(("write/rename " + path).c_str());
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

bool read_id(const std::string& path, gshmemx_uniqueid_t* id, double timeout_s) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
      const ssize_t r = read(fd, id, sizeof(*id));
      close(fd);
      if (r == static_cast<ssize_t>(sizeof(*id))) return true;
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > timeout_s) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

// Initialise through a unique id made by rank 0; returns false (after reporting) on failure.
bool init_with_uniqueid(const char* tag) {
  const int rank = env_int("GSHMEM_RANK", 0), size = env_int("GSHMEM_SIZE", 1);
  set_context("gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID) [%s]", tag);
  GT_CHECK_EQ(0, gshmemx_initialized());
  const std::string path = id_path(tag);
  gshmemx_uniqueid_t id = GSHMEMX_UNIQUEID_INITIALIZER;
  if (rank == 0) {
    unlink(path.c_str());
    if (!GT_CHECK_STATUS(gshmemx_get_uniqueid(&id))) return false;
    if (!GT_CHECK(write_id(path, id))) return false;
  } else if (!GT_CHECK(read_id(path, &id, 60.0))) {
    emit(stderr, "PE %d: no unique id appeared in %s within 60 s\n", rank, path.c_str());
    return false;
  }
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  if (!GT_CHECK_STATUS(gshmemx_set_attr_uniqueid_args(rank, size, &id, &attr))) return false;
  GT_CHECK_EQ(rank, attr.rank);
  GT_CHECK_EQ(size, attr.nranks);
  const int st = gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr);
  if (!GT_CHECK_STATUS(st)) {
    emit(stderr, "PE %d: gshmemx_init_attr: %s\n", rank, gshmemx_status_string(st));
    return false;
  }
  gshmem_barrier_all();  // everyone has read the file
  if (rank == 0) unlink(path.c_str());
  emit(stdout, "PE %d: initialised through a unique id [%s]\n", rank, tag);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const bool uniqueid_only = argc > 1 && std::string(argv[1]) == "uniqueid";
  require_gpus(1, 0);
  GT_CHECK_EQ(0, gshmemx_initialized());

  if (!uniqueid_only) {
    // env -> unique id -> env: two gshmem_init calls and a unique-id init between them.
    emit(stdout, "PE %d: first gshmem_init\n", env_int("GSHMEM_RANK", 0));
    gshmem_init();
    check_identity("first gshmem_init");
    check_rma("first gshmem_init", 1);
    finalize_and_check("first gshmem_init");

    if (init_with_uniqueid("after-env")) {
      check_identity("unique id after an env init");
      check_rma("unique id after an env init", 2);
      finalize_and_check("unique id after an env init");
    }

    emit(stdout, "PE %d: second gshmem_init\n", env_int("GSHMEM_RANK", 0));
    gshmem_init();
    check_identity("second gshmem_init");
    check_rma("second gshmem_init", 3);
    check_other_thread("second gshmem_init");
    int level = -1;
    gshmem_query_thread(&level);
    GT_CHECK_EQ(GSHMEM_THREAD_SERIALIZED, level);
    finalize_and_check("second gshmem_init");

    set_context("gshmem_init_thread");
    int provided = -1;
    GT_CHECK(gshmem_init_thread(GSHMEM_THREAD_MULTIPLE + 1, &provided) != 0);  // bad level: not initialised
    GT_CHECK_EQ(-1, provided);
    GT_CHECK_EQ(0, gshmemx_initialized());
    GT_CHECK_EQ(0, gshmem_init_thread(GSHMEM_THREAD_MULTIPLE, &provided));
    GT_CHECK_EQ(GSHMEM_THREAD_SERIALIZED, provided);  // the most the host API offers
    level = -1;
    gshmem_query_thread(&level);
    GT_CHECK_EQ(provided, level);
    check_identity("gshmem_init_thread");
    check_rma("gshmem_init_thread", 4);
    finalize_and_check("gshmem_init_thread");
    GT_CHECK_EQ(0, gshmem_init_thread(GSHMEM_THREAD_FUNNELED, &provided));
    GT_CHECK_EQ(GSHMEM_THREAD_FUNNELED, provided);
    finalize_and_check("gshmem_init_thread(FUNNELED)");
  } else {
    for (int round = 0; round < 2; ++round) {
      const char* tag = round == 0 ? "first" : "second";
      if (!init_with_uniqueid(tag)) break;
      check_identity(tag);
      check_rma(tag, 10 + round);
      finalize_and_check(tag);
    }
  }
  return test_main_epilogue(uniqueid_only ? "init_uniqueid" : "init", false);
}
