// SPDX-License-Identifier: BSD-3-Clause
// The out-of-band exchanges gshmem_init makes around the GPU, written without CUDA so that the
// host-only start-up harness (tools/bootstrap-harness) runs exactly these functions at scale.
// Each is collective over all PEs and costs O(N) bytes per PE with a small constant (the
// table "bytes per PE" in docs/design.md): what a PE keeps afterwards is O(local PEs).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bootstrap.h"

namespace gshmem::bootstrap {

// Which kernel this process runs under: the boot id (16 bytes of /proc's UUID) and a 64-bit
// hash of the host name (containers on one kernel may have their own names, and their own
// network namespaces, so both must match). 24 bytes instead of the 104 of the text forms.
struct HostId {
  uint8_t boot_id[16];
  uint64_t host_hash;
};
static_assert(sizeof(HostId) == 24, "HostId travels as raw bytes");
HostId local_host_id();

// The id that groups PEs into nodes (the PEs that map one another's heaps), from the physical
// one: `hostid` non-empty (GSHMEM_HOSTID) replaces it by a hash of the text, so that PEs of one
// host with different values form different nodes (simulated nodes); `disable_p2p`
// (GSHMEM_DISABLE_P2P) then makes every PE a node of its own by mixing `rank` in, which no two
// PEs share. Neither set: `physical` unchanged. Pure: init reads the configuration and passes it.
HostId node_host_id(const HostId& physical, const std::string& hostid, bool disable_p2p, int rank);

struct NodeInfo {
  std::vector<int> local_pes;  // world PEs with this PE's host id, in PE order (itself included)
  int local_rank = 0;          // this PE's index in local_pes
  int n_nodes = 1;             // distinct host ids in the job
  int max_node_size = 1;       // PEs of the most populated node: the same on every PE
};

// Allgathers the host ids (24 bytes a PE) and derives this PE's node. `table`, if given,
// receives every PE's id (for checks); otherwise the table is freed before returning.
Status discover_node(Bootstrap& b, const HostId& mine, NodeInfo* out, std::vector<HostId>* table = nullptr);

// Values that must be equal on every PE (those that size symmetric state): PE 0 broadcasts its
// `count` values and every PE all-gathers one byte, which of them differs from its own. On a
// difference every PE logs the same line, "<call>: <name> differs between PEs (PE 0: a, PE p: b)"
// for the lowest such p (its values are broadcast only then), and GSHMEM_ERROR_MISMATCH returns.
// count <= 200.
Status agree_on_values(Bootstrap& b, const char* call, const uint64_t* mine, const char* const* names, int count);

// True on every PE only if `ok` is true on every PE (a 1-byte allgather).
Status all_agree(Bootstrap& b, bool ok, bool* all_ok);

// The PEs of `local_pes` whose 16-byte device id equals `mine` (PEs sharing a GPU), in PE order.
// Allgathers the ids; only the node's entries are read, and the table is freed before returning
// unless `table` takes it.
Status same_device_pes(Bootstrap& b, const uint8_t mine[16], const std::vector<int>& local_pes, std::vector<int>* out,
                       std::vector<uint8_t>* table = nullptr);

}  // namespace gshmem::bootstrap
