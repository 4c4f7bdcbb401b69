// SPDX-License-Identifier: MIT
// RoCE v2 frames: a builder (QP context fields in, complete Ethernet frame out: headers, payload,
// pad to 4 bytes, ICRC) and a parser (frame in, validated view out, or a drop reason).
// Formats and validation order: docs/roce-wire.md.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "scenic/roce/headers.hpp"
#include "scenic/roce/opcode.hpp"

namespace scenic::roce {

inline constexpr size_t kIcrcSize = 4;

// ICRC of an L3 RoCE v2 packet (IP header .. ICRC inclusive; the last 4 bytes are not covered),
// annex A17. The computation is hw-rtl's ICRC twin (scenic::dp::roce_icrc), the C++ side of
// the RTL block scenic_icrc.sv; on the wire it is stored least significant byte first.
uint32_t icrc(std::span<const uint8_t> l3_packet);

enum class IpVersion : uint8_t { kV4, kV6 };

// Per-QP addressing, as a QP context (address vector) holds it.
struct PathContext {
    Mac src_mac{};
    Mac dst_mac{};
    std::optional<uint16_t> vlan_tci;
    IpVersion ip_version = IpVersion::kV4;
    Ipv6Addr src_ip{};  // IPv4: the first 4 bytes
    Ipv6Addr dst_ip{};
    uint8_t dscp = 0;
    uint8_t ecn = 0;              // 2 = ECT(0), what DCQCN senders mark
    uint8_t ttl = 64;             // IPv4 TTL / IPv6 hop limit
    uint32_t flow_label = 0;      // IPv6 only
    uint16_t ip_id = 0;           // IPv4 identification (DF is always set, as rxe does)
    uint16_t udp_sport = 0xc000;  // see rxe_udp_sport() / rdma_get_udp_sport()
};

// The transport part of one packet. The builder derives bth.pad from the payload length and
// checks that exactly the headers the opcode needs are present.
struct Transport {
    Bth bth;
    std::optional<Reth> reth;
    std::optional<AtomicEth> atomic_eth;
    std::optional<Aeth> aeth;
    std::optional<AtomicAckEth> atomic_ack;
    std::optional<ImmDt> imm;
    std::optional<Ieth> ieth;
    std::optional<Sreth> sreth;       // SR data packets
    std::optional<SrHello> sr_hello;  // SR_HELLO / SR_HELLO_ACK
    std::optional<SackEth> sack;      // SR_SACK
    std::optional<Deth> deth;         // UD
    bool operator==(const Transport&) const = default;
};

enum class BuildError : uint8_t {
    kOk,
    kUnknownOpcode,      // not in the RC table
    kHeaderMismatch,     // an extended header missing, or one the opcode does not carry
    kPayloadNotAllowed,  // payload on an opcode with PayloadRule::kNone
    kBadFullPayload,     // FIRST/MIDDLE payload empty or not a multiple of 4
    kTooLarge,           // IP length would not fit 16 bits
};
std::string_view to_string(BuildError e);

struct BuildResult {
    std::vector<uint8_t> frame;  // empty unless error == kOk
    BuildError error = BuildError::kOk;
    bool ok() const { return error == BuildError::kOk; }
};

BuildResult build_frame(const PathContext& path, const Transport& t,
                        std::span<const uint8_t> payload);

enum class DropReason : uint8_t {
    kNone,
    kNotRoce,      // not IPv4/IPv6 + UDP to 4791, or an IP fragment, or IPv6 extension headers
    kTruncated,    // shorter than its headers or than the IP/UDP lengths claim
    kBadIpHeader,  // IPv4 checksum wrong, IHL < 5, IP length shorter than its headers
    kBadLength,    // UDP length != IP payload, RoCE length not a multiple of 4, bad pad/payload
    kBadIcrc,
    kBadVersion,     // BTH TVer != 0
    kUnknownOpcode,  // not an RC opcode (nor CNP, nor UD SEND_ONLY / SEND_ONLY_WITH_IMMEDIATE)
};
std::string_view to_string(DropReason r);

struct ParsedPacket {
    EthHeader eth;
    IpVersion ip_version = IpVersion::kV4;
    std::optional<Ipv4Header> ipv4;
    std::optional<Ipv6Header> ipv6;
    UdpHeader udp;
    Transport transport;
    const OpcodeInfo* info = nullptr;
    std::span<const uint8_t> payload;  // into the parsed frame, without the pad bytes
    uint32_t icrc = 0;
};

struct ParseResult {
    DropReason reason = DropReason::kNone;
    ParsedPacket packet;  // meaningful only when ok()
    bool ok() const { return reason == DropReason::kNone; }
};

// Validates in wire order: Ethernet, IP, UDP, lengths, ICRC, BTH version, opcode, extended
// headers and payload rule. Bytes after the IP packet (Ethernet padding) are ignored.
// The returned payload span points into `frame`. `set`: the opcodes this parser knows (a card
// without selective repeat drops the SR vendor opcodes as unknown).
ParseResult parse_frame(std::span<const uint8_t> frame, OpcodeSet set = OpcodeSet::kRc);

}  // namespace scenic::roce
