/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The network-engine plugin ABI (docs/internode.md section 5): a versioned table of C functions
 * that a shared object `libgshmem_transport_<name>.so` exports, and that the proxy engine's
 * adapter (src/proxy/plugin_transport.h) loads with dlopen. The plugin moves active messages
 * between the proxy engines of the PEs; the engine decides what they mean.
 *
 * Public (installed) rather than private to src/proxy/: the plugin is built apart from the
 * library (src/transport/ucx/ in this tree; a site may build its own, e.g. over libfabric,
 * against the installed headers), so the table is the one contract both sides compile against,
 * and the layer rules let every part of the tree include public headers. `gshmemi_` names: no
 * user calls these.
 *
 * Versioning: a plugin exports `gshmemi_transport_get_v1` returning a table whose `abi_version`
 * is GSHMEMI_TRANSPORT_ABI_VERSION and whose `struct_size` is at least sizeof the v1 table. A
 * later version appends functions (a larger struct_size) or exports a new getter; the loader
 * refuses a table it does not know instead of calling through garbage.
 *
 * Threads: one thread (the proxy thread) makes every call for one state. Callbacks run only
 * inside progress(), on that thread, so that the engine needs no lock; a completion or failure
 * found inside am_send is held for the next progress().
 *
 * Plain C99 (C, C++, CUDA host code), no state.
 */
#ifndef GSHMEM_DETAIL_TRANSPORT_ABI_H
#define GSHMEM_DETAIL_TRANSPORT_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSHMEMI_TRANSPORT_ABI_VERSION 1u
#define GSHMEMI_TRANSPORT_ENTRY_V1 "gshmemi_transport_get_v1" /* the one exported symbol */

/* Return codes. On GSHMEMI_TRANSPORT_ERROR, last_error() names the cause. */
#define GSHMEMI_TRANSPORT_OK 0
#define GSHMEMI_TRANSPORT_ERROR (-1)
#define GSHMEMI_TRANSPORT_PEER_FAILED (-2) /* the peer failed (reported, or about to be, by peer_failed) */
#define GSHMEMI_TRANSPORT_AGAIN (-3)       /* arm(): events are pending; progress before sleeping */

/* capabilities() bits. */
#define GSHMEMI_TRANSPORT_CAP_AM (UINT64_C(1) << 0)          /* active messages: every plugin */
#define GSHMEMI_TRANSPORT_CAP_WAKEUP (UINT64_C(1) << 1)      /* wait_fd() and arm() work */
#define GSHMEMI_TRANSPORT_CAP_PEER_ERRORS (UINT64_C(1) << 2) /* peer_failed() is reported */
#define GSHMEMI_TRANSPORT_CAP_DEVICE_RMA (UINT64_C(1) << 3)  /* reserved: direct device-memory RMA */
#define GSHMEMI_TRANSPORT_CAP_RMA (UINT64_C(1) << 4)         /* mem_register, mem_connect, put: host RMA */

/* What the plugin tells the engine; `ctx` is passed back unchanged. */
typedef struct gshmemi_transport_callbacks_v1 {
  void* ctx;
  /* A message from `src_pe`: the header and payload as given to the sender's am_send, valid for
   * the call only. Messages between two PEs may arrive in any order. */
  void (*message)(void* ctx, int src_pe, const void* header, size_t header_size, const void* payload,
                  size_t payload_size);
  /* The am_send that passed `token` completed locally: its buffers may be reused. Only for
   * successful sends; a send that fails makes its peer fail (peer_failed) instead. */
  void (*send_complete)(void* ctx, uint64_t token);
  /* `pe` is gone: no message to or from it will arrive. `why` is human-readable (the plugin's
   * name, its library's error, the peer). */
  void (*peer_failed)(void* ctx, int pe, const char* why);
} gshmemi_transport_callbacks_v1;

typedef struct gshmemi_transport_init_args_v1 {
  uint32_t struct_size; /* sizeof(gshmemi_transport_init_args_v1) */
  int my_pe;
  int n_pes;
  gshmemi_transport_callbacks_v1 callbacks;
  /* The network library to load (e.g. a path to libucp.so.0); NULL or "": the plugin's default,
   * which may read its own environment variable (the UCX plugin: GSHMEM_UCX_LIB). */
  const char* library;
} gshmemi_transport_init_args_v1;

typedef struct gshmemi_transport_v1 {
  uint32_t abi_version; /* GSHMEMI_TRANSPORT_ABI_VERSION */
  uint32_t struct_size; /* sizeof(gshmemi_transport_v1) of the plugin's build */
  const char* name;     /* "ucx" */

  /* Loads the network library, makes this PE's context and worker. On failure returns
   * GSHMEMI_TRANSPORT_ERROR with a message in err (a missing library or symbol, a version too
   * old: named) and leaves *state NULL. */
  int (*init)(const gshmemi_transport_init_args_v1* args, void** state, char* err, size_t err_size);
  uint64_t (*capabilities)(void* state);
  /* Largest header am_send takes (the engine's header must fit). */
  size_t (*max_header)(void* state);
  /* This PE's address, valid until finalize; the bootstrap all-gathers it. */
  int (*worker_address)(void* state, const void** address, size_t* size);
  /* Records PE `pe`'s address; the plugin may connect at once or at the first send. */
  int (*connect)(void* state, int pe, const void* address, size_t size);
  /* Sends header + payload to `pe` as one active message. The header is copied before the call
   * returns; the payload may be read until send_complete(token). PEER_FAILED when `pe` is known
   * to have failed (nothing is sent, no completion follows). */
  int (*am_send)(void* state, int pe, const void* header, size_t header_size, const void* payload, size_t payload_size,
                 uint64_t token);
  /* Delivers arrivals, completions and failures through the callbacks; returns how many. */
  int (*progress)(void* state);
  /* An fd that becomes readable when there is something to progress (-1: none). */
  int (*wait_fd)(void* state);
  /* Before sleeping on wait_fd: OK (sleep), AGAIN (events pending: progress first). */
  int (*arm)(void* state);
  /* The last error of this state ("" when none); valid until the next call. */
  const char* (*last_error)(void* state);
  /* Closes connections (failed peers without waiting) and frees the state. */
  void (*finalize)(void* state);

  /* Appended in v1 for the bulk path (docs/internode.md section 5, "Bulk data"): present when
   * struct_size covers them and capabilities() has GSHMEMI_TRANSPORT_CAP_RMA. */
  /* Registers [base, base + size) of host memory as this PE's window, once; *key (valid until
   * finalize) is what a peer passes to mem_connect to write into it. */
  int (*mem_register)(void* state, void* base, size_t size, const void** key, size_t* key_size);
  /* Records PE `pe`'s window key (from its mem_register). */
  int (*mem_connect)(void* state, int pe, const void* key, size_t key_size);
  /* Writes `size` bytes of this PE's window at `local_offset` into `pe`'s window at
   * `remote_offset`. send_complete(token) follows once the bytes are in `pe`'s window (remote
   * completion): a message sent afterwards finds them there. PEER_FAILED as for am_send. */
  int (*put)(void* state, int pe, uint64_t local_offset, uint64_t remote_offset, size_t size, uint64_t token);
} gshmemi_transport_v1;

/* The size of a v1 table without the bulk functions, the least a loader accepts. */
#define GSHMEMI_TRANSPORT_V1_BASE_SIZE (offsetof(gshmemi_transport_v1, mem_register))

typedef const gshmemi_transport_v1* (*gshmemi_transport_get_v1_fn)(void);

#ifdef __cplusplus
}
#endif

#endif /* GSHMEM_DETAIL_TRANSPORT_ABI_H */
