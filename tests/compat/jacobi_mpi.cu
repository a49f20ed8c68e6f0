// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM + MPI program: 2D Jacobi with device-initiated halo exchange, bootstrapped from an MPI
// communicator (NVSHMEMX_INIT_WITH_MPI_COMM), launched by mpirun. Checked against a host solve.
//
// Grid kNY x kNX, fixed boundary rows/columns; the kNY-2 interior rows are split over the PEs in
// uneven chunks. PE p holds local rows 0..chunk+1: its rows plus one halo row on each side (the
// fixed boundary row at the ends). Two symmetric buffers alternate (it reads buf[(it-1)%2],
// writes buf[it%2]). One persistent block per PE (collective launch) runs every iteration:
//   1. wait until both neighbours' halos of iteration it-1 arrived:
//      nvshmem_uint64_wait_until_all(sig, 2, status, NVSHMEM_CMP_GE, it-1), status masking a
//      missing neighbour at the ends;
//   2. compute the chunk;
//   3. put the first/last computed row into the neighbours' halo rows of buf[it%2]
//      (nvshmemx_double_put_nbi_block), nvshmem_quiet, then nvshmemx_signal_op(SET, it).
// Why that is race-free: a neighbour reads the halo rows of buf[it%2] during its iteration it+1,
// after waiting for my signal `it`; it read them last during its iteration it-1, which ended
// before it signalled it-1, which I waited for in step 1 before writing them again.
#define OMPI_SKIP_MPICXX 1  // C API only
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <math.h>
#include <stdint.h>

#include <vector>

#include "compat_check.h"

constexpr int kNX = 259;
constexpr int kNY = 2 + 135;  // 135 interior rows: an uneven split over 2 and 4 PEs
constexpr int kIters = 60;
constexpr int kThreads = 1024;

__host__ __device__ inline double initial(int y, int x) {
  if (y == 0) return 1.0 + 0.001 * x;                                // top boundary
  if (y == kNY - 1) return -0.5 + 0.002 * x;                         // bottom boundary
  if (x == 0) return 0.75;                                           // left boundary
  if (x == kNX - 1) return 0.25 + 0.0003 * y;                        // right boundary
  return (double)(((y * 7919 + x * 104729) % 1000) - 500) / 1000.0;  // interior start
}

struct Part {
  int first;  // first global interior row of this PE
  int rows;   // number of rows
};
__host__ __device__ inline Part part_of(int pe, int npes) {
  const int interior = kNY - 2, base = interior / npes, extra = interior % npes;
  Part p;
  p.rows = base + (pe < extra ? 1 : 0);
  p.first = 1 + pe * base + (pe < extra ? pe : extra);
  return p;
}

// launch_bounds: 1024 threads must fit in the register file (64 registers a thread) for the
// collective launch to accept one block of kThreads.
__global__ void __launch_bounds__(kThreads) jacobi(double* buf0, double* buf1, uint64_t* sig) {
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  const Part mine = part_of(me, npes);
  const int up = me - 1, down = me + 1;  // neighbours owning the rows above / below
  const size_t stride = kNX;
  const int status[2] = {up < 0 ? 1 : 0, down >= npes ? 1 : 0};  // nonzero: no such neighbour, skip
  for (int it = 1; it <= kIters; ++it) {
    double* src = (it % 2) ? buf0 : buf1;  // buf[(it-1)%2]
    double* dst = (it % 2) ? buf1 : buf0;  // buf[it%2]
    if (it > 1 && threadIdx.x == 0) nvshmem_uint64_wait_until_all(sig, 2, status, NVSHMEM_CMP_GE, (uint64_t)(it - 1));
    __syncthreads();
    for (int e = threadIdx.x; e < mine.rows * (kNX - 2); e += blockDim.x) {
      const int ly = 1 + e / (kNX - 2), x = 1 + e % (kNX - 2);
      const double* c = src + ly * stride + x;
      dst[ly * stride + x] = 0.25 * (((c[-(long)stride] + c[stride]) + c[-1]) + c[1]);
    }
    __syncthreads();
    // sig[0]: my upper halo arrived (written by `up`); sig[1]: my lower halo (written by `down`).
    if (up >= 0) {
      const Part p = part_of(up, npes);
      nvshmemx_double_put_nbi_block(dst + (size_t)(p.rows + 1) * stride, dst + stride, kNX, up);
    }
    if (down < npes) nvshmemx_double_put_nbi_block(dst, dst + (size_t)mine.rows * stride, kNX, down);
    nvshmem_quiet();
    __syncthreads();
    if (threadIdx.x == 0) {
      if (up >= 0) nvshmemx_signal_op(&sig[1], (uint64_t)it, NVSHMEM_SIGNAL_SET, up);
      if (down < npes) nvshmemx_signal_op(&sig[0], (uint64_t)it, NVSHMEM_SIGNAL_SET, down);
    }
  }
}

// The same iteration on the whole grid, on the host.
static std::vector<double> reference() {
  std::vector<double> a(kNY * kNX), b(kNY * kNX);
  for (int y = 0; y < kNY; ++y)
    for (int x = 0; x < kNX; ++x) a[y * kNX + x] = b[y * kNX + x] = initial(y, x);
  for (int it = 1; it <= kIters; ++it) {
    for (int y = 1; y < kNY - 1; ++y)
      for (int x = 1; x < kNX - 1; ++x) {
        const double* c = &a[y * kNX + x];
        b[y * kNX + x] = 0.25 * (((c[-kNX] + c[kNX]) + c[-1]) + c[1]);
      }
    a.swap(b);
  }
  return a;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &nranks);
  compat_pe = rank;
  // One GPU per rank on each node: node-local rank from a shared-memory split.
  MPI_Comm local;
  int local_rank = 0, local_size = 1;
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_size(local, &local_size);
  const int devices = compat_gpu_count();
  int lacking = devices < 1 || (devices < local_size && !compat_share_gpus()) ? 1 : 0, any_lacking = 0;
  MPI_Allreduce(&lacking, &any_lacking, 1, MPI_INT, MPI_MAX, comm);
  if (any_lacking) {
    if (rank == 0)
      printf("SKIP: compat jacobi needs one GPU per rank (%d ranks on a node, %d GPUs)\n", local_size, devices);
    MPI_Comm_free(&local);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 77;
  }
  COMPAT_CUDA(cudaSetDevice(local_rank % devices));  // GT_SHARE_GPUS=1: ranks may share GPUs

  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.mpi_comm = &comm;
  const int init_status = nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM, &attr);
  COMPAT_CHECK(init_status == 0, "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_MPI_COMM) returned %d", init_status);
  if (init_status != 0) MPI_Abort(comm, 1);
  const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
  COMPAT_CHECK(me == rank && npes == nranks, "PE %d of %d, MPI rank %d of %d", me, npes, rank, nranks);
  COMPAT_CHECK(nvshmemx_init_status() == NVSHMEM_STATUS_IS_INITIALIZED, "init status %d", nvshmemx_init_status());
  COMPAT_CHECK(nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE) == local_rank, "node team rank %d, MPI local rank %d",
               nvshmem_team_my_pe(NVSHMEMX_TEAM_NODE), local_rank);

  int max_rows = 0;
  for (int p = 0; p < npes; ++p) max_rows = part_of(p, npes).rows > max_rows ? part_of(p, npes).rows : max_rows;
  const size_t buf_elems = (size_t)(max_rows + 2) * kNX;
  double* buf0 = (double*)nvshmem_malloc(buf_elems * sizeof(double));
  double* buf1 = (double*)nvshmem_malloc(buf_elems * sizeof(double));
  uint64_t* sig = (uint64_t*)nvshmem_calloc(2, sizeof(uint64_t));
  COMPAT_CHECK(buf0 && buf1 && sig, "symmetric allocation failed");
  if (!buf0 || !buf1 || !sig) MPI_Abort(comm, 1);

  // Both buffers start with my rows, the rows next to them (halo / boundary) and NaN below.
  const Part mine = part_of(me, npes);
  std::vector<double> init(buf_elems, NAN);
  for (int ly = 0; ly <= mine.rows + 1; ++ly)
    for (int x = 0; x < kNX; ++x) init[ly * kNX + x] = initial(mine.first - 1 + ly, x);
  COMPAT_CUDA(cudaMemcpy(buf0, init.data(), buf_elems * sizeof(double), cudaMemcpyHostToDevice));
  COMPAT_CUDA(cudaMemcpy(buf1, init.data(), buf_elems * sizeof(double), cudaMemcpyHostToDevice));
  nvshmem_barrier_all();

  void* args[] = {&buf0, &buf1, &sig};
  const int st = nvshmemx_collective_launch((const void*)jacobi, dim3(1), dim3(kThreads), args, 0, 0);
  COMPAT_CHECK(st == 0, "nvshmemx_collective_launch returned %d", st);
  COMPAT_CUDA(cudaDeviceSynchronize());
  nvshmem_barrier_all();

  std::vector<double> got(buf_elems);
  COMPAT_CUDA(cudaMemcpy(got.data(), (kIters % 2) ? buf1 : buf0, buf_elems * sizeof(double), cudaMemcpyDeviceToHost));
  const std::vector<double> ref = reference();
  long bad = 0;
  double worst = 0;
  int wy = -1, wx = -1;
  for (int ly = 1; ly <= mine.rows; ++ly)
    for (int x = 0; x < kNX; ++x) {
      const double r = ref[(mine.first - 1 + ly) * kNX + x], g = got[ly * kNX + x];
      const double err = fabs(g - r);
      if (!(err <= 1e-12 * (1.0 + fabs(r)))) {  // also catches NaN
        if (bad++ == 0 || err > worst) worst = err, wy = mine.first - 1 + ly, wx = x;
      }
    }
  COMPAT_CHECK(bad == 0, "%ld of %d points differ from the host solve; worst at (%d,%d): got %.17g, expected %.17g",
               bad, mine.rows * kNX, wy, wx, bad ? got[(wy - mine.first + 1) * kNX + wx] : 0.0,
               bad ? ref[wy * kNX + wx] : 0.0);
  uint64_t sig_host[2];
  COMPAT_CUDA(cudaMemcpy(sig_host, sig, sizeof(sig_host), cudaMemcpyDeviceToHost));
  COMPAT_CHECK((me == 0 ? 0 : kIters) == (int)sig_host[0] && (me == npes - 1 ? 0 : kIters) == (int)sig_host[1],
               "halo signals %llu/%llu after %d iterations", (unsigned long long)sig_host[0],
               (unsigned long long)sig_host[1], kIters);

  nvshmem_free(sig);
  nvshmem_free(buf1);
  nvshmem_free(buf0);
  nvshmem_finalize();
  long long failures = compat_failures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_LONG_LONG, MPI_SUM, comm);
  const int rc = compat_summary("compat jacobi (MPI communicator init)");
  if (rank == 0 && total) printf("jacobi: %lld failed checks over all ranks\n", total);
  MPI_Comm_free(&local);
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return rc != 0 || total != 0 ? 1 : 0;
}
