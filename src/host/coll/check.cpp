// SPDX-License-Identifier: BSD-3-Clause
#include "check.h"

#include <cstdint>
#include <vector>

#include "gshmem/detail/host_entry_coll.h"
#include "host/core/runtime.h"
#include "host/mem/heap.h"
#include "host/team/team.h"

namespace gshmem::coll {
namespace {

constexpr const char* kStrandedNote =
    " (the other PEs of the team may now wait for this one; GSHMEM_DEBUG_CHECKS=1 makes every member fail such a "
    "call together)";

// a * b, or false on overflow.
bool mul(uint64_t a, uint64_t b, uint64_t* out) {
  if (a && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

// Bytes covered by n elements of e bytes, `stride` elements apart; false on overflow.
bool strided_bytes(uint64_t n, uint64_t stride, uint64_t e, uint64_t* out) {
  if (n == 0) {
    *out = 0;
    return true;
  }
  uint64_t span = 0;
  return mul(n - 1, stride, &span) && span + 1 > span && mul(span + 1, e, out);
}

bool overlap(const void* a, uint64_t na, const void* b, uint64_t nb) {
  const uintptr_t x = reinterpret_cast<uintptr_t>(a), y = reinterpret_cast<uintptr_t>(b);
  return na && nb && x < y + nb && y < x + na;
}

// Record exchanged by check_agreement (GSHMEMI_TEAM_CHECK_WORDS words).
struct Record {
  uint64_t w[GSHMEMI_TEAM_CHECK_WORDS];
  int op() const { return static_cast<int>(w[0] & 0xf); }
  bool bad() const { return (w[0] >> 4) & 1; }
  uint64_t elem_bytes() const { return (w[0] >> 8) & 0xffffff; }
  int root() const { return static_cast<int>(static_cast<uint32_t>(w[0] >> 32)); }
};
static_assert(GSHMEMI_TEAM_CHECK_WORDS == 4, "Record layout");

Record make_record(const Request& q, bool bad) {
  Record r;
  r.w[0] = static_cast<uint64_t>(q.op & 0xf) | (bad ? 1ull << 4 : 0) |
           (static_cast<uint64_t>(q.elem_bytes & 0xffffff) << 8) |
           (static_cast<uint64_t>(static_cast<uint32_t>(q.root)) << 32);
  r.w[1] = q.nelems;
  r.w[2] = static_cast<uint64_t>(q.dst);
  r.w[3] = static_cast<uint64_t>(q.sst);
  return r;
}

}  // namespace

const char* op_name(int op) {
  switch (op) {
    case GSHMEMI_COLL_BROADCAST:
      return "broadcast";
    case GSHMEMI_COLL_FCOLLECT:
      return "fcollect";
    case GSHMEMI_COLL_COLLECT:
      return "collect";
    case GSHMEMI_COLL_ALLTOALL:
      return "alltoall";
    case GSHMEMI_COLL_ALLTOALLS:
      return "alltoalls";
  }
  return "(unknown collective)";
}

Status check_arguments(const char* call, const gshmemi_team& t, const Request& q) {
  const uint64_t n = static_cast<uint64_t>(t.size);
  uint64_t nbytes = 0, dest_bytes = 0, src_bytes = 0;
  bool ok = mul(q.nelems, q.elem_bytes, &nbytes);
  switch (q.op) {
    case GSHMEMI_COLL_BROADCAST:
      if (q.root < 0 || q.root >= t.size) {
        GSHMEM_LOG_ERROR(
            "%s: PE_root %d is not a PE of team (size %d); PE_root is a team PE number from 0 to "
            "gshmem_team_n_pes(team)-1. No data moved.",
            call, q.root, t.size);
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      dest_bytes = nbytes;
      src_bytes = t.my_pe == q.root ? nbytes : 0;
      break;
    case GSHMEMI_COLL_FCOLLECT:
      ok = ok && mul(nbytes, n, &dest_bytes);
      src_bytes = nbytes;
      break;
    case GSHMEMI_COLL_COLLECT:  // the offset is only known on the device
      dest_bytes = nbytes;
      src_bytes = nbytes;
      break;
    case GSHMEMI_COLL_ALLTOALL:
      ok = ok && mul(nbytes, n, &dest_bytes);
      src_bytes = dest_bytes;
      break;
    case GSHMEMI_COLL_ALLTOALLS: {
      if (q.dst < 1 || q.sst < 1) {
        GSHMEM_LOG_ERROR(
            "%s: %s stride %lld is invalid; strides count elements and must be >= 1 (1 = contiguous). "
            "No data moved.%s",
            call, q.dst < 1 ? "dest (dst)" : "source (sst)", static_cast<long long>(q.dst < 1 ? q.dst : q.sst),
            kStrandedNote);
        return GSHMEM_ERROR_INVALID_VALUE;
      }
      uint64_t all = 0;
      ok = ok && mul(q.nelems, n, &all) && strided_bytes(all, q.dst, q.elem_bytes, &dest_bytes) &&
           strided_bytes(all, q.sst, q.elem_bytes, &src_bytes);
      break;
    }
    default:
      GSHMEM_LOG_ERROR("%s: internal: unknown collective %d", call, q.op);
      return GSHMEM_ERROR_INTERNAL;
  }
  if (!ok) {
    GSHMEM_LOG_ERROR(
        "%s: nelems %zu (x %zu bytes, team of %d) overflows the address space; check nelems. No data "
        "moved.%s",
        call, q.nelems, q.elem_bytes, t.size, kStrandedNote);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (dest_bytes && check_symmetric(call, q.dest, dest_bytes) != GSHMEM_SUCCESS) {
    GSHMEM_LOG_ERROR(
        "%s: dest must be a symmetric buffer of at least %llu bytes for this %s (allocate it with "
        "gshmem_malloc). No data moved.%s",
        call, (unsigned long long)dest_bytes, op_name(q.op), kStrandedNote);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (src_bytes && q.source == nullptr) {
    GSHMEM_LOG_ERROR("%s: source is NULL but %llu bytes are to be sent; pass the source buffer. No data moved.%s", call,
                     (unsigned long long)src_bytes, kStrandedNote);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  const bool same_ok = q.op == GSHMEMI_COLL_BROADCAST && q.source == q.dest;
  if (!same_ok && overlap(q.source, src_bytes, q.dest, dest_bytes)) {
    GSHMEM_LOG_ERROR(
        "%s: source [%p, +%llu bytes) and dest [%p, +%llu bytes) overlap, which %s does not allow%s; "
        "use separate buffers. No data moved.%s",
        call, q.source, (unsigned long long)src_bytes, q.dest, (unsigned long long)dest_bytes, op_name(q.op),
        q.op == GSHMEMI_COLL_BROADCAST ? " (only source == dest is allowed)" : "", kStrandedNote);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  return GSHMEM_SUCCESS;
}

Status check_agreement(const char* call, gshmem_team_t team, const gshmemi_team& t, const Request& q, Status local,
                       cudaStream_t stream) {
  const Record mine = make_record(q, local != GSHMEM_SUCCESS);
  std::vector<uint64_t> all;
  GSHMEM_TRY(team::allgather_words(call, team, mine.w, stream, &all));
  for (int i = 0; i < t.size; ++i) {
    Record r;
    for (int k = 0; k < GSHMEMI_TEAM_CHECK_WORDS; ++k)
      r.w[k] = all[static_cast<size_t>(i) * GSHMEMI_TEAM_CHECK_WORDS + k];
    const int world = t.start + i * t.stride;
    if (r.bad()) {
      if (i != t.my_pe)
        GSHMEM_LOG_ERROR(
            "%s: team PE %d (world PE %d) rejected its arguments (see its message); no member of "
            "team %d moves data",
            call, i, world, team);
      return local != GSHMEM_SUCCESS ? local : GSHMEM_ERROR_INVALID_VALUE;
    }
    const char* what = nullptr;
    unsigned long long a = 0, b = 0;
    if (r.op() != q.op) {
      GSHMEM_LOG_ERROR(
          "%s: team PE %d (world PE %d) called %s while this PE (team PE %d) called %s; every member "
          "of team %d must make the same collective calls in the same order. No data moved.",
          call, i, world, op_name(r.op()), t.my_pe, op_name(q.op), team);
      return GSHMEM_ERROR_MISMATCH;
    } else if (r.elem_bytes() != q.elem_bytes) {
      what = "element size (bytes)", a = q.elem_bytes, b = r.elem_bytes();
    } else if (q.op != GSHMEMI_COLL_COLLECT && r.w[1] != q.nelems) {
      what = "nelems", a = q.nelems, b = r.w[1];
    } else if (q.op == GSHMEMI_COLL_BROADCAST && r.root() != q.root) {
      what = "PE_root", a = static_cast<unsigned long long>(q.root), b = static_cast<unsigned long long>(r.root());
    } else if (q.op == GSHMEMI_COLL_ALLTOALLS &&
               (r.w[2] != static_cast<uint64_t>(q.dst) || r.w[3] != static_cast<uint64_t>(q.sst))) {
      what = r.w[2] != static_cast<uint64_t>(q.dst) ? "dst" : "sst";
      a = r.w[2] != static_cast<uint64_t>(q.dst) ? q.dst : q.sst;
      b = r.w[2] != static_cast<uint64_t>(q.dst) ? r.w[2] : r.w[3];
    }
    if (what) {
      GSHMEM_LOG_ERROR(
          "%s: %s differs between members of team %d: this PE (team PE %d) passed %llu, team PE %d "
          "(world PE %d) passed %llu; every member must pass the same %s. No data moved (on every "
          "member).",
          call, what, team, t.my_pe, a, i, world, b, what);
      return GSHMEM_ERROR_MISMATCH;
    }
  }
  return local;
}

}  // namespace gshmem::coll
