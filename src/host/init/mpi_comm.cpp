// SPDX-License-Identifier: BSD-3-Clause
// Bootstrap from the caller's MPI communicator without linking MPI (see mpi_comm.h).
//
// The MPI functions are looked up at run time in the MPI library the program already loaded:
// first in the global namespace (a program linked with MPI, or MPI dlopen'ed RTLD_GLOBAL), then
// as an already-loaded Open MPI library (RTLD_NOLOAD: e.g. loaded privately by a Python
// extension). Nothing is ever loaded that the program did not load itself.
//
// ABI: only Open MPI's is supported. There MPI_Comm and MPI_Datatype are pointers to library
// objects and the predefined handles are the addresses of exported objects (MPI_BYTE is
// &ompi_mpi_byte, MPI_COMM_NULL is &ompi_mpi_comm_null), so exporting ompi_mpi_byte identifies
// the ABI. MPICH-derived libraries (MPICH, Intel MPI, MVAPICH, Cray MPICH) use integer handles:
// they are detected (MPI_Comm_rank exists, ompi_mpi_byte does not) and refused with a message.
#include "mpi_comm.h"

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "bootstrap/bootstrap.h"

namespace gshmem::mpi {
namespace {

constexpr const char* kCall = "gshmemx_init_attr(GSHMEMX_INIT_WITH_MPI_COMM)";

// Open MPI's handle types, as far as gshmem needs them: opaque pointers.
using Comm = void*;
using Datatype = void*;

struct OmpiApi {
  int (*Initialized)(int*) = nullptr;
  int (*Finalized)(int*) = nullptr;
  int (*Comm_rank)(Comm, int*) = nullptr;
  int (*Comm_size)(Comm, int*) = nullptr;
  int (*Bcast)(void*, int, Datatype, int, Comm) = nullptr;
  Datatype byte = nullptr;   // MPI_BYTE
  Comm comm_null = nullptr;  // MPI_COMM_NULL
};

// Where the loaded MPI's symbols come from, for messages: library path and version string.
std::string describe_mpi(void* handle) {
  std::string what = "unknown library";
  Dl_info info{};
  if (void* f = dlsym(handle, "MPI_Comm_rank"); f && dladdr(f, &info) && info.dli_fname) what = info.dli_fname;
  using VersionFn = int (*)(char*, int*);
  if (auto version = reinterpret_cast<VersionFn>(dlsym(handle, "MPI_Get_library_version"))) {
    static char text[8192];  // MPI_MAX_LIBRARY_VERSION_STRING is 256 (Open MPI) to 8192 (MPICH)
    int len = 0;
    if (version(text, &len) == 0 && len > 0) {
      std::string v(text, strnlen(text, sizeof(text)));
      if (size_t nl = v.find_first_of("\r\n"); nl != std::string::npos) v.resize(nl);
      what += " (" + v + ")";
    }
  }
  return what;
}

// Finds the handle MPI's symbols are reached through (*handle; note RTLD_DEFAULT is NULL);
// false when the program loaded no MPI. A handle from dlopen stays open: MPI stays loaded anyway.
bool find_mpi(void** handle) {
  *handle = RTLD_DEFAULT;
  if (dlsym(RTLD_DEFAULT, "MPI_Comm_rank")) return true;
  for (const char* lib : {"libmpi.so.40", "libmpi.so"}) {  // Open MPI 3-5 sonames
    if (void* h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD)) {
      if (dlsym(h, "MPI_Comm_rank")) return *handle = h, true;
      dlclose(h);
    }
  }
  return false;
}

template <class F>
void bind(void* handle, const char* name, F* out) {
  *out = reinterpret_cast<F>(dlsym(handle, name));
}

Status load_api(OmpiApi* api) {
  void* h = nullptr;
  if (!find_mpi(&h)) {
    GSHMEM_LOG_ERROR(
        "%s: this program has not loaded an MPI library (MPI_Comm_rank not found). Link the "
        "program with MPI (e.g. mpicc, or MPI::MPI_CXX in CMake) and call MPI_Init first, or "
        "initialise with gshmem_init / GSHMEMX_INIT_WITH_UNIQUEID instead",
        kCall);
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  api->byte = dlsym(h, "ompi_mpi_byte");
  api->comm_null = dlsym(h, "ompi_mpi_comm_null");
  bind(h, "MPI_Initialized", &api->Initialized);
  bind(h, "MPI_Finalized", &api->Finalized);
  bind(h, "MPI_Comm_rank", &api->Comm_rank);
  bind(h, "MPI_Comm_size", &api->Comm_size);
  bind(h, "MPI_Bcast", &api->Bcast);
  if (!api->byte || !api->comm_null) {
    GSHMEM_LOG_ERROR(
        "%s: the loaded MPI, %s, is not Open MPI: gshmem reads MPI_Comm handles with Open MPI's "
        "ABI only (MPICH-family libraries use integer handles). Bootstrap with a unique id "
        "instead: rank 0 calls gshmemx_get_uniqueid(&id), MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, "
        "comm), then every rank calls gshmemx_set_attr_uniqueid_args(rank, size, &id, &attr) and "
        "gshmemx_init_attr(GSHMEMX_INIT_WITH_UNIQUEID, &attr)",
        kCall, describe_mpi(h).c_str());
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  if (!api->Initialized || !api->Finalized || !api->Comm_rank || !api->Comm_size || !api->Bcast) {
    GSHMEM_LOG_ERROR(
        "%s: the loaded MPI, %s, lacks one of MPI_Initialized, MPI_Finalized, MPI_Comm_rank, "
        "MPI_Comm_size, MPI_Bcast",
        kCall, describe_mpi(h).c_str());
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  int initialized = 0, finalized = 0;
  if (api->Initialized(&initialized) != 0 || api->Finalized(&finalized) != 0 || !initialized || finalized) {
    GSHMEM_LOG_ERROR(
        "%s: MPI is %s; call MPI_Init (or MPI_Init_thread) before gshmem and MPI_Finalize "
        "after gshmem_finalize",
        kCall, finalized ? "already finalised" : "not initialised");
    return GSHMEM_ERROR_UNSUPPORTED;
  }
  return GSHMEM_SUCCESS;
}

// What rank 0 broadcasts: whether it could make the id, and the id.
struct IdMessage {
  int32_t status;
  int32_t size;
  gshmemx_uniqueid_t id;
};

}  // namespace

Status uniqueid_attr_from_comm(unsigned flags, const gshmemx_init_attr_t* attr, gshmemx_init_attr_t* out) {
  if (flags != GSHMEMX_INIT_WITH_MPI_COMM) {
    GSHMEM_LOG_ERROR(
        "gshmemx_init_attr: flags 0x%x combine GSHMEMX_INIT_WITH_MPI_COMM with other flags; pass it "
        "alone",
        flags);
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  // Only attr->mpi_comm is read: NVSHMEM-style code may leave the rest of attr uninitialised.
  if (!attr || !attr->mpi_comm) {
    GSHMEM_LOG_ERROR("%s: %s is NULL; set attr.mpi_comm = &comm (a pointer to your MPI_Comm)", kCall,
                     attr ? "attr->mpi_comm" : "attr");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  OmpiApi api;
  GSHMEM_TRY(load_api(&api));
  Comm comm = *static_cast<Comm const*>(attr->mpi_comm);
  if (!comm || comm == api.comm_null) {
    GSHMEM_LOG_ERROR(
        "%s: *attr->mpi_comm is %s; pass a pointer to a valid communicator (e.g. a copy of "
        "MPI_COMM_WORLD)",
        kCall, comm ? "MPI_COMM_NULL" : "a NULL handle");
    return GSHMEM_ERROR_INVALID_VALUE;
  }
  int rank = -1, size = 0;
  if (api.Comm_rank(comm, &rank) != 0 || api.Comm_size(comm, &size) != 0 || size < 1 || rank < 0 || rank >= size) {
    GSHMEM_LOG_ERROR("%s: MPI_Comm_rank/MPI_Comm_size failed on the communicator (rank %d, size %d)", kCall, rank,
                     size);
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  IdMessage msg{};
  if (rank == 0) {
    msg.status = bootstrap::create_uniqueid(&msg.id);  // logs its own failure
    msg.size = size;
  }
  // Every rank takes part even when rank 0 failed (the status says so), so none is left waiting.
  if (api.Bcast(&msg, static_cast<int>(sizeof(msg)), api.byte, 0, comm) != 0) {
    GSHMEM_LOG_ERROR("%s: MPI_Bcast of the bootstrap id from communicator rank 0 failed (rank %d of %d)", kCall, rank,
                     size);
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (msg.status != GSHMEM_SUCCESS) {
    if (rank != 0)
      GSHMEM_LOG_ERROR("%s: communicator rank 0 could not create the bootstrap id (%s; see its log)", kCall,
                       status_name(msg.status));
    return GSHMEM_ERROR_BOOTSTRAP;
  }
  if (msg.size != size) {
    GSHMEM_LOG_ERROR("%s: communicator size differs between ranks (%d here, %d at rank 0)", kCall, size, msg.size);
    return GSHMEM_ERROR_MISMATCH;
  }
  gshmemx_init_attr_t a = GSHMEMX_INIT_ATTR_INITIALIZER;
  a.rank = rank;
  a.nranks = size;
  a.uniqueid = msg.id;
  *out = a;
  GSHMEM_LOG_INFO("bootstrap: MPI communicator, rank %d of %d", rank, size);
  return GSHMEM_SUCCESS;
}

bool world_ready() {
  void* h = nullptr;
  if (!find_mpi(&h) || !dlsym(h, "ompi_mpi_byte") || !dlsym(h, "ompi_mpi_comm_world")) return false;
  OmpiApi api;
  bind(h, "MPI_Initialized", &api.Initialized);
  bind(h, "MPI_Finalized", &api.Finalized);
  int initialized = 0, finalized = 0;
  return api.Initialized && api.Finalized && api.Initialized(&initialized) == 0 && api.Finalized(&finalized) == 0 &&
         initialized && !finalized;
}

Status uniqueid_attr_from_world(gshmemx_init_attr_t* out) {
  void* h = nullptr;
  Comm world = find_mpi(&h) ? dlsym(h, "ompi_mpi_comm_world") : nullptr;  // MPI_COMM_WORLD is its address
  gshmemx_init_attr_t attr = GSHMEMX_INIT_ATTR_INITIALIZER;
  attr.mpi_comm = &world;
  return uniqueid_attr_from_comm(GSHMEMX_INIT_WITH_MPI_COMM, &attr, out);
}

}  // namespace gshmem::mpi
