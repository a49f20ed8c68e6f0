// SPDX-License-Identifier: BSD-3-Clause
// Configuration under bad input: every numeric variable has bounds in the table, its bounds are
// exact, and a seeded fuzz of random strings and numbers through config::load() neither crashes
// nor hangs, rejects every bad value with exactly one line naming the variable, and accepts
// every good one. Short enough for CI (well under 5 s); the seed is printed on failure.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "host/core/config.h"
#include "host/core/log.h"

namespace cfg = gshmem::config;

namespace {

struct Var {
  const char* env;
  std::string type;
  const char* def;
  bool ranged = false;
  // Bounds in the variable's own type, kept in both forms (Size: unsigned, Int: signed).
  uint64_t ulo = 0, uhi = 0;
  long long slo = 0, shi = 0;
};

std::vector<Var> vars() {
  std::vector<Var> out;
#define GSHMEM_TEST_VAR(field, env, type, def, help) out.push_back({env, #type, def});
  GSHMEM_CONFIG_TABLE(GSHMEM_TEST_VAR)
#undef GSHMEM_TEST_VAR
  cfg::Values v{};
  (void)v;
#define GSHMEM_TEST_RANGE(field, name, lo, hi)               \
  for (Var & x : out)                                        \
    if (std::string(x.env) == name) {                        \
      x.ranged = true;                                       \
      x.ulo = static_cast<uint64_t>(decltype(v.field)(lo));  \
      x.uhi = static_cast<uint64_t>(decltype(v.field)(hi));  \
      x.slo = static_cast<long long>(decltype(v.field)(lo)); \
      x.shi = static_cast<long long>(decltype(v.field)(hi)); \
    }
  GSHMEM_CONFIG_RANGES(GSHMEM_TEST_RANGE)
#undef GSHMEM_TEST_RANGE
  return out;
}

const char* const kAliases[] = {
#define GSHMEM_TEST_ALIAS(name, other) other,
    GSHMEM_CONFIG_ALIASES(GSHMEM_TEST_ALIAS)
#undef GSHMEM_TEST_ALIAS
};

// Whether config::load() must accept `text` for `x` (the parsers are tested on their own in
// test_config.cpp; here they decide the syntax, the table's bounds the range).
bool valid(const Var& x, const std::string& text) {
  if (x.type == "String") return true;
  if (x.type == "Bool") {
    bool b;
    return cfg::parse_bool(text.c_str(), &b);
  }
  if (x.type == "LogLevel") {
    int l;
    return cfg::parse_log_level(text.c_str(), &l);
  }
  if (x.type == "Size") {
    uint64_t s;
    return cfg::parse_size(text.c_str(), &s) && (!x.ranged || (s >= x.ulo && s <= x.uhi));
  }
  long long i;
  return cfg::parse_int(text.c_str(), &i) && (!x.ranged || (i >= x.slo && i <= x.shi));
}

size_t count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

class ConfigFuzz : public ::testing::Test {
 protected:
  // Thousands of error lines in a second: the logger's rate limit would drop most of them.
  void SetUp() override {
    clear();
    gshmem::log::set_rate_limit(0, 1);
  }
  void TearDown() override {
    clear();
    cfg::load();
    gshmem::log::set_rate_limit(20, 100);
  }
  static void clear() {
    for (const Var& x : vars()) unsetenv(x.env);
    for (const char* a : kAliases) unsetenv(a);
  }
  // Loads with `set` in the environment (and nothing else) and checks the outcome; returns
  // whether it failed as expected.
  static void load_and_check(const std::vector<std::pair<const Var*, std::string>>& set, const std::string& ctx) {
    clear();
    size_t bad = 0;
    for (const auto& [x, text] : set) {
      setenv(x->env, text.c_str(), 1);
      bad += !valid(*x, text);
    }
    testing::internal::CaptureStderr();
    const gshmem::Status st = cfg::load();
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_EQ(st, bad ? GSHMEM_ERROR_INVALID_VALUE : GSHMEM_SUCCESS) << ctx << "\n" << err;
    EXPECT_EQ(count(err, "\n"), bad) << "one line per bad value: " << ctx << "\n" << err;
    EXPECT_EQ(count(err, "gshmem ERROR"), bad) << ctx << "\n" << err;
    for (const auto& [x, text] : set) {
      const size_t lines = count(err, std::string(" ") + x->env + "=\"");
      EXPECT_EQ(lines, valid(*x, text) ? 0u : 1u) << x->env << "=\"" << text << "\": " << ctx << "\n" << err;
    }
    if (bad) EXPECT_EQ(count(err, "Fix or unset it."), bad) << ctx << "\n" << err;
  }
};

}  // namespace

// A new Int or Size variable must declare its bounds (GSHMEM_CONFIG_RANGES in config_table.h).
TEST_F(ConfigFuzz, EveryNumericVariableHasBounds) {
  for (const Var& x : vars()) {
    if (x.type != "Int" && x.type != "Size") continue;
    EXPECT_TRUE(x.ranged) << x.env << " has no GSHMEM_CONFIG_RANGE";
    EXPECT_TRUE(valid(x, x.def)) << x.env << ": the default \"" << x.def << "\" is outside its bounds";
  }
}

// The cases, and each bound and its neighbour outside, with the message's content.
TEST_F(ConfigFuzz, BoundsAreExactAndNamedInOneLine) {
  for (const Var& x : vars()) {
    if (!x.ranged) continue;
    std::vector<std::string> good, bad;
    if (x.type == "Size") {
      good = {std::to_string(x.ulo), std::to_string(x.uhi)};
      if (x.ulo > 0) bad.push_back(std::to_string(x.ulo - 1));
      bad.push_back(std::to_string(x.uhi + 1));
      bad.push_back("0");
      bad.push_back("18446744073709551615");
    } else {
      good = {std::to_string(x.slo), std::to_string(x.shi)};
      bad = {std::to_string(x.slo - 1), std::to_string(x.shi + 1), "-9223372036854775808", "9223372036854775807"};
    }
    for (const std::string& g : good) load_and_check({{&x, g}}, "good bound");
    for (const std::string& b : bad) {
      ASSERT_FALSE(valid(x, b)) << x.env << "=" << b;
      load_and_check({{&x, b}}, "bad bound");
      clear();
      setenv(x.env, b.c_str(), 1);
      testing::internal::CaptureStderr();
      cfg::load();
      const std::string err = testing::internal::GetCapturedStderr();
      EXPECT_NE(err.find("is out of range: expected"), std::string::npos) << err;
      EXPECT_NE(err.find(" from "), std::string::npos) << "names the range: " << err;
      EXPECT_NE(err.find("(default "), std::string::npos) << err;
    }
  }
  // The two values, word for word.
  for (const char* b : {"0", "18446744073709551615"}) {
    clear();
    setenv("GSHMEM_SYMMETRIC_SIZE", b, 1);
    testing::internal::CaptureStderr();
    EXPECT_EQ(cfg::load(), GSHMEM_ERROR_INVALID_VALUE) << b;
    const std::string err = testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find(std::string("gshmem_init: environment variable GSHMEM_SYMMETRIC_SIZE=\"") + b +
                       "\" is out of range: expected a byte count from 1M to 4T (default 1G). Fix or unset it.\n"),
              std::string::npos)
        << err;
  }
}

// Seeded random values, one to three variables at a time.
TEST_F(ConfigFuzz, RandomValuesAreRejectedOrAcceptedCleanly) {
  const uint64_t seed = 56;
  std::mt19937_64 rng(seed);
  const std::vector<Var> all = vars();
  std::vector<const Var*> fuzzed;
  for (const Var& x : all)
    if (x.type != "String") fuzzed.push_back(&x);  // strings take anything (a path, a name)
  const char* const suffixes[] = {"", "", "K", "M", "G", "T", "KiB", "Mb", "g", "X", "KK", " ", "iB"};
  const char* const words[] = {"yes",  "no",    "on",   "OFF", "true", "nOnE", "warn", "TRACE",
                               "info", "error", "lots", "",    "-",    "+1",   " 5",   "0x10"};
  auto number = [&]() -> std::string {
    switch (rng() % 6) {
      case 0:
        return std::to_string(rng());  // any 64-bit value
      case 1:
        return std::to_string(static_cast<long long>(rng()));  // negative half the time
      case 2:
        return std::to_string(static_cast<long long>(rng() % 2000) - 1000);
      case 3: {  // near a variable's bounds
        const Var& x = *fuzzed[rng() % fuzzed.size()];
        const long long d = static_cast<long long>(rng() % 5) - 2;
        return x.type == "Size" ? std::to_string(x.uhi + d) : std::to_string(x.shi + d);
      }
      case 4:
        return std::to_string(rng() % 100000) + suffixes[rng() % (sizeof(suffixes) / sizeof(*suffixes))];
      default:
        return "99999999999999999999999";  // past 64 bits
    }
  };
  auto garbage = [&]() -> std::string {
    std::string s;
    const size_t n = rng() % 100;
    for (size_t i = 0; i < n; ++i) s += static_cast<char>(1 + rng() % 255);  // no NUL: a C string
    return s;
  };
  const auto t0 = std::chrono::steady_clock::now();
  const int kIterations = 10000;
  for (int it = 0; it < kIterations && !HasFailure(); ++it) {
    std::vector<std::pair<const Var*, std::string>> set;
    std::set<const Var*> used;
    const int n = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < n; ++k) {
      const Var* x = fuzzed[rng() % fuzzed.size()];
      if (!used.insert(x).second) continue;
      const unsigned kind = rng() % 4;
      set.push_back({x, kind == 0   ? garbage()
                        : kind == 1 ? std::string(words[rng() % (sizeof(words) / sizeof(*words))])
                                    : number()});
    }
    load_and_check(set, "seed " + std::to_string(seed) + ", iteration " + std::to_string(it));
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(s, 5.0) << kIterations << " loads";
}
