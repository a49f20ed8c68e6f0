// SPDX-License-Identifier: BSD-3-Clause
// THE table of every GSHMEM_* environment variable the library reads.
// Add a variable here and nowhere else; gshmem-info prints this table.
//
// GSHMEM_CONFIG_ENTRY(field, "ENV_NAME", type, "default", "help")
//   type: Size (bytes; K/M/G/T suffixes, powers of 1024), Int, Bool (0/1/yes/no/true/false/on/off),
//         String, LogLevel (NONE|ERROR|WARN|INFO|TRACE)
// Variables a launcher sets (rank, size, uniqueid) are read by the bootstrap
// and listed in bootstrap/env.h, not here.
#define GSHMEM_CONFIG_TABLE(GSHMEM_CONFIG_ENTRY)                                                               \
  GSHMEM_CONFIG_ENTRY(symmetric_size, "GSHMEM_SYMMETRIC_SIZE", Size, "1G",                                     \
                      "Initial size of the symmetric heap on each PE. The heap grows on demand "               \
                      "(VMM only) up to GSHMEM_SYMMETRIC_SIZE_MAX.")                                           \
  GSHMEM_CONFIG_ENTRY(symmetric_size_max, "GSHMEM_SYMMETRIC_SIZE_MAX", Size, "64G",                            \
                      "Largest the symmetric heap may grow to on each PE (virtual address space "              \
                      "reserved per node-local peer; costs no memory until used).")                            \
  GSHMEM_CONFIG_ENTRY(disable_vmm, "GSHMEM_DISABLE_VMM", Bool, "0",                                            \
                      "Use the cudaMalloc + CUDA IPC heap instead of CUDA VMM (the heap then "                 \
                      "cannot grow). Chosen automatically when VMM is unavailable.")                           \
  GSHMEM_CONFIG_ENTRY(debug, "GSHMEM_DEBUG", LogLevel, "WARN", "Log level: NONE, ERROR, WARN, INFO or TRACE.") \
  GSHMEM_CONFIG_ENTRY(debug_file, "GSHMEM_DEBUG_FILE", String, "",                                             \
                      "Write the log to this file instead of stderr; %p becomes the process id.")              \
  GSHMEM_CONFIG_ENTRY(debug_checks, "GSHMEM_DEBUG_CHECKS", Bool, "0",                                          \
                      "Check arguments of host calls (PE range, pointers inside the heap, "                    \
                      "collective arguments equal on all PEs). Costs time on every call.")                     \
  GSHMEM_CONFIG_ENTRY(nvtx_heap, "GSHMEM_NVTX_HEAP", Bool, "1",                                                \
                      "Describe the symmetric heap to compute-sanitizer through the NVTX memory API: "         \
                      "each mapped heap window a pool, each live allocation a region, so that memcheck "       \
                      "reports accesses to freed or unallocated heap memory. Free without a tool. "            \
                      "The cudaMalloc'd heap only (GSHMEM_DISABLE_VMM=1): compute-sanitizer "                  \
                      "refuses the VMM heap's cuMemMap'd windows as pools.")                                   \
  GSHMEM_CONFIG_ENTRY(bootstrap_timeout, "GSHMEM_BOOTSTRAP_TIMEOUT", Int, "120",                               \
                      "Seconds the bootstrap waits for all PEs to join or answer before failing "              \
                      "with a message naming the missing PEs (1 .. 2000000).")                                 \
  GSHMEM_CONFIG_ENTRY(bootstrap_ifname, "GSHMEM_BOOTSTRAP_IFNAME", String, "",                                 \
                      "Network interface whose address gshmemx_get_uniqueid puts in the id "                   \
                      "(default: first non-loopback interface that is up, else loopback).")                    \
  GSHMEM_CONFIG_ENTRY(bootstrap_port, "GSHMEM_BOOTSTRAP_PORT", Int, "0",                                       \
                      "TCP port rank 0 listens on when initialising from torchrun/MPI/Slurm "                  \
                      "variables (0: MASTER_PORT+1 under torchrun, else derived from the job id).")            \
  GSHMEM_CONFIG_ENTRY(bootstrap_topology, "GSHMEM_BOOTSTRAP_TOPOLOGY", String, "tree",                         \
                      "How the bootstrap connects the PEs after the rendezvous: tree (each PE talks to a "     \
                      "parent and up to 3 children; scales to many PEs) or star (every PE talks to PE 0 "      \
                      "only: PEs need to reach only PE 0's port). Read by PE 0; the others follow it.")        \
  GSHMEM_CONFIG_ENTRY(bootstrap_spin_us, "GSHMEM_BOOTSTRAP_SPIN_US", Int, "-1",                                \
                      "Microseconds a PE waiting in a bootstrap collective (gshmem_malloc/free, "              \
                      "team creation) polls before it sleeps. -1: 50 when the node has at least "              \
                      "two CPUs per PE on it, else 0 (sleep at once).")                                        \
  GSHMEM_CONFIG_ENTRY(host_spin_us, "GSHMEM_HOST_SPIN_US", Int, "-1",                                          \
                      "Microseconds a blocking host call (waits and tests, AMOs, signal fetches "              \
                      "and waits, barriers, collectives, reductions) polls for its kernel's "                  \
                      "completion word before it waits in cudaStreamSynchronize, which returns "               \
                      "~2 us later. -1: 100 when the node has at least two CPUs per PE on it "                 \
                      "and the application did not ask for blocking or yielding "                              \
                      "synchronisation, else 0 (no polling).")                                                 \
  GSHMEM_CONFIG_ENTRY(peer_failure_abort, "GSHMEM_PEER_FAILURE_ABORT", Bool, "1",                              \
                      "After init, when another PE dies, print who died and end this PE instead "              \
                      "of letting it hang in a wait.")                                                         \
  GSHMEM_CONFIG_ENTRY(heartbeat_timeout, "GSHMEM_HEARTBEAT_TIMEOUT", Int, "10",                                \
                      "Seconds without a byte from a bootstrap neighbour (PEs send a heartbeat every "         \
                      "second, from a host thread) after which that PE is declared stopped and the "           \
                      "job fails naming it, as when a PE dies. 0: no heartbeats (a stopped PE is "             \
                      "then found only by timeouts; set it when pausing PEs in a debugger).")                  \
  GSHMEM_CONFIG_ENTRY(max_teams, "GSHMEM_MAX_TEAMS", Int, "64",                                                \
                      "Most teams that may exist at once on a PE (predefined teams included).")                \
  GSHMEM_CONFIG_ENTRY(team_scratch_size, "GSHMEM_TEAM_SCRATCH_SIZE", Size, "1M",                               \
                      "Symmetric scratch memory each team made by a split reserves for "                       \
                      "collectives, per PE; the predefined teams (WORLD, SHARED, NODE) reserve 4 "             \
                      "times this. Reductions of up to about a team's scratch / (2 x team size) "              \
                      "bytes a member take the one-round push path.")                                          \
  GSHMEM_CONFIG_ENTRY(ll_max_bytes, "GSHMEM_LL_MAX_BYTES", Size, "256",                                        \
                      "Largest message (broadcast, fcollect and alltoall: per member or pair; "                \
                      "reductions: the array) taken by the LL path, whose data carries its own "               \
                      "tag: no fence, no flag. 16 .. 4K, rounded down to a power of two; a large "             \
                      "team may get less. 1K speeds up warp, block and on-stream calls of "                    \
                      "257 bytes - 1 KiB but slows down one thread's. Same on every PE.")                      \
  GSHMEM_CONFIG_ENTRY(wait_timeout, "GSHMEM_WAIT_TIMEOUT", Int, "600",                                         \
                      "Seconds a device-side wait, barrier or collective may spin before it reports "          \
                      "the call and the PE it is waiting for and traps (0: wait forever).")                    \
  GSHMEM_CONFIG_ENTRY(hostid, "GSHMEM_HOSTID", String, "",                                                     \
                      "Replaces hostname + boot id when PEs are grouped into nodes: PEs with "                 \
                      "different values are on different nodes (their heaps are not mapped; they "             \
                      "reach each other through the proxy), even on one host. GPUs are still "                 \
                      "chosen by the physical host's local rank. As NCCL_HOSTID; gshmrun --sim-nodes.")        \
  GSHMEM_CONFIG_ENTRY(disable_p2p, "GSHMEM_DISABLE_P2P", Bool, "0",                                            \
                      "Map no other PE's heap: every other PE is reached through the proxy and "               \
                      "the network transport, as if each PE were a node of its own. For tests of "             \
                      "the inter-node path on one host. Same on every PE.")                                    \
  GSHMEM_CONFIG_ENTRY(remote_transport, "GSHMEM_REMOTE_TRANSPORT", String, "ucx",                              \
                      "Network engine for PEs on other nodes: loads libgshmem_transport_<name>.so "            \
                      "(or a path to it) when the job has such PEs. none: no network engine "                  \
                      "(init then fails when a PE is on another node).")                                       \
  GSHMEM_CONFIG_ENTRY(ucx_lib, "GSHMEM_UCX_LIB", String, "",                                                   \
                      "The libucp the UCX engine loads (default: libucp.so.0 from the loader's "               \
                      "search path, e.g. pip install libucx-cu13).")                                           \
  GSHMEM_CONFIG_ENTRY(proxy_ring_entries, "GSHMEM_PROXY_RING_ENTRIES", Int, "4096",                            \
                      "Entries (64 B each, in pinned host memory) of the ring through which this "             \
                      "PE's kernels hand operations on other nodes' PEs to its proxy thread. A "               \
                      "power of two, 64 .. 1048576.")                                                          \
  GSHMEM_CONFIG_ENTRY(proxy_bulk, "GSHMEM_PROXY_BULK", Bool, "1",                                              \
                      "Large puts to PEs on other nodes travel in chunks by RMA into pinned "                  \
                      "staging windows registered with the network engine (when it has RMA and "               \
                      "every PE agrees). 0: every payload as an active message. Same on every PE.")            \
  GSHMEM_CONFIG_ENTRY(proxy_chunk, "GSHMEM_PROXY_CHUNK", Size, "256K",                                         \
                      "Chunk of the proxy's bulk path: a large put is cut into chunks that "                   \
                      "travel pipelined. Same on every PE.")                                                   \
  GSHMEM_CONFIG_ENTRY(proxy_bulk_min, "GSHMEM_PROXY_BULK_MIN", Size, "1M",                                     \
                      "Smallest put that takes the proxy's bulk path; smaller ones are active "                \
                      "messages.")                                                                             \
  GSHMEM_CONFIG_ENTRY(proxy_bulk_slots, "GSHMEM_PROXY_BULK_SLOTS", Int, "4",                                   \
                      "Chunks in flight from one PE to another on the bulk path (staging slots "               \
                      "each source owns in every window; the window is (PEs + 1) x slots x "                   \
                      "chunk of pinned memory). Same on every PE.")                                            \
  GSHMEM_CONFIG_ENTRY(proxy_host_sync, "GSHMEM_PROXY_HOST_SYNC", Bool, "1",                                    \
                      "A team sync's signal from a PE on another node is counted by this PE's "                \
                      "proxy thread in pinned host memory that the waiting kernel reads, with no "             \
                      "GPU work here. 0: the proxy adds it to the GPU's sync flag by a kernel launch "         \
                      "(the earlier path, for comparison). Each PE decides for the signals it "                \
                      "receives.")                                                                             \
  GSHMEM_CONFIG_ENTRY(proxy_trace, "GSHMEM_PROXY_TRACE", String, "",                                           \
                      "Path prefix: each PE's proxy thread records a time stamp per stage of every "           \
                      "operation and message it handles (ring entry, send, arrival, apply, "                   \
                      "acknowledgement, completion) and its loop counters, written at finalize "               \
                      "to <prefix>.<pe>.tsv; tools/proxy_trace.py merges and reports them. "                   \
                      "Empty: off.")                                                                           \
  GSHMEM_CONFIG_ENTRY(proxy_trace_events, "GSHMEM_PROXY_TRACE_EVENTS", Int, "1048576",                         \
                      "Records the proxy trace keeps per PE (40 B each, allocated at init when "               \
                      "GSHMEM_PROXY_TRACE is set); later ones are counted, not kept.")                         \
  GSHMEM_CONFIG_ENTRY(proxy_ack_delay_us, "GSHMEM_PROXY_ACK_DELAY_US", Int, "0",                               \
                      "Microseconds a proxy may hold the acknowledgement of applied operations "               \
                      "for a message to the same PE to carry it (a reply, an exchange's next "                 \
                      "round), saving a message; a quiet then waits up to this much longer for "               \
                      "operations nothing answers. 0: acknowledged at once.")                                  \
  GSHMEM_CONFIG_ENTRY(proxy_apply_context, "GSHMEM_PROXY_APPLY_CONTEXT", Int, "-1",                            \
                      "Where the proxy applies what PEs on other nodes send (their puts, signals, "            \
                      "AMOs): 1: on streams of a CUDA context of its own, so never queued behind this "        \
                      "PE's streams, whose waiting kernels may need it (~250 MiB of GPU and ~215 MB of "       \
                      "host memory, once per process; under MPS as fast as 0, outside MPS each apply "         \
                      "waits for a time slice: 0.15-2 ms); "                                                   \
                      "0: on a stream of the application's context; -1: 1 under MPS or with "                  \
                      "CUDA_DEVICE_MAX_CONNECTIONS below 4, else 0 (docs/internode.md section 9).")            \
  GSHMEM_CONFIG_ENTRY(reduce_ctas, "GSHMEM_REDUCE_CTAS", Int, "128",                                           \
                      "Most CTAs of the library's reduction kernel (host and on-stream "                       \
                      "reductions; 1 .. 128, a local choice: PEs may differ; PEs that share a "                \
                      "GPU also split its SMs between them). Tuning only.")                                    \
  GSHMEM_CONFIG_ENTRY(coll_ctas, "GSHMEM_COLL_CTAS", Int, "64",                                                \
                      "Most CTAs of the library's broadcast, fcollect, collect and alltoall "                  \
                      "kernels (host and on-stream calls; 1 .. 64, a local choice: PEs may "                   \
                      "differ; PEs that share a GPU also split it between them, so that every "                \
                      "PE's kernel is resident at once). Lower it to leave SMs to the "                        \
                      "application's kernels.")                                                                \
  GSHMEM_CONFIG_ENTRY(early_launch, "GSHMEM_EARLY_LAUNCH", Bool, "1",                                          \
                      "Launch the library's barrier, reduction and single-block collective "                   \
                      "kernels on a stream so that each may start while the kernel ahead of it "               \
                      "ends (programmatic stream serialisation; it waits on the GPU for that "                 \
                      "kernel's results). Not in graph capture. 0: plain launches.")                           \
  GSHMEM_CONFIG_ENTRY(high_priority_stream, "GSHMEM_HIGH_PRIORITY_STREAM", Bool, "1",                          \
                      "Give the library's internal stream (host-initiated blocking puts, gets, "               \
                      "AMOs, waits, barriers and collectives) the GPU's greatest stream "                      \
                      "priority, so that its kernels take the first free SM slots instead of "                 \
                      "waiting behind queued blocks of the application's kernels. 0: default.")

// Bounds of every Int and Size variable, checked by config::load(): a value outside is an error
// naming the variable, the value, the range and the default, as a malformed one is (an alias's is
// ignored with a warning). The unit test ConfigFuzz fails when a numeric entry has none.
// GSHMEM_CONFIG_RANGE(field, "ENV_NAME", lo, hi), both ends allowed; Size bounds in bytes.
//   GSHMEM_BOOTSTRAP_TIMEOUT, GSHMEM_WAIT_TIMEOUT: 2000000 s (23 days) keeps every use in int:
//   the bootstrap adds a grace of up to 10 s to it, the heap setup counts it in milliseconds
//   (2e9 < INT_MAX).
//   GSHMEM_SYMMETRIC_SIZE(_MAX): 0 would leave no heap; 4 TiB is far above any GPU's memory while
//   the reservations of 8 node-local peers (32 TiB) stay inside a 47-bit address space.
//   GSHMEM_TEAM_SCRATCH_SIZE: a page at least (team setup checks what the team's size needs),
//   at most 1 GiB, which every team takes from the heap.
//   GSHMEM_MAX_TEAMS: 256 is the team slot table's size (host/team/team.h, kMaxSlots); values
//   below the predefined teams + 1 are raised to that.
//   GSHMEM_LL_MAX_BYTES, GSHMEM_REDUCE_CTAS, GSHMEM_COLL_CTAS: the ranges their help gives (the
//   LL area's and the kernels' flag rows' limits).
//   GSHMEM_HEARTBEAT_TIMEOUT: 0 (off) up to an hour; a PE silent that long is gone for any job.
//   GSHMEM_PROXY_RING_ENTRIES: 64 entries keep a few warps' calls in flight; 2^20 (64 MiB of
//   pinned memory) is far beyond any useful depth. The proxy setup also requires a power of two.
//   GSHMEM_PROXY_TRACE_EVENTS: 1024 records hold a few rounds; 2^26 (2.5 GiB) is far beyond a
//   benchmark's needs.
//   GSHMEM_PROXY_ACK_DELAY_US: up to a second; past the proxy's 100 us spin a nap may add 50 us.
#define GSHMEM_CONFIG_RANGES(GSHMEM_CONFIG_RANGE)                                              \
  GSHMEM_CONFIG_RANGE(symmetric_size, "GSHMEM_SYMMETRIC_SIZE", 1ull << 20, 4ull << 40)         \
  GSHMEM_CONFIG_RANGE(symmetric_size_max, "GSHMEM_SYMMETRIC_SIZE_MAX", 1ull << 20, 4ull << 40) \
  GSHMEM_CONFIG_RANGE(bootstrap_timeout, "GSHMEM_BOOTSTRAP_TIMEOUT", 1, 2000000)               \
  GSHMEM_CONFIG_RANGE(bootstrap_port, "GSHMEM_BOOTSTRAP_PORT", 0, 65535)                       \
  GSHMEM_CONFIG_RANGE(bootstrap_spin_us, "GSHMEM_BOOTSTRAP_SPIN_US", -1, 1000000)              \
  GSHMEM_CONFIG_RANGE(host_spin_us, "GSHMEM_HOST_SPIN_US", -1, 1000000)                        \
  GSHMEM_CONFIG_RANGE(max_teams, "GSHMEM_MAX_TEAMS", 1, 256)                                   \
  GSHMEM_CONFIG_RANGE(team_scratch_size, "GSHMEM_TEAM_SCRATCH_SIZE", 4ull << 10, 1ull << 30)   \
  GSHMEM_CONFIG_RANGE(ll_max_bytes, "GSHMEM_LL_MAX_BYTES", 16ull, 4ull << 10)                  \
  GSHMEM_CONFIG_RANGE(wait_timeout, "GSHMEM_WAIT_TIMEOUT", 0, 2000000)                         \
  GSHMEM_CONFIG_RANGE(heartbeat_timeout, "GSHMEM_HEARTBEAT_TIMEOUT", 0, 3600)                  \
  GSHMEM_CONFIG_RANGE(proxy_ring_entries, "GSHMEM_PROXY_RING_ENTRIES", 64, 1048576)            \
  GSHMEM_CONFIG_RANGE(proxy_chunk, "GSHMEM_PROXY_CHUNK", 4ull << 10, 64ull << 20)              \
  GSHMEM_CONFIG_RANGE(proxy_bulk_min, "GSHMEM_PROXY_BULK_MIN", 1, 1ull << 40)                  \
  GSHMEM_CONFIG_RANGE(proxy_bulk_slots, "GSHMEM_PROXY_BULK_SLOTS", 1, 64)                      \
  GSHMEM_CONFIG_RANGE(proxy_trace_events, "GSHMEM_PROXY_TRACE_EVENTS", 1024, 67108864)         \
  GSHMEM_CONFIG_RANGE(proxy_ack_delay_us, "GSHMEM_PROXY_ACK_DELAY_US", 0, 1000000)             \
  GSHMEM_CONFIG_RANGE(proxy_apply_context, "GSHMEM_PROXY_APPLY_CONTEXT", -1, 1)                \
  GSHMEM_CONFIG_RANGE(reduce_ctas, "GSHMEM_REDUCE_CTAS", 1, 128)                               \
  GSHMEM_CONFIG_RANGE(coll_ctas, "GSHMEM_COLL_CTAS", 1, 64)

// Other libraries' names for a variable, read when its GSHMEM_ name is unset, so that NVSHMEM
// programs and job scripts keep working (docs/compat.md):
// GSHMEM_CONFIG_ALIAS("GSHMEM_NAME", "OTHER_NAME"). A GSHMEM_ name set in the environment wins;
// an empty alias is ignored, a malformed one (e.g. in the other library's own format) too, with
// a warning, instead of failing init. gshmem-info lists the aliases.
#define GSHMEM_CONFIG_ALIASES(GSHMEM_CONFIG_ALIAS)                       \
  GSHMEM_CONFIG_ALIAS("GSHMEM_SYMMETRIC_SIZE", "NVSHMEM_SYMMETRIC_SIZE") \
  GSHMEM_CONFIG_ALIAS("GSHMEM_DISABLE_VMM", "NVSHMEM_DISABLE_CUDA_VMM")  \
  GSHMEM_CONFIG_ALIAS("GSHMEM_DEBUG", "NVSHMEM_DEBUG")                   \
  GSHMEM_CONFIG_ALIAS("GSHMEM_DEBUG_FILE", "NVSHMEM_DEBUG_FILE")         \
  GSHMEM_CONFIG_ALIAS("GSHMEM_MAX_TEAMS", "NVSHMEM_MAX_TEAMS")           \
  GSHMEM_CONFIG_ALIAS("GSHMEM_BOOTSTRAP_IFNAME", "NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME")
