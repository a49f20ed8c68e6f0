// SPDX-License-Identifier: BSD-3-Clause
// init_config_probe: gshmem_init_thread under gshmrun, PE 1 with one environment variable
// of its own (test_launcher: InitRefusesConfigThatDiffersBetweenPes).
//   init_config_probe [NAME VALUE]   PE 1 sets NAME=VALUE before initialising
// Exits with the status gshmem_init_thread returned (0: initialised, then finalised); a
// failing PE waits 300 ms first, so that every PE has written its report before gshmrun
// stops the job at the first failure (else a slower PE's report could be cut off).
// The shared-configuration check runs before a GPU is chosen, so this runs without one.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "gshmem/gshmem.h"

int main(int argc, char** argv) {
  const char* rank = getenv("GSHMEM_RANK");
  if (argc == 3 && rank != nullptr && atoi(rank) == 1) setenv(argv[1], argv[2], 1);
  int provided = -1;
  const int st = gshmem_init_thread(GSHMEM_THREAD_SINGLE, &provided);
  fprintf(stderr, "init_config_probe: PE %s: status %d\n", rank != nullptr ? rank : "?", st);
  if (st == 0)
    gshmem_finalize();
  else
    usleep(300 * 1000);
  return st;
}
