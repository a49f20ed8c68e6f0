/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gshmem host API (C). Initialisation, memory management and the host-only
 * calls. The RMA/synchronisation names shared with the device
 * (gshmem_putmem, gshmem_int_p, gshmem_barrier_all, ...) come from
 * detail/c_api_host.h (generated); in CUDA translation units they are inline
 * host+device functions instead.
 *
 * Errors: calls that return int return a gshmemx_status_t (0 = GSHMEM_SUCCESS);
 * the OpenSHMEM calls that return void report through the log and, where the
 * specification leaves no way to continue (gshmem_init failing), end the
 * process through the documented fatal path (message, exit code 1).
 */
#ifndef GSHMEM_HOST_H
#define GSHMEM_HOST_H

#include <stddef.h>
#include <cuda_runtime_api.h>

#include "gshmem/detail/export.h"
#include "gshmem/types.h"

GSHMEM_EXTERN_C_BEGIN

/* ---- library setup ---- */
/* Initialise from the launcher environment (gshmrun, torchrun, Open MPI, Slurm;
 * a lone process is PE 0 of 1). Selects the GPU from the node-local rank unless
 * the calling thread already has a CUDA context. Fatal on failure. Init and
 * finalize may be repeated in one process. */
GSHMEM_API void gshmem_init(void);
/* gshmem_init, then *provided = the thread level: GSHMEM_THREAD_SERIALIZED at most (host calls
 * from several threads must not overlap; device code is unaffected). A host call from a thread
 * whose current GPU is not this PE's makes the PE's GPU current for that thread first, and
 * leaves it so. Returns 0 or a status. */
GSHMEM_API int gshmem_init_thread(int requested, int* provided);
GSHMEM_API void gshmem_query_thread(int* provided);
/* Like gshmem_init, with explicit bootstrap. Returns a status code instead of ending the
 * process. flags:
 *   GSHMEMX_INIT_WITH_UNIQUEID  attr from gshmemx_set_attr_uniqueid_args (below);
 *   GSHMEMX_INIT_WITH_MPI_COMM  attr->mpi_comm = &comm (an MPI_Comm of Open MPI, MPI initialised):
 *                               the communicator's ranks become the PEs, in rank order; collective
 *                               over the communicator. gshmem does not link MPI: it calls the MPI
 *                               the program loaded, and refuses other MPI ABIs with a message. */
GSHMEM_API int gshmemx_init_attr(unsigned int flags, gshmemx_init_attr_t* attr);
/* Collective: completes outstanding operations, releases the heap. */
GSHMEM_API void gshmem_finalize(void);
/* Not collective: ends the whole job. The calling PE logs the call, flushes stdio and exits
 * with `status`; every other PE learns it through the bootstrap's peer-failure path and ends
 * too (exit code 1, a message naming this PE; with GSHMEM_PEER_FAILURE_ABORT=0 they only log
 * it). Launchers (gshmrun, mpirun) also stop the job when a PE ends early. */
GSHMEM_API void gshmem_global_exit(int status);
/* 1 if initialised and not finalised. */
GSHMEM_API int gshmemx_initialized(void);
/* Not collective, callable from any thread (e.g. a watchdog): ends the job on this PE without
 * ending the process. Every thread spinning in a device wait of gshmem on this PE ends within
 * milliseconds: it exits (the code after the wait does not run), so its kernel ends without an
 * error; a wait for the proxy (a PE on another node) traps instead, which loses the CUDA
 * context. Host calls then fail with GSHMEM_ERROR_ABORTED. Call gshmem_finalize next; a new
 * gshmem_init in the same process then starts afresh. The other PEs are not told: they end
 * their waits on this PE by their own gshmemx_abort, by the heartbeat bound
 * (GSHMEM_HEARTBEAT_TIMEOUT) once this PE is gone, or by GSHMEM_WAIT_TIMEOUT. Returns 0, or
 * GSHMEM_ERROR_NOT_INITIALIZED. */
GSHMEM_API int gshmemx_abort(int code);

/* Made by one process (usually rank 0), sent to all by the user. */
GSHMEM_API int gshmemx_get_uniqueid(gshmemx_uniqueid_t* id);
GSHMEM_API int gshmemx_set_attr_uniqueid_args(int rank, int nranks, const gshmemx_uniqueid_t* id,
                                              gshmemx_init_attr_t* attr);

GSHMEM_API const char* gshmemx_status_string(int status);
/* The errors this thread's gshmem calls logged since its previous gshmemx_take_error: returns
 * how many (0: none), and when that is not 0 and `buf` is not NULL, copies the last one's
 * message into buf (NUL-terminated, cut to size - 1 bytes), without the log line's prefix:
 * "gshmem_malloc: gshmem is not initialized; call gshmem_init() ...". For bindings (the Python
 * package) that turn a failed call - a status, a NULL, or a void call that logged an error -
 * into an exception carrying the library's own message. The log still prints every error. */
GSHMEM_API int gshmemx_take_error(char* buf, size_t size);
GSHMEM_API void gshmem_info_get_version(int* major, int* minor);
GSHMEM_API void gshmem_info_get_name(char* name);
/* 1 if PE `pe` can be reached by gshmem's data transfer routines from this PE (in this build:
 * it is on this node; there is no network transport yet), else 0. */
GSHMEM_API int gshmem_pe_accessible(int pe);
/* 1 if `addr` is in the symmetric heap and gshmem_pe_accessible(pe), else 0. */
GSHMEM_API int gshmem_addr_accessible(const void* addr, int pe);

/* ---- symmetric memory (collective: every PE calls with the same arguments) ---- */
/* NULL on every PE (never on some only) when the heap cannot satisfy the call
 * (the log says the requested and free sizes), when the PEs made different calls
 * or passed different arguments, when `alignment` is not a power of two or
 * count*size overflows. A request of 0 bytes returns NULL on the calling PE
 * without communicating (OpenSHMEM).
 * Allocation is deterministic (best fit, coalescing): the same sequence of
 * calls gives the same addresses on every PE, and freed space is reused. */
GSHMEM_API void* gshmem_malloc(size_t size);
GSHMEM_API void* gshmem_calloc(size_t count, size_t size);
GSHMEM_API void* gshmem_align(size_t alignment, size_t size);
/* Waits for this GPU's outstanding work (cudaDeviceSynchronize) before freeing. */
GSHMEM_API void gshmem_free(void* ptr);
/* ptr NULL: gshmem_malloc(size); size 0: gshmem_free(ptr), NULL. Otherwise a block of `size`
 * bytes holding the old contents up to the smaller size; the old block is freed. NULL with the
 * old block unchanged when the heap cannot satisfy it. Waits for this GPU's work, and returns
 * after every PE has copied. */
GSHMEM_API void* gshmem_realloc(void* ptr, size_t size);
/* gshmem_malloc; hints (GSHMEM_MALLOC_ATOMICS_REMOTE, _SIGNAL_REMOTE) change nothing here: every
 * block already serves remote atomics and signals at full speed. */
GSHMEM_API void* gshmem_malloc_with_hints(size_t size, long hints);

/* ---- registered user buffers (collective: every PE calls, with the same size) ---- */
/* Makes `size` bytes of the caller's GPU memory at `buf` symmetric: every PE passes a buffer of
 * its own, of the same size, and gets the address in the symmetric heap that aliases it (the
 * same heap offset on every PE). RMA, AMOs, signals, collectives and gshmem_ptr take that address
 * as they take a gshmem_malloc block; stores through either address reach the same memory.
 * The buffer must be CUDA VMM memory of this PE's GPU: one cuMemCreate allocation
 * (CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, requestedHandleTypes including
 * CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR when other PEs share the node) mapped with cuMemMap;
 * `buf` is where it is mapped, `size` at most its size and a multiple of its granularity
 * (CU_MEM_ALLOC_GRANULARITY_MINIMUM). cudaMalloc memory cannot be registered, nor can anything
 * with the cudaMalloc + CUDA IPC heap (GSHMEM_DISABLE_VMM=1). flags: 0.
 * Returns NULL on every PE (the log says why; nothing changes) when the sizes or flags differ
 * between PEs, when any PE's buffer fails these checks or is registered already, or when the
 * heap's address range (GSHMEM_SYMMETRIC_SIZE_MAX, which registered buffers count against as
 * address space, not memory) has no room. The memory stays the caller's: unregister it before
 * releasing it (a buffer released first stays allocated until it is unregistered). */
GSHMEM_API void* gshmemx_buffer_register_symmetric(void* buf, size_t size, int flags);
/* Undoes a registration: `sym` is the address gshmemx_buffer_register_symmetric returned and
 * `size` the size it was given. Waits for this GPU's outstanding work first (as gshmem_free).
 * Returns 0, or on every PE with nothing changed: GSHMEM_ERROR_INVALID_VALUE (not a registered
 * buffer, or another size), GSHMEM_ERROR_MISMATCH (the PEs passed different buffers or sizes). */
GSHMEM_API int gshmemx_buffer_unregister_symmetric(void* sym, size_t size);

/* ---- stream-ordered synchronisation ---- */
GSHMEM_API void gshmemx_barrier_all_on_stream(cudaStream_t stream);
GSHMEM_API void gshmemx_sync_all_on_stream(cudaStream_t stream);
GSHMEM_API void gshmemx_quiet_on_stream(cudaStream_t stream);

/* ---- collective kernel launch ---- */
/* Launches `func` so that all of its blocks are co-resident (cooperative
 * launch), as kernels that synchronise across GPUs need. Every PE launches its
 * own grid. Fails with GSHMEM_ERROR_LAUNCH and a message giving the largest
 * grid that fits, instead of hanging, when the grid cannot be resident, and
 * GSHMEM_ERROR_INVALID_VALUE when `func` is not a kernel of this program.
 * In CUDA translation units these are inline (device/launch.cuh) so that
 * `func` is resolved by the CUDA runtime that registered the kernel. */
#if !defined(__CUDACC__)
GSHMEM_API int gshmemx_collective_launch(const void* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                         cudaStream_t stream);
/* Largest grid (blocks) of `block` threads and `shared_mem` bytes that a
 * collective launch of `func` accepts on this GPU, in *grid_blocks: what fits
 * at once, divided by the PEs that share the GPU (each PE's grid must be
 * resident together with the others'). */
GSHMEM_API int gshmemx_collective_launch_query_gridsize(const void* func, dim3 block, void** args, size_t shared_mem,
                                                        int* grid_blocks);
#endif
/* Same, for a kernel given as a driver-API function handle. */
GSHMEM_API int gshmemi_collective_launch(struct CUfunc_st* func, dim3 grid, dim3 block, void** args, size_t shared_mem,
                                         cudaStream_t stream);
GSHMEM_API int gshmemi_collective_launch_query_gridsize(struct CUfunc_st* func, dim3 block, size_t shared_mem,
                                                        int* grid_blocks);

/* ---- modules loaded through the CUDA driver API ---- */
/* CUmodule of <cuda.h> (a pointer to struct CUmod_st), declared here without that header. */
struct CUmod_st;
/* A module loaded with cuModuleLoad / cuModuleLoadData / cuModuleLoadDataEx has no registrar
 * that hands gshmem its copy of the device state (detail/device_state.h), so its kernels would
 * see an empty one. gshmemx_cumodule_init fills that copy - the `static __constant__` variable
 * gshmemi_tu_state that <gshmem/gshmem.h> (or <nvshmem.h>) puts into each CUDA file compiled
 * without -rdc, found by that name - and keeps it filled: gshmem refills it after every heap
 * growth, at gshmem_finalize (which marks it uninitialised) and at a later gshmem_init, until
 * gshmemx_cumodule_finalize. Call it after gshmem_init, with the context that loaded the module
 * current (this PE's GPU; its primary context, the one cudaSetDevice makes current, is the one
 * the state's addresses are valid in), before launching the module's kernels. Calling it again
 * for the same module refills the copy. Call gshmemx_cumodule_finalize before cuModuleUnload: a
 * later refill would write into the unloaded module's memory.
 * Returns 0 (GSHMEM_SUCCESS), or with a logged message: GSHMEM_ERROR_NOT_INITIALIZED (before
 * gshmem_init or after gshmem_finalize), GSHMEM_ERROR_INVALID_VALUE (module NULL; no
 * gshmemi_tu_state in it: not compiled with gshmem's headers, compiled with -rdc, or no kernel
 * uses gshmem; or one of another size: compiled against other gshmem headers), GSHMEM_ERROR_CUDA
 * (no context current, or a driver call failed). Host only, not thread-safe with other host
 * calls (GSHMEM_THREAD_SERIALIZED). */
GSHMEM_API int gshmemx_cumodule_init(struct CUmod_st* module);
/* Stops refilling the module's copy (which keeps the state it holds). Needs no initialised
 * gshmem (it may follow gshmem_finalize). Returns 0, or GSHMEM_ERROR_INVALID_VALUE with a logged
 * message when the module is NULL or not initialised by gshmemx_cumodule_init (or finalised
 * already). */
GSHMEM_API int gshmemx_cumodule_finalize(struct CUmod_st* module);

GSHMEM_EXTERN_C_END

#include "gshmem/detail/c_api_host.h"

#endif /* GSHMEM_HOST_H */
