// SPDX-License-Identifier: BSD-3-Clause
// The TCP tree bootstrap (GSHMEM_BOOTSTRAP_TOPOLOGY=tree; docs/bootstrap.md).
//
// Shape: rank 0 is the root of a tree whose every subtree is a contiguous range of ranks: the
// node at the start of [lo, hi) splits [lo+1, hi) into kTreeFanout nearly equal ranges, whose
// first ranks are its children. Ranks on one node (consecutive) mostly share a subtree, the
// depth is log_k(N), and an allgather's blocks of a subtree are one contiguous slice.
//
// Rendezvous (rendezvous.cpp): as for the star, every rank joins rank 0 with its Hello; the ack
// says "tree"; a rank with children then opens a listener and tells rank 0 its port; `ready`
// carries each rank its parent's address. Rank 0 keeps only its children's connections; every
// other rank connects to its parent (both prove they hold the job secret, auth.h; strangers and
// squatters turned away)
// and accepts its own children (wire()); a barrier over the tree ends connect(). After it a
// process holds at most kTreeFanout + 1 sockets.
//
// Collectives (tree_collectives.cpp): up the tree (each parent checks each child's call against
// its own: op, call number, byte count, root -- a difference is GSHMEM_ERROR_MISMATCH naming
// both), then down. Allgather: a child sends its subtree's blocks up, a parent sends each child
// the blocks outside that child's subtree, so a process sends and receives O(N x item) and rank
// 0 sends (k-1) N + 1 blocks and receives N - 1.
//
// Failures: found anywhere, flooded along the tree as a `notice` (each process forwards it to
// its other neighbours), so every survivor fails with the same message. Timeouts go up instead
// (`late` reports listing the PEs waited for): a parent waits one second longer per level of
// its subtree than its children, so the root sees every late PE of the call and names all of
// them in the notice it floods. The failure monitor watches the tree neighbours.
// Concurrency and fork(): as for the star (tcp_bootstrap.h).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bootstrap/bootstrap.h"
#include "bootstrap/tcp/auth.h"
#include "bootstrap/tcp/heartbeat.h"
#include "bootstrap/tcp/monitor_thread.h"
#include "bootstrap/tcp/protocol.h"
#include "bootstrap/tcp/socket.h"

namespace gshmem::bootstrap::tcp {

constexpr int kTreeFanout = 3;

// Where `rank` sits in the tree of `size` ranks.
struct TreeNode {
  int parent = -1;     // -1 for rank 0
  int lo = 0, hi = 0;  // the ranks of its subtree: [lo, hi), lo == rank
  struct Child {
    int rank, lo, hi;
  };
  std::vector<Child> children;
};
TreeNode tree_node(int rank, int size, int fanout = kTreeFanout);
// Levels below the root of a subtree of n ranks (0 for one rank).
int tree_height(int n, int fanout = kTreeFanout);

class TreeBootstrap final : public Bootstrap {
 public:
  TreeBootstrap(int rank, int size, uint64_t job_key, const JobToken& token, int timeout_s);
  ~TreeBootstrap() override;

  // Connect-time wiring (tree_wiring.cpp). parent_fd: the connection to the parent when it is
  // rank 0 (kept from the rendezvous), else -1; parent_addr: the parent's listening address
  // otherwise. child_fds: rank 0's connections to its children (rendezvous), else empty;
  // listener: this rank's listening socket when it has children (taken over and closed).
  // Ends with a barrier over the tree. Non-success: logged, and the neighbours are told.
  Status wire(const AuthKey& key, int parent_fd, const sockaddr_storage& parent_addr, socklen_t parent_len,
              std::vector<int> child_fds, int listener, const Deadline& dl);

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  uint64_t job_key() const override { return job_key_; }
  Status allgather(const void* mine, void* all, size_t bytes) override;
  Status barrier() override;
  Status broadcast(void* buf, size_t bytes, int root) override;
  void set_wait_spin_us(int us) override { spin_us_.store(us < 0 ? 0 : us, std::memory_order_relaxed); }
  void set_heartbeat(int timeout_s) override { heartbeat_s_ = timeout_s < 0 ? 0 : timeout_s; }
  Status start_failure_monitor(std::function<void(int, const std::string&)> on_failure) override;
  Status finalize() override;

 private:
  struct Span {
    char* p = nullptr;
    size_t len = 0;
  };
  struct Call {
    Op op;
    uint64_t len;  // declared bytes (per PE for allgather)
    int32_t arg;   // broadcast root, else 0
  };
  // What a collective moves: the up payload of a subtree [lo, hi) and the (at most two) down
  // parts for one.
  struct Plan {
    Call call;
    std::function<Span(int lo, int hi)> up;
    std::function<void(int lo, int hi, Span out[2])> down;
  };
  // A tree neighbour: links_[0] is the parent unless this is rank 0, then the children.
  struct Link {
    int rank = -1;
    int fd = -1;
    int lo = 0, hi = 0;   // a child's subtree
    bool broken = false;  // our outgoing stream may hold half a message: send it nothing more
  };

  // tree_collectives.cpp
  Status usable(const char* what);
  Status forked_check(const char* what) const;
  bool forked() const;
  // One collective: gather from the children (late: the PEs that did not arrive in time, and
  // those the children reported), then up to the parent and back, then down to the children.
  Status run(const Plan& plan, uint32_t seq);
  Status gather_children(const Plan& plan, uint32_t seq, const Deadline& dl, std::vector<int>* late);
  Status send_up(const Plan& plan, uint32_t seq, const Deadline& dl);
  // reported_late: this rank sent a `late` report up and only waits for the root's verdict.
  Status receive_down(const Plan& plan, uint32_t seq, const Deadline& dl, bool reported_late,
                      const std::vector<int>& late);
  Status send_down(const Plan& plan, uint32_t seq);
  // tree_wiring.cpp
  Status connect_parent(const AuthKey& key, const sockaddr_storage& addr, socklen_t len, const Deadline& dl);
  Status accept_children(int listener, const AuthKey& key, const Deadline& dl);
  // Seconds a node whose subtree has `height` levels waits for its children; every rank waits
  // for its parent's answer reply_wait_s().
  double gather_wait_s(int height) const;
  double reply_wait_s() const;
  // Read the rest of a message whose header `h` arrived on links_[i] and that is not part of
  // the call: a notice (taken: failed state, forwarded), else a protocol error.
  Status take_unexpected(size_t i, const Header& h, const char* what, const Deadline& dl);
  Status take_notice(size_t i, const Header& h, const Deadline& dl);
  // The next header on links_[i] that is not a heartbeat (recv_all's outcomes).
  Io recv_header(size_t i, const Deadline& dl, Header* h, int* err, int spin_us = 0);
  // Enter the failed state with `msg` (logged) and tell every neighbour but links_[skip] (and
  // those that are broken) with a notice from `origin` about `about`.
  Status fail(Status st, const std::string& msg, int about, size_t skip = SIZE_MAX, int origin = -1,
              const std::string& wire_text = std::string());
  // A failure of this rank's own (it timed out waiting, or got nonsense): "PE r failed collective
  // call #s: ...", flooded.
  Status own_failure(Status st, uint32_t seq, const std::string& msg);
  Status disconnected(size_t i, const char* what, int err);
  std::string timeout_message(const char* what, const std::vector<int>& waiting, int waited_s, bool from_parent) const;
  // Send with a header, holding the link's send_mu_; stops with Io::input when the send blocks
  // and the peer has something to say (a notice) meanwhile; its heartbeats are read and skipped.
  Io send_msg(size_t i, const Header& h, const Span* parts, int nparts, const Deadline& dl, int* err);

  // tree_monitor.cpp
  void monitor_main(std::function<void(int, const std::string&)> cb);
  // Heartbeats to every link whose send_mu_ is free (heartbeat.h).
  void send_heartbeats();
  // With io_mutex_ held: links_[i] has been silent past the bound; fail naming its PE.
  void declare_silent(size_t i, long long silent_s);
  void stop_monitor();
  void close_connections(bool linger);

  const int rank_;
  const int size_;
  const uint64_t job_key_;
  const int timeout_s_;
  const pid_t owner_pid_;
  TreeNode node_;
  int height_;       // levels of this rank's subtree
  int tree_height_;  // levels of the whole tree
  std::vector<Link> links_;
  size_t first_child_ = 0;  // index of the first child in links_
  uint32_t seq_ = 0;

  std::mutex io_mutex_;
  // One per link: held for a whole message (send_msg, fail's notices) or a heartbeat, so that
  // the monitor's heartbeats go out while a collective runs and never inside its messages.
  // Taken after io_mutex_ when both are.
  std::unique_ptr<std::mutex[]> send_mu_;
  int heartbeat_s_ = 0;  // GSHMEM_HEARTBEAT_TIMEOUT; 0: none
  Status failed_ = GSHMEM_SUCCESS;
  std::string failed_msg_;
  bool closed_ = false;

  MonitorThread monitor_;
  bool monitor_started_ = false;
  std::atomic<int> spin_us_{0};
  std::atomic<uint64_t> generation_{0};
};

}  // namespace gshmem::bootstrap::tcp
