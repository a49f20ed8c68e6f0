// SPDX-License-Identifier: BSD-3-Clause
// The node-local handle exchange of the symmetric heap (host/mem/heap_fd_exchange.cpp) over
// forked ranks on two simulated nodes: each PE receives its node's fds and bytes, and nothing
// from the other node (the IPC heap's handles, which once were all-gathered over the job).
#include <sys/mman.h>
#include <sys/stat.h>

#include "bootstrap_test_util.h"
#include "host/mem/heap.h"

namespace {

using namespace bootstrap_test;

constexpr int kPpn = 3;

gshmem::mem::HeapParams params(int r, int n, uint64_t job_key) {
  gshmem::mem::HeapParams p;
  p.my_pe = r;
  p.n_pes = n;
  p.job_key = job_key;
  for (int pe = r / kPpn * kPpn; pe < std::min(n, r / kPpn * kPpn + kPpn); ++pe) p.local_pes.push_back(pe);
  return p;
}

struct Blob {
  int pe;
  char text[60];
};

// fds: a memfd of (rank + 1) * 4096 bytes, so that its size names the sender.
int exchange_body(const gshmemx_uniqueid_t& id, int r, int n, bool with_fds) {
  std::unique_ptr<Bootstrap> b;
  CHILD_CHECK(connect(id, r, n, opts(30), &b) == GSHMEM_SUCCESS, "connect");
  const gshmem::mem::HeapParams p = params(r, n, b->job_key());
  int fd = -1;
  if (with_fds) {
    fd = memfd_create("gshmem-test", MFD_CLOEXEC);
    CHILD_CHECK(fd >= 0 && ftruncate(fd, (r + 1) * 4096) == 0, "memfd");
  }
  Blob mine{r, {}};
  snprintf(mine.text, sizeof(mine.text), "handle of PE %d", r);
  std::vector<int> fds;
  std::vector<uint8_t> blobs;
  CHILD_CHECK(gshmem::mem::exchange_local(p, *b, 7, fd, &mine, sizeof(mine), &fds, &blobs) == GSHMEM_SUCCESS,
              "exchange_local");
  CHILD_CHECK(fds.size() == p.local_pes.size() && blobs.size() == p.local_pes.size() * sizeof(Blob), "sizes");
  for (size_t i = 0; i < p.local_pes.size(); ++i) {
    const int pe = p.local_pes[i];
    if (pe == r) continue;
    Blob theirs;
    memcpy(&theirs, &blobs[i * sizeof(Blob)], sizeof(Blob));
    char want[60];
    snprintf(want, sizeof(want), "handle of PE %d", pe);
    CHILD_CHECK(theirs.pe == pe && !strcmp(theirs.text, want), "PE %d's bytes are wrong", pe);
    if (!with_fds) {
      CHILD_CHECK(fds[i] == -1, "an fd where none was sent");
      continue;
    }
    struct stat st {};
    CHILD_CHECK(fds[i] >= 0 && fstat(fds[i], &st) == 0 && st.st_size == (pe + 1) * 4096, "PE %d's fd", pe);
    close(fds[i]);
  }
  if (fd >= 0) close(fd);
  return b->finalize() == GSHMEM_SUCCESS ? 0 : 1;
}

TEST(HeapExchange, BytesStayOnTheNode) {
  const int n = 5;  // nodes {0, 1, 2} and {3, 4}
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) { return exchange_body(id, r, n, false); });
}

TEST(HeapExchange, FdsAndBytesStayOnTheNode) {
  const int n = 6;
  gshmemx_uniqueid_t id = loopback_id();
  run_ranks(n, id, 60, [&](int r) { return exchange_body(id, r, n, true); });
}

}  // namespace
