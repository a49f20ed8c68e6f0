// SPDX-License-Identifier: BSD-3-Clause
// tcp_bytes_received (heartbeat.h), apart: <linux/tcp.h>, which has the field, and glibc's
// <netinet/tcp.h>, which the other files include and which lacks it, cannot share a file.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace gshmem::bootstrap::tcp {

bool tcp_bytes_received(int fd, uint64_t* out) {
  struct tcp_info ti;
  memset(&ti, 0, sizeof(ti));
  socklen_t len = sizeof(ti);
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return false;
  // An older kernel fills a shorter struct: the field is then not there.
  if (len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof(ti.tcpi_bytes_received)) return false;
  *out = ti.tcpi_bytes_received;
  return true;
}

}  // namespace gshmem::bootstrap::tcp
