// SPDX-License-Identifier: BSD-3-Clause
// gshmem_init's choice of CUDA_DEVICE_MAX_CONNECTIONS when PEs sit on several nodes
// (host/proxy/connections.h): set under MPS when unset, a warning when set below 4, else nothing.
#include <gtest/gtest.h>

#include <cstring>

#include "host/proxy/connections.h"

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
