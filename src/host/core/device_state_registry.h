// SPDX-License-Identifier: BSD-3-Clause
// Copies of the device state that no translation unit's registrar owns: the state variable of
// a module loaded through the CUDA driver API (gshmemx_cumodule_init, host/launch/cumodule.cpp).
// They live in the same registry as the TUs' copies (device_state_registry.cpp), so that
// device_state::publish (runtime.h: init, heap growth, finalize) refills them too.
#pragma once

#include <functional>
#include <string>

#include "gshmem/detail/device_state.h"
#include "host/core/status.h"

namespace gshmem::device_state {

// Uploads a state into one copy. `call` names the host call for messages: the adding call on
// the first fill, nullptr on the refills of publish (which log "state update").
using Fill = std::function<Status(const gshmemi_device_state& state, const char* call)>;

// Adds the copy named by `key` (replacing one of the same key) and, once a state has been
// published, fills it at once under the registry's lock, so that no publish can slip between
// the fill and the registration. A copy whose first fill fails is not added; the fill's status
// is returned. `name` names the copy in the registry's trace lines.
Status add_copy(const void* key, std::string name, Fill fill, const char* call);
// Removes the copy named by `key`; false when there is none. Its memory is left as it is.
bool remove_copy(const void* key);

}  // namespace gshmem::device_state
