// SPDX-License-Identifier: BSD-3-Clause
// The proxy entry layout (include/gshmem/detail/proxy_abi.h, docs/internode.md section 3):
// field positions, lap parity, reply tags, and the round trip of every op kind through the
// encoder and the engine's decoder, with random field values at the edges of their widths.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "gshmem/detail/proxy_abi.h"
#include "proxy/op.h"

namespace {

using gshmem::proxy::decode_entry;
using gshmem::proxy::encode_entry;
using gshmem::proxy::ProxyOp;

TEST(ProxyAbi, WordZeroFieldsFillBitsZeroTo62) {
  EXPECT_EQ(sizeof(gshmemi_proxy_entry), 64u);
  EXPECT_EQ(gshmemi_proxy_w0(0x3f, 0x1ff, GSHMEMI_PROXY_LEN_MAX, GSHMEMI_PROXY_PE_MAX), GSHMEMI_PROXY_FIELD_MASK);
  EXPECT_EQ(gshmemi_proxy_w0(1, 0, 0, 0), 1u);
  EXPECT_EQ(gshmemi_proxy_w0(0, 1, 0, 0), uint64_t{1} << 6);
  EXPECT_EQ(gshmemi_proxy_w0(0, 0, 1, 0), uint64_t{1} << 15);
  EXPECT_EQ(gshmemi_proxy_w0(0, 0, 0, 1), uint64_t{1} << 39);
  std::mt19937_64 rng(52);
  for (int i = 0; i < 10000; ++i) {
    const unsigned op = rng() & 0x3f, flags = rng() & 0x1ff;
    const uint32_t len = rng() & GSHMEMI_PROXY_LEN_MAX, pe = rng() & GSHMEMI_PROXY_PE_MAX;
    const uint64_t w0 = gshmemi_proxy_w0(op, flags, len, pe);
    ASSERT_EQ(w0 & GSHMEMI_PROXY_PARITY_BIT, 0u);
    ASSERT_EQ(gshmemi_proxy_w0_op(w0), op);
    ASSERT_EQ(gshmemi_proxy_w0_flags(w0), flags);
    ASSERT_EQ(gshmemi_proxy_w0_len(w0), len);
    ASSERT_EQ(gshmemi_proxy_w0_pe(w0), pe);
  }
}

TEST(ProxyAbi, LapParityAlternatesAndLapZeroWritesOne) {
  for (unsigned log2n : {3u, 6u, 12u}) {
    const uint64_t n = uint64_t{1} << log2n;
    for (uint64_t t = 0; t < 5 * n; t += n / 4 + 1) {
      const uint64_t expect = ((t / n) % 2 == 0) ? GSHMEMI_PROXY_PARITY_BIT : 0;
      ASSERT_EQ(gshmemi_proxy_parity(t, log2n), expect) << "ticket " << t << " of a ring of " << n;
    }
  }
}

TEST(ProxyAbi, ReplyTagsAreNeverZeroAndNameTheirTicket) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t t = i < 50000 ? static_cast<uint64_t>(i) : rng();
    const uint64_t half = rng() & 0xffffffffu;
    ASSERT_NE(gshmemi_proxy_tag(t), 0u);
    const uint64_t w = gshmemi_proxy_reply_word(GSHMEMI_PROXY_PARITY_BIT, t, half, i & 1);
    ASSERT_TRUE(gshmemi_proxy_reply_is_for(w, t));
    ASSERT_FALSE(gshmemi_proxy_reply_is_for(w, t + 1));                     // the next ticket: another tag
    ASSERT_FALSE(gshmemi_proxy_reply_is_for(GSHMEMI_PROXY_PARITY_BIT, t));  // the producer's zero fields
    ASSERT_EQ(w & 0xffffffffu, half);
    ASSERT_EQ((w & GSHMEMI_PROXY_REPLY_ERROR) != 0, (i & 1) != 0);
    ASSERT_EQ(w & GSHMEMI_PROXY_PARITY_BIT, GSHMEMI_PROXY_PARITY_BIT);
  }
  const uint64_t v = 0xfedcba9876543210ull;
  EXPECT_EQ(gshmemi_proxy_join(gshmemi_proxy_lo(v), gshmemi_proxy_hi(v)), v);
}

TEST(ProxyAbi, EveryOpKindRoundTripsThroughEncodeAndDecode) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 20000; ++i) {
    ProxyOp o;
    o.target = static_cast<int>(rng() & GSHMEMI_PROXY_PE_MAX);
    o.offset = rng() & GSHMEMI_PROXY_FIELD_MASK;
    const int kind = i % 6;
    if (kind == 0 || kind == 1) {  // inline put, with and without a signal
      o.op = GSHMEMI_PROXY_OP_PUT;
      if (kind == 1) {
        o.flags = GSHMEMI_PROXY_F_HAS_SIGNAL | ((rng() & 1) ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0);
        o.sig_offset = rng() & GSHMEMI_PROXY_FIELD_MASK;
        o.sig_value = rng();
      }
      o.size = rng() % ((kind == 1 ? 8 : 16) + 1);
      for (unsigned b = 0; b < o.size; ++b) o.inline_data[b] = static_cast<uint8_t>(rng());
    } else if (kind == 2) {  // by-reference put or get
      o.op = (rng() & 1) ? GSHMEMI_PROXY_OP_PUT : GSHMEMI_PROXY_OP_GET;
      o.flags = GSHMEMI_PROXY_F_BY_REF | ((rng() & 1) ? GSHMEMI_PROXY_F_NBI : 0);
      o.ref_addr = rng() & GSHMEMI_PROXY_FIELD_MASK;
      o.size = rng() & GSHMEMI_PROXY_FIELD_MASK;
    } else if (kind == 3) {  // AMO with 64-bit operands
      o.op = static_cast<uint8_t>(GSHMEMI_PROXY_OP_AMO_SET + rng() % 8);
      o.flags = (((rng() & 1) ? 3u : 2u) << GSHMEMI_PROXY_F_WIDTH_SHIFT) | ((rng() & 1) ? GSHMEMI_PROXY_F_FETCH : 0);
      o.operand = rng();
      o.compare = rng();
      o.size = o.width();
    } else if (kind == 4) {  // g
      o.op = GSHMEMI_PROXY_OP_GET;
      o.flags = GSHMEMI_PROXY_F_FETCH | ((rng() % 4) << GSHMEMI_PROXY_F_WIDTH_SHIFT);
      o.size = o.width();
    } else {  // signal alone
      o.op = GSHMEMI_PROXY_OP_SIGNAL;
      o.flags = (rng() & 1) ? GSHMEMI_PROXY_F_SIGNAL_ADD : 0;
      o.sig_offset = rng() & GSHMEMI_PROXY_FIELD_MASK;
      o.sig_value = rng();
    }
    uint64_t w[8];
    const uint64_t parity = (i & 1) ? GSHMEMI_PROXY_PARITY_BIT : 0;
    encode_entry(o, parity, w);
    for (int k = 0; k < 8; ++k) ASSERT_EQ(w[k] & GSHMEMI_PROXY_PARITY_BIT, parity) << "word " << k;
    ASSERT_EQ(w[6] & GSHMEMI_PROXY_FIELD_MASK, kind == 1 || kind == 5 ? gshmemi_proxy_hi(o.sig_value) : 0u);
    ASSERT_EQ(w[7] & GSHMEMI_PROXY_FIELD_MASK, 0u) << "word 7 is the proxy's";
    ProxyOp d;
    std::string why;
    ASSERT_TRUE(decode_entry(w, &d, &why)) << why;
    ASSERT_EQ(d.op, o.op);
    ASSERT_EQ(d.flags, o.flags);
    ASSERT_EQ(d.target, o.target);
    ASSERT_EQ(d.offset, o.offset);
    ASSERT_EQ(d.size, o.size);
    ASSERT_EQ(d.ref_addr, o.ref_addr);
    ASSERT_EQ(d.operand, o.operand);
    ASSERT_EQ(d.compare, o.compare);
    ASSERT_EQ(d.sig_offset, o.sig_offset);
    ASSERT_EQ(d.sig_value, o.sig_value);
    for (unsigned b = 0; b < 16; ++b) ASSERT_EQ(d.inline_data[b], o.inline_data[b]) << "byte " << b;
    ASSERT_EQ(d.wants_reply(), gshmemi_proxy_wants_reply(w[0]) != 0);
  }
}

TEST(ProxyAbi, DecoderRefusesWhatNoProducerWrites) {
  const uint64_t p = GSHMEMI_PROXY_PARITY_BIT;
  uint64_t w[8];
  for (auto& x : w) x = p;
  ProxyOp d;
  std::string why;
  w[0] = p | gshmemi_proxy_w0(GSHMEMI_PROXY_OP_PUT, 0, 17, 0);  // inline put of 17 B
  EXPECT_FALSE(decode_entry(w, &d, &why));
  EXPECT_NE(why.find("17 B"), std::string::npos) << why;
  w[0] = p | gshmemi_proxy_w0(GSHMEMI_PROXY_OP_PUT, GSHMEMI_PROXY_F_HAS_SIGNAL, 9, 0);  // 9 B beside a signal
  EXPECT_FALSE(decode_entry(w, &d, &why));
  w[0] = p | gshmemi_proxy_w0(40, 0, 0, 0);
  EXPECT_FALSE(decode_entry(w, &d, &why));
  EXPECT_NE(why.find("unknown op 40"), std::string::npos) << why;
  w[0] = p | gshmemi_proxy_w0(GSHMEMI_PROXY_OP_AMO_ADD, 1u << GSHMEMI_PROXY_F_WIDTH_SHIFT, 0, 0);  // 2-byte AMO
  EXPECT_FALSE(decode_entry(w, &d, &why));
  w[0] = p | gshmemi_proxy_w0(GSHMEMI_PROXY_OP_GET, 0, 0, 0);  // a get with nowhere to go
  EXPECT_FALSE(decode_entry(w, &d, &why));
}

}  // namespace

// Which entries hold their slot for a waiter: a non-blocking get has none (its quiet reads
// `completed`), so the engine must not wait for its word 0 to be cleared.
TEST(ProxyAbi, OnlyEntriesWithAWaiterWantAReply) {
  const auto wants = [](unsigned op, unsigned flags) {
    return gshmemi_proxy_wants_reply(gshmemi_proxy_w0(op, flags, 0, 1));
  };
  EXPECT_TRUE(wants(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_BY_REF));
  EXPECT_FALSE(wants(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_BY_REF | GSHMEMI_PROXY_F_NBI));
  EXPECT_TRUE(wants(GSHMEMI_PROXY_OP_GET, GSHMEMI_PROXY_F_FETCH));
  EXPECT_TRUE(wants(GSHMEMI_PROXY_OP_PUT, GSHMEMI_PROXY_F_BY_REF));
  EXPECT_FALSE(wants(GSHMEMI_PROXY_OP_PUT, GSHMEMI_PROXY_F_BY_REF | GSHMEMI_PROXY_F_NBI));
  EXPECT_FALSE(wants(GSHMEMI_PROXY_OP_PUT, 0));
  EXPECT_FALSE(wants(GSHMEMI_PROXY_OP_SIGNAL, GSHMEMI_PROXY_F_SIGNAL_ADD));
  EXPECT_TRUE(wants(GSHMEMI_PROXY_OP_AMO_ADD, GSHMEMI_PROXY_F_FETCH));
  EXPECT_FALSE(wants(GSHMEMI_PROXY_OP_AMO_ADD, 0));
}

// The device's failure diagnostic (proxy.cuh fail()) as the proxy thread decodes it.
TEST(ProxyAbi, DiagnosticWordNamesWhyTheOpThisPeAndTheTarget) {
  const uint64_t w0 = gshmemi_proxy_w0(GSHMEMI_PROXY_OP_AMO_CSWAP, GSHMEMI_PROXY_F_FETCH, 0, 12345);
  const uint64_t d = gshmemi_proxy_diag(GSHMEMI_PROXY_DIAG_NO_REPLY, w0, 777);
  EXPECT_NE(d, 0u);
  EXPECT_EQ((d >> 63) & 1, 1u);
  EXPECT_EQ((d >> 56) & 15, GSHMEMI_PROXY_DIAG_NO_REPLY);
  EXPECT_EQ((d >> 48) & 63, unsigned{GSHMEMI_PROXY_OP_AMO_CSWAP});
  EXPECT_EQ((d >> 24) & 0xffffff, 777u);
  EXPECT_EQ(d & 0xffffff, 12345u);
  EXPECT_EQ(gshmemi_proxy_diag(GSHMEMI_PROXY_DIAG_QUIET, 0, 3) & 0xffffff, 0u);  // quiet: no target
}
