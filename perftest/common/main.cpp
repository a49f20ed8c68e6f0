// SPDX-License-Identifier: BSD-3-Clause
// gshmem-perf: runs the selected benchmarks over their (scope, datatype, op, size)
// points on every PE, prints the table and the JSON lines on PE 0.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include <gshmem/gshmem.h>

#include "bench.h"
#include "context.h"
#include "options.h"
#include "report.h"
#include "stats.h"

namespace perf {
namespace {

int env_int(const char* name, int dflt) {
  const char* s = getenv(name);
  if (!s || !*s) return dflt;
  char* end = nullptr;
  long v = strtol(s, &end, 10);
  return (end && *end == '\0') ? static_cast<int>(v) : dflt;
}

// PEs of this job as the launcher announced them (before gshmem_init).
int job_pes() {
  for (const char* v : {"GSHMEM_SIZE", "OMPI_COMM_WORLD_SIZE", "WORLD_SIZE", "SLURM_NTASKS"}) {
    const int n = env_int(v, 0);
    if (n > 0) return n;
  }
  return 1;
}

bool fits(const Bench& b, int npes) { return npes >= b.min_pes && (b.max_pes == 0 || npes <= b.max_pes); }

std::string pes_needed(const Bench& b) {
  if (b.max_pes == b.min_pes) return std::to_string(b.min_pes) + " PEs";
  if (b.max_pes == 0) return ">= " + std::to_string(b.min_pes) + " PEs";
  return std::to_string(b.min_pes) + ".." + std::to_string(b.max_pes) + " PEs";
}

bool parse_scope(const std::string& s, Scope* out) {
  for (Scope x : {Scope::thread, Scope::warp, Scope::block})
    if (s == name_of(x)) return (*out = x), true;
  return false;
}

bool parse_dtype(std::string s, DType* out) {
  if (s == "int") s = "int32";
  if (s == "long") s = "int64";
  if (s == "float32") s = "float";
  if (s == "float64") s = "double";
  for (DType x : {DType::int32, DType::int64, DType::uint32, DType::uint64, DType::float32, DType::float64})
    if (s == name_of(x)) return (*out = x), true;
  return false;
}

struct Plan {
  std::vector<Scope> scopes;
  std::vector<DType> dtypes;
  std::vector<std::string> ops;
  std::vector<size_t> sizes;
  Case base;
  std::vector<std::string> notes;
};

// The points of benchmark b under the options; false + *err if the options name
// something b cannot do at all.
bool plan_for(const Options& o, const Bench& b, Plan* p, std::string* err) {
  if (o.scopes.empty()) {
    p->scopes = {b.default_scope};
  } else {
    for (const std::string& s : o.scopes) {
      if (s == "all") {
        for (Scope x : {Scope::thread, Scope::warp, Scope::block})
          if (b.scopes & scope_bit(x)) p->scopes.push_back(x);
        continue;
      }
      Scope x;
      if (!parse_scope(s, &x)) return (*err = "-s: unknown scope '" + s + "' (thread, warp, block, all)"), false;
      if (b.scopes & scope_bit(x))
        p->scopes.push_back(x);
      else
        p->notes.push_back(std::string("scope ") + s + " does not apply to " + b.name);
    }
  }
  if (!b.dtypes) {
    p->dtypes = {b.default_dtype};
  } else if (o.dtypes.empty()) {
    p->dtypes = {b.default_dtype};
  } else {
    for (const std::string& s : o.dtypes) {
      if (s == "all") {
        for (int i = 0; i < 6; ++i)
          if (b.dtypes & (1u << i)) p->dtypes.push_back(static_cast<DType>(i));
        continue;
      }
      DType x;
      if (!parse_dtype(s, &x))
        return (*err = "-d: unknown datatype '" + s + "' (int32, int64, uint32, uint64, float, double, all)"), false;
      if (b.dtypes & dtype_bit(x))
        p->dtypes.push_back(x);
      else
        p->notes.push_back("datatype " + s + " does not apply to " + b.name);
    }
  }
  if (b.ops.empty()) {
    p->ops = {""};
  } else if (o.ops.empty()) {
    p->ops = b.default_ops.empty() ? std::vector<std::string>{b.ops[0]} : b.default_ops;
  } else {
    for (const std::string& s : o.ops) {
      if (s == "all") {
        p->ops.insert(p->ops.end(), b.ops.begin(), b.ops.end());
        continue;
      }
      if (std::find(b.ops.begin(), b.ops.end(), s) != b.ops.end())
        p->ops.push_back(s);
      else
        p->notes.push_back("op " + s + " does not apply to " + b.name);
    }
  }
  size_t lo = o.min_bytes ? o.min_bytes : b.min_size, hi = o.max_bytes ? o.max_bytes : b.max_size;
  if (b.max_size == 0) lo = hi = 0;  // size-less benchmark
  if (o.min_bytes && !o.max_bytes && hi < lo) hi = lo;
  if (o.max_bytes && !o.min_bytes && lo > hi) lo = hi;
  p->sizes = size_sweep(lo, hi, o.factor);
  Case& c = p->base;
  c.ctas = o.ctas ? o.ctas : b.ctas;
  c.threads = o.threads ? o.threads : b.threads;
  c.iters = o.iters ? o.iters : b.iters;
  c.warmup = o.warmup >= 0 ? o.warmup : b.warmup;
  c.reps = o.reps ? o.reps : b.reps;
  c.bidir = o.bidir && b.bidir;
  c.graph = o.graph && b.graph;
  c.root = o.root;
  if (o.bidir && !b.bidir) p->notes.push_back(std::string("--bidir does not apply to ") + b.name);
  if (o.graph && !b.graph) p->notes.push_back(std::string("--graph does not apply to ") + b.name);
  return true;
}

bool run_bench(Ctx& ctx, const Bench& b, const Plan& plan, FILE* json) {
  bool ok = true;
  ctx.bench_name = b.name;
  if (ctx.me == 0) {
    ctx.emit(stdout, bench_title(ctx, b, plan.base));
    for (const std::string& n : plan.notes) ctx.emit(stdout, "# note: " + n + "\n");
    ctx.emit(stdout, table_header(b));
  }
  std::set<std::string> notes_shown;
  for (Scope s : plan.scopes) {
    for (DType d : plan.dtypes) {
      for (const std::string& op : plan.ops) {
        for (size_t size : plan.sizes) {
          Case c = plan.base;
          c.scope = s;
          c.dtype = d;
          c.op = op;
          c.size = size;
          if (b.valid && !b.valid(c, ctx.npes)) continue;
          Result r;
          b.run(ctx, c, r);
          const PeSummary mine = summarize(c, r);
          std::vector<unsigned char> raw = ctx.allgather(&mine, sizeof(mine));
          std::vector<PeSummary> all(ctx.npes);
          memcpy(all.data(), raw.data(), sizeof(PeSummary) * ctx.npes);
          if (ctx.me != 0) continue;
          const Row row = aggregate(b, c, all, ctx.npes);
          if (row.skip) continue;
          if (row.bad || row.nccl_bad) ok = false;
          ctx.emit(stdout, table_row(b, c, row));
          if (!r.note.empty() && notes_shown.insert(r.note).second) ctx.emit(stdout, "#   note: " + r.note + "\n");
          const std::string j = result_json(ctx, b, c, r, row);
          ctx.emit(stdout, j);
          if (json) {
            fputs(j.c_str(), json);
            fflush(json);
          }
        }
      }
    }
  }
  ctx.release();
  return ok;
}

}  // namespace
}  // namespace perf

int main(int argc, char** argv) {
  using namespace perf;
  Options o;
  std::string err;
  if (!parse_options(argc, argv, &o, &err)) {
    fprintf(stderr, "gshmem-perf: %s\n", err.c_str());
    print_usage(stderr);
    return 2;
  }
  if (o.help) {
    print_usage(stdout);
    return 0;
  }
  std::vector<const Bench*> sel;
  for (const Bench& b : registry())
    if (o.benches.empty() || std::find(o.benches.begin(), o.benches.end(), b.name) != o.benches.end())
      sel.push_back(&b);
  for (const std::string& n : o.benches) {
    if (std::none_of(registry().begin(), registry().end(), [&](const Bench& b) { return n == b.name; })) {
      fprintf(stderr, "gshmem-perf: no benchmark '%s' in this build (gshmem-perf --list names them)\n", n.c_str());
      return 2;
    }
  }
  if (o.list) {
    for (const Bench* b : sel)
      printf("%-24s %-6s %-12s %s\n", b->name, b->kind == Kind::device ? "device" : "host", pes_needed(*b).c_str(),
             b->what);
    return 0;
  }
  // Plans first: a bad -s/-d/-o is a usage error on every PE alike, before init.
  std::vector<Plan> plans(sel.size());
  for (size_t i = 0; i < sel.size(); ++i) {
    if (!plan_for(o, *sel[i], &plans[i], &err)) {
      fprintf(stderr, "gshmem-perf: %s\n", err.c_str());
      return 2;
    }
  }
  // Skip (exit 77) before gshmem_init when nothing selected can run here.
  const int pes = job_pes();
  const int local = std::max(1, env_int("GSHMEM_LOCAL_SIZE", 1));
  if (std::none_of(sel.begin(), sel.end(), [&](const Bench* b) { return fits(*b, pes); })) {
    if (sel.empty())
      printf("SKIP: no benchmark in this build\n");
    else
      printf("SKIP: %s needs %s, this job has %d PE%s (run it under gshmrun -n %d)\n", sel[0]->name,
             pes_needed(*sel[0]).c_str(), pes, pes == 1 ? "" : "s", sel[0]->min_pes);
    return 77;
  }
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) {
    cudaGetLastError();
    gpus = 0;
  }
  // GSHMEM_PERF_SHARE_GPUS=1: PEs may share GPUs (the header's pes and gpus_visible show
  // it). Time-shared, any call that waits on a peer waits for context switches; under MPS
  // small calls cost about what they do on separate GPUs, bandwidths never (README).
  const bool share = env_int("GSHMEM_PERF_SHARE_GPUS", 0) == 1;
  if (gpus < 1 || (gpus < local && !share)) {
    printf("SKIP: needs %d GPU%s on this node (one per local PE), found %d\n", local, local == 1 ? "" : "s", gpus);
    return 77;
  }
  if (gpus < local)
    printf("# GSHMEM_PERF_SHARE_GPUS=1: %d PEs on %d GPU%s; bandwidths mean nothing, latencies only under MPS\n", local,
           gpus, gpus == 1 ? "" : "s");

  gshmem_init();
  int rc = 0;
  {
    Ctx ctx;
    ctx.opt = o;
    ctx.me = gshmem_my_pe();
    ctx.npes = gshmem_n_pes();
    ctx.cuda(cudaGetDevice(&ctx.device), "cudaGetDevice");
    cudaDeviceProp prop;
    ctx.cuda(cudaGetDeviceProperties(&prop, ctx.device), "cudaGetDeviceProperties");
    ctx.gpu_name = prop.name;
    cudaDeviceGetAttribute(&ctx.sm_clock_khz, cudaDevAttrClockRate, ctx.device);
    ctx.cuda(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking), "cudaStreamCreate");
    FILE* json = nullptr;
    if (ctx.me == 0) {
      const std::string h = header_json(ctx);
      ctx.emit(stdout, h);
      if (!o.json_path.empty()) {
        json = fopen(o.json_path.c_str(), "a");
        if (!json)
          fprintf(stderr, "gshmem-perf: cannot open --json %s; JSON goes to stdout only\n", o.json_path.c_str());
        else
          fputs(h.c_str(), json);
      }
    }
    bool ok = true;
    for (size_t i = 0; i < sel.size(); ++i) {
      if (!fits(*sel[i], ctx.npes)) {
        if (ctx.me == 0)
          ctx.emit(stdout, std::string("# ") + sel[i]->name + ": skipped, needs " + pes_needed(*sel[i]) + "\n");
        continue;
      }
      ok = run_bench(ctx, *sel[i], plans[i], json) && ok;
    }
    if (json) fclose(json);
    finalize_ctx(ctx);
    cudaStreamDestroy(ctx.stream);
    if (!ok || ctx.failed) rc = 1;
    if (ctx.me == 0 && !ok) ctx.emit(stdout, "# FAILED: some results did not verify (see the lines above)\n");
  }
  gshmem_finalize();
  return rc;
}
