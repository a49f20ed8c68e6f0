// SPDX-License-Identifier: BSD-3-Clause
// Rank 0 after a failed rendezvous: the PEs still knocking learn why (late_joiners.h).
#include "bootstrap/tcp/late_joiners.h"

#include <poll.h>

#include "host/core/log.h"

namespace gshmem::bootstrap::tcp {

int answer_late_joiners(int listener, const AuthKey& key, Status st, const std::string& why, const Deadline& dl) {
  int answered = 0;
  while (!dl.expired()) {
    pollfd p{listener, POLLIN, 0};
    if (poll(&p, 1, dl.remaining_ms()) <= 0) continue;  // EINTR, or the deadline (checked above)
    Knock k;
    int err = 0;
    k.fd = accept_one(listener, &k.peer, &err);
    if (k.fd < 0) {
      if (err == EMFILE || err == ENFILE) return answered;  // no descriptor to answer with
      continue;
    }
    // A joiner sends its Hello at once and its proof right after the challenge; one that does
    // not within 0.5 s is not a PE.
    const Deadline kdl = dl.sooner(0.5);
    KnockStep step = KnockStep::more;
    while (step == KnockStep::more && !kdl.expired()) {
      pollfd q{k.fd, POLLIN, 0};
      if (poll(&q, 1, kdl.remaining_ms()) > 0) step = knock_step(&k, key, kdl);
    }
    if (step == KnockStep::authenticated) {
      send_message(k.fd, Header{static_cast<uint32_t>(Op::ack), 0, why.size(), -1, st}, why.data(), why.size(),
                   dl.sooner(0.5), &err);
      ++answered;
      GSHMEM_LOG_TRACE("bootstrap: told late PE %d at %s why the job failed", k.hello.rank, k.peer.c_str());
    }
    std::vector<int> one{k.fd};
    lingering_close(&one, 100);
  }
  return answered;
}

}  // namespace gshmem::bootstrap::tcp
