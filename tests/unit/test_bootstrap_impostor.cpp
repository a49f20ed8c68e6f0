// SPDX-License-Identifier: BSD-3-Clause
// bootstrap_impostor: mutual authentication at start-up (bootstrap/tcp/auth.h,
// docs/reliability.md), CPU only, every process bounded by alarm():
//   (a) a port squatter binds rank 0's derived port before the job and answers like rank 0,
//       forging its proof with the derivable default secret: every member refuses it at once,
//       naming the address and the cause, and sends it nothing derived from the secret; rank 0
//       fails saying its port is taken. The members derive the same port, so the job cannot
//       meet elsewhere: it fails, saying why (it does not complete).
//   (b) processes that know the derivable default secret but not GSHMEM_BOOTSTRAP_SECRET are
//       refused: one that plays the protocol (rank 0 rejects its proof, one WARN line) and a
//       gshmem PE (it refuses rank 0's proof, one ERROR line);
//   (c) meanwhile the good job completes.
// Jobs are torchrun-style (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT: env.h), the launcher
// whose secret is otherwise derivable.
#include <poll.h>

#include "bootstrap/env.h"
#include "bootstrap/local_auth.h"
#include "bootstrap/tcp/auth.h"
#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;
namespace tcp = gshmem::bootstrap::tcp;

constexpr const char* kUserSecret = "impostor-test: 3f9c1e7a";

// This process's launcher variables: PE `rank` of `size` of a torchrun job on loopback whose
// rendezvous is `port` (MASTER_PORT + 1); GSHMEM_BOOTSTRAP_SECRET = user_secret when given.
void torchrun_env(int rank, int size, uint16_t port, const char* user_secret) {
  for (const char* v : {"GSHMEM_RANK", "GSHMEM_SIZE", "GSHMEM_UNIQUEID", "GSHMEM_BOOTSTRAP_PORT",
                        "GSHMEM_BOOTSTRAP_SECRET", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"})
    unsetenv(v);
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(size).c_str(), 1);
  setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", std::to_string(size).c_str(), 1);
  setenv("MASTER_ADDR", "127.0.0.1", 1);
  setenv("MASTER_PORT", std::to_string(port - 1).c_str(), 1);
  setenv("TORCHELASTIC_RUN_ID", "impostor-test", 1);
  if (user_secret) setenv("GSHMEM_BOOTSTRAP_SECRET", user_secret, 1);
}

// The id this process derives from its variables.
gshmemx_uniqueid_t env_id() {
  EnvInfo info;
  EXPECT_EQ(detect_from_env(&info), GSHMEM_SUCCESS);
  return info.id;
}

// A PE of the good job: connect, an allgather checked in full, a barrier, finalize.
int good_pe(int rank, int size, uint16_t port) {
  torchrun_env(rank, size, port, kUserSecret);
  std::unique_ptr<Bootstrap> b;
  Status st = connect(env_id(), rank, size, opts(20), &b);
  CHILD_CHECK(st == GSHMEM_SUCCESS, "connect: %s", status_name(st));
  std::vector<int> all(size, -1);
  st = b->allgather(&rank, all.data(), sizeof(int));
  CHILD_CHECK(st == GSHMEM_SUCCESS, "allgather: %s", status_name(st));
  for (int r = 0; r < size; ++r) CHILD_CHECK(all[r] == r, "allgather: PE %d's entry is %d", r, all[r]);
  CHILD_CHECK(b->barrier() == GSHMEM_SUCCESS, "barrier");
  CHILD_CHECK(b->finalize() == GSHMEM_SUCCESS, "finalize");
  return 0;
}

// Rendezvous port for a test: free now, and port - 1 (MASTER_PORT) is a valid port.
uint16_t test_port() {
  for (;;) {
    const uint16_t p = free_port();
    if (p > 1) return p;
  }
}

// (a) The squatter listens on `listener` before the job starts and, for `seconds`, answers every
// Hello like rank 0 would, with a proof forged from `guess`. It exits 0 when it answered at
// least `members` Hellos and received no proof from any of them (nothing derived from the
// secret reached it).
int squatter(int listener, const tcp::AuthKey& guess, int members, double seconds) {
  int answered = 0, proofs = 0;
  const tcp::Deadline end(seconds);
  while (!end.expired() && answered < members) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, end.remaining_ms()) <= 0) continue;
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) continue;
    uint8_t hb[tcp::kHelloBytes];
    if (recv(fd, hb, sizeof(hb), MSG_WAITALL) == (ssize_t)sizeof(hb)) {
      const tcp::Hello h = tcp::decode_hello(hb);
      uint8_t msg[tcp::kHeaderBytes + tcp::kChallengeBytes] = {};
      tcp::encode_header(tcp::Header{static_cast<uint32_t>(tcp::Op::challenge), 0, tcp::kChallengeBytes, 0, 0}, msg);
      uint8_t* ns = msg + tcp::kHeaderBytes;
      tcp::fresh_nonce(ns);
      tcp::handshake_mac(guess, tcp::Role::server, h.nonce, ns, h.rank, h.size, ns + tcp::kNonceBytes);
      if (send(fd, msg, sizeof(msg), MSG_NOSIGNAL) == (ssize_t)sizeof(msg)) ++answered;
      pollfd q{fd, POLLIN, 0};
      uint8_t proof[tcp::kMacBytes];
      if (poll(&q, 1, 1000) > 0 && recv(fd, proof, sizeof(proof), 0) > 0) ++proofs;
    }
    close(fd);
  }
  fprintf(stderr, "squatter: answered %d Hellos, received %d proofs\n", answered, proofs);
  return answered >= members && proofs == 0 ? 0 : 1;
}

TEST(bootstrap_impostor, port_squatter_posing_as_rank_0_is_refused) {
  const int n = 3;
  const uint16_t port = test_port();
  uint16_t bound = 0;
  int listener = -1;
  {  // the squatter takes the port before the job starts
    listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0) << strerror(errno);
    ASSERT_EQ(listen(listener, 16), 0);
    bound = port;
  }
  // It knows the secret every PE would derive without GSHMEM_BOOTSTRAP_SECRET.
  torchrun_env(0, n, port, nullptr);
  const tcp::AuthKey guess = tcp::auth_key(uniqueid_data(env_id()).secret);
  Child sq = spawn(-1, 20, [&] { return squatter(listener, guess, n - 1, 8.0); });
  close(listener);

  std::vector<Child> cs;
  const auto t0 = Clock::now();
  for (int r = 0; r < n; ++r)
    cs.push_back(spawn(r, 20, [&, r] {
      torchrun_env(r, n, port, kUserSecret);
      std::unique_ptr<Bootstrap> b;
      const auto t = Clock::now();
      const Status st = connect(env_id(), r, n, opts(10), &b);
      const Status want = r == 0 ? GSHMEM_ERROR_BOOTSTRAP : GSHMEM_ERROR_AUTH;
      CHILD_CHECK(st == want, "connect returned %s, expected %s", status_name(st), status_name(want));
      CHILD_CHECK(seconds_since(t) < 3.0, "failing took %.2f s", seconds_since(t));
      return 0;
    }));
  wait_all(cs, 25);
  const double took = seconds_since(t0);
  wait_all({&sq}, 15);
  EXPECT_TRUE(sq.exited_with(0)) << sq.describe();
  const std::string where = "127.0.0.1:" + std::to_string(bound);
  for (const Child& c : cs) {
    EXPECT_TRUE(c.exited_with(0)) << c.describe();
    if (c.rank == 0) {
      EXPECT_TRUE(contains(c.output, "port " + std::to_string(bound) + " on 127.0.0.1 is in use")) << c.describe();
    } else {
      EXPECT_TRUE(contains(c.output, "refused the process at " + where + ", where PE 0 should be")) << c.describe();
      EXPECT_TRUE(contains(c.output, "could not prove it holds the job secret")) << c.describe();
    }
  }
  printf("every PE failed, naming the cause, in %.2f s; their logs:\n", took);
  for (const Child& c : cs) printf("%s", c.output.c_str());
}

TEST(bootstrap_impostor, holders_of_the_derived_secret_are_refused_and_the_job_completes) {
  const int n = 3;
  const uint16_t port = test_port();
  Child c0 = spawn(0, 40, [&] { return good_pe(0, n, port); });
  Child c1 = spawn(1, 40, [&] { return good_pe(1, n, port); });

  // (b) plays the protocol with the derived secret and sends its proof regardless: rank 0
  // rejects it with one WARN line and tells it so.
  Child attacker = spawn(2, 20, [&] {
    torchrun_env(2, n, port, nullptr);
    const tcp::AuthKey derived = tcp::auth_key(uniqueid_data(env_id()).secret);
    int fd = -1;
    for (const tcp::Deadline dl(10.0); fd < 0 && !dl.expired();) {
      fd = raw_connect(port);
      if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    CHILD_CHECK(fd >= 0, "cannot reach rank 0");
    // The Hello, a challenge from rank 0, and a proof made with the derived key.
    tcp::Hello h;
    h.rank = 2;
    h.size = n;
    tcp::fresh_nonce(h.nonce);
    uint8_t hb[tcp::kHelloBytes], head[tcp::kHeaderBytes], ch[tcp::kChallengeBytes], proof[tcp::kMacBytes];
    tcp::encode_hello(h, hb);
    CHILD_CHECK(send(fd, hb, sizeof(hb), MSG_NOSIGNAL) == (ssize_t)sizeof(hb), "hello");
    CHILD_CHECK(recv(fd, head, sizeof(head), MSG_WAITALL) == (ssize_t)sizeof(head), "challenge header");
    CHILD_CHECK(tcp::decode_header(head).op == static_cast<uint32_t>(tcp::Op::challenge), "not a challenge");
    CHILD_CHECK(recv(fd, ch, sizeof(ch), MSG_WAITALL) == (ssize_t)sizeof(ch), "challenge");
    tcp::handshake_mac(derived, tcp::Role::client, h.nonce, ch, 2, n, proof);
    CHILD_CHECK(send(fd, proof, sizeof(proof), MSG_NOSIGNAL) == (ssize_t)sizeof(proof), "proof");
    CHILD_CHECK(recv(fd, head, sizeof(head), MSG_WAITALL) == (ssize_t)sizeof(head), "ack");
    const tcp::Header ack = tcp::decode_header(head);
    CHILD_CHECK(ack.op == static_cast<uint32_t>(tcp::Op::ack) && ack.status == GSHMEM_ERROR_AUTH,
                "rank 0 answered op %u status %d", ack.op, ack.status);
    close(fd);
    return 0;
  });
  wait_all({&attacker}, 25);
  EXPECT_TRUE(attacker.exited_with(0)) << attacker.describe();

  // (b) a gshmem PE without GSHMEM_BOOTSTRAP_SECRET: it refuses rank 0, whose proof does not
  // match the secret it derived.
  Child pe = spawn(2, 20, [&] {
    torchrun_env(2, n, port, nullptr);
    std::unique_ptr<Bootstrap> b;
    const Status st = connect(env_id(), 2, n, opts(10), &b);
    CHILD_CHECK(st == GSHMEM_ERROR_AUTH, "connect returned %s", status_name(st));
    return 0;
  });
  wait_all({&pe}, 25);
  EXPECT_TRUE(pe.exited_with(0)) << pe.describe();
  EXPECT_TRUE(contains(pe.output, "could not prove it holds the job secret")) << pe.describe();

  // (c) the real PE 2 joins; the job completes.
  Child c2 = spawn(2, 40, [&] { return good_pe(2, n, port); });
  wait_all({&c0, &c1, &c2}, 45);
  for (const Child* c : {&c0, &c1, &c2}) EXPECT_TRUE(c->exited_with(0)) << c->describe();
  EXPECT_TRUE(contains(c0.output, "could not prove it holds the job secret")) << c0.describe();
  EXPECT_TRUE(contains(c0.output, "left during the authentication")) << c0.describe();
  printf("rank 0's log:\n%sthe refused PE's log:\n%s", c0.output.c_str(), pe.output.c_str());
}

// The same processes without GSHMEM_BOOTSTRAP_SECRET derive one secret (the job runs), and the
// variable changes it.
TEST(bootstrap_impostor, user_secret_changes_the_derived_secret) {
  torchrun_env(0, 2, 20000, nullptr);
  const uint64_t derived = uniqueid_data(env_id()).secret;
  torchrun_env(0, 2, 20000, kUserSecret);
  const uint64_t mixed = uniqueid_data(env_id()).secret;
  torchrun_env(0, 2, 20000, "another");
  EXPECT_NE(derived, mixed);
  EXPECT_NE(mixed, uniqueid_data(env_id()).secret);
  torchrun_env(0, 2, 20000, kUserSecret);
  EXPECT_EQ(mixed, uniqueid_data(env_id()).secret);
  for (const char* v : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                        "TORCHELASTIC_RUN_ID", "GSHMEM_BOOTSTRAP_SECRET"})
    unsetenv(v);
}

// Node-local endpoint names come from the job's token: stable within a job, different across
// jobs, and free of anything public (the job key).
TEST(bootstrap_impostor, node_local_names_follow_the_secret) {
  const JobToken a = tcp::job_token_of(tcp::auth_key(1)), b = tcp::job_token_of(tcp::auth_key(2));
  const std::string na = local_endpoint_name(a, "heap", 3, 0);
  EXPECT_EQ(na, local_endpoint_name(a, "heap", 3, 0));
  EXPECT_NE(na, local_endpoint_name(b, "heap", 3, 0));
  EXPECT_NE(na, local_endpoint_name(a, "heap", 4, 0));
  EXPECT_NE(na, local_endpoint_name(a, "heap", 3, 1));
  EXPECT_EQ(na.size(), 7u + 32u);
  uint8_t client[kLocalProofBytes], server[kLocalProofBytes], other[kLocalProofBytes];
  local_proof(a, "heap", 3, 0, false, client);
  local_proof(a, "heap", 3, 0, true, server);
  local_proof(b, "heap", 3, 0, false, other);
  EXPECT_FALSE(same_local_proof(client, server));
  EXPECT_FALSE(same_local_proof(client, other));
}

}  // namespace
