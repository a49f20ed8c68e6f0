// SPDX-License-Identifier: BSD-3-Clause
// Logger: line format, PE identity, level filtering, log file, rate limit.
#include "host/core/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

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
    lg::set_rate_limit(20, 100);  // the default, with full buckets
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

// A flood from several threads: the first 100 lines (the burst) come out whole, the rest are
// dropped but for the refill (20/s), and one summary line counts exactly what was dropped, once
// the next line passes. Errors have their own bucket and are counted by take_error all the same.
TEST_F(Log, RateLimitBoundsAFloodAndCountsWhatItDrops) {
  constexpr int kThreads = 8, kPerThread = 1000;
  lg::set_identity(2, 4);
  lg::take_error(nullptr, 0);
  testing::internal::CaptureStderr();
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<int> errors(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([t, &errors] {
      for (int i = 0; i < kPerThread; ++i) GSHMEM_LOG_WARN("flood t%d i%d", t, i);
      for (int i = 0; i < 50; ++i) GSHMEM_LOG_ERROR("failing t%d i%d", t, i);
      errors[t] = lg::take_error(nullptr, 0);
    });
  for (std::thread& th : threads) th.join();
  const double flood_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::this_thread::sleep_for(std::chrono::milliseconds(120));  // > 2 tokens back
  GSHMEM_LOG_WARN("after the flood");
  GSHMEM_LOG_ERROR("after the errors");
  const std::string out = testing::internal::GetCapturedStderr();

  std::vector<std::string> lines;
  std::istringstream in(out);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  const std::string who = "\\[PE 2/4 [^\\]:]+:" + std::to_string(getpid()) + "\\]: ";
  const std::regex flood_re("gshmem WARN " + who + "flood t[0-9] i[0-9]+");
  const std::regex error_re("gshmem ERROR " + who + "failing t[0-9] i[0-9]+");
  const std::regex summary_re("gshmem (WARN|ERROR) " + who +
                              "([0-9]+) similar lines suppressed in the last [0-9.]+ s.*");
  int floods = 0, fails = 0, summaries = 0;
  long long dropped_warn = 0, dropped_error = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::smatch m;
    if (std::regex_match(lines[i], flood_re)) {
      ++floods;
    } else if (std::regex_match(lines[i], error_re)) {
      ++fails;
    } else if (std::regex_match(lines[i], m, summary_re)) {
      ++summaries;
      (m[1] == "WARN" ? dropped_warn : dropped_error) += std::stoll(m[2]);
    } else {
      EXPECT_TRUE(has(lines[i], "after the flood") || has(lines[i], "after the errors"))
          << "line " << i << ": " << lines[i];
    }
    if (i < 100) EXPECT_TRUE(std::regex_match(lines[i], flood_re) || std::regex_match(lines[i], error_re)) << lines[i];
  }
  // The burst, plus what the refill allowed while the flood ran (20/s, and one token of slack).
  const int refill = static_cast<int>(flood_s * 20) + 2;
  EXPECT_GE(floods, 100);
  EXPECT_LE(floods, 100 + refill) << flood_s << " s";
  EXPECT_GE(fails, 100) << "errors have a bucket of their own";
  EXPECT_LE(fails, 100 + refill);
  EXPECT_EQ(summaries, 2) << out.substr(out.size() > 2000 ? out.size() - 2000 : 0);
  EXPECT_EQ(floods + dropped_warn, kThreads * kPerThread) << "every warning printed or counted";
  EXPECT_EQ(fails + dropped_error, kThreads * 50) << "every error printed or counted";
  EXPECT_TRUE(has(out, "after the flood") && has(out, "after the errors")) << "the flood is over";
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], 50) << "take_error counts dropped errors too";
  lg::take_error(nullptr, 0);
}

// Off, nothing is dropped.
TEST_F(Log, RateLimitOff) {
  lg::set_rate_limit(0, 1);
  testing::internal::CaptureStderr();
  for (int i = 0; i < 500; ++i) GSHMEM_LOG_WARN("line %d", i);
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 500);
  EXPECT_FALSE(has(out, "suppressed"));
}
