// SPDX-License-Identifier: BSD-3-Clause
// --tag-output: turns the byte stream a PE writes into lines prefixed "[i] ".
#pragma once

#include <cstddef>
#include <string>

namespace gshmrun {

class LineTagger {
 public:
  // Lines go to `out_fd` (gshmrun's stdout or stderr), each with one write.
  LineTagger(int rank, int out_fd);
  // Appends bytes read from the PE; writes every completed line.
  void feed(const char* data, size_t n);
  // Writes a pending partial line (with a newline added); call at end of stream.
  void flush();

 private:
  void emit(const char* line, size_t n);

  std::string prefix_;
  std::string partial_;
  std::string buf_;
  int out_fd_;
};

// write() all of [data, data+n) to fd, retrying on EINTR/short writes. Errors
// (EPIPE when the reader went away) drop the output; supervision goes on.
void write_all(int fd, const char* data, size_t n);

}  // namespace gshmrun
