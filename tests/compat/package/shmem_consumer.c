/* SPDX-License-Identifier: BSD-3-Clause */
/* Installed-package consumer in the OpenSHMEM dialect: loads libgshmem, queries it uninitialised. */
#include <shmem.h>

#include <stdio.h>

int main(void) {
  int major = 0, minor = 0;
  shmem_info_get_version(&major, &minor);
  const int ok = major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION && shmem_n_pes() == -1;
  printf("OpenSHMEM %d.%d via <shmem.h>: %s\n", major, minor, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
