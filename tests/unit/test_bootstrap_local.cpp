// SPDX-License-Identifier: BSD-3-Clause
// TCP bootstrap, within one process: the socket helpers, unique ids, and connect()'s
// local checks and failures (the multi-process tests: test_bootstrap.cpp).
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>

#include <climits>

#include "bootstrap/tcp/protocol.h"
#include "bootstrap_test_util.h"

namespace {

using namespace bootstrap_test;

// ------------------------------------------------------------ send_pair --

// send_pair over a socket pair with small buffers, so sendmsg() stops part-way
// (inside the first part, across the boundary, inside the second) and the rest
// waits in poll(); a reader thread takes the bytes in odd-sized pieces. Every
// byte arrives once, in order, for each split of a message between the parts.
TEST(BootstrapSocket, SendPairDeliversBothPartsInOrder) {
  for (const size_t na : {size_t{0}, size_t{1}, size_t{32}, size_t{70001}}) {
    for (const size_t nb : {size_t{0}, size_t{5}, size_t{300007}}) {
      int sv[2];
      ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
      const int small = 4096;
      setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
      setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
      fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
      std::vector<uint8_t> a(na), b(nb), got;
      for (size_t i = 0; i < na; ++i) a[i] = pattern(1, i, 3);
      for (size_t i = 0; i < nb; ++i) b[i] = pattern(2, i, 4);
      std::thread reader([&] {
        uint8_t buf[977];
        for (;;) {
          ssize_t k = read(sv[1], buf, sizeof(buf));
          if (k <= 0) break;
          got.insert(got.end(), buf, buf + k);
        }
      });
      int err = -1;
      const tcp::Io io =
          tcp::send_pair(sv[0], na ? a.data() : nullptr, na, nb ? b.data() : nullptr, nb, tcp::Deadline(20), &err);
      shutdown(sv[0], SHUT_WR);
      reader.join();
      close(sv[0]);
      close(sv[1]);
      EXPECT_EQ(io, tcp::Io::ok) << "na " << na << " nb " << nb;
      EXPECT_EQ(err, 0);
      ASSERT_EQ(got.size(), na + nb) << "na " << na << " nb " << nb;
      size_t bad = 0;
      for (size_t i = 0; i < na + nb; ++i) bad += got[i] != (i < na ? a[i] : b[i - na]);
      EXPECT_EQ(bad, 0u) << "na " << na << " nb " << nb;
    }
  }
}

// A PE that retries its connect before rank 0 listens can be given the
// target port itself as its ephemeral port; TCP then connects the socket to
// itself (simultaneous open), and the PE would take that for rank 0.
// connect_to must refuse such connections as if refused. Forced in a private
// network namespace whose ephemeral port range is that one port (skipped where
// unshare is not allowed). Rank 0 must still be able to listen on the port after.
TEST(BootstrapSocket, SelfConnectIsRefused) {
  fflush(nullptr);
  pid_t pid = fork();
  if (pid == 0) {
    if (unshare(CLONE_NEWNET) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) _exit(77);
    int s = socket(AF_INET, SOCK_DGRAM, 0);
    ifreq ifr{};
    strcpy(ifr.ifr_name, "lo");
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) != 0) _exit(77);
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0) _exit(77);
    close(s);
    const uint16_t port = 40000;
    FILE* f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "w");
    if (!f || fprintf(f, "%u %u\n", port, port) < 0 || fclose(f) != 0) _exit(77);
    sockaddr_storage ss{};
    auto* a = reinterpret_cast<sockaddr_in*>(&ss);
    a->sin_family = AF_INET;
    a->sin_port = htons(port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    // The first attempt connects to itself; the port then stays in TIME_WAIT,
    // so later ones fail with EADDRNOTAVAIL.
    int connected = 0, refused = 0, other = 0;
    for (int i = 0; i < 3; ++i) {
      int err = 0;
      int fd = tcp::connect_to(ss, sizeof(sockaddr_in), tcp::Deadline(2.0), &err);
      if (fd >= 0) {
        ++connected;
        close(fd);
      } else if (err == ECONNREFUSED) {
        ++refused;
      } else {
        ++other;
        fprintf(stderr, "connect_to: %s\n", strerror(err));
      }
    }
    fprintf(stderr, "self-connect attempts: %d connected, %d refused, %d other errors\n", connected, refused, other);
    // Rank 0 arriving now can still listen on the port (the connection it
    // left behind does not hold it).
    int err = 0;
    int lfd = tcp::open_listener(AF_INET, port, &err);
    if (lfd < 0) fprintf(stderr, "open_listener after the self-connect: %s\n", strerror(err));
    _exit(connected == 0 && refused > 0 && lfd >= 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) GTEST_SKIP() << "cannot make a private network namespace here";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "connect_to returned a socket connected to itself, or left the port unbindable";
}

TEST(BootstrapProtocol, MemberWaitSaturates) {
  EXPECT_EQ(tcp::member_wait_s(1), 2);
  EXPECT_EQ(tcp::member_wait_s(120), 130);  // grace: at most 10 s
  EXPECT_EQ(tcp::member_wait_s(2000000), 2000010);
  EXPECT_EQ(tcp::member_wait_s(INT_MAX - 3), INT_MAX);
  EXPECT_EQ(tcp::member_wait_s(INT_MAX), INT_MAX);
}

// ----------------------------------------------------------- unique ids --

TEST(BootstrapUniqueId, EncodeDecodeRoundTripIPv4) {
  gshmemx_uniqueid_t id, back;
  ASSERT_EQ(make_uniqueid("127.0.0.1", 41234, 0x0123456789abcdefULL, 0xfedcba9876543210ULL, &id), GSHMEM_SUCCESS);
  std::string text = encode_uniqueid(id);
  EXPECT_EQ(text, "127.0.0.1:41234:0123456789abcdef:fedcba9876543210");
  ASSERT_EQ(decode_uniqueid(text.c_str(), &back), GSHMEM_SUCCESS);
  EXPECT_EQ(memcmp(&id, &back, sizeof(id)), 0);
  UniqueIdData d = uniqueid_data(back);
  EXPECT_EQ(d.magic, kUniqueIdMagic);
  EXPECT_EQ(d.family, AF_INET);
  EXPECT_EQ(d.port, 41234);
  EXPECT_EQ(d.secret, 0x0123456789abcdefULL);
  EXPECT_EQ(d.job_key, 0xfedcba9876543210ULL);
  // Upper-case hex is accepted too.
  ASSERT_EQ(decode_uniqueid("10.1.2.3:1:0123456789ABCDEF:FEDCBA9876543210", &back), GSHMEM_SUCCESS);
  EXPECT_EQ(uniqueid_data(back).secret, 0x0123456789abcdefULL);
  EXPECT_EQ(encode_uniqueid(back), "10.1.2.3:1:0123456789abcdef:fedcba9876543210");
}

TEST(BootstrapUniqueId, EncodeDecodeRoundTripIPv6) {
  gshmemx_uniqueid_t id, back;
  ASSERT_EQ(make_uniqueid("::1", 65535, 1, 2, &id), GSHMEM_SUCCESS);
  std::string text = encode_uniqueid(id);
  EXPECT_EQ(text, "[::1]:65535:0000000000000001:0000000000000002");
  ASSERT_EQ(decode_uniqueid(text.c_str(), &back), GSHMEM_SUCCESS);
  EXPECT_EQ(memcmp(&id, &back, sizeof(id)), 0);
  EXPECT_EQ(uniqueid_data(back).family, AF_INET6);
  ASSERT_EQ(decode_uniqueid("[fe80::1:2]:80:00000000000000ff:0000000000000000", &back), GSHMEM_SUCCESS);
  EXPECT_EQ(encode_uniqueid(back), "[fe80::1:2]:80:00000000000000ff:0000000000000000");
}

TEST(BootstrapUniqueId, DecodeRejectsMalformed) {
  const char* good_tail = ":0123456789abcdef:fedcba9876543210";
  struct Case {
    std::string text;
    const char* why;  // part of the log line
  } cases[] = {
      {"", "four"},
      {"garbage", "four"},
      {"127.0.0.1:80:0123456789abcdef", "four"},
      {std::string("127.0.0.1:0") + good_tail, "not in 1..65535"},
      {std::string("127.0.0.1:70000") + good_tail, "not in 1..65535"},
      {std::string("127.0.0.1:8x") + good_tail, "not a number"},
      {std::string("127.0.0.1:") + good_tail, "not a number"},
      {std::string("127.0.0.1:123456") + good_tail, "not a number"},
      {std::string("1.2.3:80") + good_tail, "not a numeric IPv4"},
      {std::string("host.example:80") + good_tail, "not a numeric IPv4"},
      {std::string(":80") + good_tail, "empty"},
      {std::string("::1:80") + good_tail, "brackets"},
      {std::string("[::1:80") + good_tail, "closing"},
      {std::string("[zz::1]:80") + good_tail, "not a numeric IPv6"},
      {"127.0.0.1:80:0123456789abcde:fedcba9876543210", "secret"},
      {"127.0.0.1:80:0123456789abcdef0:fedcba9876543210", "secret"},
      {"127.0.0.1:80:0123456789abcdeg:fedcba9876543210", "secret"},
      {"127.0.0.1:80:0123456789abcdef:fedcba987654321", "job key"},
      {"127.0.0.1:80:0123456789abcdef:fedcba9876543210 ", "job key"},
  };
  for (const Case& c : cases) {
    gshmemx_uniqueid_t id;
    testing::internal::CaptureStderr();
    Status st = decode_uniqueid(c.text.c_str(), &id);
    std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(st, GSHMEM_ERROR_INVALID_VALUE) << "accepted \"" << c.text << "\"";
    EXPECT_TRUE(contains(err, "malformed unique id")) << c.text << " -> " << err;
    EXPECT_TRUE(contains(err, c.why)) << c.text << " -> " << err;
  }
  gshmemx_uniqueid_t id;
  testing::internal::CaptureStderr();
  EXPECT_EQ(decode_uniqueid(nullptr, &id), GSHMEM_ERROR_INVALID_VALUE);
  testing::internal::GetCapturedStderr();
}

TEST(BootstrapUniqueId, CreateListensAndIsRandom) {
  gshmemx_uniqueid_t a = loopback_id(), b = loopback_id();
  UniqueIdData da = uniqueid_data(a), db = uniqueid_data(b);
  EXPECT_EQ(da.magic, kUniqueIdMagic);
  EXPECT_EQ(da.family, AF_INET);
  EXPECT_EQ(encode_uniqueid(a).rfind("127.0.0.1:", 0), 0u) << encode_uniqueid(a);
  EXPECT_NE(da.port, 0);
  EXPECT_NE(da.port, db.port);
  EXPECT_NE(da.secret, db.secret);
  EXPECT_NE(da.job_key, db.job_key);
  int fd = uniqueid_listener_fd(a);
  ASSERT_GE(fd, 0);
  int acc = 0;
  socklen_t len = sizeof(acc);
  ASSERT_EQ(getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len), 0);
  EXPECT_NE(acc, 0);
  EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  int c = raw_connect(da.port);  // it really listens already
  EXPECT_GE(c, 0);
  if (c >= 0) close(c);
  release_uniqueid_listener(a);
  release_uniqueid_listener(b);
  EXPECT_EQ(uniqueid_listener_fd(a), -1);
  EXPECT_EQ(raw_connect(da.port), -1);  // closed now
}

TEST(BootstrapUniqueId, DefaultAddressAndBadInterface) {
  unsetenv("GSHMEM_BOOTSTRAP_IFNAME");
  gshmemx_uniqueid_t id, back;
  ASSERT_EQ(create_uniqueid(&id), GSHMEM_SUCCESS);
  ASSERT_EQ(decode_uniqueid(encode_uniqueid(id).c_str(), &back), GSHMEM_SUCCESS);
  UniqueIdData d = uniqueid_data(id);
  EXPECT_EQ(d.family, AF_INET);  // first non-loopback IPv4 interface that is up, else 127.0.0.1
  release_uniqueid_listener(id);

  setenv("GSHMEM_BOOTSTRAP_IFNAME", "nosuchif0", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(create_uniqueid(&id), GSHMEM_ERROR_INVALID_VALUE);
  std::string err = testing::internal::GetCapturedStderr();
  unsetenv("GSHMEM_BOOTSTRAP_IFNAME");
  EXPECT_TRUE(contains(err, "GSHMEM_BOOTSTRAP_IFNAME=nosuchif0")) << err;
}

TEST(BootstrapUniqueId, MakeResolvesNamesAndRejectsBadInput) {
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("localhost", 5000, 7, 8, &id), GSHMEM_SUCCESS);
  std::string text = encode_uniqueid(id);
  EXPECT_TRUE(text == "127.0.0.1:5000:0000000000000007:0000000000000008" ||
              text == "[::1]:5000:0000000000000007:0000000000000008")
      << text;
  testing::internal::CaptureStderr();
  EXPECT_NE(make_uniqueid("no-such-host.invalid", 5000, 1, 2, &id), GSHMEM_SUCCESS);
  EXPECT_EQ(make_uniqueid("127.0.0.1", 0, 1, 2, &id), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_EQ(make_uniqueid("", 80, 1, 2, &id), GSHMEM_ERROR_INVALID_VALUE);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "no-such-host.invalid")) << err;
}

// -------------------------------------------------------- local checks --

TEST(BootstrapConnect, ArgumentValidation) {
  gshmemx_uniqueid_t zero = GSHMEMX_UNIQUEID_INITIALIZER;
  std::unique_ptr<Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(connect(zero, 2, 2, opts(5), &b), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_EQ(connect(zero, -1, 2, opts(5), &b), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_EQ(connect(zero, 0, 0, opts(5), &b), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_EQ(connect(zero, 0, 2, opts(0), &b), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_EQ(connect(zero, 1, 2, opts(5), &b), GSHMEM_ERROR_INVALID_VALUE);  // not a real id
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "unique id is invalid")) << err;
  EXPECT_EQ(b, nullptr);
}

TEST(BootstrapConnect, SinglePeNeedsNoNetwork) {
  gshmemx_uniqueid_t zero = GSHMEMX_UNIQUEID_INITIALIZER;
  std::unique_ptr<Bootstrap> b;
  ASSERT_EQ(connect(zero, 0, 1, opts(5), &b), GSHMEM_SUCCESS);
  EXPECT_EQ(b->rank(), 0);
  EXPECT_EQ(b->size(), 1);
  EXPECT_NE(b->job_key(), 0u);
  char mine[5] = "abcd", all[5] = {};
  EXPECT_EQ(b->allgather(mine, all, 4), GSHMEM_SUCCESS);
  EXPECT_STREQ(all, "abcd");
  EXPECT_EQ(b->barrier(), GSHMEM_SUCCESS);
  EXPECT_EQ(b->broadcast(all, 4, 0), GSHMEM_SUCCESS);
  testing::internal::CaptureStderr();
  EXPECT_EQ(b->broadcast(all, 4, 1), GSHMEM_ERROR_INVALID_VALUE);
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(b->start_failure_monitor([](int, const std::string&) {}), GSHMEM_SUCCESS);
  EXPECT_EQ(b->finalize(), GSHMEM_SUCCESS);
  EXPECT_EQ(b->finalize(), GSHMEM_SUCCESS);
}

TEST(BootstrapConnect, RankZeroPortInUse) {
  uint16_t port = 0;
  int lfd = listen_on(INADDR_ANY, 4, &port);
  ASSERT_GE(lfd, 0);
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("127.0.0.1", port, 1, 2, &id), GSHMEM_SUCCESS);
  std::unique_ptr<Bootstrap> b;
  testing::internal::CaptureStderr();
  EXPECT_EQ(connect(id, 0, 2, opts(2), &b), GSHMEM_ERROR_BOOTSTRAP);
  std::string err = testing::internal::GetCapturedStderr();
  close(lfd);
  EXPECT_TRUE(contains(err, "port " + std::to_string(port) +
                                " on 127.0.0.1 is in use; set "
                                "GSHMEM_BOOTSTRAP_PORT to a free port"))
      << err;
}

TEST(BootstrapConnect, BadInheritedListenFd) {
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("127.0.0.1", free_port(), 1, 2, &id), GSHMEM_SUCCESS);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  std::unique_ptr<Bootstrap> b;
  setenv(kListenFdEnvVar, std::to_string(p[0]).c_str(), 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(connect(id, 0, 2, opts(2), &b), GSHMEM_ERROR_BOOTSTRAP);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "is not a listening socket")) << err;
  setenv(kListenFdEnvVar, "seven", 1);
  testing::internal::CaptureStderr();
  EXPECT_EQ(connect(id, 0, 2, opts(2), &b), GSHMEM_ERROR_INVALID_VALUE);
  err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(contains(err, "GSHMEM_BOOTSTRAP_LISTEN_FD=\"seven\"")) << err;
  unsetenv(kListenFdEnvVar);
  close(p[0]);
  close(p[1]);
}

TEST(BootstrapConnect, UnreachableRootTimesOut) {
  uint16_t port = free_port();
  gshmemx_uniqueid_t id;
  ASSERT_EQ(make_uniqueid("127.0.0.1", port, 1, 2, &id), GSHMEM_SUCCESS);
  std::unique_ptr<Bootstrap> b;
  auto t0 = Clock::now();
  testing::internal::CaptureStderr();
  EXPECT_EQ(connect(id, 1, 2, opts(1), &b), GSHMEM_ERROR_BOOTSTRAP);
  std::string err = testing::internal::GetCapturedStderr();
  double dt = seconds_since(t0);
  EXPECT_GE(dt, 0.9);
  EXPECT_LT(dt, 4.0);
  EXPECT_TRUE(contains(err, "could not reach PE 0 at 127.0.0.1:" + std::to_string(port))) << err;
}

}  // namespace
