# SPDX-License-Identifier: BSD-3-Clause
"""A CUDA kernel that calls gshmem, built at run time with torch.utils.cpp_extension.load_inline
(header-only device API, no -rdc): each PE's block puts a tensor into the next PE's symmetric
tensor together with a signal (gshmemx_putmem_signal_block), then waits for its own signal from
the previous PE (gshmem_signal_wait_until) and copies what arrived into a local tensor.

    torchrun --nproc-per-node 2 examples/python/put_signal_kernel.py
"""
import torch

import gshmem.torch as gt

CUDA_SOURCE = r"""
#include <gshmem/gshmem.h>
#include <cstdint>

// One block per PE: put `n` floats + SET the signal to `value` on PE `next`, then wait for
// this PE's signal to reach `value` and copy the received data to `out`. The wait is an
// acquire, so the copy sees every byte the previous PE put before its signal.
__global__ void ring_put_signal(const float* src, float* dst, uint64_t* sig, uint64_t value, float* out, size_t n,
                                int next) {
  gshmemx_putmem_signal_block(dst, src, n * sizeof(float), sig, value, GSHMEM_SIGNAL_SET, next);
  if (threadIdx.x == 0) gshmem_signal_wait_until(sig, GSHMEM_CMP_EQ, value);
  __syncthreads();
  for (size_t i = threadIdx.x; i < n; i += blockDim.x) out[i] = dst[i];
}

void ring(int64_t src, int64_t dst, int64_t sig, int64_t value, int64_t out, int64_t n, int64_t next,
          int64_t stream) {
  ring_put_signal<<<1, 256, 0, reinterpret_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<const float*>(src), reinterpret_cast<float*>(dst), reinterpret_cast<uint64_t*>(sig),
      static_cast<uint64_t>(value), reinterpret_cast<float*>(out), static_cast<size_t>(n), static_cast<int>(next));
}
"""
CPP_SOURCE = ("void ring(int64_t src, int64_t dst, int64_t sig, int64_t value, int64_t out, int64_t n, int64_t next, "
              "int64_t stream);")


def build(verbose=False):
    """The compiled extension (cached by torch under ~/.cache/torch_extensions)."""
    return gt.load_inline("gshmem_example_put_signal", CPP_SOURCE, CUDA_SOURCE, functions=["ring"], verbose=verbose)


def ring(ext, src, dst, sig, value, out):
    """Launch the kernel on the current stream: src (local float32), dst (symmetric float32, same
    size), sig (symmetric uint64 element), out (local float32)."""
    nxt = (gt.my_pe() + 1) % gt.n_pes()
    ext.ring(src.data_ptr(), dst.data_ptr(), sig.data_ptr(), value, out.data_ptr(), src.numel(), nxt,
             torch.cuda.current_stream().cuda_stream)


def main():
    import torch.distributed as dist
    dist.init_process_group("nccl")
    dev = gt.init()
    me, n = gt.my_pe(), gt.n_pes()
    ext = build()
    count = 100_003
    dst, sig = gt.zeros(count), gt.zeros(1, dtype=torch.uint64)
    src = torch.arange(count, device=dev, dtype=torch.float32) + 1_000_000 * me
    out = torch.full((count,), -1.0, device=dev)
    gt.barrier()
    for it in range(1, 4):
        src += 1
        ring(ext, src, dst, sig, it, out)
        prev = (me - 1) % n
        want = torch.arange(count, device=dev, dtype=torch.float32) + 1_000_000 * prev + it
        assert torch.equal(out, want), f"PE {me}: iteration {it} received wrong data"
        gt.barrier()  # the previous PE may overwrite dst only after this PE read it
    torch.cuda.synchronize()
    print(f"PE {me}/{n}: put_signal_kernel OK ({count} floats x 3 rounds)")
    gt.free(sig)
    gt.free(dst)
    gt.finalize()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
