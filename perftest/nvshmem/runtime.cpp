// SPDX-License-Identifier: BSD-3-Clause
// Host side of the NVSHMEM shim (shim/gshmem/gshmem.h): initialisation from the
// launcher's variables, with NVSHMEM's unique id passed from PE 0 to the others
// through a file named after the job.
#include <gshmem/gshmem.h>

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <string>

namespace {

int env_int(std::initializer_list<const char*> names, int dflt) {
  for (const char* n : names) {
    const char* s = getenv(n);
    if (s && *s) return atoi(s);
  }
  return dflt;
}

[[noreturn]] void die(int rank, const std::string& what) {
  fprintf(stderr, "gshmem-perf-nvshmem: PE %d: %s\n", rank, what.c_str());
  exit(1);
}

// One file per job: gshmrun's rendezvous id (unique per run) or, under another
// launcher, the job size and the parent process (the launcher).
std::string uid_path() {
  const char* dir = getenv("TMPDIR");
  std::string job;
  if (const char* u = getenv("GSHMEM_UNIQUEID"))
    job = u;
  else
    job = std::to_string(env_int({"GSHMEM_SIZE", "OMPI_COMM_WORLD_SIZE", "WORLD_SIZE"}, 1)) + "-" +
          std::to_string(getppid());
  char name[64];
  snprintf(name, sizeof(name), "/gshmem-perf-nvshmem-%zx.uid", std::hash<std::string>{}(job));
  return std::string(dir && *dir ? dir : "/tmp") + name;
}

}  // namespace

void gshmem_init() {
  const int rank = env_int({"GSHMEM_RANK", "OMPI_COMM_WORLD_RANK", "RANK"}, 0);
  const int size = env_int({"GSHMEM_SIZE", "OMPI_COMM_WORLD_SIZE", "WORLD_SIZE"}, 1);
  const int local = env_int({"GSHMEM_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "LOCAL_RANK"}, rank);
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus < 1) die(rank, "no CUDA device");
  if (cudaSetDevice(local % gpus) != cudaSuccess) die(rank, "cudaSetDevice failed");

  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  const std::string path = uid_path();
  if (rank == 0) {
    if (nvshmemx_get_uniqueid(&id) != 0) die(rank, "nvshmemx_get_uniqueid failed");
    const std::string tmp = path + ".tmp";
    FILE* f = fopen(tmp.c_str(), "wb");
    if (!f || fwrite(&id, sizeof(id), 1, f) != 1 || fclose(f) != 0 || rename(tmp.c_str(), path.c_str()) != 0)
      die(rank, "cannot write the unique id to " + path + ": " + strerror(errno));
  } else {
    // PE 0 renames the file into place whole; wait for it up to 60 s.
    bool got = false;
    for (int i = 0; i < 6000 && !got; ++i) {
      if (FILE* f = fopen(path.c_str(), "rb")) {
        got = fread(&id, sizeof(id), 1, f) == 1;
        fclose(f);
      }
      if (!got) usleep(10000);
    }
    if (!got) die(rank, "no unique id from PE 0 in " + path + " after 60 s (did PE 0 start?)");
  }
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  if (nvshmemx_set_attr_uniqueid_args(rank, size, &id, &attr) != 0) die(rank, "nvshmemx_set_attr_uniqueid_args failed");
  if (nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr) != 0) die(rank, "nvshmemx_init_attr failed");
  nvshmem_barrier_all();
  if (rank == 0) unlink(path.c_str());
}

void gshmem_finalize() { nvshmem_finalize(); }

const char* gshmemx_status_string(int status) {
  static thread_local char buf[64];
  snprintf(buf, sizeof(buf), "NVSHMEM returned %d", status);
  return buf;
}
