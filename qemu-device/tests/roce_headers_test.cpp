// SPDX-License-Identifier: MIT
// RoCE v2 header codecs: exact byte layouts, round trips, short spans (decode -> nullopt,
// encode -> false and nothing written), AETH syndromes, UDP source-port entropy.
#include <gtest/gtest.h>

#include <vector>

#include "scenic/roce/headers.hpp"

namespace scenic::roce {
namespace {

using Bytes = std::vector<uint8_t>;

// Round trip through encode/decode, then check every shorter span is refused on both sides.
template <typename H>
void round_trip(const H& h, size_t size, const Bytes& expect = {}) {
    Bytes b(size, 0xee);
    ASSERT_TRUE(h.encode(b));
    if (!expect.empty()) {
        EXPECT_EQ(b, expect);
    }
    const auto d = H::decode(b);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(*d, h);
    for (size_t n = 0; n < size; ++n) {
        EXPECT_FALSE(H::decode(std::span(b).first(n)).has_value()) << n;
        Bytes shorter(n, 0x5a);
        EXPECT_FALSE(h.encode(shorter)) << n;
        EXPECT_EQ(shorter, Bytes(n, 0x5a)) << "encode wrote into a short span, n=" << n;
    }
}

TEST(RoceHeaders, EthernetWithAndWithoutVlan) {
    EthHeader e{{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}, std::nullopt, kEtherTypeIpv6};
    round_trip(e, 14, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x86, 0xdd});
    e.vlan_tci = 0x6123;  // PCP 3
    round_trip(e, 18, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0x81, 0x00, 0x61, 0x23, 0x86, 0xdd});
}

TEST(RoceHeaders, Ipv4KnownChecksum) {
    // The classic example header: 4500 0073 0000 4000 4011 [b861] c0a8 0001 c0a8 00c7.
    Ipv4Header h;
    h.total_length = 0x73;
    h.ttl = 0x40;
    h.src = {192, 168, 0, 1};
    h.dst = {192, 168, 0, 199};
    const Bytes want = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                        0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7};
    h.checksum = 0xb861;  // what decode will report
    round_trip(h, 20, want);
    EXPECT_TRUE(ipv4_checksum_ok(want));
    Bytes bad = want;
    bad[8] = 0x3f;  // TTL changed, checksum not updated
    EXPECT_FALSE(ipv4_checksum_ok(bad));
}

TEST(RoceHeaders, Ipv4FieldsAndMalformed) {
    Ipv4Header h;
    h.dscp = 26;
    h.ecn = 2;
    h.total_length = 1000;
    h.id = 0xbeef;
    h.df = false;
    h.mf = true;
    h.frag_offset = 0x1abc;
    h.ttl = 1;
    h.protocol = 6;
    h.src = {10, 0, 0, 1};
    h.dst = {10, 0, 0, 2};
    Bytes b(20);
    ASSERT_TRUE(h.encode(b));
    EXPECT_EQ(b[1], (26 << 2) | 2);
    EXPECT_EQ(b[6], 0x20 | 0x1a);
    EXPECT_TRUE(ipv4_checksum_ok(b));
    h.checksum = static_cast<uint16_t>(b[10] << 8 | b[11]);
    EXPECT_EQ(*Ipv4Header::decode(b), h);

    Bytes v6 = b;
    v6[0] = 0x65;
    EXPECT_FALSE(Ipv4Header::decode(v6));
    Bytes ihl4 = b;
    ihl4[0] = 0x44;
    EXPECT_FALSE(Ipv4Header::decode(ihl4));
    Bytes ihl6 = b;
    ihl6[0] = 0x46;  // options announced but not present
    EXPECT_FALSE(Ipv4Header::decode(ihl6));
    ihl6.resize(24, 0);
    ASSERT_TRUE(Ipv4Header::decode(ihl6));
    EXPECT_EQ(Ipv4Header::decode(ihl6)->size(), 24u);
    Ipv4Header with_options;
    with_options.ihl = 6;
    EXPECT_FALSE(with_options.encode(ihl6));  // the encoder writes 20-byte headers only
}

TEST(RoceHeaders, Ipv6) {
    Ipv6Header h;
    h.traffic_class = 0xa9;
    h.flow_label = 0xabcde;
    h.payload_length = 0x1234;
    h.hop_limit = 7;
    for (uint8_t i = 0; i < 16; ++i) {
        h.src[i] = i;
        h.dst[i] = static_cast<uint8_t>(0xf0 | i);
    }
    Bytes want = {0x6a, 0x9a, 0xbc, 0xde, 0x12, 0x34, 0x11, 0x07};
    want.insert(want.end(), h.src.begin(), h.src.end());
    want.insert(want.end(), h.dst.begin(), h.dst.end());
    round_trip(h, 40, want);
    Bytes v4 = want;
    v4[0] = 0x4a;
    EXPECT_FALSE(Ipv6Header::decode(v4));
}

TEST(RoceHeaders, Udp) {
    round_trip(UdpHeader{0xc123, 4791, 0x40, 0xabcd}, 8,
               {0xc1, 0x23, 0x12, 0xb7, 0x00, 0x40, 0xab, 0xcd});
}

TEST(RoceHeaders, BthLayout) {
    Bth b;
    b.opcode = 0x0a;
    b.se = true;
    b.migreq = true;
    b.pad = 3;
    b.pkey = 0x8001;
    b.fecn = true;
    b.becn = true;
    b.dest_qp = 0xabcdef;
    b.ackreq = true;
    b.psn = 0x123456;
    round_trip(b, 12, {0x0a, 0xf0, 0x80, 0x01, 0xc0, 0xab, 0xcd, 0xef, 0x80, 0x12, 0x34, 0x56});
    Bth plain;
    plain.opcode = 0x11;
    plain.dest_qp = 0x11;
    plain.psn = 1;
    round_trip(plain, 12, {0x11, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x11, 0x00, 0x00, 0x00, 1});
}

TEST(RoceHeaders, BthReservedBitsIgnoredAndWidthsMasked) {
    const Bytes wire = {0x04, 0x00, 0xff, 0xff, 0x3f, 0x00, 0x00, 0x11, 0x7f, 0x00, 0x00, 0x05};
    const auto b = Bth::decode(wire);
    ASSERT_TRUE(b);
    EXPECT_FALSE(b->fecn);
    EXPECT_FALSE(b->becn);
    EXPECT_FALSE(b->ackreq);
    EXPECT_EQ(b->dest_qp, 0x11u);
    EXPECT_EQ(b->psn, 5u);
    Bth wide;
    wide.dest_qp = 0xff000001;
    wide.psn = 0xff000002;
    wide.pad = 7;
    wide.tver = 0x1f;
    Bytes out(12);
    ASSERT_TRUE(wide.encode(out));
    EXPECT_EQ(out[1], 0x3f);
    EXPECT_EQ(out[4], 0x00);
    EXPECT_EQ(Bth::decode(out)->dest_qp, 1u);
    EXPECT_EQ(Bth::decode(out)->psn, 2u);
}

TEST(RoceHeaders, Reth) {
    round_trip(Reth{0x0102030405060708, 0x11223344, 0x00010000}, 16,
               {1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 1, 0, 0});
}

TEST(RoceHeaders, AethSyndromes) {
    const Aeth ack = Aeth::ack(0x123456);
    EXPECT_EQ(ack.type(), AethType::kAck);
    EXPECT_EQ(ack.value(), kAckCreditsInvalid);
    round_trip(ack, 4, {0x1f, 0x12, 0x34, 0x56});
    EXPECT_EQ(Aeth::ack(1, 5).syndrome, 0x05);

    const Aeth rnr = Aeth::rnr_nak(7, 14);
    EXPECT_EQ(rnr.type(), AethType::kRnrNak);
    EXPECT_EQ(rnr.value(), 14);
    round_trip(rnr, 4, {0x2e, 0, 0, 7});

    const std::pair<NakCode, uint8_t> naks[] = {{NakCode::kPsnSeqError, 0x60},
                                                {NakCode::kInvalidRequest, 0x61},
                                                {NakCode::kRemoteAccessError, 0x62},
                                                {NakCode::kRemoteOpError, 0x63},
                                                {NakCode::kInvalidRdRequest, 0x64}};
    for (auto [code, syn] : naks) {
        const Aeth n = Aeth::nak(0xffffff, code);
        EXPECT_EQ(n.syndrome, syn);
        EXPECT_EQ(n.type(), AethType::kNak);
        EXPECT_EQ(n.value(), static_cast<uint8_t>(code));
        round_trip(n, 4, {syn, 0xff, 0xff, 0xff});
    }
    EXPECT_EQ(Aeth::ack(0x1000001).msn, 1u);  // MSN is 24 bits
}

TEST(RoceHeaders, RnrTimerTable) {
    EXPECT_EQ(rnr_timer_ns(0), 655'360'000u);
    EXPECT_EQ(rnr_timer_ns(1), 10'000u);
    EXPECT_EQ(rnr_timer_ns(14), 1'280'000u);
    EXPECT_EQ(rnr_timer_ns(31), 491'520'000u);
    for (uint8_t c = 2; c < 32; ++c) EXPECT_GT(rnr_timer_ns(c), rnr_timer_ns(c - 1)) << int(c);
    EXPECT_EQ(rnr_timer_ns(33), rnr_timer_ns(1));
}

TEST(RoceHeaders, AtomicHeadersImmAndIeth) {
    round_trip(AtomicEth{0x1000, 0xaabbccdd, 0x0102030405060708, 0x1112131415161718}, 28,
               {0, 0, 0, 0, 0, 0, 0x10, 0,    0xaa, 0xbb, 0xcc, 0xdd, 1,    2,
                3, 4, 5, 6, 7, 8, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18});
    round_trip(AtomicAckEth{0x8000000000000001}, 8, {0x80, 0, 0, 0, 0, 0, 0, 1});
    round_trip(ImmDt{0xdeadbeef}, 4, {0xde, 0xad, 0xbe, 0xef});
    round_trip(Ieth{0x00c0ffee}, 4, {0x00, 0xc0, 0xff, 0xee});
}

TEST(RoceHeaders, UdpSourcePortEntropy) {
    // rxe: 0xC000 + hash_32(qpn, 14); values computed from the kernel formula by hand.
    EXPECT_EQ(rxe_udp_sport(0x11), 0xdf94);
    EXPECT_EQ(rxe_udp_sport(0x12), 0xf806);
    EXPECT_EQ(rxe_udp_sport(1), 0xd872);
    EXPECT_EQ(rxe_udp_sport(0xffffff), 0xf94d);
    // ib_verbs.h: symmetric in the two QPNs, 0xC000..0xFFFF, a non-zero flow label wins.
    EXPECT_EQ(rdma_calc_flow_label(0x11, 0x12), 0x132u);
    EXPECT_EQ(rdma_get_udp_sport(0, 0x11, 0x12), 0xc132);
    EXPECT_EQ(rdma_get_udp_sport(0x12345, 0x11, 0x12), 0xe341);
    for (uint32_t a = 1; a < 0x1000000; a = a * 7 + 3) {
        for (uint32_t b = 1; b < 0x1000000; b = b * 13 + 1) {
            ASSERT_EQ(rdma_get_udp_sport(0, a, b), rdma_get_udp_sport(0, b, a));
            ASSERT_GE(rdma_get_udp_sport(0, a, b), 0xc000);
        }
        ASSERT_GE(rxe_udp_sport(a), 0xc000);
    }
}

}  // namespace
}  // namespace scenic::roce
