// SPDX-License-Identifier: BSD-3-Clause
// Where registered user buffers (gshmemx_buffer_register_symmetric) sit in the heap's slots.
// Pure bookkeeping, no CUDA; its answers depend only on the sequence of calls, so every PE that
// makes the same collective calls places every buffer at the same offset.
//
// The layout of a slot, [0, top) being the heap's mapped extent (Heap::size()):
//   heap chunks   mapped by Heap::grow at the top, never unmapped before the heap is released;
//   live regions  a registered buffer each (its user's physical memory), placed by place();
//   holes         what an unregistered region leaves below the top: unmapped, reused by later
//                 registrations that fit (best fit, then lowest offset).
// Regions and holes never overlap a chunk: a region is placed in a hole or at the top, and
// growth maps chunks from the top up. Invariants after every call: entries are disjoint and
// below `top`; neighbouring holes are merged; no hole ends at `top` (release() gives the top back
// instead, so the next growth or registration reuses it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>

namespace gshmem::mem {

class RegionMap {
 public:
  struct Placement {
    uint64_t offset = 0;   // where the region starts (aligned)
    uint64_t new_top = 0;  // the mapped extent once it is committed (top, or more)
    uint64_t hole = 0;     // offset of the hole it takes, or kAtTop
  };
  static constexpr uint64_t kAtTop = UINT64_MAX;

  // Where a region of `bytes` aligned to `align` (a power of two) goes, given the current mapped
  // extent `top` and the slot's size `limit`: the smallest hole that holds it (ties: lowest
  // offset), else at the first aligned offset at or above `top`. false if it does not fit below
  // `limit` or the arguments are invalid. Changes nothing.
  bool place(uint64_t bytes, uint64_t align, uint64_t top, uint64_t limit, Placement* p) const;
  // Records a placement of place() (same bytes, nothing changed in between): the region becomes
  // live; the parts of a hole before and after it, and the alignment gap above the old top, stay
  // holes.
  void commit(const Placement& p, uint64_t bytes, uint64_t top);
  // The live region at `offset` becomes a hole, merged with neighbouring holes; a hole that then
  // ends at `top` is dropped. Returns the new top (top, or lower), or `top` unchanged when
  // `offset` is not a live region.
  uint64_t release(uint64_t offset, uint64_t top);
  // Whether a live region starts at `offset`; its length in *bytes.
  bool live(uint64_t offset, uint64_t* bytes) const;
  size_t live_count() const;
  size_t hole_count() const;

 private:
  struct Entry {
    uint64_t bytes;
    bool live;
  };
  std::map<uint64_t, Entry> entries_;  // offset -> region or hole
};

}  // namespace gshmem::mem
