// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of gshmrun's option parser (tools/gshmrun/options.cpp, linked as
// gshmrun_options by tests/launcher/tests.cmake).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "options.h"

namespace {

using gshmrun::Options;
using gshmrun::ParseAction;
using gshmrun::ParseResult;
using Args = std::vector<std::string>;

ParseResult parse(const Args& args, Options* o) { return gshmrun::parse_options(args, o); }

TEST(GshmrunOptions, Defaults) {
  Options o;
  ParseResult r = parse({"prog"}, &o);
  ASSERT_EQ(r.action, ParseAction::run) << r.error;
  EXPECT_EQ(o.np, 0);  // not given: gshmrun counts GPUs
  EXPECT_EQ(o.timeout_s, 0);
  EXPECT_FALSE(o.tag_output);
  EXPECT_TRUE(o.env.empty());
  EXPECT_EQ(o.command, Args{"prog"});
}

TEST(GshmrunOptions, AllForms) {
  Options o;
  ParseResult r = parse(
      {"-n", "4", "--timeout", "120", "-x", "A=1", "-xB=2=3", "--tag-output", "--", "prog", "-n", "5", "--", "x"}, &o);
  ASSERT_EQ(r.action, ParseAction::run) << r.error;
  EXPECT_EQ(o.np, 4);
  EXPECT_EQ(o.timeout_s, 120);
  EXPECT_TRUE(o.tag_output);
  ASSERT_EQ(o.env.size(), 2u);
  EXPECT_EQ(o.env[0].first, "A");
  EXPECT_EQ(o.env[0].second, "1");
  EXPECT_EQ(o.env[1].first, "B");
  EXPECT_EQ(o.env[1].second, "2=3");
  EXPECT_EQ(o.command, (Args{"prog", "-n", "5", "--", "x"}));

  ASSERT_EQ(parse({"-n8", "--np=3", "--timeout=0", "prog"}, &o).action, ParseAction::run);
  EXPECT_EQ(o.np, 3);  // the last one wins
  EXPECT_EQ(o.timeout_s, 0);
  ASSERT_EQ(parse({"--np", "2", "prog"}, &o).action, ParseAction::run);
  EXPECT_EQ(o.np, 2);
}

TEST(GshmrunOptions, FirstNonOptionEndsOptions) {
  Options o;
  ASSERT_EQ(parse({"-n", "2", "prog", "--tag-output", "-x", "A=1"}, &o).action, ParseAction::run);
  EXPECT_FALSE(o.tag_output);
  EXPECT_TRUE(o.env.empty());
  EXPECT_EQ(o.command, (Args{"prog", "--tag-output", "-x", "A=1"}));
  // A lone "-" is not an option.
  ASSERT_EQ(parse({"-"}, &o).action, ParseAction::run);
  EXPECT_EQ(o.command, Args{"-"});
}

TEST(GshmrunOptions, HelpAndVersion) {
  Options o;
  EXPECT_EQ(parse({"-h"}, &o).action, ParseAction::help);
  EXPECT_EQ(parse({"--help"}, &o).action, ParseAction::help);
  EXPECT_EQ(parse({"-n", "2", "--help", "prog"}, &o).action, ParseAction::help);
  EXPECT_EQ(parse({"--version"}, &o).action, ParseAction::version);
  // After "--" they belong to the program.
  ASSERT_EQ(parse({"--", "prog", "--help"}, &o).action, ParseAction::run);
  EXPECT_EQ(o.command, (Args{"prog", "--help"}));
}

TEST(GshmrunOptions, Errors) {
  struct Case {
    Args args;
    const char* needle;
  };
  const Case cases[] = {
      {{}, "missing the program"},
      {{"-n", "2"}, "missing the program"},
      {{"--"}, "missing the program"},
      {{"", "x"}, "empty"},
      {{"-n"}, "needs a value"},
      {{"--timeout"}, "needs a value"},
      {{"-x"}, "needs a value"},
      {{"-n", "0", "p"}, "positive integer"},
      {{"-n", "-1", "p"}, "positive integer"},
      {{"-n", "+1", "p"}, "positive integer"},
      {{"-n", "abc", "p"}, "positive integer"},
      {{"-n", "1.5", "p"}, "positive integer"},
      {{"-n", "4097", "p"}, "positive integer"},
      {{"-n", "99999999999999999999", "p"}, "positive integer"},
      {{"-np", "p"}, "positive integer"},
      {{"--timeout", "-1", "p"}, "--timeout"},
      {{"--timeout", "1s", "p"}, "--timeout"},
      {{"-x", "NOEQ", "p"}, "NAME=VALUE"},
      {{"-x", "=v", "p"}, "non-empty NAME"},
      {{"-x", "GSHMEM_UNIQUEID=x", "p"}, "GSHMEM_UNIQUEID"},
      {{"-x", "GSHMEM_BOOTSTRAP_LISTEN_FD=3", "p"}, "GSHMEM_BOOTSTRAP_LISTEN_FD"},
      {{"--bogus", "p"}, "unknown option '--bogus'"},
      {{"--bogus=1", "p"}, "unknown option '--bogus'"},
      {{"--npx", "p"}, "unknown option '--npx'"},
      {{"-h5", "p"}, "unknown option '-h5'"},
      {{"--tag-output=1", "p"}, "takes no value"},
      {{"--help=1"}, "takes no value"},
  };
  for (const Case& c : cases) {
    std::string joined;
    for (const auto& a : c.args) joined += "'" + a + "' ";
    Options o;
    ParseResult r = parse(c.args, &o);
    EXPECT_EQ(r.action, ParseAction::error) << joined;
    EXPECT_NE(r.error.find(c.needle), std::string::npos) << joined << " -> " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << "one line: " << r.error;
  }
}

TEST(GshmrunOptions, NumberParsers) {
  long v = 0;
  EXPECT_TRUE(gshmrun::parse_int_in_range("1", 1, 10, &v));
  EXPECT_EQ(v, 1);
  EXPECT_TRUE(gshmrun::parse_int_in_range("10", 1, 10, &v));
  EXPECT_FALSE(gshmrun::parse_int_in_range("11", 1, 10, &v));
  EXPECT_FALSE(gshmrun::parse_int_in_range("", 1, 10, &v));
  EXPECT_FALSE(gshmrun::parse_int_in_range(nullptr, 1, 10, &v));
  EXPECT_FALSE(gshmrun::parse_int_in_range(" 5", 1, 10, &v));
  EXPECT_FALSE(gshmrun::parse_int_in_range("0x5", 1, 10, &v));

  double s = -1;
  EXPECT_TRUE(gshmrun::parse_seconds("0", &s));
  EXPECT_EQ(s, 0.0);
  EXPECT_TRUE(gshmrun::parse_seconds("0.5", &s));
  EXPECT_EQ(s, 0.5);
  EXPECT_TRUE(gshmrun::parse_seconds("3", &s));
  EXPECT_EQ(s, 3.0);
  EXPECT_FALSE(gshmrun::parse_seconds("-1", &s));
  EXPECT_FALSE(gshmrun::parse_seconds("1e3", &s));
  EXPECT_FALSE(gshmrun::parse_seconds("abc", &s));
  EXPECT_FALSE(gshmrun::parse_seconds(".", &s));
  EXPECT_FALSE(gshmrun::parse_seconds("1..2", &s));
  EXPECT_FALSE(gshmrun::parse_seconds("100000", &s));
}

TEST(GshmrunOptions, ReservedNames) {
  for (const char* n : {"GSHMEM_RANK", "GSHMEM_SIZE", "GSHMEM_LOCAL_RANK", "GSHMEM_LOCAL_SIZE", "GSHMEM_UNIQUEID",
                        "GSHMEM_BOOTSTRAP_LISTEN_FD"})
    EXPECT_TRUE(gshmrun::is_reserved_env(n)) << n;
  EXPECT_FALSE(gshmrun::is_reserved_env("GSHMEM_DEBUG"));
  EXPECT_FALSE(gshmrun::is_reserved_env("GSHMEM_RANKS"));
}

// --sim-nodes K: contiguous groups, a GSHMEM_HOSTID per group; bad values and conflicts refused.
TEST(GshmrunOptions, SimNodes) {
  gshmrun::Options o;
  ASSERT_EQ(gshmrun::parse_options({"-n", "4", "--sim-nodes", "2", "prog"}, &o).action, gshmrun::ParseAction::run);
  EXPECT_EQ(o.sim_nodes, 2);
  const char* want[] = {"h-sim0", "h-sim0", "h-sim1", "h-sim1"};
  for (int r = 0; r < 4; ++r) EXPECT_EQ(gshmrun::sim_node_hostid("h", r, 4, 2), want[r]) << r;
  EXPECT_EQ(gshmrun::sim_node_hostid("h", 1, 2, 2), "h-sim1");
  EXPECT_EQ(gshmrun::sim_node_hostid("h", 3, 4, 0), "");
  ASSERT_EQ(gshmrun::parse_options({"--sim-nodes=3", "prog"}, &o).action, gshmrun::ParseAction::run);
  EXPECT_EQ(o.sim_nodes, 3);
  for (const std::vector<std::string>& bad :
       std::vector<std::vector<std::string>>{{"--sim-nodes", "0", "prog"},
                                             {"--sim-nodes", "x", "prog"},
                                             {"-n", "2", "--sim-nodes", "3", "prog"},
                                             {"--sim-nodes", "2", "-x", "GSHMEM_HOSTID=a", "prog"}})
    EXPECT_EQ(gshmrun::parse_options(bad, &o).action, gshmrun::ParseAction::error) << bad[1];
}

TEST(GshmrunOptions, UsageMentionsEverything) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* f = open_memstream(&buf, &len);
  ASSERT_NE(f, nullptr);
  gshmrun::print_usage(f);
  fclose(f);
  const std::string text(buf, len);
  free(buf);
  for (const char* w : {"--np", "--timeout", "-x NAME=VALUE", "--tag-output", "--help", "--version", "GSHMEM_RANK",
                        "GSHMEM_UNIQUEID", "GSHMEM_BOOTSTRAP_LISTEN_FD", "GSHMRUN_KILL_GRACE", "--sim-nodes",
                        "GSHMEM_HOSTID", "--hostfile", "--rsh", "GSHMRUN_RSH", "GSHMEM_BOOTSTRAP_ADDR"})
    EXPECT_NE(text.find(w), std::string::npos) << w;
  EXPECT_NE(std::string(gshmrun::version_string()).find("gshmrun"), std::string::npos);
}

}  // namespace
