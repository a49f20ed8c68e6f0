// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init's host-side exchanges (init_exchange.h).
#include "init_exchange.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "host/core/log.h"

namespace gshmem::bootstrap {
namespace {

uint64_t fnv1a(const char* s, uint64_t h = 1469598103934665603ull) {
  for (; *s; ++s) h = (h ^ static_cast<uint8_t>(*s)) * 1099511628211ull;
  return h;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The boot id's 32 hex digits as 16 bytes; any other text (a kernel without the file gives
// none) is hashed into them instead, so equal texts still give equal ids.
void pack_boot_id(const char* text, uint8_t out[16]) {
  int n = 0;
  for (const char* p = text; *p && n < 32; ++p) {
    if (*p == '-') continue;
    const int d = hex_digit(*p);
    if (d < 0) break;
    out[n / 2] = static_cast<uint8_t>(n % 2 ? out[n / 2] | d : d << 4);
    ++n;
  }
  if (n == 32) return;
  const uint64_t a = fnv1a(text), b = fnv1a(text, a ^ 0x9e3779b97f4a7c15ull);
  memcpy(out, &a, 8);
  memcpy(out + 8, &b, 8);
}

bool less(const HostId& a, const HostId& b) { return memcmp(&a, &b, sizeof(HostId)) < 0; }
bool same(const HostId& a, const HostId& b) { return memcmp(&a, &b, sizeof(HostId)) == 0; }

}  // namespace

HostId local_host_id() {
  HostId h{};
  char name[256] = {};
  gethostname(name, sizeof(name) - 1);
  h.host_hash = fnv1a(name);
  char text[64] = {};
  if (FILE* f = fopen("/proc/sys/kernel/random/boot_id", "r")) {
    if (!fgets(text, sizeof(text), f)) text[0] = '\0';
    fclose(f);
  }
  text[strcspn(text, "\n")] = '\0';
  pack_boot_id(text, h.boot_id);
  return h;
}

HostId node_host_id(const HostId& physical, const std::string& hostid, bool disable_p2p, int rank) {
  HostId h = physical;
  if (!hostid.empty()) {
    // Both halves from the text alone: equal texts on different hosts are one node, as with
    // NCCL_HOSTID (the user asked for it); a salt keeps a text from equalling a real boot id.
    const uint64_t a = fnv1a(hostid.c_str(), 0x6773686d656d4944ull), b = fnv1a(hostid.c_str(), a);
    memcpy(h.boot_id, &a, 8);
    memcpy(h.boot_id + 8, &b, 8);
    h.host_hash = fnv1a(hostid.c_str());
  }
  if (disable_p2p) {
    // The rank itself, not a hash of it: distinct ranks give distinct ids, always.
    h.host_hash = 0x8000000000000000ull | static_cast<uint64_t>(static_cast<uint32_t>(rank));
  }
  return h;
}

Status discover_node(Bootstrap& b, const HostId& mine, NodeInfo* out, std::vector<HostId>* table) {
  const int n = b.size();
  std::vector<HostId> all(n);
  GSHMEM_TRY(b.allgather(&mine, all.data(), sizeof(HostId)));
  out->local_pes.clear();
  for (int pe = 0; pe < n; ++pe)
    if (same(all[pe], mine)) {
      if (pe == b.rank()) out->local_rank = static_cast<int>(out->local_pes.size());
      out->local_pes.push_back(pe);
    }
  if (table) *table = all;
  // Node count and largest node, the same on every PE (they size symmetric state): sort the
  // ids and count runs, O(N log N) once at start-up.
  std::sort(all.begin(), all.end(), less);
  out->n_nodes = 0;
  out->max_node_size = 0;
  for (int i = 0; i < n;) {
    int j = i + 1;
    while (j < n && same(all[j], all[i])) ++j;
    ++out->n_nodes;
    out->max_node_size = std::max(out->max_node_size, j - i);
    i = j;
  }
  return GSHMEM_SUCCESS;
}

Status agree_on_values(Bootstrap& b, const char* call, const uint64_t* mine, const char* const* names, int count) {
  if (count < 0 || count > 200) return GSHMEM_ERROR_INVALID_VALUE;
  std::vector<uint64_t> first(mine, mine + count);
  GSHMEM_TRY(b.broadcast(first.data(), first.size() * sizeof(uint64_t), 0));
  uint8_t differs = 0;  // 1 + the index of the first value that differs from PE 0's; 0: none
  for (int k = 0; k < count && !differs; ++k)
    if (mine[k] != first[k]) differs = static_cast<uint8_t>(k + 1);
  std::vector<uint8_t> all(b.size());
  GSHMEM_TRY(b.allgather(&differs, all.data(), 1));
  int pe = 0;
  while (pe < b.size() && !all[pe]) ++pe;
  if (pe == b.size()) return GSHMEM_SUCCESS;
  // The error path only: the lowest differing PE's values, so that every PE names both.
  std::vector<uint64_t> theirs(mine, mine + count);
  GSHMEM_TRY(b.broadcast(theirs.data(), theirs.size() * sizeof(uint64_t), pe));
  const int k = all[pe] - 1;
  GSHMEM_LOG_ERROR(
      "%s: %s differs between PEs (PE 0: %llu, PE %d: %llu); it sizes state every PE shares, so give it "
      "the same value on every PE (or leave it unset everywhere)",
      call, names[k], (unsigned long long)first[k], pe, (unsigned long long)theirs[k]);
  return GSHMEM_ERROR_MISMATCH;
}

Status all_agree(Bootstrap& b, bool ok, bool* all_ok) {
  std::vector<uint8_t> all(b.size());
  const uint8_t mine = ok ? 1 : 0;
  GSHMEM_TRY(b.allgather(&mine, all.data(), 1));
  *all_ok = std::all_of(all.begin(), all.end(), [](uint8_t v) { return v != 0; });
  return GSHMEM_SUCCESS;
}

Status same_device_pes(Bootstrap& b, const uint8_t mine[16], const std::vector<int>& local_pes, std::vector<int>* out,
                       std::vector<uint8_t>* table) {
  std::vector<uint8_t> all(static_cast<size_t>(b.size()) * 16);
  GSHMEM_TRY(b.allgather(mine, all.data(), 16));
  out->clear();
  for (int pe : local_pes)
    if (!memcmp(&all[static_cast<size_t>(pe) * 16], mine, 16)) out->push_back(pe);
  if (table) table->swap(all);
  return GSHMEM_SUCCESS;
}

}  // namespace gshmem::bootstrap
