// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init's choices when PEs sit on several nodes (host/proxy/connections.h): the value of
// CUDA_DEVICE_MAX_CONNECTIONS (set under MPS when unset, a warning when set below 4, else
// nothing) and whether the proxy applies from a CUDA context of its own.
#include <gtest/gtest.h>

#include <cstring>

#include "host/proxy/connections.h"

using gshmem::hproxy::apply_context_choice;
using gshmem::hproxy::ApplyContext;
using gshmem::hproxy::connections_advice;
using gshmem::hproxy::ConnectionsAdvice;
using gshmem::hproxy::kMinConnections;

TEST(ProxyConnections, UnsetUnderMpsAsksForSixteen) {
  const ConnectionsAdvice a = connections_advice(nullptr, true);
  ASSERT_NE(a.set, nullptr);
  EXPECT_STREQ(a.set, "16");
  EXPECT_EQ(a.too_few, 0);
}

TEST(ProxyConnections, UnsetWithoutMpsLeavesCudasDefault) {
  const ConnectionsAdvice a = connections_advice(nullptr, false);
  EXPECT_EQ(a.set, nullptr);
  EXPECT_EQ(a.too_few, 0);
}

TEST(ProxyConnections, FewerThanFourIsWarnedAboutAndNeverOverridden) {
  for (const char* v : {"1", "2", "3"})
    for (bool mps : {false, true}) {
      const ConnectionsAdvice a = connections_advice(v, mps);
      EXPECT_EQ(a.set, nullptr) << v;  // the user's choice stays
      EXPECT_EQ(a.too_few, std::strtol(v, nullptr, 10)) << v;
      EXPECT_LT(a.too_few, kMinConnections);
    }
}

TEST(ProxyConnections, FourOrMoreAndMalformedValuesAreLeftAlone) {
  for (const char* v : {"4", "8", "32", "", "abc", "2x", "0", "-1"}) {
    const ConnectionsAdvice a = connections_advice(v, true);
    EXPECT_EQ(a.set, nullptr) << "'" << v << "'";
    EXPECT_EQ(a.too_few, 0) << "'" << v << "'";
  }
}

TEST(ProxyApplyContext, AutoTakesItUnderMpsWhateverTheQueues) {
  for (const char* v : {static_cast<const char*>(nullptr), "1", "4", "16", "abc"})
    EXPECT_EQ(apply_context_choice(-1, v, true), ApplyContext::kMps) << (v ? v : "unset");
}

TEST(ProxyApplyContext, AutoOutsideMpsOnlyWithFewerThanFourQueues) {
  for (const char* v : {"1", "2", "3"})
    EXPECT_EQ(apply_context_choice(-1, v, false), ApplyContext::kFewConnections) << v;
  for (const char* v : {static_cast<const char*>(nullptr), "4", "8", "32", "", "0", "x"})
    EXPECT_EQ(apply_context_choice(-1, v, false), ApplyContext::kNo) << (v ? v : "unset");
}

TEST(ProxyApplyContext, AnExplicitSettingWins) {
  for (bool mps : {false, true})
    for (const char* v : {static_cast<const char*>(nullptr), "1", "16"}) {
      EXPECT_EQ(apply_context_choice(0, v, mps), ApplyContext::kNo);
      EXPECT_EQ(apply_context_choice(1, v, mps), ApplyContext::kAsked);
    }
}
