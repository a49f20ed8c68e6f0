// SPDX-License-Identifier: BSD-3-Clause
// Device-side point-to-point synchronisation: waiting on and testing local
// symmetric variables that other PEs (or other threads) update. Declarations
// and contracts; bodies in impl/wait.cuh. Ordering contract (acquire at
// system scope, what it pairs with): docs/memory-model.md.
//
// Every call here is a single-thread operation on LOCAL symmetric variables
// (`ivar`/`ivars` of the calling PE).
//
// Ordering. A wait or test that returns "satisfied" (wait_until* return, test*
// true / an index / a count > 0) is an acquire at system scope: loads and
// stores the caller issues after it observe everything the writer made visible
// before its update of the variable (the writer's fence(), quiet(), a
// put_signal, or any release). A test that returns "not satisfied" orders
// nothing.
//
// Sets. The *_all/_any/_some forms work on ivars[0..nelems); `status` (may be
// nullptr) excludes element i when status[i] != 0. The _vector forms compare
// ivars[i] with cmp_values[i] instead of one cmp_value. Results follow
// OpenSHMEM 1.5:
//   wait_until_all   returns once every element of the set satisfied the
//                    comparison (at some point; elements are waited for in turn);
//                    an empty set returns at once.
//   wait_until_any   index of one satisfying element; SIZE_MAX for an empty set.
//   wait_until_some  writes the indices of the satisfying elements (at least
//                    one) to indices[] and returns their number; 0 if empty.
//   test_all         true if every element satisfies it (or the set is empty).
//   test_any         index of a satisfying element, else SIZE_MAX.
//   test_some        number of satisfying elements written to indices[].
// The _any forms start their scan at a varying element, so that one element
// that stays satisfied cannot starve the others across repeated calls.
//
// Bounded waits. With GSHMEM_WAIT_TIMEOUT set (seconds), a wait that is not
// satisfied in time prints what it waits for (call, address, current value,
// comparison, PE) and traps instead of hanging.
// Debug checks (GSHMEM_DEBUG_CHECKS): an invalid comparison or a variable
// outside the symmetric heap is reported (call, PE, cause) and traps.
#pragma once

#include <cstddef>

namespace gshmem {

// Values equal the C constants GSHMEM_CMP_* (gshmem/types.h).
enum class cmp : int { eq = 0, ne = 1, gt = 2, ge = 3, lt = 4, le = 5 };

// Wait until `*ivar cmp value` holds (ivar local and symmetric). Loads after
// it observe what the writer made visible before its update (acquire, system).
template <class T>
__device__ void wait_until(T* ivar, cmp c, T value);
// Non-blocking check of the same condition (acquire when true).
template <class T>
__device__ bool test(T* ivar, cmp c, T value);

// Sets of variables (see "Sets" above).
template <class T>
__device__ void wait_until_all(T* ivars, size_t nelems, const int* status, cmp c, T value);
template <class T>
__device__ size_t wait_until_any(T* ivars, size_t nelems, const int* status, cmp c, T value);
template <class T>
__device__ size_t wait_until_some(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c, T value);
template <class T>
__device__ void wait_until_all_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values);
template <class T>
__device__ size_t wait_until_any_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values);
template <class T>
__device__ size_t wait_until_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c,
                                         const T* values);

template <class T>
__device__ bool test_all(T* ivars, size_t nelems, const int* status, cmp c, T value);
template <class T>
__device__ size_t test_any(T* ivars, size_t nelems, const int* status, cmp c, T value);
template <class T>
__device__ size_t test_some(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c, T value);
template <class T>
__device__ bool test_all_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values);
template <class T>
__device__ size_t test_any_vector(T* ivars, size_t nelems, const int* status, cmp c, const T* values);
template <class T>
__device__ size_t test_some_vector(T* ivars, size_t nelems, size_t* indices, const int* status, cmp c, const T* values);

}  // namespace gshmem
