// SPDX-License-Identifier: BSD-3-Clause
// Registry of translation units' device-state copies (see
// gshmem/detail/device_state.h). TUs register from static initialisers, which
// may run before main and before gshmem_init, in any library load order.
// Modules loaded through the driver API add their copies with add_copy
// (device_state_registry.h, gshmemx_cumodule_init).
#include "device_state_registry.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "runtime.h"

namespace gshmem::device_state {
namespace {

// A TU's copy (upload: its registrar's function) or another copy (upload == nullptr: fill,
// named by key; add_copy).
struct Entry {
  gshmemi_state_upload_fn upload = nullptr;
  std::string tu;
  const void* key = nullptr;
  Fill fill;
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
  if (!e.upload) return e.fill(s, nullptr);  // logs its own errors
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
  GSHMEM_LOG_TRACE("device state (version %u) published to %zu copies (translation units and modules)", s.version,
                   r.entries.size());
  return result;
}

Status add_copy(const void* key, std::string name, Fill fill, const char* call) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.have_state) GSHMEM_TRY(fill(r.state, call));
  auto same = [&](const Entry& e) { return !e.upload && e.key == key; };
  auto it = std::find_if(r.entries.begin(), r.entries.end(), same);
  if (it == r.entries.end()) it = r.entries.insert(r.entries.end(), Entry{});
  it->key = key;
  it->tu = std::move(name);
  it->fill = std::move(fill);
  GSHMEM_LOG_TRACE("%s: device state copy of %s registered%s", call, it->tu.c_str(), r.have_state ? " and filled" : "");
  return GSHMEM_SUCCESS;
}

bool remove_copy(const void* key) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto before = r.entries.size();
  r.entries.erase(
      std::remove_if(r.entries.begin(), r.entries.end(), [&](const Entry& e) { return !e.upload && e.key == key; }),
      r.entries.end());
  return r.entries.size() != before;
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
  Entry e;
  e.upload = upload;
  e.tu = tu_name ? tu_name : "?";
  r.entries.push_back(std::move(e));
  // Loaded after gshmem_init (e.g. dlopen): fill it now.
  if (r.have_state) upload_entry(r.entries.back(), r.state);
}

extern "C" GSHMEM_API void gshmemi_unregister_device_state(gshmemi_state_upload_fn upload) {
  using namespace gshmem::device_state;
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.entries.erase(std::remove_if(r.entries.begin(), r.entries.end(),
                                 [&](const Entry& e) { return e.upload != nullptr && e.upload == upload; }),
                  r.entries.end());
}
