// SPDX-License-Identifier: BSD-3-Clause
// alltoall and alltoalls on teams (WORLD, tail 1..N-1, evens, 2D rows and columns):
//   - gshmem_alltoallmem in every form (device thread / warp / partial warp /
//     block / 1000-thread block through the C names and the C++ template, host,
//     on-stream), 0 .. 262147 bytes per pair (multi-lane, many CTAs), the
//     largest also with on-stream and device block calls mixed (Form::mixed);
//   - gshmem_alltoallsmem and typed alltoalls with dst, sst in {1, 2, 3}: every
//     element lands at its strided place and the holes between keep the poison;
//   - the typed C names of both: every type on the host and on-stream, the device
//     names (thread, _warp, _block) for one type of each size (coll_test.cuh);
//     long double on the host.
// Block j of PE i's source holds value(world PE i, source index); PE j checks
// every element of every block it received and the guard zones.
#include "coll_test.cuh"

using namespace gt;

namespace {

uint64_t g_salt = 70000;
constexpr size_t kMaxBytes = 4 * 262147 + 4096;

struct Args {
  gshmem_team_t team;
  void* dest;
  const void* src;
  ptrdiff_t dst, sst;
  size_t n;
  int strided;
  int api;
  int* ret;
};

template <class S>
__global__ void __launch_bounds__(1024) k_mem(Args a) {
  int r;
  if (a.strided)
    r = a.api == 0 ? GT_BY_SCOPE(S, gshmem_alltoallsmem, gshmemx_alltoallsmem_warp, gshmemx_alltoallsmem_block, a.team,
                                 a.dest, a.src, a.dst, a.sst, a.n)
                   : gshmem::alltoallsmem<S>(a.team, a.dest, a.src, a.dst, a.sst, a.n);
  else
    r = a.api == 0 ? GT_BY_SCOPE(S, gshmem_alltoallmem, gshmemx_alltoallmem_warp, gshmemx_alltoallmem_block, a.team,
                                 a.dest, a.src, a.n)
                   : gshmem::alltoallmem<S>(a.team, a.dest, a.src, a.n);
  if (S::rank() == 0) *a.ret = r;
}

template <class Ty, class S>
__global__ void __launch_bounds__(1024) k_typed(Args a) {
  using T = typename Ty::T;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.src);
  int r = kNoCppForm;
  if (a.api == 0)
    r = a.strided ? Ty::template alltoalls<S>(a.team, d, s, a.dst, a.sst, a.n)
                  : Ty::template alltoall<S>(a.team, d, s, a.n);
  else if constexpr (kCppTyped<Ty>)
    r = a.strided ? gshmem::alltoalls<S>(a.team, d, s, a.dst, a.sst, a.n) : gshmem::alltoall<S>(a.team, d, s, a.n);
  if (S::rank() == 0) *a.ret = r;
}

struct Bufs {
  Guarded dst, src;
  DevRet ret;
};

struct ty_bytes {  // the *mem forms
  using T = unsigned char;
  static constexpr const char* name = "mem";
  static constexpr bool device = true;
};

// Ty = ty_bytes: the *mem forms; otherwise the typed C names (and templates).
template <class Ty>
int run(Form f, Args a, DevRet& ret) {
  using T = typename Ty::T;
  constexpr bool mem = std::is_same<Ty, ty_bytes>::value;
  a.ret = ret.d;
  ret.reset();
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.src);
  return run_form(
      f,
      [&](auto sc, int threads, int api) {
        if constexpr (mem || kTypedDevice<Ty, decltype(sc)>) {
          a.api = api;
          if constexpr (mem)
            k_mem<decltype(sc)><<<1, threads>>>(a);
          else
            k_typed<Ty, decltype(sc)><<<1, threads>>>(a);
          KERNEL_CHECK();
          return ret.read();
        } else {
          return -999;  // no device forms
        }
      },
      [&] {
        if constexpr (mem)
          return a.strided ? gshmem_alltoallsmem(a.team, d, s, a.dst, a.sst, a.n)
                           : gshmem_alltoallmem(a.team, d, s, a.n);
        else
          return a.strided ? Ty::host_alltoalls(a.team, d, s, a.dst, a.sst, a.n) : Ty::host_alltoall(a.team, d, s, a.n);
      },
      [&](cudaStream_t st) {
        if constexpr (mem)
          return a.strided ? gshmemx_alltoallsmem_on_stream(a.team, d, s, a.dst, a.sst, a.n, st)
                           : gshmemx_alltoallmem_on_stream(a.team, d, s, a.n, st);
        else
          return a.strided ? Ty::stream_alltoalls(a.team, d, s, a.dst, a.sst, a.n, st)
                           : Ty::stream_alltoall(a.team, d, s, a.n, st);
      });
}

// Elements spanned by m elements `stride` apart.
size_t span_of(size_t m, ptrdiff_t stride) { return m ? (m - 1) * static_cast<size_t>(stride) + 1 : 0; }

// alltoall (dst = sst = 1, strided = false) or alltoalls of n elements per pair.
template <class Ty>
void a2a_case(Bufs& b, const TestTeam& t, Form f, size_t n, ptrdiff_t dst, ptrdiff_t sst, bool strided, bool typed) {
  using T = typename Ty::T;
  const uint64_t salt = ++g_salt;
  const int me = gshmem_my_pe();
  set_context("%s%s team %s, %s, %zu elements per pair, dst %td, sst %td", typed ? Ty::name : "",
              strided ? (typed ? "_alltoalls" : "alltoallsmem") : (typed ? "_alltoall" : "alltoallmem"), t.name.c_str(),
              form_name(f), n, dst, sst);
  T* dest = b.dst.at<T>(0);
  T* src = b.src.at<T>(1);
  poison_device(b.dst.base, b.dst.bytes);
  const size_t size = t.member() ? static_cast<size_t>(t.size) : 0;
  if (t.member()) fill_device(src, span_of(size * n, sst), me, salt);
  gshmem_barrier_all();
  if (!t.member()) {
    GT_VERIFY_GUARDED(unsigned char, b.dst, 0, kMaxBytes, [](size_t) { return kPoison; });
    return;
  }
  GT_CHECK_EQ(0, run<Ty>(f, Args{t.team, dest, src, dst, sst, n, strided ? 1 : 0, 0, nullptr}, b.ret));
  // Element x of dest: x % dst == 0 holds element e = x / dst = i * n + k of the
  // block from team PE i: that PE's source element (me * n + k) * sst. Holes keep
  // the poison (checked byte by byte), as do the guards.
  const size_t elems = span_of(size * n, dst);
  const size_t bytes = kGuard + elems * sizeof(T) + kGuard;
  unsigned char* h = staging(bytes);
  CUDA_CHECK(cudaMemcpy(h, b.dst.base, bytes, cudaMemcpyDeviceToHost));
  verify_array(
      "guard before", h, kGuard, [](size_t) { return kPoison; }, __FILE__, __LINE__);
  verify_array(
      "guard after", h + kGuard + elems * sizeof(T), kGuard, [](size_t) { return kPoison; }, __FILE__, __LINE__);
  const T* got = reinterpret_cast<const T*>(h + kGuard);
  const size_t my = static_cast<size_t>(t.me);
  size_t bad = 0;
  for (size_t x = 0; x < elems; ++x) {
    if (x % dst == 0) {
      const size_t e = x / dst, i = e / n, k = e % n;
      const T want = hvalue<T>(t.world[i], (my * n + k) * sst, salt);
      T g;
      memcpy(&g, got + x, sizeof(T));
      if (!(g == want) && bad++ < 5)
        fail_line(__FILE__, __LINE__, "dest[%zu] (from team PE %zu, element %zu): expected %s, got %s", x, i, k,
                  show(want).c_str(), show(g).c_str());
    } else {
      const unsigned char* p = reinterpret_cast<const unsigned char*>(got + x);
      for (size_t byte = 0; byte < sizeof(T); ++byte)
        if (p[byte] != kPoison) {
          if (bad++ < 5) fail_line(__FILE__, __LINE__, "hole dest[%zu] (between strided elements) was written", x);
          break;
        }
    }
  }
  stats().checks += static_cast<long long>(elems);
  stats().failures += static_cast<long long>(bad);
  if (bad > 5 && may_print_count())
    emit(stderr, "PE %d: FAIL [%s] %zu of %zu dest elements wrong\n", log_pe(), stats().context, bad, elems);
}

void mem_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  for (const TestTeam& t : teams) {
    for (size_t n : {0, 1, 7, 16, 29, 32, 33, 1000, 65539})  // up to 32: the LL path
      for (Form f : all_forms()) a2a_case<ty_bytes>(b, t, f, n, 1, 1, false, false);
    for (Form f :
         {Form::thread_c, Form::warp_cpp, Form::block_c, Form::block1000, Form::host, Form::stream, Form::mixed})
      a2a_case<ty_bytes>(b, t, f, 262147, 1, 1, false, false);
    for (ptrdiff_t dst : {1, 2, 3})
      for (ptrdiff_t sst : {1, 2, 3})
        for (size_t n : {1, 7, 1000})
          for (Form f : {Form::thread_c, Form::warp_c, Form::block_cpp, Form::host, Form::stream})
            a2a_case<ty_bytes>(b, t, f, n, dst, sst, true, false);
  }
  for (Form f : {Form::block_c, Form::host, Form::stream, Form::mixed})
    a2a_case<ty_bytes>(b, teams[0], f, 65536 + 5, 3, 2, true, false);
}

void typed_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  for_each_coll_type([&](auto ty) {
    using Ty = decltype(ty);
    for (const TestTeam& t : {teams[0], teams[2]})
      for (Form f : c_forms()) {
        if (!typed_form<Ty>(f)) continue;
        a2a_case<Ty>(b, t, f, 37, 1, 1, false, true);
        a2a_case<Ty>(b, t, f, 1001, 1, 1, false, true);
        a2a_case<Ty>(b, t, f, 37, 2, 3, true, true);
        a2a_case<Ty>(b, t, f, 5, 1, 1, true, true);
      }
  });
  for (Form f : {Form::thread_cpp, Form::warp_cpp, Form::block_cpp}) {
    a2a_case<cty_int>(b, teams[1], f, 333, 1, 1, false, true);
    a2a_case<cty_double>(b, teams[3], f, 33, 3, 2, true, true);
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
  return test_main_epilogue("coll_alltoall");
}
