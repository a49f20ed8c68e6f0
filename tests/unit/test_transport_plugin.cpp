// SPDX-License-Identifier: BSD-3-Clause
// Loading a network plugin (src/proxy/plugin_transport.h) when something is missing: each error
// names the file and the loader's or UCX's reason, so that a user can act on it. None of these
// needs UCX: they run everywhere.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "proxy/plugin_transport.h"

namespace {

using gshmem::proxy::PluginOptions;
using gshmem::proxy::PluginTransport;

std::string load_error(const PluginOptions& opt) {
  std::string err;
  auto t = PluginTransport::load(opt, &err);
  EXPECT_EQ(t, nullptr);
  return err;
}

std::string libm_path() {
  Dl_info info{};
  double (*f)(double) = &std::cos;
  return dladdr(reinterpret_cast<void*>(f), &info) && info.dli_fname ? info.dli_fname : "";
}

TEST(TransportPlugin, MissingPluginNamesEveryFileTried) {
  PluginOptions opt;
  opt.name = "nosuch";
  opt.search_dirs = {"/nonexistent-dir"};
  const std::string err = load_error(opt);
  EXPECT_NE(err.find("/nonexistent-dir/libgshmem_transport_nosuch.so: "), std::string::npos) << err;
  EXPECT_NE(err.find("cannot open shared object file"), std::string::npos) << err;  // dlerror's words
  EXPECT_NE(err.find("GSHMEM_REMOTE_TRANSPORT"), std::string::npos) << err;
}

TEST(TransportPlugin, ALibraryThatIsNoPlugin) {
  PluginOptions opt;
  opt.name = libm_path();
  ASSERT_FALSE(opt.name.empty());
  const std::string err = load_error(opt);
  EXPECT_NE(err.find("is not a gshmem transport plugin: it lacks gshmemi_transport_get_v1"), std::string::npos) << err;
}

TEST(TransportPlugin, MissingUcxIsNamed) {
  PluginOptions opt;
  opt.name = GSHMEM_TEST_UCX_PLUGIN;
  opt.library = "/nonexistent/libucp.so.0";
  const std::string err = load_error(opt);
  EXPECT_NE(err.find("UCX was not found: dlopen(\"/nonexistent/libucp.so.0\") failed"), std::string::npos) << err;
  EXPECT_NE(err.find("GSHMEM_UCX_LIB"), std::string::npos) << err;
}

TEST(TransportPlugin, GshmemUcxLibIsRead) {
  setenv("GSHMEM_UCX_LIB", "/nonexistent/from-env/libucp.so.0", 1);
  PluginOptions opt;
  opt.name = GSHMEM_TEST_UCX_PLUGIN;
  const std::string err = load_error(opt);
  unsetenv("GSHMEM_UCX_LIB");
  EXPECT_NE(err.find("/nonexistent/from-env/libucp.so.0"), std::string::npos) << err;
}

TEST(TransportPlugin, NotLibucpNamesTheMissingSymbol) {
  PluginOptions opt;
  opt.name = GSHMEM_TEST_UCX_PLUGIN;
  opt.library = libm_path();
  const std::string err = load_error(opt);
  EXPECT_NE(err.find("lacks the symbol ucp_get_version"), std::string::npos) << err;
}

}  // namespace
