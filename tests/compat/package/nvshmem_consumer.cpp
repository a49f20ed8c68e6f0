// SPDX-License-Identifier: BSD-3-Clause
// Installed-package consumer in the NVSHMEM dialect: loads libgshmem, queries it uninitialised.
#include <nvshmem.h>
#include <nvshmemx.h>

#include <cstdio>

int main() {
  char name[NVSHMEM_MAX_NAME_LEN];
  nvshmem_info_get_name(name);
  const bool ok = nvshmemx_init_status() == NVSHMEM_STATUS_NOT_INITIALIZED && nvshmem_my_pe() == -1;
  printf("%s via <nvshmem.h>: %s\n", name, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
