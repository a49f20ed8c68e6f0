// SPDX-License-Identifier: BSD-3-Clause
// NVSHMEM_* environment variables as aliases of gshmem's (src/host/core/config_table.h,
// GSHMEM_CONFIG_ALIASES): used when the GSHMEM_ name is unset, overridden when it is set,
// ignored with a warning (not an init failure) when malformed, listed by gshmem-info.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "host/core/config.h"

namespace cfg = gshmem::config;

namespace {

constexpr uint64_t MiB = 1ull << 20;

std::vector<std::pair<std::string, std::string>> all_aliases() {
  std::vector<std::pair<std::string, std::string>> v;
#define COMPAT_TEST_ALIAS(name, alias) v.emplace_back(name, alias);
  GSHMEM_CONFIG_ALIASES(COMPAT_TEST_ALIAS)
#undef COMPAT_TEST_ALIAS
  return v;
}

// Every variable involved (both names of every alias) is unset for the test and restored after.
class ConfigAlias : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const auto& [name, alias] : all_aliases())
      for (const std::string& var : {name, alias}) {
        if (const char* v = getenv(var.c_str())) saved_.emplace_back(var, v);
        unsetenv(var.c_str());
      }
  }
  void TearDown() override {
    for (const auto& [name, alias] : all_aliases()) {
      unsetenv(name.c_str());
      unsetenv(alias.c_str());
    }
    cfg::load();
    for (const auto& [k, v] : saved_) setenv(k.c_str(), v.c_str(), 1);
  }
  std::string print_table() {
    char* buf = nullptr;
    size_t len = 0;
    FILE* f = open_memstream(&buf, &len);
    cfg::print_table(f, true);
    fclose(f);
    std::string out(buf, len);
    free(buf);
    return out;
  }
  std::vector<std::pair<std::string, std::string>> saved_;
};

}  // namespace

TEST_F(ConfigAlias, NvshmemSymmetricSizeIsUsedWhenGshmemIsUnset) {
  setenv("NVSHMEM_SYMMETRIC_SIZE", "3g", 1);  // NVSHMEM's lower-case suffix
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size, 3ull << 30);
}

TEST_F(ConfigAlias, GshmemNameWins) {
  setenv("NVSHMEM_SYMMETRIC_SIZE", "3G", 1);
  setenv("GSHMEM_SYMMETRIC_SIZE", "256M", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size, 256 * MiB);
}

TEST_F(ConfigAlias, OtherAliases) {
  setenv("NVSHMEM_DISABLE_CUDA_VMM", "1", 1);
  setenv("NVSHMEM_MAX_TEAMS", "17", 1);
  setenv("NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME", "ib7", 1);
  setenv("NVSHMEM_DEBUG", "INFO", 1);
  ASSERT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_TRUE(cfg::get().disable_vmm);
  EXPECT_EQ(cfg::get().max_teams, 17);
  EXPECT_EQ(cfg::get().bootstrap_ifname, "ib7");
  EXPECT_EQ(cfg::get().debug, 2);  // INFO
}

TEST_F(ConfigAlias, MalformedAliasIsIgnoredWithAWarning) {
  setenv("NVSHMEM_SYMMETRIC_SIZE", "0.5G", 1);  // NVSHMEM accepts fractions, gshmem does not
  setenv("NVSHMEM_DEBUG", "VERSION", 1);        // an NVSHMEM-only level
  testing::internal::CaptureStderr();
  const gshmem::Status st = cfg::load();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(st, GSHMEM_SUCCESS);
  EXPECT_EQ(cfg::get().symmetric_size, 1ull << 30);  // the default
  EXPECT_NE(err.find("NVSHMEM_SYMMETRIC_SIZE=\"0.5G\""), std::string::npos) << err;
  EXPECT_NE(err.find("NVSHMEM_DEBUG=\"VERSION\""), std::string::npos) << err;
}

TEST_F(ConfigAlias, MalformedGshmemNameStillFails) {
  setenv("GSHMEM_SYMMETRIC_SIZE", "0.5G", 1);
  setenv("NVSHMEM_SYMMETRIC_SIZE", "2G", 1);
  testing::internal::CaptureStderr();
  EXPECT_NE(cfg::load(), GSHMEM_SUCCESS);
  testing::internal::GetCapturedStderr();
}

TEST_F(ConfigAlias, EmptyAliasIsUnset) {
  setenv("NVSHMEM_DEBUG", "", 1);  // NVSHMEM's default
  testing::internal::CaptureStderr();
  EXPECT_EQ(cfg::load(), GSHMEM_SUCCESS);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST_F(ConfigAlias, PrintTableListsAliasesAndWhereTheValueCameFrom) {
  setenv("NVSHMEM_SYMMETRIC_SIZE", "2G", 1);
  const std::string out = print_table();
  for (const auto& [name, alias] : all_aliases())
    EXPECT_NE(out.find("alias: " + alias + " (read when " + name + " is unset)"), std::string::npos) << out;
  EXPECT_NE(out.find("current: 2G (from NVSHMEM_SYMMETRIC_SIZE)"), std::string::npos) << out;
}
