// SPDX-License-Identifier: BSD-3-Clause
// Command-line parsing for gshmem-perf (flags: options.h).
#include "options.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace perf {
namespace {

bool parse_int(const char* s, int lo, int hi, int* out) {
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = static_cast<int>(v);
  return true;
}

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    if (comma == std::string::npos) comma = s.size();
    if (comma > start) out.push_back(s.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

std::string shell_quote(const char* a) {
  if (*a && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,/:@%") == strlen(a))
    return a;
  std::string q = "'";
  for (const char* p = a; *p; ++p) {
    if (*p == '\'')
      q += "'\\''";
    else
      q += *p;
  }
  return q + "'";
}

}  // namespace

bool parse_size(const char* text, size_t* out) {
  if (!text || !*text) return false;
  char* end = nullptr;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno || end == text) return false;
  unsigned shift = 0;
  switch (*end) {
    case '\0':
      break;
    case 'k':
    case 'K':
      shift = 10;
      ++end;
      break;
    case 'm':
    case 'M':
      shift = 20;
      ++end;
      break;
    case 'g':
    case 'G':
      shift = 30;
      ++end;
      break;
    default:
      return false;
  }
  if (*end == 'B' || *end == 'b') ++end;
  if (*end) return false;
  if (shift && v > (~0ull >> shift)) return false;
  *out = static_cast<size_t>(v << shift);
  return true;
}

std::string format_size(size_t b) {
  char buf[32];
  if (b >= (1ull << 30) && b % (1ull << 30) == 0)
    snprintf(buf, sizeof(buf), "%zuG", b >> 30);
  else if (b >= (1ull << 20) && b % (1ull << 20) == 0)
    snprintf(buf, sizeof(buf), "%zuM", b >> 20);
  else if (b >= (1ull << 10) && b % (1ull << 10) == 0)
    snprintf(buf, sizeof(buf), "%zuK", b >> 10);
  else
    snprintf(buf, sizeof(buf), "%zu", b);
  return buf;
}

void print_usage(FILE* f) {
  fprintf(f,
          "usage: gshmem-perf [bench ...] [flags]   (run under gshmrun: gshmrun -n 2 gshmem-perf put_bw)\n"
          "  no bench names: every benchmark in this binary (--list names them)\n"
          "  -b, --minbytes SIZE   smallest size (K/M/G suffixes)     -e, --maxbytes SIZE   largest size\n"
          "  -f, --stepfactor F    size factor per step (default 2)\n"
          "  -n, --iters N         timed iterations                    -w, --warmup N        warm-up iterations\n"
          "  -r, --reps N          repetitions (event-timed benchmarks: one sample each)\n"
          "  -c, --ctas N          CTAs                                -t, --threads N       threads per CTA\n"
          "  -s, --scope LIST      thread|warp|block[,...] or all\n"
          "  -d, --datatype LIST   int32|int64|uint32|uint64|float|double[,...] or all\n"
          "  -o, --op LIST         sum|prod|min|max|and|or|xor, or an atomic op (fetch_add, ...), or all\n"
          "  --root PE             broadcast root (default 0)\n"
          "  --bidir               both PEs transfer at once (point-to-point bandwidth)\n"
          "  --graph               capture on-stream operations in a CUDA graph and time its replays\n"
          "  --json FILE           append the JSON lines to FILE as well (PE 0 writes)\n"
          "  --no-nccl             do not load NCCL (NCCL_LIB names the library otherwise)\n"
          "  --list                list the benchmarks                 -h, --help\n"
          "Unset flags take each benchmark's defaults. Exit codes: 0 ok, 1 a check failed or an error,\n"
          "2 bad command line, 77 not enough PEs/GPUs for any selected benchmark.\n");
}

bool parse_options(int argc, char** argv, Options* o, std::string* error) {
  *o = Options();
  for (int i = 0; i < argc; ++i) o->command += (i ? " " : "") + shell_quote(argv[i]);
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string val;
    bool has_val = false;
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      val = a.substr(eq + 1);
      a = a.substr(0, eq);
      has_val = true;
    }
    auto need = [&](const char* what) -> const char* {
      if (has_val) return val.c_str();
      if (i + 1 >= argc) {
        *error = a + " needs " + what;
        return nullptr;
      }
      return argv[++i];
    };
    auto bad = [&](const char* v, const char* what) {
      *error = a + ": '" + (v ? v : "") + "' is not " + what;
      return false;
    };
    const char* v = nullptr;
    const bool is_switch =
        a == "-h" || a == "--help" || a == "--list" || a == "--bidir" || a == "--graph" || a == "--no-nccl";
    if (is_switch && has_val) {
      *error = a + " takes no value";
      return false;
    }
    if (a == "-h" || a == "--help") {
      o->help = true;
    } else if (a == "--list") {
      o->list = true;
    } else if (a == "--bidir") {
      o->bidir = true;
    } else if (a == "--graph") {
      o->graph = true;
    } else if (a == "--no-nccl") {
      o->no_nccl = true;
    } else if (a == "-b" || a == "--minbytes") {
      if (!(v = need("a size"))) return false;
      if (!parse_size(v, &o->min_bytes)) return bad(v, "a size (e.g. 8, 64K, 1M)");
    } else if (a == "-e" || a == "--maxbytes") {
      if (!(v = need("a size"))) return false;
      if (!parse_size(v, &o->max_bytes)) return bad(v, "a size (e.g. 8, 64K, 1M)");
    } else if (a == "-f" || a == "--stepfactor") {
      if (!(v = need("a factor"))) return false;
      char* end = nullptr;
      o->factor = strtod(v, &end);
      if (*end || !(o->factor > 1.0) || !std::isfinite(o->factor)) return bad(v, "a factor > 1");
    } else if (a == "-n" || a == "--iters") {
      if (!(v = need("a count"))) return false;
      if (!parse_int(v, 1, 100000000, &o->iters)) return bad(v, "a count >= 1");
    } else if (a == "-w" || a == "--warmup") {
      if (!(v = need("a count"))) return false;
      if (!parse_int(v, 0, 100000000, &o->warmup)) return bad(v, "a count >= 0");
    } else if (a == "-r" || a == "--reps") {
      if (!(v = need("a count"))) return false;
      if (!parse_int(v, 1, 1000000, &o->reps)) return bad(v, "a count >= 1");
    } else if (a == "-c" || a == "--ctas") {
      if (!(v = need("a count"))) return false;
      if (!parse_int(v, 1, 1 << 20, &o->ctas)) return bad(v, "a CTA count >= 1");
    } else if (a == "-t" || a == "--threads") {
      if (!(v = need("a count"))) return false;
      if (!parse_int(v, 1, 1024, &o->threads)) return bad(v, "a thread count in 1..1024");
    } else if (a == "-s" || a == "--scope") {
      if (!(v = need("thread|warp|block|all"))) return false;
      o->scopes = split_list(v);
    } else if (a == "-d" || a == "--datatype") {
      if (!(v = need("a datatype"))) return false;
      o->dtypes = split_list(v);
    } else if (a == "-o" || a == "--op") {
      if (!(v = need("an operation"))) return false;
      o->ops = split_list(v);
    } else if (a == "--root") {
      if (!(v = need("a PE"))) return false;
      if (!parse_int(v, 0, 1 << 20, &o->root)) return bad(v, "a PE number");
    } else if (a == "--json") {
      if (!(v = need("a file name"))) return false;
      o->json_path = v;
    } else if (!a.empty() && a[0] == '-') {
      *error = "unknown flag " + a + " (gshmem-perf --help lists the flags)";
      return false;
    } else {
      o->benches.push_back(a);
    }
  }
  if (o->min_bytes && o->max_bytes && o->min_bytes > o->max_bytes) {
    *error = "-b " + format_size(o->min_bytes) + " is larger than -e " + format_size(o->max_bytes);
    return false;
  }
  return true;
}

}  // namespace perf
