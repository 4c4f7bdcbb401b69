// SPDX-License-Identifier: MIT
// ETH 1.1 offloads (docs/eth-offloads.md 1.1, 1.2, 2.2, 2.4): the Internet checksum, RX parse
// and checksum status, TX entry runs (scatter-gather), checksum insertion, TCP segmentation
// over IPv4 and IPv6, and every hostile-descriptor rule, counted once and never sent.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "eth_rig.hpp"
#include "scenic/dp/inet_csum.hpp"
#include "scenic/dp/rx_parse.hpp"

namespace scenic::test {
namespace {

using namespace regs;

constexpr uint32_t kMore = 1;
constexpr uint32_t kCtx = 2;
constexpr uint16_t kOpCsum = 1;
constexpr uint16_t kOpTso = 2;
constexpr uint16_t kOpUso = 4;
constexpr uint16_t kOpIpv6 = 8;

// Reference: the ones'-complement sum one byte pair at a time, folded at every step.
uint16_t ref_fold(const std::vector<uint8_t>& d, size_t from, size_t to, uint32_t init = 0) {
    uint32_t s = init;
    for (size_t i = from; i < to; i += 2) {
        const uint32_t w = uint32_t{d[i]} << 8 | (i + 1 < to ? d[i + 1] : 0u);
        s += w;
        s = (s & 0xffff) + (s >> 16);
    }
    return static_cast<uint16_t>(s);
}

uint16_t be16(const std::vector<uint8_t>& f, size_t o) {
    return static_cast<uint16_t>(f[o] << 8 | f[o + 1]);
}
uint32_t be32(const std::vector<uint8_t>& f, size_t o) {
    return uint32_t{be16(f, o)} << 16 | be16(f, o + 2);
}
void put16(std::vector<uint8_t>& f, size_t o, uint16_t v) {
    f[o] = static_cast<uint8_t>(v >> 8);
    f[o + 1] = static_cast<uint8_t>(v);
}

// TCP (or UDP) over IPv4 or IPv6 to the station, payload bytes of a pattern, with the L4
// checksum field seeded with the pseudo-header sum as Linux does for CHECKSUM_PARTIAL, or
// (complete = true) with the full checksum.
struct Pkt {
    std::vector<uint8_t> f;
    size_t l3 = 14;
    size_t l4 = 0;
    size_t hdr = 0;
};

Pkt make_l4(bool v6, uint8_t proto, size_t payload, bool complete, size_t ip_opts = 0) {
    Pkt p;
    const size_t l3h = v6 ? 40 : 20 + ip_opts;
    const size_t l4h = proto == 6 ? 20 : 8;
    p.l4 = p.l3 + l3h;
    p.hdr = p.l4 + l4h;
    p.f = make_frame(p.hdr + payload, kStation, v6 ? 0x86dd : 0x0800);
    auto& f = p.f;
    std::fill(f.begin() + 14, f.begin() + static_cast<ptrdiff_t>(p.hdr), 0);
    for (size_t i = 0; i < payload; ++i) {
        f[p.hdr + i] = static_cast<uint8_t>(i * 7 + 3);
    }
    const auto l4len = static_cast<uint16_t>(l4h + payload);
    if (v6) {
        f[14] = 0x60;
        put16(f, 18, l4len);
        f[20] = proto;
        f[21] = 64;
        for (size_t i = 0; i < 32; ++i) {
            f[22 + i] = static_cast<uint8_t>(0xfd + i);
        }
    } else {
        f[14] = static_cast<uint8_t>(0x40 | (l3h / 4));
        put16(f, 16, static_cast<uint16_t>(l3h + l4h + payload));
        put16(f, 18, 0xfffe);  // IP ID: wraps during TSO
        put16(f, 20, 0x4000);  // DF
        f[22] = 64;
        f[23] = proto;
        const uint8_t addrs[8] = {10, 0, 0, 1, 10, 0, 0, 2};
        std::memcpy(&f[26], addrs, 8);
        for (size_t i = 0; i < ip_opts; ++i) {
            f[34 + i] = 1;  // NOP options
        }
        put16(f, 24, static_cast<uint16_t>(~ref_fold(f, 14, 14 + l3h)));
    }
    put16(f, p.l4, 40000);
    put16(f, p.l4 + 2, 5201);
    if (proto == 6) {
        f[p.l4 + 4] = 0xff;  // sequence near the wrap
        f[p.l4 + 5] = 0xff;
        f[p.l4 + 6] = 0xf0;
        f[p.l4 + 12] = 0x50;
        f[p.l4 + 13] = 0x80 | 0x10 | 0x08 | 0x01;  // CWR ACK PSH FIN
        put16(f, p.l4 + 14, 512);
    } else {
        put16(f, p.l4 + 4, l4len);
    }
    // pseudo-header sum
    uint32_t ph = v6 ? ref_fold(f, 22, 54) : ref_fold(f, 26, 34);
    ph += proto + l4len;
    ph = (ph & 0xffff) + (ph >> 16);
    const size_t field = p.l4 + (proto == 6 ? 16 : 6);
    put16(f, field, static_cast<uint16_t>(ph));
    if (complete) {
        put16(f, field, 0);
        const uint16_t c = static_cast<uint16_t>(~ref_fold(f, p.l4, f.size(), ph));
        put16(f, field, c == 0 ? 0xffff : c);
    }
    return p;
}

// A context entry at ring index idx.
void ctx(EthRig& rig, uint32_t idx, uint16_t start, uint16_t off, uint16_t mss, uint8_t l3,
         uint8_t hdr, uint16_t ops, uint32_t flags = kCtx | kMore, uint16_t reserved = 0) {
    uint8_t* c = rig.mem(EthRig::kTxRing + uint64_t{idx} * 16);
    const uint16_t w[5] = {start, off, mss, static_cast<uint16_t>(l3 | hdr << 8), ops};
    std::memcpy(c, w, 10);
    std::memcpy(c + 10, &reserved, 2);
    std::memcpy(c + 12, &flags, 4);
}

bool csum_good(const std::vector<uint8_t>& f) {
    return dp::rx_csum_status(f) == dp::CsumStatus::kGood;
}

TEST(InetCsum, Rfc1071ExampleAndTheByteLoop) {
    // RFC 1071 section 3: 00 01 f2 03 f4 f5 f6 f7 sums to ddf2.
    const std::vector<uint8_t> ex{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    EXPECT_EQ(dp::inet_fold(dp::inet_sum(ex)), 0xddf2);
    EXPECT_EQ(dp::inet_csum(ex), 0x220d);
    std::vector<uint8_t> d(71);
    for (size_t n = 0; n <= 70; ++n) {
        for (size_t i = 0; i < d.size(); ++i) {
            d[i] = static_cast<uint8_t>(i * 37 + n);
        }
        EXPECT_EQ(dp::inet_fold(dp::inet_sum(std::span(d).first(n), 0x1234)),
                  ref_fold(d, 0, n, 0x1234))
            << n;
    }
    const std::vector<uint8_t> ones(64, 0xff);
    EXPECT_EQ(dp::inet_fold(dp::inet_sum(ones)), 0xffff);
    EXPECT_EQ(dp::inet_csum(std::vector<uint8_t>(64, 0)), 0xffff);
}

TEST(RxParse, ChecksumStatusOfGoodBadAndUncheckableFrames) {
    for (const bool v6 : {false, true}) {
        for (const uint8_t proto : {uint8_t{6}, uint8_t{17}}) {
            auto p = make_l4(v6, proto, 100, true);
            EXPECT_EQ(dp::rx_csum_status(p.f), dp::CsumStatus::kGood) << v6 << proto;
            p.f.resize(p.f.size() + 20, 0xee);  // Ethernet padding is not summed
            EXPECT_EQ(dp::rx_csum_status(p.f), dp::CsumStatus::kGood);
            p.f[p.hdr + 3] ^= 1;
            EXPECT_EQ(dp::rx_csum_status(p.f), dp::CsumStatus::kBadL4);
            auto t = make_l4(v6, proto, 100, true);
            t.f.pop_back();  // truncated
            EXPECT_EQ(dp::rx_csum_status(t.f), dp::CsumStatus::kNone);
        }
    }
    auto ip = make_l4(false, 6, 10, true);
    ip.f[22] ^= 1;  // TTL: header checksum wrong
    EXPECT_EQ(dp::rx_csum_status(ip.f), dp::CsumStatus::kBadIp);
    auto frag = make_l4(false, 6, 10, true);
    put16(frag.f, 20, 0x2000);  // MF
    put16(frag.f, 24, 0);
    put16(frag.f, 24, static_cast<uint16_t>(~ref_fold(frag.f, 14, 34)));
    EXPECT_EQ(dp::rx_csum_status(frag.f), dp::CsumStatus::kNone);
    auto udp0 = make_l4(false, 17, 10, true);
    put16(udp0.f, udp0.l4 + 6, 0);
    EXPECT_EQ(dp::rx_csum_status(udp0.f), dp::CsumStatus::kNone);
    auto ext = make_l4(true, 6, 10, true);
    ext.f[20] = 0;  // hop-by-hop options header
    EXPECT_EQ(dp::rx_csum_status(ext.f), dp::CsumStatus::kNone);
    EXPECT_EQ(dp::rx_csum_status(make_frame(60)), dp::CsumStatus::kNone);
}

TEST(EthRxCsum, TagBitsAndCountersOnlyWhileEnabled) {
    EthRig rig;
    rig.up();
    EXPECT_EQ(rig.r(eth::kFeatures) & 0x17u, 0x17u);
    auto good = make_l4(false, 6, 200, true);
    auto bad = good;
    bad.f[bad.hdr] ^= 0x40;
    rig.dev.eth_rx(good.f);  // OFFLOAD_CTRL 0: today's tag
    EXPECT_EQ(rig.tag(0).flags & 0x18u, 0u);
    EXPECT_EQ(rig.r(eth::kRxCsumGood), 0u);
    rig.w(eth::kOffloadCtrl, 0xffffffff);
    EXPECT_EQ(rig.r(eth::kOffloadCtrl), 1u);
    rig.dev.eth_rx(good.f);
    rig.dev.eth_rx(bad.f);
    auto v6 = make_l4(true, 17, 300, true);
    rig.dev.eth_rx(v6.f);
    rig.dev.eth_rx(make_frame(60));
    EXPECT_EQ(rig.tag(1).flags >> 3 & 3u, 1u);
    EXPECT_EQ(rig.tag(2).flags >> 3 & 3u, 2u);
    EXPECT_EQ(rig.tag(3).flags >> 3 & 3u, 1u);
    EXPECT_EQ(rig.tag(4).flags >> 3 & 3u, 0u);
    EXPECT_EQ(rig.slot_frame(2), bad.f);  // delivered unchanged: the stack decides
    EXPECT_EQ(rig.r(eth::kRxCsumGood), 2u);
    EXPECT_EQ(rig.r(eth::kRxCsumBad), 1u);
}

TEST(EthTxOffload, ScatterGatherSendsTheConcatenation) {
    EthRig rig;
    rig.up(8, 2048, 64);
    const auto f = make_frame(1514, kPeer);
    const uint64_t b = rig.tx_buf(0, f);
    // 32 entries (the limit): 31 of 40 bytes and the rest.
    for (uint32_t i = 0; i < 31; ++i) {
        rig.cmd(i, b + i * 40, 40, kMore);
    }
    rig.cmd(31, b + 31 * 40, 1514 - 31 * 40);
    rig.w(eth::kTxTail, 32);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0], f);
    EXPECT_EQ(rig.r(eth::kTxHead), 32u);
    EXPECT_EQ(rig.r(eth::kTxFrames), 1u);
    EXPECT_EQ(rig.r(eth::kTxBytes), 1514u);
}

TEST(EthTxOffload, PacketCutByTailWaitsThenCompletes) {
    EthRig rig;
    rig.up(8, 2048, 16);
    const auto f = make_frame(100, kPeer);
    const uint64_t b = rig.tx_buf(0, f);
    rig.cmd(0, b, 50, kMore);
    rig.cmd(1, b + 50, 50);
    rig.w(eth::kTxTail, 1);
    rig.host.run_for(rig.dev, 1'000'000);
    EXPECT_TRUE(rig.host.wire.empty());
    EXPECT_EQ(rig.r(eth::kTxHead), 0u);  // on the packet's first entry
    EXPECT_FALSE(rig.host.timer.has_value());
    rig.w(eth::kTxTail, 2);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0], f);
    EXPECT_EQ(rig.r(eth::kTxHead), 2u);
    EXPECT_EQ(rig.wb_tx_head(), 2u);
}

TEST(EthTxOffload, ChecksumInsertedForTcpAndUdpOverIpv4AndIpv6) {
    for (const bool v6 : {false, true}) {
        for (const uint8_t proto : {uint8_t{6}, uint8_t{17}}) {
            EthRig rig;
            rig.up(8, 2048, 16);
            const Pkt p = make_l4(v6, proto, 1000, false);
            const Pkt want = make_l4(v6, proto, 1000, true);
            ASSERT_FALSE(csum_good(p.f));
            const uint64_t b = rig.tx_buf(0, p.f);
            ctx(rig, 0, static_cast<uint16_t>(p.l4), proto == 6 ? 16 : 6, 0, 14, 0, kOpCsum);
            rig.cmd(1, b, static_cast<uint32_t>(p.hdr), kMore);  // head, then two fragments
            rig.cmd(2, b + p.hdr, 333, kMore);
            rig.cmd(3, b + p.hdr + 333, static_cast<uint32_t>(p.f.size() - p.hdr - 333));
            rig.w(eth::kTxTail, 4);
            ASSERT_EQ(rig.host.wire.size(), 1u);
            EXPECT_EQ(rig.host.wire[0], want.f) << v6 << proto;
            EXPECT_TRUE(csum_good(rig.host.wire[0]));
            EXPECT_EQ(rig.r(eth::kTxCsum), 1u);
            EXPECT_EQ(rig.r(eth::kTxHead), 4u);
        }
    }
}

TEST(EthTxOffload, ChecksumResultZeroGoesOutAsFfff) {
    EthRig rig;
    rig.up();
    // 16 bytes summed from csum_start whose sum folds to 0xffff: the checksum would be 0.
    std::vector<uint8_t> f = make_frame(60, kPeer);
    std::fill(f.begin() + 14, f.end(), 0);
    f[20] = 0xff;
    f[21] = 0xff;
    const uint64_t b = rig.tx_buf(0, f);
    ctx(rig, 0, 14, 2, 0, 14, 0, kOpCsum);
    rig.cmd(1, b, 60);
    rig.w(eth::kTxTail, 2);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(be16(rig.host.wire[0], 16), 0xffff);
}

struct TsoCase {
    bool v6;
    size_t payload;
    uint16_t mss;
    size_t ip_opts;
};

class Tso : public ::testing::TestWithParam<TsoCase> {};

TEST_P(Tso, SegmentsCarryTheRightHeadersAndChecksums) {
    const TsoCase tc = GetParam();
    EthRig rig;
    rig.up(8, 2048, 16);
    const Pkt p = make_l4(tc.v6, 6, tc.payload, false, tc.ip_opts);
    const uint64_t b = rig.tx_buf(0, p.f, 64 * 1024);
    ctx(rig, 0, static_cast<uint16_t>(p.l4), 16, tc.mss, 14, static_cast<uint8_t>(p.hdr),
        static_cast<uint16_t>(kOpTso | (tc.v6 ? kOpIpv6 : 0)));
    rig.cmd(1, b, static_cast<uint32_t>(p.hdr), kMore);
    rig.cmd(2, b + p.hdr, static_cast<uint32_t>(p.f.size() - p.hdr));
    rig.w(eth::kTxTail, 3);
    const size_t n = (tc.payload + tc.mss - 1) / tc.mss;
    ASSERT_EQ(rig.host.wire.size(), n);
    EXPECT_EQ(rig.r(eth::kTxTsoPkts), 1u);
    EXPECT_EQ(rig.r(eth::kTxTsoSegs), n);
    EXPECT_EQ(rig.r(eth::kTxFrames), n);
    EXPECT_EQ(rig.r(eth::kTxCsum), n);
    std::vector<uint8_t> payload;
    const uint32_t seq0 = be32(p.f, p.l4 + 4);
    for (size_t i = 0; i < n; ++i) {
        const auto& s = rig.host.wire[i];
        const size_t len = std::min<size_t>(tc.mss, tc.payload - i * tc.mss);
        ASSERT_EQ(s.size(), std::max<size_t>(60, p.hdr + len)) << i;
        EXPECT_TRUE(csum_good(s)) << i;
        EXPECT_LE(s.size(), 1514u);
        if (tc.v6) {
            EXPECT_EQ(be16(s, 18), 20 + len);
        } else {
            EXPECT_EQ(be16(s, 16), p.l4 - 14 + 20 + len);
            EXPECT_EQ(be16(s, 18), static_cast<uint16_t>(0xfffe + i));  // IP ID wraps
            EXPECT_EQ(ref_fold(s, 14, p.l4), 0xffff);
        }
        EXPECT_EQ(be32(s, p.l4 + 4), static_cast<uint32_t>(seq0 + i * tc.mss));
        const uint8_t fl = s[p.l4 + 13];
        EXPECT_EQ((fl & 0x09) != 0, i == n - 1) << "FIN/PSH only on the last";
        EXPECT_EQ((fl & 0x80) != 0, i == 0) << "CWR only on the first";
        EXPECT_TRUE(std::equal(s.begin(), s.begin() + 14, p.f.begin()));
        payload.insert(payload.end(), s.begin() + static_cast<ptrdiff_t>(p.hdr),
                       s.begin() + static_cast<ptrdiff_t>(p.hdr + len));
    }
    EXPECT_TRUE(
        std::equal(payload.begin(), payload.end(), p.f.begin() + static_cast<ptrdiff_t>(p.hdr)));
    EXPECT_EQ(payload.size(), tc.payload);
}

INSTANTIATE_TEST_SUITE_P(EthTxOffload, Tso,
                         ::testing::Values(TsoCase{false, 4000, 1448, 0},
                                           TsoCase{false, 2817, 1408, 40},
                                           TsoCase{true, 4000, 1440, 0},
                                           TsoCase{true, 2881, 1440, 0},
                                           TsoCase{false, 60000, 1448, 0}, TsoCase{false, 30, 1, 0},
                                           TsoCase{true, 1536, 536, 0}));

// One hostile packet at ring index 0, then one good frame: exactly one counter moves, the
// good frame still goes out, TX_HEAD passes both.
void expect_refused(EthRig& rig, uint32_t entries, uint32_t counter) {
    const auto good = make_frame(60, kPeer, 0x88b5, 0x42);
    rig.cmd(entries, rig.tx_buf(30, good), 60);  // 60 KiB in: past the hostile buffers
    rig.w(eth::kTxTail, entries + 1);
    ASSERT_EQ(rig.host.wire.size(), 1u);
    EXPECT_EQ(rig.host.wire[0], good);
    EXPECT_EQ(rig.r(eth::kTxHead), entries + 1);
    const uint32_t all[] = {eth::kTxDropBadCmd, eth::kTxDropBadSg, eth::kTxDropBadOffload,
                            eth::kTxDmaErrors};
    for (const uint32_t c : all) {
        EXPECT_EQ(rig.r(c), c == counter ? 1u : 0u) << std::hex << c;
    }
    EXPECT_EQ(rig.r(eth::kTxFrames), 1u);
}

class HostileTx : public ::testing::Test {
  protected:
    void SetUp() override {
        rig.up(8, 2048, 64);
        p = make_l4(false, 6, 3000, false);
        b = rig.tx_buf(0, p.f, 8192);
    }
    void tso_ctx(uint16_t start, uint16_t mss, uint8_t hdr, uint16_t ops = kOpTso) {
        ctx(rig, 0, start, 16, mss, 14, hdr, ops);
        rig.cmd(1, b, static_cast<uint32_t>(p.f.size()));
    }
    EthRig rig;
    Pkt p;
    uint64_t b = 0;
};

TEST_F(HostileTx, ReservedFlagBit) {
    rig.cmd(0, b, 60, kMore | 1u << 2);
    rig.cmd(1, b, 60);
    expect_refused(rig, 2, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, ZeroAndOverlongEntryLength) {
    rig.cmd(0, b, 30, kMore);
    rig.cmd(1, b, 0, kMore);
    rig.cmd(2, b, 30);
    expect_refused(rig, 3, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, EntryOf65536Bytes) {
    ctx(rig, 0, 34, 16, 1448, 14, 54, kOpTso);
    rig.cmd(1, b, 65536);
    expect_refused(rig, 2, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, ReservedOpsBits) {
    ctx(rig, 0, 34, 16, 0, 14, 0, kOpCsum | 0x10);
    rig.cmd(1, b, 100);
    expect_refused(rig, 2, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, ReservedContextField) {
    ctx(rig, 0, 34, 16, 0, 14, 0, kOpCsum, kCtx | kMore, 1);
    rig.cmd(1, b, 100);
    expect_refused(rig, 2, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, ContextNotFirst) {
    rig.cmd(0, b, 60, kMore);
    ctx(rig, 1, 34, 16, 0, 14, 0, kOpCsum);
    rig.cmd(2, b, 60);
    expect_refused(rig, 3, eth::kTxDropBadSg);
}

TEST_F(HostileTx, ContextAlone) {
    ctx(rig, 0, 34, 16, 0, 14, 0, kOpCsum, kCtx);
    expect_refused(rig, 1, eth::kTxDropBadSg);
}

TEST_F(HostileTx, RunOverTheLimitIsSkippedToItsEnd) {
    for (uint32_t i = 0; i < 39; ++i) {
        rig.cmd(i, b, 40, kMore);
    }
    rig.cmd(39, b, 40);
    expect_refused(rig, 40, eth::kTxDropBadSg);
}

TEST_F(HostileTx, NoOrTwoOrUnsupportedOps) {
    for (const uint16_t ops : {uint16_t{0}, uint16_t{kOpCsum | kOpTso}, kOpUso}) {
        EthRig r2;
        r2.up(8, 2048, 64);
        const uint64_t b2 = r2.tx_buf(0, p.f, 8192);
        ctx(r2, 0, 34, 16, 1448, 14, 54, ops);
        r2.cmd(1, b2, 1000);
        expect_refused(r2, 2, eth::kTxDropBadOffload);
    }
}

TEST_F(HostileTx, ChecksumFieldOutsideThePacket) {
    ctx(rig, 0, 90, 9, 0, 14, 0, kOpCsum);  // 90 + 9 + 2 = 101 > 100
    rig.cmd(1, b, 100);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, ChecksumStartInsideTheEthernetHeader) {
    ctx(rig, 0, 13, 16, 0, 14, 0, kOpCsum);
    rig.cmd(1, b, 100);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, ChecksumPacketOverTheMtu) {
    ctx(rig, 0, 34, 16, 0, 14, 0, kOpCsum);
    rig.cmd(1, b, 1519);
    expect_refused(rig, 2, eth::kTxDropBadCmd);
}

TEST_F(HostileTx, TsoWrongHeaderLength) {
    tso_ctx(34, 1448, 53);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoWrongCsumStart) {
    tso_ctx(38, 1448, 58);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoSegmentOverTheMtu) {
    tso_ctx(34, 1465, 54);  // 54 + 1465 = 1519 > MTU + 18
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoMssZero) {
    tso_ctx(34, 0, 54);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoIpv6FlagOnAnIpv4Packet) {
    tso_ctx(34, 1448, 54, kOpTso | kOpIpv6);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoOfUdp) {
    p = make_l4(false, 17, 3000, false);
    b = rig.tx_buf(0, p.f, 8192);
    tso_ctx(34, 1448, 42);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoOverTheMaximumPacket) {
    ctx(rig, 0, 34, 16, 1448, 14, 54, kOpTso);
    rig.cmd(1, b, 60000, kMore);  // the same memory twice: 65537 bytes
    rig.cmd(2, b, 5537);
    expect_refused(rig, 3, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, TsoTooManySegments) {
    // 3000 bytes of payload with MSS 2: 1500 segments > 1024.
    tso_ctx(34, 2, 54);
    expect_refused(rig, 2, eth::kTxDropBadOffload);
}

TEST_F(HostileTx, UnreadableBufferInARun) {
    rig.cmd(0, b, 60, kMore);
    rig.cmd(1, 0xdead'0000'0000, 60);
    expect_refused(rig, 2, eth::kTxDmaErrors);
}

}  // namespace
}  // namespace scenic::test
