// SPDX-License-Identifier: BSD-3-Clause
// Fault injection of the start-up harness (faults.h).
#include "faults.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "bootstrap/bootstrap.h"

bool parse_ranks(const std::string& text, std::vector<int>* out) {
  out->clear();
  const char* p = text.c_str();
  while (*p) {
    char* end = nullptr;
    const long v = strtol(p, &end, 10);
    if (end == p || v < 0 || (*end && *end != ',')) return false;
    out->push_back(static_cast<int>(v));
    p = *end ? end + 1 : end;
  }
  return !out->empty();
}

void connect_stranger(const gshmemx_uniqueid_t& id) {
  const gshmem::bootstrap::UniqueIdData d = gshmem::bootstrap::uniqueid_data(id);
  if (d.family != AF_INET) return;  // the harness rendezvous on 127.0.0.1
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(d.port);
  memcpy(&sa.sin_addr, d.addr, 4);
  const auto t0 = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - t0 < std::chrono::seconds(3)) {
    const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) return;
    if (connect(s, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0) {
      char junk[24];
      memset(junk, 0x5A, sizeof(junk));
      if (write(s, junk, sizeof(junk)) == static_cast<ssize_t>(sizeof(junk))) {
        pollfd p{s, POLLIN, 0};
        poll(&p, 1, 1000);  // rank 0 rejects it and closes
      }
      close(s);
      return;
    }
    close(s);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

int open_fds() {
  DIR* d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  for (dirent* e; (e = readdir(d));) n += e->d_name[0] != '.';
  closedir(d);
  return n - 1;  // the directory's own descriptor
}
