// SPDX-License-Identifier: BSD-3-Clause
// The TCP star bootstrap (GSHMEM_BOOTSTRAP_TOPOLOGY=star; the tree: tree.h): rank 0
// holds one connection per other rank, every other rank one connection to rank 0.
//   uniqueid.cpp     ids, text form, the create_uniqueid listener registry
//   listener.cpp     rank 0's listening socket (inherited / registered / bound)
//   rendezvous.cpp   connect(): accept + handshake on rank 0, joining elsewhere (both topologies)
//   late_joiners.cpp rank 0 after a failed rendezvous: the PEs still knocking are told why
//   collectives.cpp  allgather / barrier / broadcast / finalize over the star
//   monitor.cpp      failure monitor thread, shutdown and cleanup
// Concurrency: every collective holds io_mutex_ for its whole duration; the
// monitor thread only reads a socket while holding it, so the two never
// consume the same bytes.
// fork(): the connections are closed in a child that fork()s without exec
// (track_for_fork in socket.h), so a dead PE's peers see it go even while such
// a child lives on. The child's copy of the object is unusable: every call
// fails at once with a message saying so (checked before any lock, since a
// lock held by another thread at the fork stays held in the child).
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
#include "bootstrap/tcp/heartbeat.h"
#include "bootstrap/tcp/monitor_thread.h"
#include "bootstrap/tcp/protocol.h"
#include "bootstrap/tcp/socket.h"

namespace gshmem::bootstrap::tcp {

class TcpBootstrap final : public Bootstrap {
 public:
  // fds: on rank 0, fds[r] is the connection to rank r (fds[0] = -1);
  // elsewhere fds = {connection to rank 0}. Takes ownership.
  TcpBootstrap(int rank, int size, uint64_t job_key, const JobToken& token, int timeout_s, std::vector<int> fds,
               std::string root_endpoint);
  ~TcpBootstrap() override;

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
  // A contiguous byte range to send or fill.
  struct Span {
    const void* out = nullptr;  // source (sends)
    void* in = nullptr;         // destination (receives)
    size_t len = 0;
  };
  // What this rank called; compared with every other rank's call by rank 0.
  struct Call {
    Op op;
    uint64_t len;  // declared bytes (per PE for allgather)
    int32_t arg;   // broadcast root, else 0
  };

  // collectives.cpp
  Status usable(const char* what);
  Status run_collective(const Call& call, const std::function<Span(int peer)>& request,
                        const std::function<Span(int peer)>& reply, Span my_request, Span my_reply);
  Status root_gather(const Call& call, uint32_t seq, const std::function<Span(int)>& request, const Deadline& dl);
  Status root_reply(const Call& call, uint32_t seq, const std::function<Span(int)>& reply, const Deadline& dl);
  Status member_exchange(const Call& call, uint32_t seq, Span my_request, Span my_reply, const Deadline& dl);
  // Read an abort (header already decoded) from rank 0 and enter the failed state.
  Status take_abort(const Header& h, const Deadline& dl);
  // Rank 0: read the abort member `r` sent about its own failed collective
  // (header already decoded) and enter the failed state, naming r.
  Status take_member_abort(int r, const Header& h, const Deadline& dl);
  // Enter the failed state: log msg, (rank 0) tell every live peer but `dead`.
  // The abort names `dead` if >= 0, else `about` (the PE the failure concerns:
  // a late or mismatched PE, or -1), so that ranks learning of it through their
  // failure monitor can say which PE it was.
  Status fail(Status st, int dead, const std::string& msg, int about = -1);
  void send_abort_to_all(Status st, int arg, const std::string& msg);
  // Member: its collective call #seq failed on its own (timeout, protocol
  // error): tell rank 0 with an abort if our stream is at a message boundary,
  // else half-close the connection, so rank 0 does not wait for us in vain.
  void tell_root(Status st, uint32_t seq, bool at_boundary);
  // Non-success when this object was inherited through fork() (logged, naming `what`).
  Status forked_check(const char* what) const;
  bool forked() const;
  std::string disconnect_message(int peer, const char* what, int err) const;
  std::string timeout_message(const char* what, const std::vector<int>& waiting) const;
  // A whole message to fds_[i] under send_mu_[i]. stop_on_input: stops with Io::input when the
  // send has to wait and the peer has said something other than heartbeats (which are read and
  // skipped meanwhile); *sent: bytes that went.
  Io send_msg(size_t i, const Header& h, const void* payload, size_t len, const Deadline& dl, int* err,
              bool stop_on_input = false, size_t* sent = nullptr);
  // The next header on fd that is not a heartbeat (recv_all's outcomes).
  Io recv_header(int fd, const Deadline& dl, Header* h, int* err, int spin_us = 0);

  // monitor.cpp
  void monitor_main(std::function<void(int, const std::string&)> cb);
  // Heartbeats (heartbeat.h) to every watched connection whose send_mu_ is free.
  void send_heartbeats(const std::vector<int>& idx);
  void stop_monitor();
  void close_connections(bool linger);

  const int rank_;
  const int size_;
  const uint64_t job_key_;
  const int timeout_s_;
  const pid_t owner_pid_;            // process that made the connections
  const std::string root_endpoint_;  // for messages
  std::vector<int> fds_;             // see constructor
  std::vector<char> broken_;         // rank 0: peer unusable (dead or a message half-sent)
  uint32_t seq_ = 0;                 // collective calls made

  std::mutex io_mutex_;
  // One per connection (index as fds_): held for a whole message or a heartbeat, so that the
  // monitor's heartbeats go out while a collective runs and never inside its messages. Taken
  // after io_mutex_ when both are.
  std::unique_ptr<std::mutex[]> send_mu_;
  int heartbeat_s_ = 0;             // GSHMEM_HEARTBEAT_TIMEOUT; 0: none
  Status failed_ = GSHMEM_SUCCESS;  // sticky failure (under io_mutex_)
  std::string failed_msg_;
  bool closed_ = false;  // finalize() done or connections closed

  MonitorThread monitor_;
  bool monitor_started_ = false;
  std::atomic<int> spin_us_{0};          // set_wait_spin_us
  std::atomic<uint64_t> generation_{0};  // bumped after each collective
};

}  // namespace gshmem::bootstrap::tcp
