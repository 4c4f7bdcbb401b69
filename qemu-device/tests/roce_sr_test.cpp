// SPDX-License-Identifier: MIT
// Selective repeat's wire formats (docs/selective-repeat.md 2.3, 2.4, 3.1): SRHELLO and SRETH
// byte for byte, the SR opcode table, and which parser knows them.
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
    EXPECT_EQ(all.size(), 16u);  // hello, ack, 14 data opcodes
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
    EXPECT_EQ(opcode_info(0xc2, OpcodeSet::kRcAndSr), nullptr);  // SR_SACK: not built yet
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

}  // namespace
}  // namespace scenic::roce
