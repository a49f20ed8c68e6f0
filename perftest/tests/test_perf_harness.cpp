// SPDX-License-Identifier: BSD-3-Clause
// Host-only checks of the perftest harness: flag parsing, size sweeps, statistics
// and the nccl-tests bus-bandwidth factors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "../common/bench.h"
#include "../common/options.h"
#include "../common/stats.h"

namespace perf {
namespace {

bool parse(std::vector<std::string> args, Options* o, std::string* err) {
  std::vector<char*> argv;
  static std::vector<std::string> keep;
  keep = args;
  keep.insert(keep.begin(), "gshmem-perf");
  for (std::string& s : keep) argv.push_back(s.data());
  return parse_options(static_cast<int>(argv.size()), argv.data(), o, err);
}

TEST(PerfOptions, UniformFlags) {
  Options o;
  std::string err;
  ASSERT_TRUE(parse({"put_bw",     "-b",
                     "8",          "-e",
                     "64M",        "-f",
                     "4",          "-n",
                     "7",          "-w",
                     "0",          "-r",
                     "3",          "-c",
                     "32",         "-t",
                     "1024",       "-s",
                     "warp,block", "-d",
                     "float",      "-o",
                     "sum,max",    "--bidir",
                     "--graph",    "--json=out.jsonl",
                     "--root",     "1"},
                    &o, &err))
      << err;
  EXPECT_EQ(std::vector<std::string>{"put_bw"}, o.benches);
  EXPECT_EQ(8u, o.min_bytes);
  EXPECT_EQ(64u << 20, o.max_bytes);
  EXPECT_DOUBLE_EQ(4.0, o.factor);
  EXPECT_EQ(7, o.iters);
  EXPECT_EQ(0, o.warmup);
  EXPECT_EQ(3, o.reps);
  EXPECT_EQ(32, o.ctas);
  EXPECT_EQ(1024, o.threads);
  EXPECT_EQ((std::vector<std::string>{"warp", "block"}), o.scopes);
  EXPECT_EQ(std::vector<std::string>{"float"}, o.dtypes);
  EXPECT_EQ((std::vector<std::string>{"sum", "max"}), o.ops);
  EXPECT_TRUE(o.bidir);
  EXPECT_TRUE(o.graph);
  EXPECT_EQ("out.jsonl", o.json_path);
  EXPECT_EQ(1, o.root);
  EXPECT_NE(std::string::npos, o.command.find("--json=out.jsonl"));
}

TEST(PerfOptions, Defaults) {
  Options o;
  std::string err;
  ASSERT_TRUE(parse({}, &o, &err));
  EXPECT_TRUE(o.benches.empty());
  EXPECT_EQ(0u, o.min_bytes);
  EXPECT_EQ(-1, o.warmup);  // benchmark default
  EXPECT_EQ(0, o.iters);
}

TEST(PerfOptions, Errors) {
  Options o;
  std::string err;
  EXPECT_FALSE(parse({"-b"}, &o, &err));
  EXPECT_NE(std::string::npos, err.find("-b needs"));
  EXPECT_FALSE(parse({"-e", "12Q"}, &o, &err));
  EXPECT_FALSE(parse({"-t", "2048"}, &o, &err));
  EXPECT_FALSE(parse({"-f", "1"}, &o, &err));
  EXPECT_FALSE(parse({"--frobnicate"}, &o, &err));
  EXPECT_NE(std::string::npos, err.find("unknown flag"));
  EXPECT_FALSE(parse({"-b", "1M", "-e", "1K"}, &o, &err));
  EXPECT_FALSE(parse({"--bidir=1"}, &o, &err));
}

TEST(PerfSizes, ParseAndFormat) {
  size_t v = 0;
  EXPECT_TRUE(parse_size("64K", &v));
  EXPECT_EQ(65536u, v);
  EXPECT_TRUE(parse_size("1G", &v));
  EXPECT_EQ(1ull << 30, v);
  EXPECT_TRUE(parse_size("3MB", &v));
  EXPECT_EQ(3u << 20, v);
  EXPECT_FALSE(parse_size("", &v));
  EXPECT_FALSE(parse_size("K", &v));
  EXPECT_EQ("64K", format_size(65536));
  EXPECT_EQ("256M", format_size(256u << 20));
  EXPECT_EQ("1000", format_size(1000));
}

TEST(PerfSizes, Sweep) {
  EXPECT_EQ((std::vector<size_t>{8, 16, 32, 64}), size_sweep(8, 64, 2));
  EXPECT_EQ((std::vector<size_t>{1, 4, 16}), size_sweep(1, 20, 4));
  EXPECT_EQ(std::vector<size_t>{0}, size_sweep(0, 0, 2));
  EXPECT_EQ(std::vector<size_t>{5}, size_sweep(5, 5, 2));
  EXPECT_EQ((std::vector<size_t>{1, 2}), size_sweep(0, 2, 2));
  EXPECT_EQ((std::vector<size_t>{10, 15, 22, 33}), size_sweep(10, 40, 1.5));
}

TEST(PerfStats, Percentiles) {
  std::vector<double> s;
  for (int i = 100; i >= 1; --i) s.push_back(i);
  EXPECT_DOUBLE_EQ(50.0, median(s));
  EXPECT_DOUBLE_EQ(99.0, percentile(s, 99));
  EXPECT_DOUBLE_EQ(100.0, percentile(s, 100));
  EXPECT_DOUBLE_EQ(1.0, percentile(s, 0));
  EXPECT_DOUBLE_EQ(0.0, median({}));
  EXPECT_DOUBLE_EQ(3.0, median({3.0}));
  EXPECT_DOUBLE_EQ(2.0, median({1.0, 2.0, 3.0}));
  EXPECT_DOUBLE_EQ(5.0, percentile({1, 2, 3, 4, 5}, 99));
}

TEST(PerfStats, BusBandwidthFactorsAsNcclTests) {
  EXPECT_DOUBLE_EQ(1.0, busbw_factor(Bus::allreduce, 2));
  EXPECT_DOUBLE_EQ(1.5, busbw_factor(Bus::allreduce, 4));
  EXPECT_DOUBLE_EQ(0.75, busbw_factor(Bus::allgather, 4));
  EXPECT_DOUBLE_EQ(0.75, busbw_factor(Bus::reducescatter, 4));
  EXPECT_DOUBLE_EQ(2.0 / 3.0, busbw_factor(Bus::alltoall, 3));
  EXPECT_DOUBLE_EQ(1.0, busbw_factor(Bus::broadcast, 4));
  EXPECT_DOUBLE_EQ(1.0, busbw_factor(Bus::p2p, 2));
  EXPECT_DOUBLE_EQ(0.0, busbw_factor(Bus::none, 4));
  EXPECT_DOUBLE_EQ(400.0, gbps(400e6, 1000.0));  // 400 MB in 1 ms
}

TEST(PerfRegistry, NamesAndSizes) {
  EXPECT_STREQ("float", name_of(DType::float32));
  EXPECT_STREQ("double", name_of(DType::float64));
  EXPECT_STREQ("warp", name_of(Scope::warp));
  EXPECT_EQ(8u, size_of(DType::uint64));
  EXPECT_EQ(4u, size_of(DType::int32));
}

}  // namespace
}  // namespace perf
