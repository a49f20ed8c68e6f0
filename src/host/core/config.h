// SPDX-License-Identifier: BSD-3-Clause
// Typed access to the configuration table (config_table.h).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "config_table.h"
#include "status.h"

namespace gshmem::config {

using Size = uint64_t;
using Int = long long;
using Bool = bool;
using String = std::string;
using LogLevel = int;  // gshmem::log::Level as int

struct Values {
#define GSHMEM_CONFIG_FIELD(field, env, type, def, help) type field;
  GSHMEM_CONFIG_TABLE(GSHMEM_CONFIG_FIELD)
#undef GSHMEM_CONFIG_FIELD
};

// Parse every variable from the environment (defaults where unset). A malformed
// value is an error naming the variable, the value and what is accepted.
Status load();
// Values from the last successful load() (defaults before the first).
const Values& get();

// Print the table: name, type, default, current value (if show_current) and help.
void print_table(FILE* out, bool show_current);

// Parsers, exposed for the unit tests. Return false on malformed input.
bool parse_size(const char* text, uint64_t* out);
bool parse_int(const char* text, long long* out);
bool parse_bool(const char* text, bool* out);
bool parse_log_level(const char* text, int* out);

}  // namespace gshmem::config
