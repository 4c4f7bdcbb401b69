// SPDX-License-Identifier: MIT
// RoCE v2 frame builder and parser: every RC opcode round-trips over IPv4 and IPv6, payload and
// pad rules, and every malformation (truncation at every length, bad pad, bad lengths, bad
// ICRC, bad version, unknown opcode) ends in the right drop reason, never a crash.
#include <gtest/gtest.h>
#include <zlib.h>

#include <numeric>
#include <vector>

#include "scenic/dp/icrc.hpp"
#include "scenic/roce/packet.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::roce {
namespace {

using Bytes = std::vector<uint8_t>;

PathContext path(IpVersion v) {
    PathContext p;
    p.src_mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x01};
    p.dst_mac = {0x52, 0x54, 0x00, 0x5c, 0x00, 0x02};
    p.ip_version = v;
    if (v == IpVersion::kV4) {
        p.src_ip = {10, 0, 0, 1};
        p.dst_ip = {10, 0, 0, 2};
    } else {
        p.src_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x5c, 0, 1};
        p.dst_ip = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x50, 0x54, 0, 0xff, 0xfe, 0x5c, 0, 2};
        p.flow_label = 0x12345;
    }
    p.dscp = 26;
    p.ecn = 2;
    p.udp_sport = rxe_udp_sport(0x11);
    return p;
}

// A transport with every header the opcode needs, filled with recognisable values.
Transport transport_for(const OpcodeInfo& info, uint32_t psn = 0x123456) {
    Transport t;
    t.bth.opcode = static_cast<uint8_t>(info.opcode);
    t.bth.dest_qp = 0x000012;
    t.bth.psn = psn;
    t.bth.ackreq = info.last && info.request;
    t.bth.se = info.last && info.cls == OpClass::kSend;
    if (info.has(kHdrReth)) t.reth = Reth{0x00007f0012345000, 0x1234, 4096};
    if (info.has(kHdrAtomicEth)) t.atomic_eth = AtomicEth{0x1000, 0x77, 5, 9};
    if (info.has(kHdrAeth)) t.aeth = Aeth::ack(0x000abc);
    if (info.has(kHdrAtomicAckEth)) t.atomic_ack = AtomicAckEth{0x0102030405060708};
    if (info.has(kHdrImmDt)) t.imm = ImmDt{0xcafef00d};
    if (info.has(kHdrIeth)) t.ieth = Ieth{0x00beef01};
    return t;
}

Bytes payload_of(size_t n) {
    Bytes p(n);
    std::iota(p.begin(), p.end(), uint8_t{1});
    return p;
}

// Payload sizes allowed for the opcode's rule.
std::vector<size_t> sizes_for(PayloadRule r) {
    switch (r) {
        case PayloadRule::kNone:
            return {0};
        case PayloadRule::kFull:
            return {256, 1024, 4096};
        case PayloadRule::kTail:
            return {0, 1, 2, 3, 4, 5, 61, 1023, 1024, 4096};
    }
    return {};
}

// Independent ICRC (zlib, rxe's structure): CRC-32 over 8 bytes of 1s, then the IP packet with
// the variant fields set to 1s, up to the ICRC.
uint32_t zlib_icrc(std::span<const uint8_t> l3) {
    Bytes m(l3.begin(), l3.end() - 4);
    if ((m[0] >> 4) == 4) {
        const size_t ihl = size_t{m[0] & 0xfu} * 4;
        m[1] = 0xff;                     // TOS (DSCP + ECN)
        m[8] = 0xff;                     // TTL
        m[10] = m[11] = 0xff;            // header checksum
        m[ihl + 6] = m[ihl + 7] = 0xff;  // UDP checksum
        m[ihl + 8 + 4] = 0xff;           // BTH resv8a (FECN, BECN, resv6a)
    } else {
        m[0] |= 0x0f;               // traffic class, high nibble
        m[1] = m[2] = m[3] = 0xff;  // traffic class low nibble + flow label
        m[7] = 0xff;                // hop limit
        m[46] = m[47] = 0xff;       // UDP checksum
        m[52] = 0xff;               // BTH resv8a
    }
    const Bytes ones(8, 0xff);
    uLong crc = crc32(0, ones.data(), 8);
    crc = crc32(crc, m.data(), static_cast<uInt>(m.size()));
    return static_cast<uint32_t>(crc);
}

class RocePacketTest : public ::testing::TestWithParam<IpVersion> {};

TEST_P(RocePacketTest, EveryOpcodeRoundTrips) {
    const PathContext p = path(GetParam());
    const size_t l3_off = 14;
    int frames = 0;
    for (const OpcodeInfo& info : rc_opcodes()) {
        for (size_t n : sizes_for(info.payload)) {
            SCOPED_TRACE(std::string(info.name) + " payload " + std::to_string(n));
            const Transport t = transport_for(info);
            const Bytes payload = payload_of(n);
            const BuildResult b = build_frame(p, t, payload);
            ASSERT_TRUE(b.ok()) << to_string(b.error);
            const size_t pad = (4 - n % 4) % 4;
            const size_t ip_hdr = GetParam() == IpVersion::kV4 ? 20 : 40;
            ASSERT_EQ(b.frame.size(), l3_off + ip_hdr + 8 + 12 + info.ext_size() + n + pad + 4);

            const ParseResult r = parse_frame(b.frame);
            ASSERT_TRUE(r.ok()) << to_string(r.reason);
            const ParsedPacket& pk = r.packet;
            EXPECT_EQ(pk.info, &info);
            EXPECT_EQ(pk.ip_version, GetParam());
            EXPECT_EQ(pk.eth.src, p.src_mac);
            EXPECT_EQ(pk.eth.dst, p.dst_mac);
            EXPECT_EQ(pk.udp.sport, p.udp_sport);
            EXPECT_EQ(pk.udp.dport, kRoceV2Port);
            EXPECT_EQ(pk.udp.checksum, 0);
            Transport want = t;
            want.bth.pad = static_cast<uint8_t>(pad);
            EXPECT_EQ(pk.transport, want);
            EXPECT_TRUE(
                std::equal(pk.payload.begin(), pk.payload.end(), payload.begin(), payload.end()));
            // The pad bytes are zero, and the ICRC agrees with two other implementations.
            const auto l3 = std::span<const uint8_t>(b.frame).subspan(l3_off);
            for (size_t i = 0; i < pad; ++i) EXPECT_EQ(b.frame[b.frame.size() - 5 - i], 0);
            EXPECT_EQ(pk.icrc, zlib_icrc(l3));
            EXPECT_EQ(pk.icrc, dp::roce_icrc(l3));
            EXPECT_TRUE(dp::icrc_process(l3, false).ok);
            if (GetParam() == IpVersion::kV4) {
                EXPECT_EQ(pk.ipv4->dscp, 26);
                EXPECT_EQ(pk.ipv4->ecn, 2);
                EXPECT_TRUE(pk.ipv4->df);
                EXPECT_TRUE(ipv4_checksum_ok(l3));
            } else {
                EXPECT_EQ(pk.ipv6->flow_label, 0x12345u);
                EXPECT_EQ(pk.ipv6->traffic_class, (26 << 2) | 2);
            }
            ++frames;
        }
    }
    EXPECT_GT(frames, 60);
}

TEST_P(RocePacketTest, VlanTaggedFrame) {
    PathContext p = path(GetParam());
    p.vlan_tci = 0x6005;
    const auto& info = *rc_opcode_info(Opcode::kSendOnly);
    const BuildResult b = build_frame(p, transport_for(info), payload_of(7));
    ASSERT_TRUE(b.ok());
    const ParseResult r = parse_frame(b.frame);
    ASSERT_TRUE(r.ok()) << to_string(r.reason);
    EXPECT_EQ(r.packet.eth.vlan_tci, 0x6005);
    EXPECT_EQ(r.packet.payload.size(), 7u);
}

TEST_P(RocePacketTest, EveryTruncationIsTruncatedNeverACrash) {
    const PathContext p = path(GetParam());
    for (const OpcodeInfo& info : rc_opcodes()) {
        const size_t n = info.payload == PayloadRule::kNone ? 0 : 256;
        const BuildResult b = build_frame(p, transport_for(info), payload_of(n));
        ASSERT_TRUE(b.ok());
        for (size_t len = 0; len < b.frame.size(); ++len) {
            const ParseResult r = parse_frame(std::span(b.frame).first(len));
            ASSERT_EQ(r.reason, DropReason::kTruncated) << info.name << " len " << len;
        }
    }
}

TEST_P(RocePacketTest, EthernetPaddingAfterTheIpPacketIsIgnored) {
    const auto& info = *rc_opcode_info(Opcode::kAck);
    BuildResult b = build_frame(path(GetParam()), transport_for(info), {});
    ASSERT_TRUE(b.ok());
    b.frame.resize(b.frame.size() + 6, 0);
    EXPECT_TRUE(parse_frame(b.frame).ok());
}

// Recomputes the IPv4 header checksum (fix_ipv4_checksum) and also the ICRC (reseal) after a
// test edits a frame, so that the parser reaches the check under test.
void fix_ipv4_checksum(Bytes& f) {
    auto l3 = std::span<uint8_t>(f).subspan(14);
    if ((l3[0] >> 4) != 4) return;
    l3[10] = l3[11] = 0;
    const uint16_t c = internet_checksum(l3.first(size_t{l3[0] & 0xfu} * 4));
    l3[10] = static_cast<uint8_t>(c >> 8);
    l3[11] = static_cast<uint8_t>(c);
}

void reseal(Bytes& f) {
    fix_ipv4_checksum(f);
    const uint32_t crc = icrc(std::span<const uint8_t>(f).subspan(14));
    for (size_t i = 0; i < 4; ++i) f[f.size() - 4 + i] = static_cast<uint8_t>(crc >> (8 * i));
}

size_t bth_offset(IpVersion v) { return 14 + (v == IpVersion::kV4 ? 20 : 40) + 8; }

TEST_P(RocePacketTest, BadIcrcForEveryCoveredBit) {
    const auto& info = *rc_opcode_info(Opcode::kWriteOnlyImm);
    const BuildResult b = build_frame(path(GetParam()), transport_for(info), payload_of(13));
    ASSERT_TRUE(b.ok());
    const size_t bth = bth_offset(GetParam());
    for (size_t i = bth; i < b.frame.size(); ++i) {
        if (i == bth + 4) continue;  // resv8a / FECN / BECN: masked, see below
        for (int bit_no = 0; bit_no < 8; ++bit_no) {
            Bytes f = b.frame;
            f[i] ^= static_cast<uint8_t>(1u << bit_no);
            ASSERT_EQ(parse_frame(f).reason, DropReason::kBadIcrc)
                << "byte " << i << " bit " << bit_no;
        }
    }
    // The MACs are not covered; IP addresses and UDP ports are. A changed IPv4 address is
    // first caught by the IP header checksum; with the checksum fixed, by the ICRC.
    Bytes f = b.frame;
    f[6] ^= 1;  // source MAC
    EXPECT_EQ(parse_frame(f).reason, DropReason::kNone);
    f = b.frame;
    f[bth - 8] ^= 1;  // UDP source port
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIcrc);
    f = b.frame;
    f[bth - 6] ^= 1;  // UDP destination port: no longer 4791
    EXPECT_EQ(parse_frame(f).reason, DropReason::kNotRoce);
    f = b.frame;
    f[bth - 9] ^= 1;  // last byte of the destination IP address
    if (GetParam() == IpVersion::kV4) {
        EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIpHeader);
        fix_ipv4_checksum(f);
    }
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIcrc);
}

TEST_P(RocePacketTest, MaskedFieldsDoNotChangeTheIcrc) {
    // Routers rewrite TTL/hop limit, DSCP/ECN and (v6) the flow label; switches set FECN/BECN.
    const auto& info = *rc_opcode_info(Opcode::kSendOnly);
    const BuildResult b = build_frame(path(GetParam()), transport_for(info), payload_of(64));
    ASSERT_TRUE(b.ok());
    Bytes f = b.frame;
    const size_t bth = bth_offset(GetParam());
    if (GetParam() == IpVersion::kV4) {
        f[14 + 1] = 0x03;  // ECN CE
        f[14 + 8] = 1;     // TTL
    } else {
        f[14 + 0] = 0x6f;  // traffic class
        f[14 + 1] ^= 0xff;
        f[14 + 3] ^= 0x5a;  // flow label
        f[14 + 7] = 1;      // hop limit
    }
    f[bth - 2] = 0x12;  // UDP checksum
    f[bth + 4] = 0xc0;  // FECN + BECN
    // The IPv4 header checksum is masked from the ICRC but checked by the IP layer.
    fix_ipv4_checksum(f);
    const ParseResult r = parse_frame(f);
    ASSERT_TRUE(r.ok()) << to_string(r.reason);
    EXPECT_TRUE(r.packet.transport.bth.fecn);
    EXPECT_TRUE(r.packet.transport.bth.becn);
}

TEST_P(RocePacketTest, BadPadAndPayloadRules) {
    const PathContext p = path(GetParam());
    const size_t bth = bth_offset(GetParam());
    auto with_pad = [&](Opcode op, size_t n, uint8_t pad) {
        BuildResult b = build_frame(p, transport_for(*rc_opcode_info(op)), payload_of(n));
        EXPECT_TRUE(b.ok());
        b.frame[bth + 1] = static_cast<uint8_t>((b.frame[bth + 1] & ~0x30) | (pad << 4));
        reseal(b.frame);
        return parse_frame(b.frame).reason;
    };
    // No payload: any pad count is wrong.
    for (uint8_t pad = 1; pad < 4; ++pad) {
        EXPECT_EQ(with_pad(Opcode::kAck, 0, pad), DropReason::kBadLength);
        EXPECT_EQ(with_pad(Opcode::kReadRequest, 0, pad), DropReason::kBadLength);
        EXPECT_EQ(with_pad(Opcode::kSendOnly, 0, pad), DropReason::kBadLength);  // pad > bytes
    }
    // FIRST / MIDDLE: pad must be 0.
    EXPECT_EQ(with_pad(Opcode::kSendFirst, 256, 1), DropReason::kBadLength);
    EXPECT_EQ(with_pad(Opcode::kReadResponseMiddle, 256, 3), DropReason::kBadLength);
    // LAST / ONLY: any pad up to the padded length is legal (the payload shrinks).
    EXPECT_EQ(with_pad(Opcode::kSendLast, 8, 3), DropReason::kNone);
    EXPECT_EQ(with_pad(Opcode::kSendOnly, 4, 0), DropReason::kNone);

    // Extra bytes after a header-only opcode (lengths and ICRC consistent): bad length.
    for (Opcode op : {Opcode::kAck, Opcode::kAtomicAck, Opcode::kCmpSwap, Opcode::kFetchAdd,
                      Opcode::kReadRequest, Opcode::kCnp}) {
        // A SEND_ONLY whose payload is the opcode's headers plus one word, relabelled.
        const size_t ext = rc_opcode_info(op)->ext_size();
        BuildResult s =
            build_frame(p, transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(ext + 4));
        s.frame[bth] = static_cast<uint8_t>(op);
        reseal(s.frame);
        EXPECT_EQ(parse_frame(s.frame).reason, DropReason::kBadLength) << int(op);
        // And one header short: truncated.
        BuildResult t =
            build_frame(p, transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(ext - 4));
        t.frame[bth] = static_cast<uint8_t>(op);
        reseal(t.frame);
        EXPECT_EQ(parse_frame(t.frame).reason, DropReason::kTruncated) << int(op);
    }
}

TEST_P(RocePacketTest, LengthFieldsMustAgree) {
    const PathContext p = path(GetParam());
    const size_t bth = bth_offset(GetParam());
    const BuildResult b =
        build_frame(p, transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(32));
    ASSERT_TRUE(b.ok());
    {  // UDP length one word short of the IP payload
        Bytes f = b.frame;
        f[bth - 3] = static_cast<uint8_t>(f[bth - 3] - 4);
        reseal(f);
        EXPECT_EQ(parse_frame(f).reason, DropReason::kBadLength);
    }
    {  // IP and UDP lengths cut by 2 bytes consistently: RoCE length not a multiple of 4
        Bytes f = b.frame;
        f[bth - 3] = static_cast<uint8_t>(f[bth - 3] - 2);
        const size_t ip_len_lo = GetParam() == IpVersion::kV4 ? 14 + 3 : 14 + 5;
        f[ip_len_lo] = static_cast<uint8_t>(f[ip_len_lo] - 2);
        reseal(f);
        EXPECT_EQ(parse_frame(f).reason, DropReason::kBadLength);
    }
}

TEST_P(RocePacketTest, VersionOpcodeAndNotRoce) {
    const PathContext p = path(GetParam());
    const size_t bth = bth_offset(GetParam());
    const BuildResult b =
        build_frame(p, transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(32));
    ASSERT_TRUE(b.ok());
    {
        Bytes f = b.frame;
        f[bth + 1] |= 0x01;  // TVer 1
        reseal(f);
        EXPECT_EQ(parse_frame(f).reason, DropReason::kBadVersion);
    }
    // Every opcode outside the RC, UC and UD tables (UC 0x2c.., RD, UD 0x66.., reserved, 0x15,
    // 0x18..).
    int unknown = 0;
    for (unsigned op = 0; op < 256; ++op) {
        if (opcode_info(static_cast<uint8_t>(op), OpcodeSet::kRc) != nullptr) continue;
        Bytes f = b.frame;
        f[bth] = static_cast<uint8_t>(op);
        reseal(f);
        ASSERT_EQ(parse_frame(f).reason, DropReason::kUnknownOpcode) << op;
        ++unknown;
    }
    EXPECT_EQ(unknown, 256 - 26 - 12);
    {  // another UDP port
        Bytes f = b.frame;
        f[bth - 5] = 0xb8;  // 4792
        EXPECT_EQ(parse_frame(f).reason, DropReason::kNotRoce);
    }
    {  // not IP
        Bytes f = b.frame;
        f[12] = 0x88;
        f[13] = 0x06;
        EXPECT_EQ(parse_frame(f).reason, DropReason::kNotRoce);
    }
    {  // TCP
        Bytes f = b.frame;
        f[14 + (GetParam() == IpVersion::kV4 ? 9 : 6)] = 6;
        reseal(f);
        EXPECT_EQ(parse_frame(f).reason, DropReason::kNotRoce);
    }
}

INSTANTIATE_TEST_SUITE_P(Ip, RocePacketTest, ::testing::Values(IpVersion::kV4, IpVersion::kV6),
                         [](const auto& i) { return i.param == IpVersion::kV4 ? "v4" : "v6"; });

TEST(RocePacket, Ipv4HeaderProblems) {
    const BuildResult b =
        build_frame(path(IpVersion::kV4), transport_for(*rc_opcode_info(Opcode::kAck)), {});
    ASSERT_TRUE(b.ok());
    Bytes f = b.frame;
    f[14 + 10] ^= 0x01;  // header checksum
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIpHeader);
    f = b.frame;
    f[14] = 0x44;  // IHL 4
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIpHeader);
    f = b.frame;
    f[14] = 0x65;  // version 6 under ethertype IPv4
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIpHeader);
    f = b.frame;
    f[14 + 6] |= 0x20;  // more fragments
    reseal(f);
    EXPECT_EQ(parse_frame(f).reason, DropReason::kNotRoce);
    f = b.frame;
    f[14 + 2] = 0;
    f[14 + 3] = 19;  // total length shorter than the header
    reseal(f);
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadIpHeader);
    f = b.frame;
    f[14 + 3] = 24;  // room for the IP header only, not for UDP
    reseal(f);
    EXPECT_EQ(parse_frame(f).reason, DropReason::kBadLength);
}

TEST(RocePacket, Ipv4OptionsOnReceive) {
    // The builder never sends options, but a peer may: the parser and both ICRCs follow IHL.
    const BuildResult b = build_frame(
        path(IpVersion::kV4), transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(9));
    ASSERT_TRUE(b.ok());
    Bytes f(b.frame.begin(), b.frame.begin() + 34);
    f.insert(f.end(), {0x01, 0x01, 0x01, 0x00});  // NOP, NOP, NOP, end of options
    f.insert(f.end(), b.frame.begin() + 34, b.frame.end());
    f[14] = 0x46;
    f[14 + 3] = static_cast<uint8_t>(f[14 + 3] + 4);
    reseal(f);
    const auto l3 = std::span<const uint8_t>(f).subspan(14);
    EXPECT_EQ(icrc(l3), zlib_icrc(l3));
    const ParseResult r = parse_frame(f);
    ASSERT_TRUE(r.ok()) << to_string(r.reason);
    EXPECT_EQ(r.packet.ipv4->ihl, 6);
    EXPECT_EQ(r.packet.payload.size(), 9u);
    EXPECT_EQ(r.packet.payload[8], 9);
}

TEST(RocePacket, BuilderRefusals) {
    const PathContext p = path(IpVersion::kV4);
    Transport t = transport_for(*rc_opcode_info(Opcode::kWriteOnly));
    t.bth.opcode = 0x66;  // in UD's range, not an opcode
    EXPECT_EQ(build_frame(p, t, {}).error, BuildError::kUnknownOpcode);
    t.bth.opcode = 0x64;  // UD SEND_ONLY without its DETH
    EXPECT_EQ(build_frame(p, t, {}).error, BuildError::kHeaderMismatch);
    t = transport_for(*rc_opcode_info(Opcode::kWriteOnly));
    t.reth.reset();
    EXPECT_EQ(build_frame(p, t, {}).error, BuildError::kHeaderMismatch);
    t = transport_for(*rc_opcode_info(Opcode::kSendOnly));
    t.aeth = Aeth::ack(1);
    EXPECT_EQ(build_frame(p, t, {}).error, BuildError::kHeaderMismatch);
    const Bytes four = payload_of(4);
    EXPECT_EQ(build_frame(p, transport_for(*rc_opcode_info(Opcode::kAck)), four).error,
              BuildError::kPayloadNotAllowed);
    EXPECT_EQ(build_frame(p, transport_for(*rc_opcode_info(Opcode::kSendFirst)), {}).error,
              BuildError::kBadFullPayload);
    EXPECT_EQ(
        build_frame(p, transport_for(*rc_opcode_info(Opcode::kWriteMiddle)), payload_of(6)).error,
        BuildError::kBadFullPayload);
    const Bytes huge(65536 - 20 - 8 - 12 - 4 - 16 + 1);
    EXPECT_EQ(build_frame(p, transport_for(*rc_opcode_info(Opcode::kWriteOnly)), huge).error,
              BuildError::kTooLarge);
    const Bytes max(65536 - 1 - 20 - 8 - 12 - 4 - 16 - 3);  // 65473 bytes + pad 3 = 0xffff
    const BuildResult ok = build_frame(p, transport_for(*rc_opcode_info(Opcode::kWriteOnly)), max);
    ASSERT_TRUE(ok.ok());
    EXPECT_TRUE(parse_frame(ok.frame).ok());
}

TEST(RocePacket, CnpLayout) {
    Transport t;
    t.bth.opcode = static_cast<uint8_t>(Opcode::kCnp);
    t.bth.dest_qp = 0x000011;
    t.bth.becn = true;
    const BuildResult b = build_frame(path(IpVersion::kV4), t, {});
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b.frame.size(), 14u + 20 + 8 + 12 + 16 + 4);
    const ParseResult r = parse_frame(b.frame);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.packet.info->cls, OpClass::kCnp);
    EXPECT_TRUE(r.packet.transport.bth.becn);
    for (size_t i = 54; i < 70; ++i) EXPECT_EQ(b.frame[i], 0) << i;
}

TEST(RocePacket, RandomBytesNeverCrash) {
    // Random frames and random mutations of valid ones: any reason, no crash (checked under
    // ASan/UBSan too, see docs/roce-wire.md).
    uint32_t s = 12345;
    auto rnd = [&s] {
        s = s * 1664525u + 1013904223u;
        return s >> 8;
    };
    const BuildResult base = build_frame(
        path(IpVersion::kV6), transport_for(*rc_opcode_info(Opcode::kSendOnly)), payload_of(40));
    ASSERT_TRUE(base.ok());
    for (int i = 0; i < 20000; ++i) {
        Bytes f = (i % 2) ? base.frame : Bytes(rnd() % 200);
        if (i % 2 == 0) {
            for (auto& x : f) x = static_cast<uint8_t>(rnd());
            if (f.size() > 13) {
                f[12] = (i % 4) ? 0x08 : 0x86;
                f[13] = (i % 4) ? 0x00 : 0xdd;
            }
        } else {
            for (int k = 0; k < 3; ++k) f[rnd() % f.size()] = static_cast<uint8_t>(rnd());
            f.resize(rnd() % (f.size() + 1));
        }
        const ParseResult r = parse_frame(f);
        if (r.ok()) {
            EXPECT_LE(r.packet.payload.size(), f.size());
        }
    }
}

}  // namespace
}  // namespace scenic::roce
