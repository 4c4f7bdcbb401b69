// SPDX-License-Identifier: MIT
// Selective repeat's wire formats (docs/selective-repeat.md 2.3, 2.4, 3.1, 3.2): SRHELLO, SRETH
// and SACKETH byte for byte, the SACK rules, the SR opcode table, and which parser knows them.
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

#include "scenic/roce/headers.hpp"
#include "scenic/roce/packet.hpp"

namespace scenic::roce {
namespace {

using Bytes = std::vector<uint8_t>;

PathContext path() {
    PathContext p;
    p.src_mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x01};
    p.dst_mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x02};
    p.src_ip = {10, 0, 0, 1};
    p.dst_ip = {10, 0, 0, 2};
    return p;
}

TEST(RoceSr, SrHelloBytes) {
    SrHello h;
    h.window_log2 = 9;
    h.max_ranges = 8;
    h.flags = 1;
    h.vendor = 0x10ee;
    h.nonce = 0xa1b2c3d4;
    Bytes b(SrHello::kSize, 0xee);
    ASSERT_TRUE(h.encode(b));
    EXPECT_EQ(
        b, (Bytes{0x53, 0x43, 0x53, 0x52, 1, 9, 8, 1, 0x10, 0xee, 0, 0, 0xa1, 0xb2, 0xc3, 0xd4}));
    EXPECT_EQ(SrHello::decode(b), h);
    EXPECT_FALSE(SrHello::decode(std::span(b).first(15)).has_value());
    EXPECT_FALSE(h.encode(std::span(b).first(15)));
}

TEST(RoceSr, SrethBytes) {
    Sreth s;
    s.ver_flags = 0x11;  // version 1, OFV
    s.midx = 0x0a0b0c;
    s.rsn = 0x00123456;
    s.ofp = 0xfffffe;
    s.msg_len = 0x00012345;
    Bytes b(Sreth::kSize, 0xee);
    ASSERT_TRUE(s.encode(b));
    EXPECT_EQ(b, (Bytes{0x11, 0x0a, 0x0b, 0x0c, 0, 0x12, 0x34, 0x56, 0, 0xff, 0xff, 0xfe, 0, 0x01,
                        0x23, 0x45}));
    EXPECT_EQ(Sreth::decode(b), s);
    EXPECT_TRUE(s.ofv());
    EXPECT_FALSE(Sreth::decode(std::span(b).first(15)).has_value());
}

TEST(RoceSr, OpcodeTable) {
    const auto all = sr_opcodes();
    EXPECT_EQ(all.size(), 17u);  // hello, ack, SACK, 14 data opcodes
    for (const OpcodeInfo& i : all) {
        const auto op = static_cast<uint8_t>(i.opcode);
        EXPECT_EQ(rc_opcode_info(op), nullptr) << int(op);  // never an RC opcode
        EXPECT_EQ(opcode_info(op, OpcodeSet::kRc), nullptr) << int(op);
        EXPECT_EQ(opcode_info(op, OpcodeSet::kRcAndSr), &i);
        if (!is_sr_data(op)) {
            continue;
        }
        const OpcodeInfo& rc = *rc_opcode_info(static_cast<uint8_t>(op - kSrDataBase));
        EXPECT_EQ(i.cls, rc.cls);
        EXPECT_EQ(i.first, rc.first);
        EXPECT_EQ(i.last, rc.last);
        EXPECT_EQ(i.payload, rc.payload);
        EXPECT_TRUE(i.has(kHdrSreth));
        EXPECT_EQ(i.has(kHdrReth), rc.cls == OpClass::kWrite);
        EXPECT_EQ(i.ext_size(), rc.ext_size() + Sreth::kSize +
                                    (rc.cls == OpClass::kWrite && !rc.has(kHdrReth) ? 16 : 0));
    }
    // The rest of 0xC0..0xFF stays unknown to both parsers.
    EXPECT_EQ(opcode_info(0xc3, OpcodeSet::kRcAndSr), nullptr);
    EXPECT_EQ(opcode_info(0xec, OpcodeSet::kRcAndSr), nullptr);  // 0xE0 + READ_REQUEST
    EXPECT_EQ(opcode_info(0xff, OpcodeSet::kRcAndSr), nullptr);
}

TEST(RoceSr, BuildAndParseSrFrames) {
    Transport t;
    t.bth.opcode = 0xe7;  // SR_RDMA_WRITE_MIDDLE
    t.bth.dest_qp = 0x12;
    t.bth.psn = 0xfffffe;
    Sreth s;
    s.midx = 3;
    s.rsn = 7;
    t.sreth = s;
    t.reth = Reth{0x7f0000001000, 0x44, 8192};
    Bytes payload(1024);
    std::iota(payload.begin(), payload.end(), uint8_t{1});
    const BuildResult b = build_frame(path(), t, payload);
    ASSERT_TRUE(b.ok());
    // Eth 14, IPv4 20, UDP 8, BTH 12, SRETH 16, RETH 16, payload, ICRC 4
    EXPECT_EQ(b.frame.size(), 14u + 20 + 8 + 12 + 16 + 16 + 1024 + 4);
    const ParseResult r = parse_frame(b.frame, OpcodeSet::kRcAndSr);
    ASSERT_TRUE(r.ok()) << to_string(r.reason);
    EXPECT_EQ(r.packet.transport.sreth, t.sreth);
    EXPECT_EQ(r.packet.transport.reth, t.reth);
    EXPECT_TRUE(std::ranges::equal(r.packet.payload, payload));
    // The builder fed the parsed fields gives the same frame.
    EXPECT_EQ(build_frame(path(), r.packet.transport, r.packet.payload).frame, b.frame);
    EXPECT_EQ(parse_frame(b.frame).reason, DropReason::kUnknownOpcode);  // a card without SR
    Transport h;
    h.bth.opcode = 0xc0;
    h.sr_hello = SrHello{};
    const BuildResult hb = build_frame(path(), h, {});
    ASSERT_TRUE(hb.ok());
    EXPECT_EQ(hb.frame.size(), 74u);  // 2.6: a hello is 74 bytes over IPv4
    EXPECT_TRUE(parse_frame(hb.frame, OpcodeSet::kRcAndSr).ok());
    // Headers the opcode does not carry are refused.
    h.reth = Reth{};
    EXPECT_EQ(build_frame(path(), h, {}).error, BuildError::kHeaderMismatch);
    t.sreth.reset();
    EXPECT_EQ(build_frame(path(), t, payload).error, BuildError::kHeaderMismatch);
}

// 3.2's encoding example: epsn 0xFFFFFE, missing 0xFFFFFE, 0x000001 and everything from 8.
SackEth wrap_example() {
    SackEth k;
    k.n = 2;
    k.right_edge = 0x000008;
    k.ranges[0] = {0, 1};
    k.ranges[1] = {3, 1};
    return k;
}

TEST(RoceSr, SackEthBytes) {
    const SackEth k = wrap_example();
    Bytes b(SackEth::kSize, 0xee);
    ASSERT_TRUE(k.encode(b));
    Bytes want(SackEth::kSize, 0);
    want[0] = 2;
    want[7] = 0x08;  // right_edge 0x000008 at 5..7
    want[11] = 1;    // (0, 1)
    want[13] = 3;    // (3, 1)
    want[15] = 1;
    EXPECT_EQ(b, want);
    EXPECT_EQ(SackEth::decode(b), k);
    EXPECT_FALSE(SackEth::decode(std::span(b).first(39)).has_value());
    EXPECT_FALSE(k.encode(std::span(b).first(39)));
    EXPECT_TRUE(k.valid(0xfffffe, 512, 8));
}

TEST(RoceSr, SackRulesRefuseMalformed) {
    const uint32_t psn = 0xfffffe;
    const auto bad = [&](auto change, uint32_t window = 512, uint8_t max_ranges = 8) {
        SackEth k = wrap_example();
        change(k);
        return !k.valid(psn, window, max_ranges);
    };
    EXPECT_TRUE(bad([](SackEth& k) { k.n = 0; }));
    EXPECT_TRUE(bad([](SackEth& k) { k.n = 9; }));
    EXPECT_TRUE(bad([](SackEth&) {}, 512, 1));  // more ranges than negotiated
    EXPECT_TRUE(bad([](SackEth& k) { k.flags = 1; }));
    EXPECT_TRUE(bad([](SackEth& k) { k.reserved = 1; }));
    EXPECT_TRUE(bad([](SackEth& k) { k.reserved2 = 1; }));
    EXPECT_TRUE(bad([](SackEth& k) { k.ranges[0].start = 1; }));    // epsn is missing
    EXPECT_TRUE(bad([](SackEth& k) { k.ranges[1].start = 1; }));    // adjacent
    EXPECT_TRUE(bad([](SackEth& k) { k.ranges[0].len = 4; }));      // overlapping
    EXPECT_TRUE(bad([](SackEth& k) { k.ranges[1].len = 0; }));      // empty
    EXPECT_TRUE(bad([](SackEth& k) { k.ranges[2] = {6, 1}; }));     // an unused slot not zero
    EXPECT_TRUE(bad([](SackEth& k) { k.right_edge = 0x000002; }));  // ends inside range 1
    EXPECT_TRUE(bad([](SackEth& k) { k.right_edge = 0xfffffe; }));  // nothing covered
    EXPECT_TRUE(bad([](SackEth& k) { k.right_edge = 0xfffff0; }));  // before the PSN
    EXPECT_TRUE(bad([](SackEth&) {}, 8));                           // beyond the window
    EXPECT_FALSE(bad([](SackEth&) {}, 10));
    EXPECT_FALSE(bad([](SackEth& k) { k.right_edge = 0x000003; }));  // just after range 1
    SackEth swapped = wrap_example();
    std::swap(swapped.ranges[0], swapped.ranges[1]);  // not sorted
    EXPECT_FALSE(swapped.valid(psn, 512, 8));
}

TEST(RoceSr, BuildAndParseSack) {
    Transport t;
    t.bth.opcode = 0xc2;
    t.bth.dest_qp = 0x12;
    t.bth.psn = 0xfffffe;
    t.aeth = Aeth::ack(5);
    t.sack = wrap_example();
    const BuildResult b = build_frame(path(), t, {});
    ASSERT_TRUE(b.ok());
    // Eth 14, IPv4 20, UDP 8, BTH 12, AETH 4, SACKETH 40, ICRC 4
    EXPECT_EQ(b.frame.size(), 14u + 20 + 8 + 12 + 4 + 40 + 4);
    const ParseResult r = parse_frame(b.frame, OpcodeSet::kRcAndSr);
    ASSERT_TRUE(r.ok()) << to_string(r.reason);
    EXPECT_EQ(r.packet.info->cls, OpClass::kSrSack);
    EXPECT_FALSE(r.packet.info->request);
    EXPECT_EQ(r.packet.transport.aeth, t.aeth);
    EXPECT_EQ(r.packet.transport.sack, t.sack);
    EXPECT_EQ(build_frame(path(), r.packet.transport, {}).frame, b.frame);
    EXPECT_EQ(parse_frame(b.frame).reason, DropReason::kUnknownOpcode);  // a card without SR
    // Every truncation of the SACK is refused by the parser.
    for (size_t cut = 4; cut <= 44; cut += 4) {
        Bytes f = b.frame;
        f.resize(f.size() - cut);
        EXPECT_FALSE(parse_frame(f, OpcodeSet::kRcAndSr).ok()) << cut;
    }
    // A SACK with a payload does not parse (PayloadRule::kNone).
    Bytes payload(4, 1);
    EXPECT_EQ(build_frame(path(), t, payload).error, BuildError::kPayloadNotAllowed);
    t.sack.reset();
    EXPECT_EQ(build_frame(path(), t, {}).error, BuildError::kHeaderMismatch);
}

}  // namespace
}  // namespace scenic::roce
