// SPDX-License-Identifier: BSD-3-Clause
// fcollect and collect on teams (WORLD, tail 1..N-1, evens, 2D rows and columns):
//   - gshmem_fcollectmem in every form (device thread / warp / partial warp /
//     block / 1000-thread block through the C names and the C++ template, host,
//     on-stream), 0 .. 262147 bytes per PE (multi-lane, many CTAs), the
//     multi-lane cases also with on-stream and device block calls mixed;
//   - gshmem_collectmem with per-PE sizes that differ (zeros included, one PE
//     contributing alone, 200000 + 1001 i bytes), offsets from the exclusive
//     scan over the team;
//   - the typed C names of both: every type on the host and on-stream, the device
//     names (thread, _warp, _block) for one type of each size (coll_test.cuh);
//     long double on the host.
// Destinations are poisoned with guard zones; every member checks every byte of
// the result and the guards, non-members check that nothing reached them.
#include "coll_test.cuh"

using namespace gt;

namespace {

uint64_t g_salt = 60000;
constexpr size_t kMaxBytes = 4 * 262147 + 64;  // largest result any case makes

struct Args {
  gshmem_team_t team;
  void* dest;
  const void* src;
  size_t n;
  int collect;  // 0: fcollect, 1: collect
  int api;
  int* ret;
};

template <class S>
__global__ void __launch_bounds__(1024) k_mem(Args a) {
  int r;
  if (a.collect)
    r = a.api == 0 ? GT_BY_SCOPE(S, gshmem_collectmem, gshmemx_collectmem_warp, gshmemx_collectmem_block, a.team,
                                 a.dest, a.src, a.n)
                   : gshmem::collectmem<S>(a.team, a.dest, a.src, a.n);
  else
    r = a.api == 0 ? GT_BY_SCOPE(S, gshmem_fcollectmem, gshmemx_fcollectmem_warp, gshmemx_fcollectmem_block, a.team,
                                 a.dest, a.src, a.n)
                   : gshmem::fcollectmem<S>(a.team, a.dest, a.src, a.n);
  if (S::rank() == 0) *a.ret = r;
}

template <class Ty, class S>
__global__ void __launch_bounds__(1024) k_typed(Args a) {
  using T = typename Ty::T;
  T* d = static_cast<T*>(a.dest);
  const T* s = static_cast<const T*>(a.src);
  int r = kNoCppForm;
  if (a.api == 0)
    r = a.collect ? Ty::template collect<S>(a.team, d, s, a.n) : Ty::template fcollect<S>(a.team, d, s, a.n);
  else if constexpr (kCppTyped<Ty>)
    r = a.collect ? gshmem::collect<S>(a.team, d, s, a.n) : gshmem::fcollect<S>(a.team, d, s, a.n);
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
        k_mem<decltype(s)><<<1, threads>>>(a);
        KERNEL_CHECK();
        return ret.read();
      },
      [&] {
        return a.collect ? gshmem_collectmem(a.team, a.dest, a.src, a.n)
                         : gshmem_fcollectmem(a.team, a.dest, a.src, a.n);
      },
      [&](cudaStream_t st) {
        return a.collect ? gshmemx_collectmem_on_stream(a.team, a.dest, a.src, a.n, st)
                         : gshmemx_fcollectmem_on_stream(a.team, a.dest, a.src, a.n, st);
      });
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
          k_typed<Ty, decltype(sc)><<<1, threads>>>(a);
          KERNEL_CHECK();
          return ret.read();
        } else {
          return -999;
        }
      },
      [&] { return a.collect ? Ty::host_collect(a.team, d, s, a.n) : Ty::host_fcollect(a.team, d, s, a.n); },
      [&](cudaStream_t st) {
        return a.collect ? Ty::stream_collect(a.team, d, s, a.n, st) : Ty::stream_fcollect(a.team, d, s, a.n, st);
      });
}

struct ty_bytes {  // the *mem forms
  using T = unsigned char;
  static constexpr const char* name = "mem";
};

// Elements team PE i contributes in collect pattern `p` (fcollect: p < 0, all `base`).
size_t count_of(int p, size_t base, int i, int size) {
  switch (p) {
    case 0:
      return (static_cast<size_t>(i) * 7 + base) % 13;  // differing, zeros included
    case 1:
      return i == size - 1 ? base : 0;  // one PE contributes alone
    case 2:
      return base + static_cast<size_t>(i) * 1001;  // large, differing
    default:
      return base;
  }
}

// One fcollect (pattern < 0) or collect of element type T (Ty; mem: unsigned char).
template <class Ty>
void gather_case(Bufs& b, const TestTeam& t, Form f, int pattern, size_t base, bool typed) {
  using T = typename Ty::T;
  const uint64_t salt = ++g_salt;
  const int me = gshmem_my_pe();
  const bool collect = pattern >= 0;
  set_context("%s%s team %s, %s, pattern %d, base %zu", typed ? Ty::name : "",
              collect ? (typed ? "_collect" : "collectmem") : (typed ? "_fcollect" : "fcollectmem"), t.name.c_str(),
              form_name(f), pattern, base);
  size_t total = 0, mine = 0;
  std::vector<size_t> offset;
  if (t.member()) {
    for (int i = 0; i < t.size; ++i) {
      offset.push_back(total);
      total += count_of(pattern, base, i, t.size);
    }
    mine = count_of(pattern, base, t.me, t.size);
  }
  T* dest = b.dst.at<T>(0);
  T* src = b.src.at<T>(2);
  poison_device(b.dst.base, b.dst.bytes);
  if (t.member()) fill_device(src, mine, me, salt);
  gshmem_barrier_all();
  if (t.member()) {
    Args a{t.team, dest, src, mine, collect ? 1 : 0, 0, nullptr};
    if constexpr (std::is_same<Ty, ty_bytes>::value)
      GT_CHECK_EQ(0, run_mem(f, a, b.ret));
    else
      GT_CHECK_EQ(0, run_typed<Ty>(f, a, b.ret));
    GT_VERIFY_GUARDED(T, b.dst, 0, total, [&](size_t k) {
      int i = t.size - 1;
      while (offset[i] > k) --i;
      return hvalue<T>(t.world[i], k - offset[i], salt);
    });
  } else {
    GT_VERIFY_GUARDED(unsigned char, b.dst, 0, kMaxBytes, [](size_t) { return kPoison; });
  }
}

void mem_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  for (const TestTeam& t : teams) {
    for (size_t n : {0, 1, 7, 16, 29, 32, 33, 1000, 65539})  // up to 32: the LL path (fcollect)
      for (Form f : all_forms()) gather_case<ty_bytes>(b, t, f, -1, n, false);
    for (Form f : all_forms()) {
      gather_case<ty_bytes>(b, t, f, 0, 5, false);
      gather_case<ty_bytes>(b, t, f, 1, 1000, false);
    }
    for (Form f :
         {Form::thread_c, Form::warp_cpp, Form::block_c, Form::block1000, Form::host, Form::stream, Form::mixed}) {
      gather_case<ty_bytes>(b, t, f, -1, 262147, false);
      gather_case<ty_bytes>(b, t, f, 2, 200000, false);
      gather_case<ty_bytes>(b, t, f, 1, 262147, false);
    }
  }
}

void typed_tests(Bufs& b, const std::vector<TestTeam>& teams) {
  for_each_coll_type([&](auto ty) {
    using Ty = decltype(ty);
    for (const TestTeam& t : {teams[0], teams[2]})
      for (Form f : c_forms()) {
        if (!typed_form<Ty>(f)) continue;
        gather_case<Ty>(b, t, f, -1, 37, true);
        gather_case<Ty>(b, t, f, 0, 3, true);
        gather_case<Ty>(b, t, f, 2, 3001, true);
      }
  });
  for (Form f : {Form::thread_cpp, Form::warp_cpp, Form::block_cpp}) {
    gather_case<cty_int>(b, teams[1], f, -1, 1001, true);
    gather_case<cty_double>(b, teams[4], f, 0, 17, true);
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
  return test_main_epilogue("coll_collect");
}
