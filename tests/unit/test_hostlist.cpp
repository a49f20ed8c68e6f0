// SPDX-License-Identifier: BSD-3-Clause
// Slurm hostlist expansion (src/bootstrap/hostlist.h): the forms Slurm writes
// into SLURM_*_NODELIST, and malformed lists, each with an error that says what
// is wrong and where.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bootstrap/hostlist.h"

namespace {

using gshmem::bootstrap::expand_hostlist;
using gshmem::bootstrap::first_host;
using V = std::vector<std::string>;

V expand(const std::string& text) {
  V hosts{"poison"};
  std::string err;
  EXPECT_TRUE(expand_hostlist(text, &hosts, &err)) << text << ": " << err;
  EXPECT_TRUE(err.empty()) << err;
  return hosts;
}

// A syntax error fails first_host() too; a list that is only too long does not.
std::string error_of(const std::string& text, size_t max_hosts = 1u << 20, bool syntax = true) {
  V hosts;
  std::string err;
  EXPECT_FALSE(expand_hostlist(text, &hosts, &err, max_hosts)) << text << " was accepted";
  std::string first = "poison", err2;
  EXPECT_EQ(first_host(text, &first, &err2), !syntax) << text << ": " << err2;
  if (syntax) EXPECT_EQ(err2, err);
  return err;
}

std::string first(const std::string& text) {
  std::string h = "poison", err;
  EXPECT_TRUE(first_host(text, &h, &err)) << text << ": " << err;
  return h;
}

TEST(Hostlist, PlainNames) {
  EXPECT_EQ(expand("node1"), V({"node1"}));
  EXPECT_EQ(expand("a,b,c"), V({"a", "b", "c"}));
  EXPECT_EQ(expand("login1.cluster.example.org"), V({"login1.cluster.example.org"}));
  EXPECT_EQ(expand("  node7 \n"), V({"node7"}));  // surrounding white space is dropped
  EXPECT_EQ(expand("10.0.0.5"), V({"10.0.0.5"}));
}

TEST(Hostlist, Ranges) {
  EXPECT_EQ(expand("gpu[001-004,007],login1"), V({"gpu001", "gpu002", "gpu003", "gpu004", "gpu007", "login1"}));
  EXPECT_EQ(expand("n[1-3]"), V({"n1", "n2", "n3"}));
  EXPECT_EQ(expand("n[8-11]"), V({"n8", "n9", "n10", "n11"}));     // no padding
  EXPECT_EQ(expand("n[08-11]"), V({"n08", "n09", "n10", "n11"}));  // padding of the low end
  EXPECT_EQ(expand("n[098-101]"), V({"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(expand("n[7]"), V({"n7"}));
  EXPECT_EQ(expand("n[0]"), V({"n0"}));
  EXPECT_EQ(expand("n[5,3,1]"), V({"n5", "n3", "n1"}));  // order as written
  EXPECT_EQ(expand("[1-3]"), V({"1", "2", "3"}));        // no prefix
  EXPECT_EQ(expand("10.0.0.[5-6]"), V({"10.0.0.5", "10.0.0.6"}));
}

TEST(Hostlist, SuffixesAndSeveralGroups) {
  EXPECT_EQ(expand("a-[1-3]-b"), V({"a-1-b", "a-2-b", "a-3-b"}));
  EXPECT_EQ(expand("r[1-2]n[01-02]"), V({"r1n01", "r1n02", "r2n01", "r2n02"}));
  EXPECT_EQ(expand("r[1-2]-n[1,3]-x,y[9-10]"), V({"r1-n1-x", "r1-n3-x", "r2-n1-x", "r2-n3-x", "y9", "y10"}));
  // Commas inside brackets are the bracket's; outside they separate hosts.
  EXPECT_EQ(expand("a[1,2],b[3,4],c"), V({"a1", "a2", "b3", "b4", "c"}));
  EXPECT_EQ(expand("gpu-a100-[1-2],gpu-h200-[01-02]"), V({"gpu-a100-1", "gpu-a100-2", "gpu-h200-01", "gpu-h200-02"}));
}

TEST(Hostlist, FirstHost) {
  EXPECT_EQ(first("gpu[001-004,007],login1"), "gpu001");
  EXPECT_EQ(first("login1,gpu[001-004]"), "login1");
  EXPECT_EQ(first("r[3-4]n[07-09]"), "r3n07");
  EXPECT_EQ(first("a-[12,3]-b"), "a-12-b");
  EXPECT_EQ(first("big[0000001-9999999]"), "big0000001");  // no expansion needed
  // Even so the whole list's syntax is checked.
  std::string h, err;
  EXPECT_FALSE(first_host("good,bad[", &h, &err));
  EXPECT_NE(err.find("unbalanced '['"), std::string::npos) << err;
}

TEST(Hostlist, LargeLists) {
  V hosts = expand("n[00000-99999]");
  ASSERT_EQ(hosts.size(), 100000u);
  for (size_t i = 0; i < hosts.size(); ++i) {
    char want[16];
    snprintf(want, sizeof(want), "n%05zu", i);
    ASSERT_EQ(hosts[i], want);
  }
  EXPECT_NE(error_of("n[1-3000000]", 1u << 20, false).find("more than"), std::string::npos);
  EXPECT_NE(error_of("a[1-10]b[1-10]", 99, false).find("more than 99 hosts"), std::string::npos);
  EXPECT_NE(error_of("a[1-50],b[1-50]", 99, false).find("more than 99 hosts"), std::string::npos);
  // Saturation, not overflow, when groups multiply past 2^64.
  EXPECT_NE(error_of("a[0-999999999999999999]b[0-999999999999999999]c[0-999999999999999999]", 1u << 20, false)
                .find("more than"),
            std::string::npos);
}

TEST(Hostlist, Malformed) {
  struct Case {
    const char* text;
    const char* says;
  } cases[] = {
      {"", "empty"},
      {"   ", "empty"},
      {"gpu[1-2", "unbalanced '[' at offset 3"},
      {"gpu1-2]", "']' without '[' at offset 6"},
      {"gpu[1-[2]]", "nested '['"},
      {"gpu[]", "empty brackets at offset 3"},
      {"gpu[1,]", "empty range"},
      {"gpu[,1]", "empty range"},
      {"gpu[3-1]", "runs backwards"},
      {"gpu[a-b]", "\"a-b\" is not a number"},
      {"gpu[1-]", "\"1-\" is not a number"},
      {"gpu[-1]", "\"-1\" is not a number"},
      {"gpu[1-2-3]", "is not a number"},
      {"gpu[+1]", "is not a number"},
      {"gpu[ 1]", "is not a number"},
      {"gpu[1234567890123456789]", "is not a number"},  // too many digits
      {"a,,b", "empty host name at offset 2"},
      {",a", "empty host name at offset 0"},
      {"a,", "empty host name at offset 2"},
      {"a b", "white space"},
      {"a\tb", "white space"},
  };
  for (const Case& c : cases) {
    const std::string err = error_of(c.text);
    EXPECT_NE(err.find(c.says), std::string::npos) << "\"" << c.text << "\": " << err;
    if (*c.text && c.text[0] != ' ')
      EXPECT_NE(err.find(std::string("\"") + c.text + "\""), std::string::npos) << "names the list: " << err;
  }
}

}  // namespace
