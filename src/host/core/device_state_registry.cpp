// SPDX-License-Identifier: BSD-3-Clause
// Registry of translation units' device-state copies (see
// gshmem/detail/device_state.h). TUs register from static initialisers, which
// may run before main and before gshmem_init, in any library load order.
#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "runtime.h"

namespace gshmem::device_state {
namespace {

struct Entry {
  gshmemi_state_upload_fn upload;
  std::string tu;
};

struct Registry {
  std::mutex mutex;
  std::vector<Entry> entries;
  bool have_state = false;
  gshmemi_device_state state{};
};

// Function-local static: safe to use from other libraries' static initialisers.
Registry& registry() {
  static Registry* r = new Registry();  // never destroyed: TUs may unregister during exit
  return *r;
}

Status upload_entry(Entry& e, const gshmemi_device_state& s) {
  cudaError_t err = static_cast<cudaError_t>(e.upload(&s));
  if (err != cudaSuccess) {
    cudaGetLastError();
    GSHMEM_LOG_ERROR(
        "gshmem_init: cannot fill the device state of %s: %s (%s). Kernels from that "
        "file will not see gshmem.",
        e.tu.c_str(), cudaGetErrorString(err), cudaGetErrorName(err));
    return GSHMEM_ERROR_CUDA;
  }
  return GSHMEM_SUCCESS;
}

}  // namespace

Status publish(const gshmemi_device_state& s) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.state = s;
  r.have_state = true;
  Status result = GSHMEM_SUCCESS;
  for (Entry& e : r.entries) {
    Status st = upload_entry(e, s);
    if (st != GSHMEM_SUCCESS) result = st;
  }
  GSHMEM_LOG_TRACE("device state (version %u) published to %zu translation units", s.version, r.entries.size());
  return result;
}

}  // namespace gshmem::device_state

extern "C" GSHMEM_API void gshmemi_register_device_state(gshmemi_state_upload_fn upload, uint32_t version,
                                                         uint32_t struct_size, const char* tu_name) {
  using namespace gshmem::device_state;
  if (version != GSHMEMI_DEVICE_STATE_VERSION || struct_size != sizeof(gshmemi_device_state)) {
    GSHMEM_LOG_ERROR(
        "%s was compiled against gshmem headers whose device state (version %u, %u bytes) "
        "differs from this libgshmem (version %u, %zu bytes); rebuild it against the "
        "installed headers. Its kernels will not see gshmem.",
        tu_name, version, struct_size, GSHMEMI_DEVICE_STATE_VERSION, sizeof(gshmemi_device_state));
    return;
  }
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.entries.push_back(Entry{upload, tu_name ? tu_name : "?"});
  // Loaded after gshmem_init (e.g. dlopen): fill it now.
  if (r.have_state) upload_entry(r.entries.back(), r.state);
}

extern "C" GSHMEM_API void gshmemi_unregister_device_state(gshmemi_state_upload_fn upload) {
  using namespace gshmem::device_state;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.entries.erase(
      std::remove_if(r.entries.begin(), r.entries.end(), [&](const Entry& e) { return e.upload == upload; }),
      r.entries.end());
}
