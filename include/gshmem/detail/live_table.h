/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The live allocations of this PE's symmetric heap as the device debug checks see them
 * (GSHMEM_DEBUG_CHECKS builds): which heap offsets a device RMA, AMO or signal may touch.
 *
 * A table is one block of device memory: a gshmemi_live_table header, then `count` ranges
 * sorted by offset and disjoint. A range is a gshmem_malloc/calloc/align/realloc block (the
 * bytes its caller asked for, not the padding the allocator reserved behind them), an internal
 * allocation of the library (team slots), or a registered buffer. The heap is symmetric, so one
 * table serves every PE's window.
 *
 * The host (src/host/mem/live_track.cpp) keeps two tables and the device state points at a word
 * holding the address of the current one: a change is written into the other table, then the
 * word is switched, so a kernel reads either the old table or the new one, never one half
 * written. The table changes only in the collective allocation calls (and buffer registration).
 *
 * Plain C (C99, C++, CUDA): the layout and the search, shared by the device checks and the
 * host's unit tests (tests/unit/test_live_set.cpp), no state.
 */
#ifndef GSHMEM_DETAIL_LIVE_TABLE_H
#define GSHMEM_DETAIL_LIVE_TABLE_H

#include <stdint.h>

#if defined(__CUDACC__)
#define GSHMEMI_LIVE_FN static inline __host__ __device__
#else
#define GSHMEMI_LIVE_FN static inline
#endif

typedef struct gshmemi_live_range {
  uint64_t offset; /* heap offset of the first byte */
  uint64_t bytes;  /* > 0 */
} gshmemi_live_range;

typedef struct gshmemi_live_table {
  uint64_t count;    /* ranges that follow the header */
  uint64_t reserved; /* 0; keeps the ranges 16-byte aligned */
} gshmemi_live_table;

/* What gshmemi_live_classify finds for [offset, offset + bytes). */
#define GSHMEMI_LIVE_OK 0        /* inside one range (or bytes == 0) */
#define GSHMEMI_LIVE_UNCOVERED 1 /* starts where no range is: freed, never allocated, padding, a hole */
#define GSHMEMI_LIVE_PAST_END 2  /* starts in a range and runs past its end */

GSHMEMI_LIVE_FN const gshmemi_live_range* gshmemi_live_ranges(const gshmemi_live_table* t) {
  return (const gshmemi_live_range*)(t + 1);
}

/* Index of the last range starting at or below `offset`, or count when none does. Binary
 * search: log2(count) + 1 loads. 32-bit indices: with 64-bit ones the debug checks' kernels of
 * tests/registers took up to 19 registers more, with these at most 7 (every block is at least 256
 * bytes, so 2^32 ranges would take a 1 TiB heap). */
GSHMEMI_LIVE_FN uint32_t gshmemi_live_find(const gshmemi_live_range* r, uint32_t count, uint64_t offset) {
  uint32_t lo = 0, hi = count; /* the answer + 1 lies in [lo, hi] */
  while (lo < hi) {
    const uint32_t mid = (lo + hi) >> 1;
    if (r[mid].offset <= offset)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo == 0 ? count : lo - 1;
}

/* GSHMEMI_LIVE_*; *at receives the index of the range found (count: none starts at or below
 * `offset`), for the report. */
GSHMEMI_LIVE_FN int gshmemi_live_classify(const gshmemi_live_table* t, uint64_t offset, uint64_t bytes, uint64_t* at) {
  const uint32_t n = (uint32_t)t->count;
  const gshmemi_live_range* r = gshmemi_live_ranges(t);
  const uint32_t i = gshmemi_live_find(r, n, offset);
  *at = i;
  if (bytes == 0) return GSHMEMI_LIVE_OK;
  if (i == n || offset - r[i].offset >= r[i].bytes) return GSHMEMI_LIVE_UNCOVERED;
  return bytes <= r[i].bytes - (offset - r[i].offset) ? GSHMEMI_LIVE_OK : GSHMEMI_LIVE_PAST_END;
}

#endif
