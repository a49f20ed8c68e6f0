// SPDX-License-Identifier: BSD-3-Clause
#include "plugin_transport.h"

#include <dlfcn.h>

#include <cstring>

namespace gshmem::proxy {

namespace {

// The folder of the object this code was linked into: libgshmem.so in the library, the test
// binary in the tests (dladdr of a function of this file).
std::string own_dir() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&own_dir), &info) || !info.dli_fname) return {};
  std::string f = info.dli_fname;
  const size_t slash = f.rfind('/');
  return slash == std::string::npos ? std::string() : f.substr(0, slash);
}

std::vector<std::string> candidates(const PluginOptions& opt) {
  if (opt.name.find('/') != std::string::npos) return {opt.name};
  const std::string file = "libgshmem_transport_" + opt.name + ".so";
  std::vector<std::string> out;
  for (const std::string& d : opt.search_dirs) out.push_back(d + "/" + file);
  if (const std::string d = own_dir(); !d.empty()) {
    out.push_back(d + "/" + file);
    out.push_back(d + "/../lib/" + file);  // a binary in bin/ of a build or install tree
  }
  out.push_back(file);  // the loader's search: LD_LIBRARY_PATH, rpath, ld.so.cache
  return out;
}

}  // namespace

std::unique_ptr<PluginTransport> PluginTransport::load(const PluginOptions& opt, std::string* error) {
  std::unique_ptr<PluginTransport> t(new PluginTransport());
  t->my_pe_ = opt.my_pe;
  std::string tried;
  // RTLD_LOCAL: the plugin's symbols (and the network library it loads) stay out of the
  // application's namespace; only the one entry point is looked up, by handle.
  for (const std::string& path : candidates(opt)) {
    if ((t->dl_ = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL))) {
      t->path_ = path;
      break;
    }
    const char* why = dlerror();
    tried += "\n  " + path + ": " + (why ? why : "not loadable");
  }
  if (!t->dl_) {
    *error = "the network transport plugin '" + opt.name + "' could not be loaded; tried:" + tried +
             "\n(GSHMEM_REMOTE_TRANSPORT names it; it is built as libgshmem_transport_<name>.so beside libgshmem)";
    return nullptr;
  }
  auto get = reinterpret_cast<gshmemi_transport_get_v1_fn>(dlsym(t->dl_, GSHMEMI_TRANSPORT_ENTRY_V1));
  if (!get) {
    *error = t->path_ + " is not a gshmem transport plugin: it lacks " GSHMEMI_TRANSPORT_ENTRY_V1;
    return nullptr;
  }
  const gshmemi_transport_v1* table = get();
  if (!table || table->abi_version != GSHMEMI_TRANSPORT_ABI_VERSION ||
      table->struct_size < GSHMEMI_TRANSPORT_V1_BASE_SIZE) {
    *error = t->path_ + ": plugin ABI version " + std::to_string(table ? table->abi_version : 0) + " (table of " +
             std::to_string(table ? table->struct_size : 0) + " B), this library needs version " +
             std::to_string(GSHMEMI_TRANSPORT_ABI_VERSION) + " (" + std::to_string(GSHMEMI_TRANSPORT_V1_BASE_SIZE) +
             " B): rebuild the plugin with this gshmem";
    return nullptr;
  }
  t->table_ = table;
  gshmemi_transport_init_args_v1 args{};
  args.struct_size = sizeof args;
  args.my_pe = opt.my_pe;
  args.n_pes = opt.n_pes;
  args.callbacks = {t.get(), &cb_message, &cb_send_complete, &cb_peer_failed};
  args.library = opt.library.empty() ? nullptr : opt.library.c_str();
  char err[1024] = "";
  if (table->init(&args, &t->state_, err, sizeof err) != GSHMEMI_TRANSPORT_OK || !t->state_) {
    *error = std::string(table->name) + " transport (" + t->path_ + "): " + (err[0] ? err : "init failed");
    t->state_ = nullptr;
    return nullptr;
  }
  return t;
}

PluginTransport::~PluginTransport() {
  if (state_) table_->finalize(state_);
  // The plugin stays loaded: the network library it loaded may have installed hooks (UCX's
  // memory hooks) or threads that must not lose their code.
}

bool PluginTransport::send(int dst, const uint8_t* header, size_t header_size, const uint8_t* payload,
                           size_t payload_size, uint64_t token) {
  if (table_->am_send(state_, dst, header, header_size, payload, payload_size, token) == GSHMEMI_TRANSPORT_OK)
    return true;
  // The plugin's reason, not only the engine's "refused": the engine's own report that follows
  // finds the peer failed already and adds nothing.
  if (cb_) cb_->on_peer_failed(dst, std::string(table_->name) + ": " + last_error());
  return false;
}

void PluginTransport::progress() { table_->progress(state_); }

bool PluginTransport::has_rma() const {
  return table_->struct_size >= sizeof(gshmemi_transport_v1) && table_->mem_register && table_->mem_connect &&
         table_->put && (capabilities() & GSHMEMI_TRANSPORT_CAP_RMA);
}

bool PluginTransport::bulk_register(uint8_t* base, uint64_t size, std::vector<uint8_t>* key, std::string* error) {
  if (!has_rma()) {
    *error = std::string("the transport '") + name() + "' has no RMA";
    return false;
  }
  const void* k = nullptr;
  size_t n = 0;
  if (table_->mem_register(state_, base, size, &k, &n) != GSHMEMI_TRANSPORT_OK) {
    *error = last_error();
    return false;
  }
  const auto* p = static_cast<const uint8_t*>(k);
  key->assign(p, p + n);
  return true;
}

bool PluginTransport::bulk_connect(int pe, const std::vector<uint8_t>& key, std::string* error) {
  if (has_rma() && table_->mem_connect(state_, pe, key.data(), key.size()) == GSHMEMI_TRANSPORT_OK) return true;
  *error = has_rma() ? last_error() : "no RMA";
  return false;
}

bool PluginTransport::bulk_put(int dst, uint64_t local_off, uint64_t remote_off, uint64_t size, uint64_t token) {
  if (table_->put(state_, dst, local_off, remote_off, size, token) == GSHMEMI_TRANSPORT_OK) return true;
  if (cb_) cb_->on_peer_failed(dst, std::string(table_->name) + ": " + last_error());
  return false;
}

std::vector<uint8_t> PluginTransport::address() const {
  const void* a = nullptr;
  size_t n = 0;
  if (table_->worker_address(state_, &a, &n) != GSHMEMI_TRANSPORT_OK) return {};
  const auto* p = static_cast<const uint8_t*>(a);
  return std::vector<uint8_t>(p, p + n);
}

bool PluginTransport::connect(int pe, const std::vector<uint8_t>& address, std::string* error) {
  if (table_->connect(state_, pe, address.data(), address.size()) == GSHMEMI_TRANSPORT_OK) return true;
  *error = last_error();
  return false;
}

std::string PluginTransport::last_error() const {
  const char* e = table_->last_error(state_);
  return e ? e : "";
}

void PluginTransport::cb_message(void* ctx, int src, const void* header, size_t header_size, const void* payload,
                                 size_t payload_size) {
  auto* t = static_cast<PluginTransport*>(ctx);
  if (!t->cb_) return;
  // The engine parses one buffer; joining costs a copy the engine makes anyway (it keeps every
  // message until applied).
  std::vector<uint8_t>& m = t->joined_;
  m.resize(header_size + payload_size);
  if (header_size) std::memcpy(m.data(), header, header_size);
  if (payload_size) std::memcpy(m.data() + header_size, payload, payload_size);
  t->cb_->on_message(src, m.data(), m.size());
}

void PluginTransport::cb_send_complete(void* ctx, uint64_t token) {
  auto* t = static_cast<PluginTransport*>(ctx);
  if (t->cb_) t->cb_->on_send_complete(token);
}

void PluginTransport::cb_peer_failed(void* ctx, int pe, const char* why) {
  auto* t = static_cast<PluginTransport*>(ctx);
  if (t->cb_) t->cb_->on_peer_failed(pe, why ? why : "");
}

}  // namespace gshmem::proxy
