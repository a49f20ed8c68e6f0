// SPDX-License-Identifier: BSD-3-Clause
#include "loopback.h"

#include <algorithm>
#include <cstring>

namespace gshmem::proxy {

class LoopbackFabric::Endpoint final : public Transport {
 public:
  Endpoint(LoopbackFabric& f, int pe) : f_(f), pe_(pe) {}
  void set_callbacks(TransportCallbacks* cb) override { cb_ = cb; }
  bool send(int dst, const uint8_t* header, size_t header_size, const uint8_t* payload, size_t payload_size,
            uint64_t token) override {
    std::vector<uint8_t> m(header, header + header_size);
    if (payload_size) m.insert(m.end(), payload, payload + payload_size);
    return f_.send(pe_, dst, std::move(m), token);
  }
  void progress() override { f_.progress(pe_, cb_); }
  bool bulk_put(int dst, uint64_t local_off, uint64_t remote_off, uint64_t size, uint64_t token) override {
    return f_.bulk_put(pe_, dst, local_off, remote_off, size, token);
  }

 private:
  LoopbackFabric& f_;
  int pe_;
  TransportCallbacks* cb_ = nullptr;
};

LoopbackFabric::LoopbackFabric(int n_pes, Clock& clock, LoopbackOptions opt)
    : clock_(clock),
      opt_(opt),
      rng_(opt.seed),
      inbox_(n_pes),
      completions_(n_pes),
      news_(n_pes),
      last_due_(n_pes, std::vector<uint64_t>(n_pes, 0)),
      dead_(n_pes, 0),
      windows_(n_pes, {nullptr, 0}),
      puts_(n_pes) {
  for (int pe = 0; pe < n_pes; ++pe) endpoints_.push_back(std::make_unique<Endpoint>(*this, pe));
}

LoopbackFabric::~LoopbackFabric() = default;

Transport& LoopbackFabric::endpoint(int pe) { return *endpoints_[pe]; }

size_t LoopbackFabric::in_flight() const {
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = 0;
  for (const auto& q : inbox_) n += q.size();
  return n;
}

bool LoopbackFabric::send(int src, int dst, std::vector<uint8_t> bytes, uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (dst < 0 || dst >= static_cast<int>(inbox_.size()) || dead_[dst] || dead_[src]) return false;
  uint64_t due = clock_.now_ns() + (opt_.max_delay_ns ? rng_() % (opt_.max_delay_ns + 1) : 0);
  if (!opt_.reorder) {
    due = std::max(due, last_due_[src][dst]);
    last_due_[src][dst] = due;
  }
  inbox_[dst].push_back({src, due, std::move(bytes)});
  completions_[src].push_back(token);  // copied: the sender's buffer is free at once
  return true;
}

void LoopbackFabric::set_window(int pe, uint8_t* base, uint64_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  windows_[pe] = {base, size};
}

uint64_t LoopbackFabric::bulk_puts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bulk_puts_;
}

bool LoopbackFabric::bulk_put(int src, int dst, uint64_t local_off, uint64_t remote_off, uint64_t size,
                              uint64_t token) {
  std::lock_guard<std::mutex> lock(mu_);
  if (dst < 0 || dst >= static_cast<int>(inbox_.size()) || dead_[dst] || dead_[src]) return false;
  const auto& [lb, ls] = windows_[src];
  const auto& [rb, rs] = windows_[dst];
  if (!lb || !rb || local_off > ls || size > ls - local_off || remote_off > rs || size > rs - remote_off) return false;
  const uint64_t due = clock_.now_ns() + (opt_.max_delay_ns ? rng_() % (opt_.max_delay_ns + 1) : 0);
  puts_[src].push_back({dst, due, local_off, remote_off, size, token});
  return true;
}

void LoopbackFabric::progress(int pe, TransportCallbacks* cb) {
  std::vector<Msg> ready;
  std::deque<uint64_t> done;
  std::deque<std::pair<int, std::string>> news;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (dead_[pe]) return;
    const uint64_t now = clock_.now_ns();
    auto& in = inbox_[pe];
    // Without reordering a pair's dues never decrease, so taking the due ones in queue order
    // keeps each pair FIFO.
    for (auto it = in.begin(); it != in.end();) {
      if (it->due <= now) {
        ready.push_back(std::move(*it));
        it = in.erase(it);
      } else {
        ++it;
      }
    }
    if (opt_.reorder) std::shuffle(ready.begin(), ready.end(), rng_);
    done.swap(completions_[pe]);
    // This PE's due bulk puts: written now, complete (remotely) now, so reported after.
    auto& puts = puts_[pe];
    for (auto it = puts.begin(); it != puts.end();) {
      if (it->due > now) {
        ++it;
        continue;
      }
      std::memcpy(windows_[it->dst].first + it->remote_off, windows_[pe].first + it->local_off, it->size);
      done.push_back(it->token);
      ++bulk_puts_;
      it = puts.erase(it);
    }
    news.swap(news_[pe]);
  }
  if (!cb) return;
  for (const Msg& m : ready) cb->on_message(m.src, m.bytes.data(), m.bytes.size());
  for (uint64_t t : done) cb->on_send_complete(t);
  for (const auto& [q, why] : news) cb->on_peer_failed(q, why);
}

void LoopbackFabric::fail(int pe, const std::string& why) {
  std::lock_guard<std::mutex> lock(mu_);
  dead_[pe] = 1;
  for (int d = 0; d < static_cast<int>(inbox_.size()); ++d) {
    auto& in = inbox_[d];
    in.erase(std::remove_if(in.begin(), in.end(), [&](const Msg& m) { return d == pe || m.src == pe; }), in.end());
    if (d != pe) news_[d].emplace_back(pe, why);
  }
  completions_[pe].clear();
  puts_[pe].clear();
  for (auto& puts : puts_)  // a put into the dead PE's window is lost: it never completes
    puts.erase(std::remove_if(puts.begin(), puts.end(), [&](const Put& p) { return p.dst == pe; }), puts.end());
}

}  // namespace gshmem::proxy
