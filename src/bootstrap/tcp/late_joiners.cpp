// SPDX-License-Identifier: BSD-3-Clause
// Rank 0 after a failed rendezvous: the PEs still knocking learn why (late_joiners.h).
#include "bootstrap/tcp/late_joiners.h"

#include <poll.h>

#include "host/core/log.h"

namespace gshmem::bootstrap::tcp {

int answer_late_joiners(int listener, const UniqueIdData& d, Status st, const std::string& why, const Deadline& dl) {
  int answered = 0;
  while (!dl.expired()) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, dl.remaining_ms()) <= 0) continue;  // EINTR, or the deadline (checked above)
    std::string peer;
    int err = 0;
    const int fd = accept_one(listener, &peer, &err);
    if (fd < 0) {
      if (err == EMFILE || err == ENFILE) return answered;  // no descriptor to answer with
      continue;
    }
    // A joiner sends its Hello at once; one that does not within 0.5 s is not a PE.
    uint8_t buf[kHelloBytes];
    const Hello h = recv_all(fd, buf, sizeof(buf), dl.sooner(0.5), &err) == Io::ok ? decode_hello(buf) : Hello{0};
    if (h.magic == kHelloMagic && h.secret == d.secret) {
      send_message(fd, Header{static_cast<uint32_t>(Op::ack), 0, why.size(), -1, st}, why.data(), why.size(),
                   dl.sooner(0.5), &err);
      ++answered;
      GSHMEM_LOG_TRACE("bootstrap: told late PE %d at %s why the job failed", h.rank, peer.c_str());
    }
    std::vector<int> one{fd};
    lingering_close(&one, 100);
  }
  return answered;
}

}  // namespace gshmem::bootstrap::tcp
