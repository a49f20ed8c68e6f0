// SPDX-License-Identifier: BSD-3-Clause
// The plugin table of libgshmem_transport_ucx.so (include/gshmem/detail/transport_abi.h): C
// entry points over ucx::Transport. The getter is the library's only exported symbol.
#include <cstdio>
#include <new>
#include <string>

#include "gshmem/detail/transport_abi.h"
#include "ucx_transport.h"

namespace {

using gshmem::ucx::Transport;

Transport* T(void* state) { return static_cast<Transport*>(state); }

int init(const gshmemi_transport_init_args_v1* args, void** state, char* err, size_t err_size) {
  *state = nullptr;
  std::string error;
  if (!args || args->struct_size < sizeof *args) {
    error = "the caller's init arguments are older than this plugin's ABI";
  } else {
    auto* t = new (std::nothrow) Transport();
    if (t && t->init(*args, &error)) {
      *state = t;
      return GSHMEMI_TRANSPORT_OK;
    }
    delete t;
  }
  if (err && err_size) std::snprintf(err, err_size, "%s", error.c_str());
  return GSHMEMI_TRANSPORT_ERROR;
}

uint64_t capabilities(void*) {
  return GSHMEMI_TRANSPORT_CAP_AM | GSHMEMI_TRANSPORT_CAP_WAKEUP | GSHMEMI_TRANSPORT_CAP_PEER_ERRORS |
         GSHMEMI_TRANSPORT_CAP_RMA;
}
size_t max_header(void* s) { return T(s)->max_header(); }
int worker_address(void* s, const void** a, size_t* n) { return T(s)->address(a, n); }
int connect(void* s, int pe, const void* a, size_t n) { return T(s)->connect(pe, a, n); }
int am_send(void* s, int pe, const void* h, size_t hn, const void* p, size_t pn, uint64_t token) {
  return T(s)->send(pe, h, hn, p, pn, token);
}
int progress(void* s) { return T(s)->progress(); }
int wait_fd(void* s) { return T(s)->wait_fd(); }
int arm(void* s) { return T(s)->arm(); }
const char* last_error(void* s) { return T(s)->last_error(); }
void finalize(void* s) { delete T(s); }
int mem_register(void* s, void* base, size_t size, const void** key, size_t* n) {
  return T(s)->mem_register(base, size, key, n);
}
int mem_connect(void* s, int pe, const void* key, size_t n) { return T(s)->mem_connect(pe, key, n); }
int put(void* s, int pe, uint64_t local, uint64_t remote, size_t size, uint64_t token) {
  return T(s)->put(pe, local, remote, size, token);
}

const gshmemi_transport_v1 kTable = {
    GSHMEMI_TRANSPORT_ABI_VERSION,
    sizeof(gshmemi_transport_v1),
    "ucx",
    &init,
    &capabilities,
    &max_header,
    &worker_address,
    &connect,
    &am_send,
    &progress,
    &wait_fd,
    &arm,
    &last_error,
    &finalize,
    &mem_register,
    &mem_connect,
    &put,
};

}  // namespace

extern "C" __attribute__((visibility("default"))) const gshmemi_transport_v1* gshmemi_transport_get_v1(void) {
  return &kTable;
}
