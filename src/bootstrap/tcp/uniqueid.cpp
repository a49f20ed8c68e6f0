// SPDX-License-Identifier: BSD-3-Clause
// Unique ids: creation (with the rank-0 listener registry), text encoding.
#include "bootstrap/tcp/uniqueid.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "bootstrap/tcp/socket.h"
#include "host/core/config.h"

namespace gshmem::bootstrap {
namespace tcp {
namespace {

std::mutex g_registry_mutex;
std::map<uint64_t, int>& registry() {
  static std::map<uint64_t, int> r;  // job_key -> listening socket
  return r;
}

bool read_random(void* buf, size_t len) {
  char* p = static_cast<char*>(buf);
  size_t got = 0;
  while (got < len) {
    ssize_t n = getrandom(p + got, len - got, 0);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;
    }
  }
  if (got == len) return true;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  got = 0;
  while (got < len) {
    ssize_t n = read(fd, p + got, len - got);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (!(n < 0 && errno == EINTR)) {
      break;
    }
  }
  close(fd);
  return got == len;
}

// Address for the id: the named interface's, else the first non-loopback IPv4
// interface that is up, else 127.0.0.1.
Status pick_address(UniqueIdData* d) {
  std::string ifname = config::get().bootstrap_ifname;
  if (ifname.empty())
    if (const char* e = getenv("GSHMEM_BOOTSTRAP_IFNAME")) ifname = e;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) {
    int e = errno;
    if (!ifname.empty()) {
      GSHMEM_LOG_ERROR(
          "bootstrap: cannot list network interfaces to find GSHMEM_BOOTSTRAP_IFNAME=%s: "
          "getifaddrs failed: %s",
          ifname.c_str(), errno_string(e).c_str());
      return GSHMEM_ERROR_SYSTEM;
    }
    list = nullptr;
  }
  const ifaddrs* v4 = nullptr;
  const ifaddrs* v6 = nullptr;
  std::string names;
  for (const ifaddrs* a = list; a; a = a->ifa_next) {
    if (!a->ifa_addr) continue;
    int fam = a->ifa_addr->sa_family;
    if (fam != AF_INET && fam != AF_INET6) continue;
    if (names.find(std::string(" ") + a->ifa_name + ",") == std::string::npos)
      names += std::string(" ") + a->ifa_name + ",";
    if (!ifname.empty()) {
      if (ifname != a->ifa_name) continue;
      if (fam == AF_INET && !v4) v4 = a;
      if (fam == AF_INET6 && !v6 &&
          !IN6_IS_ADDR_LINKLOCAL(&reinterpret_cast<const sockaddr_in6*>(a->ifa_addr)->sin6_addr))
        v6 = a;
    } else if (fam == AF_INET && !v4 && (a->ifa_flags & IFF_UP) && !(a->ifa_flags & IFF_LOOPBACK)) {
      v4 = a;
    }
  }
  d->family = AF_INET;
  memset(d->addr, 0, sizeof(d->addr));
  if (v4) {
    memcpy(d->addr, &reinterpret_cast<const sockaddr_in*>(v4->ifa_addr)->sin_addr, 4);
  } else if (v6) {
    d->family = AF_INET6;
    memcpy(d->addr, &reinterpret_cast<const sockaddr_in6*>(v6->ifa_addr)->sin6_addr, 16);
  } else if (!ifname.empty()) {
    if (!names.empty()) names.pop_back();  // trailing comma
    GSHMEM_LOG_ERROR(
        "bootstrap: GSHMEM_BOOTSTRAP_IFNAME=%s: no such interface with an IPv4 or global "
        "IPv6 address (interfaces with addresses:%s). Fix or unset it.",
        ifname.c_str(), names.empty() ? " none" : names.c_str());
    if (list) freeifaddrs(list);
    return GSHMEM_ERROR_INVALID_VALUE;
  } else {
    uint32_t lo = htonl(INADDR_LOOPBACK);
    memcpy(d->addr, &lo, 4);
  }
  if (list) freeifaddrs(list);
  return GSHMEM_SUCCESS;
}

bool parse_hex64(const std::string& s, uint64_t* out) {
  if (s.size() != 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int x;
    if (c >= '0' && c <= '9')
      x = c - '0';
    else if (c >= 'a' && c <= 'f')
      x = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      x = c - 'A' + 10;
    else
      return false;
    v = (v << 4) | static_cast<uint64_t>(x);
  }
  *out = v;
  return true;
}

Status malformed(const char* text, const std::string& why) {
  std::string shown(text);
  if (shown.size() > 200) shown = shown.substr(0, 200) + "...";
  GSHMEM_LOG_ERROR(
      "bootstrap: malformed unique id \"%s\": %s (expected "
      "<IPv4 or [IPv6]>:<port>:<16 hex digits>:<16 hex digits>)",
      shown.c_str(), why.c_str());
  return GSHMEM_ERROR_INVALID_VALUE;
}

}  // namespace

uint64_t random_u64() {
  uint64_t v = 0;
  if (!read_random(&v, sizeof(v))) {
    // Last resort; only reached when neither getrandom nor /dev/urandom work.
    GSHMEM_LOG_WARN("bootstrap: no system random source; the job secret is weak");
    v = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
        (static_cast<uint64_t>(getpid()) << 32) ^ reinterpret_cast<uintptr_t>(&v);
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
  }
  return v;
}

void store_uniqueid(const UniqueIdData& d, gshmemx_uniqueid_t* out) {
  memset(out, 0, sizeof(*out));
  memcpy(out->internal, &d, sizeof(d));
}

bool uniqueid_valid(const UniqueIdData& d, std::string* why) {
  if (d.magic != kUniqueIdMagic || d.version != 1) {
    *why = "it was not made by gshmemx_get_uniqueid (or was not copied whole to every PE)";
    return false;
  }
  if (d.family != AF_INET && d.family != AF_INET6) {
    *why = "unknown address family " + std::to_string(d.family);
    return false;
  }
  if (d.port == 0) {
    *why = "port 0";
    return false;
  }
  return true;
}

void uniqueid_sockaddr(const UniqueIdData& d, sockaddr_storage* ss, socklen_t* len) {
  memset(ss, 0, sizeof(*ss));
  if (d.family == AF_INET6) {
    auto* s6 = reinterpret_cast<sockaddr_in6*>(ss);
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons(d.port);
    memcpy(&s6->sin6_addr, d.addr, 16);
    *len = sizeof(sockaddr_in6);
  } else {
    auto* s4 = reinterpret_cast<sockaddr_in*>(ss);
    s4->sin_family = AF_INET;
    s4->sin_port = htons(d.port);
    memcpy(&s4->sin_addr, d.addr, 4);
    *len = sizeof(sockaddr_in);
  }
}

std::string uniqueid_endpoint(const UniqueIdData& d) {
  sockaddr_storage ss;
  socklen_t len;
  uniqueid_sockaddr(d, &ss, &len);
  return format_sockaddr(reinterpret_cast<sockaddr*>(&ss));
}

std::string uniqueid_host(const UniqueIdData& d) {
  char host[INET6_ADDRSTRLEN] = "?";
  inet_ntop(d.family == AF_INET6 ? AF_INET6 : AF_INET, d.addr, host, sizeof(host));
  return host;
}

int take_registered_listener(uint64_t job_key) {
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = registry().find(job_key);
  if (it == registry().end()) return -1;
  int fd = it->second;
  registry().erase(it);
  return fd;
}

}  // namespace tcp

using namespace tcp;

UniqueIdData uniqueid_data(const gshmemx_uniqueid_t& id) {
  UniqueIdData d;
  memcpy(&d, id.internal, sizeof(d));
  return d;
}

std::string encode_uniqueid(const gshmemx_uniqueid_t& id) {
  UniqueIdData d = uniqueid_data(id);
  char host[INET6_ADDRSTRLEN] = "";
  inet_ntop(d.family == AF_INET6 ? AF_INET6 : AF_INET, d.addr, host, sizeof(host));
  char buf[160];
  snprintf(buf, sizeof(buf),
           d.family == AF_INET6 ? "[%s]:%u:%016" PRIx64 ":%016" PRIx64 : "%s:%u:%016" PRIx64 ":%016" PRIx64, host,
           static_cast<unsigned>(d.port), d.secret, d.job_key);
  return buf;
}

Status decode_uniqueid(const char* text, gshmemx_uniqueid_t* out) {
  if (!text) {
    GSHMEM_LOG_ERROR("bootstrap: decode_uniqueid: no text (NULL)");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  if (!out) {
    GSHMEM_LOG_ERROR("bootstrap: decode_uniqueid: output pointer is NULL");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::string s(text);
  size_t p3 = s.rfind(':');
  size_t p2 = p3 == std::string::npos || p3 == 0 ? std::string::npos : s.rfind(':', p3 - 1);
  size_t p1 = p2 == std::string::npos || p2 == 0 ? std::string::npos : s.rfind(':', p2 - 1);
  if (p1 == std::string::npos) return malformed(text, "it does not have four ':'-separated fields");
  std::string addr = s.substr(0, p1), port = s.substr(p1 + 1, p2 - p1 - 1);
  std::string secret = s.substr(p2 + 1, p3 - p2 - 1), job = s.substr(p3 + 1);
  UniqueIdData d{};
  d.magic = kUniqueIdMagic;
  d.version = 1;
  if (!addr.empty() && addr.front() == '[') {
    if (addr.size() < 3 || addr.back() != ']') return malformed(text, "IPv6 address lacks its closing ']'");
    std::string inner = addr.substr(1, addr.size() - 2);
    if (inet_pton(AF_INET6, inner.c_str(), d.addr) != 1)
      return malformed(text, "\"" + inner + "\" is not a numeric IPv6 address");
    d.family = AF_INET6;
  } else {
    if (addr.find(':') != std::string::npos) return malformed(text, "an IPv6 address must be written in [brackets]");
    if (addr.empty()) return malformed(text, "the address is empty");
    if (inet_pton(AF_INET, addr.c_str(), d.addr) != 1)
      return malformed(text, "\"" + addr + "\" is not a numeric IPv4 address");
    d.family = AF_INET;
  }
  if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    return malformed(text, "port \"" + port + "\" is not a number");
  unsigned long pv = strtoul(port.c_str(), nullptr, 10);
  if (pv < 1 || pv > 65535) return malformed(text, "port " + port + " is not in 1..65535");
  d.port = static_cast<uint16_t>(pv);
  if (!parse_hex64(secret, &d.secret)) return malformed(text, "the secret \"" + secret + "\" is not 16 hex digits");
  if (!parse_hex64(job, &d.job_key)) return malformed(text, "the job key \"" + job + "\" is not 16 hex digits");
  store_uniqueid(d, out);
  return GSHMEM_SUCCESS;
}

Status create_uniqueid(gshmemx_uniqueid_t* out) {
  if (!out) {
    GSHMEM_LOG_ERROR("bootstrap: create_uniqueid: output pointer is NULL");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  UniqueIdData d{};
  d.magic = kUniqueIdMagic;
  d.version = 1;
  GSHMEM_TRY(pick_address(&d));
  int err = 0;
  int fd = open_listener(d.family, 0, &err);
  if (fd < 0) {
    GSHMEM_LOG_ERROR("bootstrap: cannot open the rendezvous listening socket: %s", errno_string(err).c_str());
    return GSHMEM_ERROR_SYSTEM;
  }
  int port = local_port(fd);
  if (port <= 0) {
    GSHMEM_LOG_ERROR("bootstrap: getsockname on the rendezvous socket failed: %s", errno_string(errno).c_str());
    close(fd);
    return GSHMEM_ERROR_SYSTEM;
  }
  d.port = static_cast<uint16_t>(port);
  d.secret = random_u64();
  {
    std::lock_guard<std::mutex> lock(g_registry_mutex);
    do {
      d.job_key = random_u64();
    } while (d.job_key == 0 || registry().count(d.job_key));
    registry()[d.job_key] = fd;
  }
  store_uniqueid(d, out);
  GSHMEM_LOG_INFO("bootstrap: new unique id, rendezvous at %s", uniqueid_endpoint(d).c_str());
  return GSHMEM_SUCCESS;
}

Status make_uniqueid(const char* host, uint16_t port, uint64_t secret, uint64_t job_key, gshmemx_uniqueid_t* out) {
  if (!host || !*host || !out || port == 0) {
    GSHMEM_LOG_ERROR("bootstrap: make_uniqueid: %s", !host || !*host ? "no host given"
                                                     : !out          ? "output pointer is NULL"
                                                                     : "port 0 is not allowed");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  std::string h(host);
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  int rc = getaddrinfo(h.c_str(), nullptr, &hints, &res);
  if (rc != 0 || !res) {
    GSHMEM_LOG_ERROR("bootstrap: cannot resolve rendezvous host \"%s\": %s", host,
                     rc == EAI_SYSTEM ? errno_string(errno).c_str() : gai_strerror(rc));
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  const addrinfo* pick = nullptr;
  for (const addrinfo* a = res; a && !pick; a = a->ai_next)
    if (a->ai_family == AF_INET) pick = a;
  for (const addrinfo* a = res; a && !pick; a = a->ai_next)
    if (a->ai_family == AF_INET6) pick = a;
  UniqueIdData d{};
  d.magic = kUniqueIdMagic;
  d.version = 1;
  d.secret = secret;
  d.job_key = job_key;
  d.port = port;
  if (!pick) {
    freeaddrinfo(res);
    GSHMEM_LOG_ERROR("bootstrap: rendezvous host \"%s\" has no IPv4 or IPv6 address", host);
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (pick->ai_family == AF_INET) {
    d.family = AF_INET;
    memcpy(d.addr, &reinterpret_cast<const sockaddr_in*>(pick->ai_addr)->sin_addr, 4);
  } else {
    d.family = AF_INET6;
    memcpy(d.addr, &reinterpret_cast<const sockaddr_in6*>(pick->ai_addr)->sin6_addr, 16);
  }
  freeaddrinfo(res);
  store_uniqueid(d, out);
  return GSHMEM_SUCCESS;
}

int uniqueid_listener_fd(const gshmemx_uniqueid_t& id) {
  UniqueIdData d = uniqueid_data(id);
  std::lock_guard<std::mutex> lock(g_registry_mutex);
  auto it = registry().find(d.job_key);
  return it == registry().end() ? -1 : it->second;
}

void release_uniqueid_listener(const gshmemx_uniqueid_t& id) {
  int fd = take_registered_listener(uniqueid_data(id).job_key);
  close_fd(&fd);
}

}  // namespace gshmem::bootstrap
