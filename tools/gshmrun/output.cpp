// SPDX-License-Identifier: BSD-3-Clause
#include "output.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace gshmrun {
namespace {
// A "line" longer than this is written in pieces, each with the prefix.
constexpr size_t kMaxLine = 64 * 1024;
}  // namespace

void write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    data += w;
    n -= static_cast<size_t>(w);
  }
}

LineTagger::LineTagger(int rank, int out_fd) : prefix_("[" + std::to_string(rank) + "] "), out_fd_(out_fd) {}

void LineTagger::emit(const char* line, size_t n) {
  buf_.assign(prefix_);
  buf_.append(line, n);
  buf_.push_back('\n');
  write_all(out_fd_, buf_.data(), buf_.size());
}

void LineTagger::feed(const char* data, size_t n) {
  while (n > 0) {
    const char* nl = static_cast<const char*>(memchr(data, '\n', n));
    if (nl == nullptr) {
      partial_.append(data, n);
      if (partial_.size() >= kMaxLine) {
        emit(partial_.data(), partial_.size());
        partial_.clear();
      }
      return;
    }
    const size_t len = static_cast<size_t>(nl - data);
    if (partial_.empty()) {
      emit(data, len);
    } else {
      partial_.append(data, len);
      emit(partial_.data(), partial_.size());
      partial_.clear();
    }
    data = nl + 1;
    n -= len + 1;
  }
}

void LineTagger::flush() {
  if (!partial_.empty()) {
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
}

}  // namespace gshmrun
