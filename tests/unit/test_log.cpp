// SPDX-License-Identifier: BSD-3-Clause
// Logger: line format, PE identity, level filtering, log file.
#include "host/core/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "host/core/config.h"

namespace lg = gshmem::log;

namespace {

constexpr int kNone = -1;
constexpr int kError = static_cast<int>(lg::Level::error);
constexpr int kWarn = static_cast<int>(lg::Level::warn);
constexpr int kInfo = static_cast<int>(lg::Level::info);
constexpr int kTrace = static_cast<int>(lg::Level::trace);

// Every level's macro once, capturing stderr.
std::string emit_all() {
  testing::internal::CaptureStderr();
  GSHMEM_LOG_ERROR("msg-error %d", 1);
  GSHMEM_LOG_WARN("msg-warn %d", 2);
  GSHMEM_LOG_INFO("msg-info %d", 3);
  GSHMEM_LOG_TRACE("msg-trace %d", 4);
  return testing::internal::GetCapturedStderr();
}

bool has(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

std::string hostname() {
  char host[256] = "";
  gethostname(host, sizeof(host) - 1);
  return host;
}

class Log : public ::testing::Test {
 protected:
  void SetUp() override {
    // config::load() below must see defaults only, whatever the caller's environment.
#define GSHMEM_TEST_UNSET(field, env, type, def, help) unsetenv(env);
    GSHMEM_CONFIG_TABLE(GSHMEM_TEST_UNSET)
#undef GSHMEM_TEST_UNSET
    lg::configure(kWarn, nullptr);
    lg::set_identity(-1, -1);
  }
  void TearDown() override { SetUp(); }
};

}  // namespace

TEST_F(Log, LineCarriesLevelAndUnknownIdentity) {
  lg::configure(kTrace, nullptr);
  std::string out = emit_all();
  const std::string who = "\\[PE \\? [^\\]:]+:" + std::to_string(getpid()) + "\\]: ";
  EXPECT_TRUE(std::regex_search(out, std::regex("(^|\n)gshmem ERROR " + who + "msg-error 1\n"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\ngshmem WARN " + who + "msg-warn 2\n"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\ngshmem INFO " + who + "msg-info 3\n"))) << out;
  EXPECT_TRUE(std::regex_search(out, std::regex("\ngshmem TRACE " + who + "msg-trace 4\n"))) << out;
}

TEST_F(Log, LineCarriesPeIdentityAfterSetIdentity) {
  lg::set_identity(3, 8);
  testing::internal::CaptureStderr();
  GSHMEM_LOG_WARN("hello from %s", "pe3");
  std::string out = testing::internal::GetCapturedStderr();
  std::string expect = "gshmem WARN [PE 3/8 " + hostname() + ":" + std::to_string(getpid()) + "]: hello from pe3\n";
  EXPECT_EQ(out, expect);

  lg::set_identity(0, 1);
  testing::internal::CaptureStderr();
  GSHMEM_LOG_ERROR("x");
  out = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(has(out, "[PE 0/1 ")) << out;
}

TEST_F(Log, LevelFiltering) {
  struct Case {
    int level;
    bool warn, info, trace;
  } cases[] = {{kNone, false, false, false},
               {kError, false, false, false},
               {kWarn, true, false, false},
               {kInfo, true, true, false},
               {kTrace, true, true, true}};
  for (const Case& c : cases) {
    lg::configure(c.level, nullptr);
    std::string out = emit_all();
    EXPECT_TRUE(has(out, "msg-error 1")) << "errors are always printed (level " << c.level << ")";
    EXPECT_EQ(has(out, "msg-warn 2"), c.warn) << "level " << c.level << ":\n" << out;
    EXPECT_EQ(has(out, "msg-info 3"), c.info) << "level " << c.level << ":\n" << out;
    EXPECT_EQ(has(out, "msg-trace 4"), c.trace) << "level " << c.level << ":\n" << out;
    EXPECT_TRUE(lg::enabled(lg::Level::error) || c.level == kNone);
    EXPECT_EQ(lg::enabled(lg::Level::warn), c.warn);
    EXPECT_EQ(lg::enabled(lg::Level::info), c.info);
    EXPECT_EQ(lg::enabled(lg::Level::trace), c.trace);
  }
}

// The level comes from GSHMEM_DEBUG through config::load().
TEST_F(Log, GshmemDebugSetsTheLevel) {
  ASSERT_EQ(gshmem::config::load(), GSHMEM_SUCCESS);  // default WARN: INFO hidden
  std::string out = emit_all();
  EXPECT_TRUE(has(out, "msg-warn 2")) << out;
  EXPECT_FALSE(has(out, "msg-info 3")) << out;

  setenv("GSHMEM_DEBUG", "INFO", 1);
  ASSERT_EQ(gshmem::config::load(), GSHMEM_SUCCESS);
  out = emit_all();
  EXPECT_TRUE(has(out, "msg-info 3")) << out;
  EXPECT_FALSE(has(out, "msg-trace 4")) << out;

  setenv("GSHMEM_DEBUG", "NONE", 1);
  ASSERT_EQ(gshmem::config::load(), GSHMEM_SUCCESS);
  out = emit_all();
  EXPECT_TRUE(has(out, "msg-error 1")) << out;
  EXPECT_FALSE(has(out, "msg-warn 2")) << out;

  unsetenv("GSHMEM_DEBUG");
  ASSERT_EQ(gshmem::config::load(), GSHMEM_SUCCESS);
}

TEST_F(Log, DebugFileGetsTheLogAndErrorsStillReachStderr) {
  char dir[] = "/tmp/gshmem-test-log-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string pattern = std::string(dir) + "/log.%p";
  const std::string path = std::string(dir) + "/log." + std::to_string(getpid());
  lg::configure(kInfo, pattern.c_str());
  std::string err = emit_all();
  lg::configure(kWarn, nullptr);  // closes the file

  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << path << " was not created";
  std::stringstream file;
  file << in.rdbuf();
  EXPECT_TRUE(has(file.str(), "gshmem ERROR [")) << file.str();
  EXPECT_TRUE(has(file.str(), "msg-warn 2")) << file.str();
  EXPECT_TRUE(has(file.str(), "msg-info 3")) << file.str();
  EXPECT_FALSE(has(file.str(), "msg-trace 4")) << file.str();
  EXPECT_TRUE(has(err, "msg-error 1")) << err;
  EXPECT_FALSE(has(err, "msg-warn 2")) << err;
  unlink(path.c_str());
  rmdir(dir);
}

// take_error: what a binding reads after a call to raise with the library's message.
TEST_F(Log, TakeErrorCountsThisThreadsErrorsAndKeepsTheLast) {
  lg::take_error(nullptr, 0);  // errors of the tests before this one
  testing::internal::CaptureStderr();
  GSHMEM_LOG_ERROR("first %d", 1);
  GSHMEM_LOG_WARN("a warning is not an error");
  GSHMEM_LOG_ERROR("second %d", 2);
  int other = -1;
  std::thread t([&] {
    GSHMEM_LOG_ERROR("on another thread");
    other = lg::take_error(nullptr, 0);
  });
  t.join();
  char buf[64] = "unchanged";
  EXPECT_EQ(lg::take_error(buf, sizeof(buf)), 2);
  EXPECT_STREQ(buf, "second 2");
  EXPECT_EQ(other, 1);
  EXPECT_EQ(lg::take_error(buf, sizeof(buf)), 0);  // taken
  GSHMEM_LOG_ERROR("0123456789");
  char small[5];
  EXPECT_EQ(lg::take_error(small, sizeof(small)), 1);
  EXPECT_STREQ(small, "0123");  // cut to size - 1
  testing::internal::GetCapturedStderr();
}
