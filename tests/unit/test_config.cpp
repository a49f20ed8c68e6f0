// SPDX-License-Identifier: BSD-3-Clause
// Configuration: value parsers, config::load() from the environment, print_table.
#include "host/core/config.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "host/core/log.h"

namespace cfg = gshmem::config;

namespace {

constexpr uint64_t KiB = 1ull << 10, MiB = 1ull << 20, GiB = 1ull << 30, TiB = 1ull << 40;

struct Entry {
  const char* env;
  const char* type;
  const char* def;
  const char* help;
};
// Every table entry, straight from the table macro: a new variable is covered
// by every test below without touching this file.
const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
#define GSHMEM_TEST_ENTRY(field, env, type, def, help) {env, #type, def, help},
      GSHMEM_CONFIG_TABLE(GSHMEM_TEST_ENTRY)
#undef GSHMEM_TEST_ENTRY
  };
  return entries;
}

std::optional<uint64_t> size_of(const char* text) {
  uint64_t v = 0xdeadbeef;
  if (cfg::parse_size(text, &v)) return v;
  EXPECT_EQ(v, 0xdeadbeefu) << "output written on failure for \"" << text << "\"";
  return std::nullopt;
}

// Clears every table variable for the test and restores the caller's environment after.
class ConfigEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const Entry& e : table()) {
      if (const char* v = getenv(e.env)) saved_[e.env] = v;
      unsetenv(e.env);
    }
  }
  void TearDown() override {
    for (const Entry& e : table()) unsetenv(e.env);
    cfg::load();  // back to defaults (and the logger to WARN on stderr)
    for (const auto& [k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
  }
  // Runs load() and returns its status; *err gets what it printed to stderr.
  gshmem::Status load_capturing(std::string* err) {
    testing::internal::CaptureStderr();
    gshmem::Status st = cfg::load();
    *err = testing::internal::GetCapturedStderr();
    return st;
  }
  std::map<std::string, std::string> saved_;
};

}  // namespace

TEST(ConfigParse, Size) {
  EXPECT_EQ(size_of("0"), 0u);
  EXPECT_EQ(size_of("512"), 512u);
  EXPECT_EQ(size_of("4K"), 4 * KiB);
  EXPECT_EQ(size_of("4k"), 4 * KiB);
  EXPECT_EQ(size_of("2M"), 2 * MiB);
  EXPECT_EQ(size_of("1G"), GiB);
  EXPECT_EQ(size_of("1GiB"), GiB);
  EXPECT_EQ(size_of("3GB"), 3 * GiB);
  EXPECT_EQ(size_of("2T"), 2 * TiB);
  EXPECT_EQ(size_of("16777215T"), 16777215 * TiB);  // largest T value that fits
  EXPECT_EQ(size_of("18446744073709551615"), ~0ull);
  for (const char* bad : {"", "-1", " -1", " 5", "+5", "1X", "abc", "1 G", "1G ", "1GBB", "1.5G", "99999999999T",
                          "16777216T", "18446744073709551616", "G", "0x10"})
    EXPECT_FALSE(size_of(bad).has_value()) << "\"" << bad << "\" accepted";
  uint64_t v;
  EXPECT_FALSE(cfg::parse_size(nullptr, &v));
}

TEST(ConfigParse, Bool) {
  for (const char* t : {"1", "yes", "YES", "true", "True", "on", "ON", "y"}) {
    bool v = false;
    EXPECT_TRUE(cfg::parse_bool(t, &v)) << t;
    EXPECT_TRUE(v) << t;
  }
  for (const char* f : {"0", "no", "No", "false", "FALSE", "off", "n"}) {
    bool v = true;
    EXPECT_TRUE(cfg::parse_bool(f, &v)) << f;
    EXPECT_FALSE(v) << f;
  }
  for (const char* bad : {"", "2", "yess", "tru", "enable", " 1"}) {
    bool v = true;
    EXPECT_FALSE(cfg::parse_bool(bad, &v)) << bad;
    EXPECT_TRUE(v) << "output written on failure";
  }
  bool v;
  EXPECT_FALSE(cfg::parse_bool(nullptr, &v));
}

TEST(ConfigParse, Int) {
  long long v = 0;
  EXPECT_TRUE(cfg::parse_int("0", &v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(cfg::parse_int("120", &v));
  EXPECT_EQ(v, 120);
  EXPECT_TRUE(cfg::parse_int("-7", &v));
  EXPECT_EQ(v, -7);
  EXPECT_TRUE(cfg::parse_int("9223372036854775807", &v));
  EXPECT_EQ(v, 9223372036854775807ll);
  v = 42;
  for (const char* bad : {"", "abc", "12abc", "1.5", "1K", "99999999999999999999", "-"})
    EXPECT_FALSE(cfg::parse_int(bad, &v)) << bad;
  EXPECT_EQ(v, 42);
  EXPECT_FALSE(cfg::parse_int(nullptr, &v));
}

TEST(ConfigParse, LogLevel) {
  const std::pair<const char*, int> good[] = {{"NONE", -1}, {"none", -1}, {"ERROR", 0}, {"WARN", 1},
                                              {"warn", 1},  {"INFO", 2},  {"Info", 2},  {"TRACE", 3}};
  for (const auto& [text, level] : good) {
    int v = 99;
    EXPECT_TRUE(cfg::parse_log_level(text, &v)) << text;
    EXPECT_EQ(v, level) << text;
  }
  EXPECT_EQ(static_cast<int>(gshmem::log::Level::warn), 1);  // the numbering above
  int v = 99;
  for (const char* bad : {"", "DEBUG", "WARNING", "2", "INF"}) EXPECT_FALSE(cfg::parse_log_level(bad, &v)) << bad;
  EXPECT_EQ(v, 99);
}

// A default that does not parse would silently become 0/false/empty.
TEST(ConfigTable, EveryDefaultParsesAsItsType) {
  for (const Entry& e : table()) {
    std::string type = e.type;
    uint64_t s;
    long long i;
    bool b;
    int l;
    bool ok = type == "Size"       ? cfg::parse_size(e.def, &s)
              : type == "Int"      ? cfg::parse_int(e.def, &i)
              : type == "Bool"     ? cfg::parse_bool(e.def, &b)
              : type == "LogLevel" ? cfg::parse_log_level(e.def, &l)
                                   : type == "String";
    EXPECT_TRUE(ok) << e.env << " (" << e.type << ") default \"" << e.def << "\"";
    EXPECT_EQ(std::string(e.env).rfind("GSHMEM_", 0), 0u) << e.env;
    EXPECT_GT(strlen(e.help), 10u) << e.env << " needs a help text";
  }
}

TEST_F(ConfigEnv, Defaults) {
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  const cfg::Values& v = cfg::get();
  EXPECT_EQ(v.symmetric_size, GiB);
  EXPECT_EQ(v.symmetric_size_max, 64 * GiB);
  EXPECT_FALSE(v.disable_vmm);
  EXPECT_EQ(v.debug, static_cast<int>(gshmem::log::Level::warn));
  EXPECT_EQ(v.debug_file, "");
  EXPECT_FALSE(v.debug_checks);
  EXPECT_EQ(v.bootstrap_timeout, 120);
  EXPECT_EQ(v.bootstrap_ifname, "");
  EXPECT_EQ(v.bootstrap_port, 0);
  EXPECT_TRUE(v.peer_failure_abort);
  EXPECT_EQ(v.wait_timeout, 600);  // a finite default: no silent hang (docs/reliability.md)
  EXPECT_EQ(v.heartbeat_timeout, 10);
}

TEST_F(ConfigEnv, ValidOverrides) {
  setenv("GSHMEM_SYMMETRIC_SIZE", "2G", 1);
  setenv("GSHMEM_SYMMETRIC_SIZE_MAX", "128GiB", 1);
  setenv("GSHMEM_DISABLE_VMM", "yes", 1);
  setenv("GSHMEM_DEBUG", "error", 1);
  setenv("GSHMEM_BOOTSTRAP_TIMEOUT", "30", 1);
  setenv("GSHMEM_BOOTSTRAP_IFNAME", "eth0", 1);
  setenv("GSHMEM_PEER_FAILURE_ABORT", "off", 1);
  std::string err;
  ASSERT_EQ(load_capturing(&err), GSHMEM_SUCCESS);
  EXPECT_EQ(err, "");
  const cfg::Values& v = cfg::get();
  EXPECT_EQ(v.symmetric_size, 2 * GiB);
  EXPECT_EQ(v.symmetric_size_max, 128 * GiB);
  EXPECT_TRUE(v.disable_vmm);
  EXPECT_EQ(v.debug, 0);
  EXPECT_EQ(v.bootstrap_timeout, 30);
  EXPECT_EQ(v.bootstrap_ifname, "eth0");
  EXPECT_FALSE(v.peer_failure_abort);
  EXPECT_EQ(v.wait_timeout, 600);  // untouched variables keep their defaults
}

TEST_F(ConfigEnv, MalformedValueIsAnErrorNamingVariableAndFormat) {
  setenv("GSHMEM_BOOTSTRAP_TIMEOUT", "45", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  struct Case {
    const char* env;
    const char* value;
    const char* format;  // part of the "expected ..." text
  } cases[] = {
      {"GSHMEM_SYMMETRIC_SIZE", "12Q", "K, M, G or T suffix"},
      {"GSHMEM_SYMMETRIC_SIZE_MAX", "-1", "K, M, G or T suffix"},
      {"GSHMEM_DISABLE_VMM", "maybe", "0/1, yes/no, true/false or on/off"},
      {"GSHMEM_DEBUG", "LOUD", "NONE, ERROR, WARN, INFO or TRACE"},
      {"GSHMEM_WAIT_TIMEOUT", "10s", "an integer"},
  };
  for (const Case& c : cases) {
    setenv(c.env, c.value, 1);
    std::string err;
    EXPECT_EQ(load_capturing(&err), GSHMEM_ERROR_INVALID_VALUE) << c.env;
    EXPECT_NE(err.find("gshmem ERROR"), std::string::npos) << err;
    EXPECT_NE(err.find(std::string(c.env) + "=\"" + c.value + "\""), std::string::npos) << err;
    EXPECT_NE(err.find(c.format), std::string::npos) << err;
    EXPECT_EQ(cfg::get().bootstrap_timeout, 45) << "a failed load must keep the previous values";
    unsetenv(c.env);
  }
  // Several malformed variables: each one is reported.
  setenv("GSHMEM_SYMMETRIC_SIZE", "lots", 1);
  setenv("GSHMEM_BOOTSTRAP_PORT", "http", 1);
  std::string err;
  EXPECT_EQ(load_capturing(&err), GSHMEM_ERROR_INVALID_VALUE);
  EXPECT_NE(err.find("GSHMEM_SYMMETRIC_SIZE=\"lots\""), std::string::npos) << err;
  EXPECT_NE(err.find("GSHMEM_BOOTSTRAP_PORT=\"http\""), std::string::npos) << err;
}

// GSHMEM_BOOTSTRAP_TIMEOUT is bounded where it is parsed, so that its uses in
// int arithmetic (seconds + grace, milliseconds) cannot overflow.
TEST_F(ConfigEnv, BootstrapTimeoutOutOfRangeIsAnError) {
  setenv("GSHMEM_BOOTSTRAP_TIMEOUT", "45", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  for (const char* bad : {"0", "-1", "2000001", "2147483647", "2147483648", "9223372036854775807"}) {
    setenv("GSHMEM_BOOTSTRAP_TIMEOUT", bad, 1);
    std::string err;
    EXPECT_EQ(load_capturing(&err), GSHMEM_ERROR_INVALID_VALUE) << bad;
    EXPECT_NE(err.find("gshmem ERROR"), std::string::npos) << err;
    EXPECT_NE(err.find(std::string("GSHMEM_BOOTSTRAP_TIMEOUT=\"") + bad + "\" is out of range"), std::string::npos)
        << err;
    EXPECT_NE(err.find("from 1 to 2000000"), std::string::npos) << err;
    EXPECT_EQ(cfg::get().bootstrap_timeout, 45) << "a failed load must keep the previous values";
  }
  for (const char* good : {"1", "2000000"}) {
    setenv("GSHMEM_BOOTSTRAP_TIMEOUT", good, 1);
    std::string err;
    EXPECT_EQ(load_capturing(&err), GSHMEM_SUCCESS) << good << ": " << err;
    EXPECT_EQ(cfg::get().bootstrap_timeout, atoll(good));
    // What init and the heap setup compute from it fits in int.
    EXPECT_LE(cfg::get().bootstrap_timeout * 1000 + 10'000, 2147483647ll);
  }
}

TEST_F(ConfigEnv, SymmetricSizeMaxIsRaisedToSymmetricSize) {
  setenv("GSHMEM_SYMMETRIC_SIZE", "8G", 1);
  setenv("GSHMEM_SYMMETRIC_SIZE_MAX", "4G", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size, 8 * GiB);
  EXPECT_EQ(cfg::get().symmetric_size_max, 8 * GiB);

  setenv("GSHMEM_SYMMETRIC_SIZE_MAX", "16G", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size_max, 16 * GiB);

  unsetenv("GSHMEM_SYMMETRIC_SIZE_MAX");  // above the 64G default too
  setenv("GSHMEM_SYMMETRIC_SIZE", "100G", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size_max, 100 * GiB);
}

TEST_F(ConfigEnv, PrintTableMentionsEveryVariable) {
  setenv("GSHMEM_BOOTSTRAP_IFNAME", "ib0", 1);
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  ASSERT_NE(f, nullptr);
  cfg::print_table(f, true);
  fclose(f);
  std::string out(buf, len);
  free(buf);

  std::set<std::string> printed;
  std::regex name_re("(^|\\n)(GSHMEM_[A-Z0-9_]+)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), name_re); it != std::sregex_iterator(); ++it)
    printed.insert((*it)[2]);
  for (const Entry& e : table()) {
    EXPECT_EQ(printed.count(e.env), 1u) << e.env << " missing from print_table:\n" << out;
    EXPECT_NE(out.find(e.help), std::string::npos) << e.env << " help missing";
    EXPECT_NE(out.find(std::string("default \"") + e.def + "\""), std::string::npos) << e.env;
  }
  EXPECT_EQ(printed.size(), table().size()) << out;
  EXPECT_NE(out.find("current: ib0"), std::string::npos) << out;
  EXPECT_NE(out.find("(unset: default)"), std::string::npos) << out;

  f = open_memstream(&buf, &len);
  cfg::print_table(f, false);
  fclose(f);
  std::string plain(buf, len);
  free(buf);
  EXPECT_EQ(plain.find("current:"), std::string::npos) << plain;
}

// GSHMEM_HOST_SPIN_US: -1 (the default: chosen at init), 0 (no polling) up to one second.
TEST_F(ConfigEnv, HostSpinRange) {
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().host_spin_us, -1);
  for (const char* bad : {"-2", "1000001", "lots"}) {
    setenv("GSHMEM_HOST_SPIN_US", bad, 1);
    std::string err;
    EXPECT_EQ(load_capturing(&err), GSHMEM_ERROR_INVALID_VALUE) << bad;
    EXPECT_NE(err.find(std::string("GSHMEM_HOST_SPIN_US=\"") + bad + "\""), std::string::npos) << err;
  }
  for (const char* good : {"-1", "0", "100", "1000000"}) {
    setenv("GSHMEM_HOST_SPIN_US", good, 1);
    std::string err;
    EXPECT_EQ(load_capturing(&err), GSHMEM_SUCCESS) << good << ": " << err;
    EXPECT_EQ(cfg::get().host_spin_us, atoll(good));
  }
}
