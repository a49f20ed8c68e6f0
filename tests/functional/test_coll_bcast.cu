// SPDX-License-Identifier: BSD-3-Clause
// Broadcast on teams (WORLD, tail 1..N-1, evens, 2D rows and columns; the rows
// run concurrently in one shared slot):
//   - gshmem_broadcastmem in every form (device thread / warp / partial warp /
//     block / 1000-thread block through the C names and the C++ template, host,
//     on-stream), every team PE as root, sizes 0 .. 1000003 bytes, misaligned
//     source, in place on the root (source == dest);
//   - 4 MiB + 13 bytes from the last team PE: the relay algorithm at >= 3 PEs,
//     32 lanes / CTAs on the host and stream forms; 16 MiB - 4083 bytes: 64 lanes
//     of 256 KiB (the last one 4083 bytes short) in two 128 KiB chunks, so that at
//     4 PEs one of the three owners of each lane forwards nothing, the last chunk
//     of each lane cut smaller in builds with GSHMEMI_RELAY_TAPER (coll_plan.cuh);
//   - the multi-lane sizes also with on-stream calls on even PEs and device
//     block calls on odd ones in the same broadcast (Form::mixed);
//   - the typed C names with several counts: every type's gshmem_TYPE_broadcast
//     on the host and on-stream (long double: the host forms), the device names
//     (thread, _warp, _block) for one type of each size (coll_test.cuh).
// Destinations are poisoned with guard zones; every member checks every byte
// and the guards, and non-members check that nothing reached them.
#include "coll_test.cuh"

using namespace gt;

namespace {

uint64_t g_salt = 50000;  // advances identically on every PE
constexpr size_t kMaxBytes = 16u << 20;

struct Args {
  gshmem_team_t team;
  void* dest;
  const void* src;
  size_t n;
  int root;
  int api;
  int* ret;
};

template <class S>
__global__ void __launch_bounds__(1024) k_bcastmem(Args a) {
  const int r = a.api == 0 ? GT_BY_SCOPE(S, gshmem_broadcastmem, gshmemx_broadcastmem_warp, gshmemx_broadcastmem_block,
                                         a.team, a.dest, a.src, a.n, a.root)
                           : gshmem::broadcastmem<S>(a.team, a.dest, a.src, a.n, a.root);
  if (S::rank() == 0) *a.ret = r;
}

template <class Ty, class S>
__global__ void __launch_bounds__(1024) k_bcast_typed(Args a) {
  using T = typename Ty::T;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.src);
  int r = kNoCppForm;
  if (a.api == 0)
    r = Ty::template broadcast<S>(a.team, d, s, a.n, a.root);
  else if constexpr (kCppTyped<Ty>)
    r = gshmem::broadcast<S>(a.team, d, s, a.n, a.root);
  if (S::rank() == 0) *a.ret = r;
}

struct Bufs {
  Guarded dst, src;
  DevRet ret;
};

int run_mem(Form f, Args a, DevRet& ret) {
  a.ret = ret.d;
  ret.reset();
  return run_form(
      f,
      [&](auto s, int threads, int api) {
        a.api = api;
        k_bcastmem<decltype(s)><<<1, threads>>>(a);
        KERNEL_CHECK();
        return ret.read();
      },
      [&] { return gshmem_broadcastmem(a.team, a.dest, a.src, a.n, a.root); },
      [&](cudaStream_t st) { return gshmemx_broadcastmem_on_stream(a.team, a.dest, a.src, a.n, a.root, st); });
}

template <class Ty>
int run_typed(Form f, Args a, DevRet& ret) {
  using T = typename Ty::T;
  a.ret = ret.d;
  ret.reset();
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.src);
  return run_form(
      f,
      [&](auto sc, int threads, int api) {
        if constexpr (kTypedDevice<Ty, decltype(sc)>) {
          a.api = api;
          k_bcast_typed<Ty, decltype(sc)><<<1, threads>>>(a);
          KERNEL_CHECK();
          return ret.read();
        } else {
          return -999;  // not asked for
        }
      },
      [&] { return Ty::host_broadcast(a.team, d, s, a.n, a.root); },
      [&](cudaStream_t st) { return Ty::stream_broadcast(a.team, d, s, a.n, a.root, st); });
}

// One broadcast of n bytes (mem) on team t from team PE root. Every PE runs
// every case (world barriers); members of a team smaller than root + 1 and
// non-members only check that nothing reached them.
void mem_case(Bufs& b, const TestTeam& t, Form f, size_t n, int root, size_t soff, bool in_place) {
  const uint64_t salt = ++g_salt;
  const int me = gshmem_my_pe();
  const bool active = t.member() && root < t.size;
  set_context("broadcastmem team %s, %s, %zu bytes, root %d, source offset %zu%s%s", t.name.c_str(), form_name(f), n,
              root, soff, in_place ? ", in place" : "", active ? "" : " (not taking part)");
  unsigned char* dest = b.dst.at<unsigned char>(0);
  unsigned char* src = in_place ? dest : b.src.at<unsigned char>(soff);
  poison_device(b.dst.base, kGuard + n + kGuard);
  if (active && (!in_place || t.me == root)) fill_device(src, n, me, salt);
  gshmem_barrier_all();
  if (active) {
    const int r = run_mem(f, Args{t.team, dest, src, n, root, 0, nullptr}, b.ret);
    GT_CHECK_EQ(0, r);
    const int from = t.world[root];
    GT_VERIFY_GUARDED(unsigned char, b.dst, 0, n, [&](size_t i) { return value<unsigned char>(from, i, salt); });
  } else {
    GT_VERIFY_GUARDED(unsigned char, b.dst, 0, n, [](size_t) { return kPoison; });
  }
}

void mem_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  const int npes = gshmem_n_pes();
  const size_t small[] = {0, 1, 7, 16, 29, 32, 33, 1000, 65539};  // up to 32: the LL path
  for (const TestTeam& t : teams)
    for (size_t n : small)
      for (Form f : all_forms())
        for (int root = 0; root < npes; root += sim_quick() ? npes - 1 : 1) mem_case(b, t, f, n, root, 0, false);
  // Misaligned source (byte copies at the edges, narrower vector units).
  for (const TestTeam& t : teams)
    for (size_t soff : {1, 3, 8})
      for (Form f : {Form::thread_c, Form::block_c, Form::host, Form::stream})
        mem_case(b, t, f, 65539, last_pe(t), soff, false);
  // In place on the root: source == dest.
  for (const TestTeam& t : {teams[0], teams[1]})
    for (size_t n : {7, 65539, 1000003})
      for (Form f : {Form::warp_c, Form::block_cpp, Form::host, Form::stream}) mem_case(b, t, f, n, 0, 0, true);
  // Multi-lane sizes; at >= 3 PEs the relay through the non-roots.
  for (const TestTeam& t : {teams[0], teams[1]})
    for (Form f :
         {Form::thread_c, Form::warp_cpp, Form::block_c, Form::block1000, Form::host, Form::stream, Form::mixed})
      for (int root : {0, last_pe(t)}) mem_case(b, t, f, 1000003, root, 0, false);
  for (Form f : {Form::block_c, Form::host, Form::stream, Form::mixed})
    mem_case(b, teams[0], f, (4u << 20) + 13, npes - 1, 3, false);
  mem_case(b, teams[0], Form::stream, (4u << 20) + 13, 1 % npes, 0, true);
  for (Form f : {Form::block_c, Form::stream}) mem_case(b, teams[0], f, (16u << 20) - 4083, npes - 1, 0, false);
}

// Typed C names (and the C++ template through Form::*_cpp for int and double).
template <class Ty>
void typed_case(Bufs& b, const TestTeam& t, Form f, size_t n, int root) {
  using T = typename Ty::T;
  const uint64_t salt = ++g_salt;
  const int me = gshmem_my_pe();
  const bool active = t.member() && root < t.size;
  set_context("%s_broadcast team %s, %s, %zu elements, root %d", Ty::name, t.name.c_str(), form_name(f), n, root);
  T* dest = b.dst.at<T>(0);
  T* src = b.src.at<T>(1);
  poison_device(b.dst.base, kGuard + n * sizeof(T) + kGuard);
  if (active) fill_device(src, n, me, salt);
  gshmem_barrier_all();
  if (active) {
    GT_CHECK_EQ(0, run_typed<Ty>(f, Args{t.team, dest, src, n, root, 0, nullptr}, b.ret));
    const int from = t.world[root];
    GT_VERIFY_GUARDED(T, b.dst, 0, n, [&](size_t i) { return hvalue<T>(from, i, salt); });
  } else {
    GT_VERIFY_GUARDED(unsigned char, b.dst, 0, n * sizeof(T), [](size_t) { return kPoison; });
  }
}

void typed_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  for_each_coll_type([&](auto ty) {
    using Ty = decltype(ty);
    for (const TestTeam& t : {teams[0], teams[2]})
      for (Form f : c_forms()) {
        if (!typed_form<Ty>(f)) continue;
        for (size_t n : {1, 37, 4099}) typed_case<Ty>(b, t, f, n, last_pe(t));
      }
  });
  for (Form f : {Form::thread_cpp, Form::warp_cpp, Form::block_cpp}) {
    typed_case<cty_int>(b, teams[0], f, 1001, 0);
    typed_case<cty_double>(b, teams[3], f, 1001, last_pe(teams[3]));
  }
}

}  // namespace

int main() {
  test_main_prologue(2, 0);
  Bufs b;
  b.dst = make_symmetric(kMaxBytes);
  b.src = make_symmetric(kMaxBytes);
  std::vector<TestTeam> teams = make_test_teams();
  mem_tests(b, teams);
  typed_tests(b, teams);
  destroy_test_teams(teams);
  release(b.dst);
  release(b.src);
  return test_main_epilogue("coll_bcast");
}
