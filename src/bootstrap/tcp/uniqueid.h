// SPDX-License-Identifier: BSD-3-Clause
// Internal helpers around UniqueIdData shared by the TCP bootstrap sources.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>

#include "bootstrap/bootstrap.h"

namespace gshmem::bootstrap::tcp {

void store_uniqueid(const UniqueIdData& d, gshmemx_uniqueid_t* out);
// True when magic, version, family and port look like an id we made.
bool uniqueid_valid(const UniqueIdData& d, std::string* why);
// Socket address of the rendezvous point.
void uniqueid_sockaddr(const UniqueIdData& d, sockaddr_storage* ss, socklen_t* len);
// "10.0.0.5:41234" or "[::1]:41234".
std::string uniqueid_endpoint(const UniqueIdData& d);
// "10.0.0.5" or "::1".
std::string uniqueid_host(const UniqueIdData& d);
// Take ownership of the listener create_uniqueid() registered for job_key
// (-1 if none).
int take_registered_listener(uint64_t job_key);
// Rank 0's listening socket for `d` (listener.cpp): the launcher's
// (GSHMEM_BOOTSTRAP_LISTEN_FD, validated), else the one create_uniqueid
// registered, else bound now on d.port (a clear error if the port is taken).
Status open_root_listener(const UniqueIdData& d, int* fd);
// Done with a listener from open_root_listener: closes it, the launcher's
// inherited socket too (a later init binds that socket's address again).
void close_root_listener(int* fd);
// Close any listener open_root_listener would have used (single-PE jobs).
void drop_root_listener(const UniqueIdData& d);
// 64 random bits from getrandom() (or /dev/urandom).
uint64_t random_u64();

}  // namespace gshmem::bootstrap::tcp
