// SPDX-License-Identifier: BSD-3-Clause
// gshmem-info: prints the version and every GSHMEM_* configuration variable
// (name, type, default, current value, help) from the one config table.
#include <cstdio>
#include <cstring>

#include "gshmem/types.h"
#include "host/core/config.h"

int main(int argc, char** argv) {
  bool current = true;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      printf(
          "usage: gshmem-info [--defaults]\n"
          "Prints gshmem's version and its environment variables with their current values.\n"
          "  --defaults   show defaults only, not the values set in this environment\n");
      return 0;
    } else if (!strcmp(argv[i], "--defaults")) {
      current = false;
    } else {
      fprintf(stderr, "gshmem-info: unknown argument '%s' (try --help)\n", argv[i]);
      return 2;
    }
  }
  printf("gshmem %s (OpenSHMEM %d.%d API for NVIDIA GPUs)\n\n", GSHMEM_VERSION_STRING, GSHMEM_SPEC_MAJOR_VERSION,
         GSHMEM_SPEC_MINOR_VERSION);
  printf("Environment variables:\n\n");
  gshmem::config::print_table(stdout, current);
  return 0;
}
