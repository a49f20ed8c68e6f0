// SPDX-License-Identifier: BSD-3-Clause
// printf for the device API's error reports (wait timeouts, GSHMEM_DEBUG_CHECKS), without a
// stack frame.
//
// printf passes its arguments to the vprintf system call in a buffer on the caller's stack, and a
// kernel's stack frame holds the frames of every function it may call: one report anywhere below a
// kernel, even out of line and never reached, gave every kernel that waits a frame. report_printf
// writes the arguments into a slot of a buffer in global memory instead (one buffer per
// translation unit, like the device state) and calls vprintf with that. A report takes a slot of
// its own, so that reports of several threads at once do not mix; past kReportSlots a
// translation unit's reports print one line without arguments. Every report ends the kernel with
// a trap, after which the process cannot launch again, so the slots are never reused.
//
// Every conversion in a report's format takes an 8-byte argument: %lld, %llu, %llx, %p or %s.
// report_printf widens each argument to 8 bytes (integers with their sign).
//
// The functions that report are [[noreturn]] (they trap) and __noinline__, and are called from
// the caller's own code, not from below another call that returns: the vprintf system call may
// use registers that nothing live across it can keep, so every value of a caller that is live
// across a call with a printf somewhere below it takes other registers. A kernel that waited
// inside its compute loop paid that for the wait's timeout report in registers it otherwise
// needs for its loop; across a call that does not return, nothing is live.
#pragma once

#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace gshmem {
namespace detail {

constexpr unsigned kReportSlots = 32;
constexpr unsigned kReportWords = 12;  // the most arguments of any report

struct alignas(16) report_slot {
  unsigned long long word[kReportWords];
};
static __device__ report_slot report_slots[kReportSlots];
static __device__ unsigned report_slots_taken;

template <class T>
__device__ __forceinline__ unsigned long long report_word(T v) {
  if constexpr (std::is_pointer_v<T>)
    return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(v));
  else if constexpr (std::is_signed_v<T>)
    return static_cast<unsigned long long>(static_cast<long long>(v));
  else
    return static_cast<unsigned long long>(v);
}

// The call printf compiles to (PTX ISA, system calls: vprintf), with the argument buffer given.
__device__ __forceinline__ void report_vprintf(const char* format, const unsigned long long* args) {
  asm volatile(
      "{\n\t"
      ".extern .func (.param .b32 status) vprintf (.param .b64 format, .param .b64 args);\n\t"
      ".param .b64 gshmemi_format;\n\t"
      ".param .b64 gshmemi_args;\n\t"
      ".param .b32 gshmemi_status;\n\t"
      "st.param.b64 [gshmemi_format], %0;\n\t"
      "st.param.b64 [gshmemi_args], %1;\n\t"
      "call.uni (gshmemi_status), vprintf, (gshmemi_format, gshmemi_args);\n\t"
      "}" ::"l"(format),
      "l"(args)
      : "memory");
}

// printf(format, args...) for a report (format: 8-byte conversions only, see above).
template <class... A>
__device__ __forceinline__ void report_printf(const char* format, A... args) {
  static_assert(sizeof...(A) <= kReportWords, "a report has at most kReportWords arguments");
  const unsigned slot = atomicAdd(&report_slots_taken, 1u);
  if (slot >= kReportSlots) {
    printf("gshmem ERROR: more errors than are printed (the first ones are above)\n");
    return;
  }
  unsigned long long* w = report_slots[slot].word;
  unsigned k = 0;
  ((w[k++] = report_word(args)), ...);
  report_vprintf(format, w);
}

}  // namespace detail
}  // namespace gshmem
