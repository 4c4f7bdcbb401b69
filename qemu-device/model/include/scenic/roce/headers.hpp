// SPDX-License-Identifier: MIT
// RoCE v2 wire headers (IBA vol. 1 ch. 9 and annex A17; docs/roce-wire.md): plain structs with
// explicit big-endian byte-level codecs. decode() returns std::nullopt when the span is too short
// (or, for IP, the header is malformed); encode() writes exactly size() bytes at the start of the
// span and returns false, writing nothing, when the span is too short. No casts of wire bytes to
// structs anywhere.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace scenic::roce {

using Mac = std::array<uint8_t, 6>;
using Ipv4Addr = std::array<uint8_t, 4>;
using Ipv6Addr = std::array<uint8_t, 16>;

inline constexpr uint16_t kEtherTypeIpv4 = 0x0800;
inline constexpr uint16_t kEtherTypeIpv6 = 0x86dd;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint16_t kRoceV2Port = 4791;  // IANA-assigned, annex A17
inline constexpr uint16_t kDefaultPkey = 0xffff;

// Ethernet II, optionally with one 802.1Q tag (the tag carries the PCP used for RoCE priority).
struct EthHeader {
    static constexpr size_t kSize = 14;
    static constexpr size_t kVlanSize = 18;
    Mac dst{};
    Mac src{};
    std::optional<uint16_t> vlan_tci;  // PCP(3) DEI(1) VID(12)
    uint16_t ethertype = kEtherTypeIpv4;

    size_t size() const { return vlan_tci ? kVlanSize : kSize; }
    static std::optional<EthHeader> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const EthHeader&) const = default;
};

// One's-complement sum of 16-bit big-endian words (RFC 1071), folded and inverted. Over a
// header whose checksum field is correct the result is 0.
uint16_t internet_checksum(std::span<const uint8_t> b, uint32_t initial = 0);

struct Ipv4Header {
    static constexpr size_t kMinSize = 20;
    uint8_t ihl = 5;  // header length in 32-bit words; options (ihl > 5) are kept opaque
    uint8_t dscp = 0;
    uint8_t ecn = 0;
    uint16_t total_length = 0;
    uint16_t id = 0;
    bool df = true;
    bool mf = false;
    uint16_t frag_offset = 0;  // in 8-byte units
    uint8_t ttl = 64;
    uint8_t protocol = kIpProtoUdp;
    uint16_t checksum = 0;  // as decoded; encode() computes it
    Ipv4Addr src{};
    Ipv4Addr dst{};

    size_t size() const { return size_t{ihl} * 4; }
    // nullopt: too short for the IHL, version != 4 or IHL < 5.
    static std::optional<Ipv4Header> decode(std::span<const uint8_t> b);
    // Writes a 20-byte header (ihl must be 5) with the header checksum computed.
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Ipv4Header&) const = default;
};

// True when the IPv4 header at the start of b (ihl words) has a correct header checksum.
bool ipv4_checksum_ok(std::span<const uint8_t> b);

struct Ipv6Header {
    static constexpr size_t kSize = 40;
    uint8_t traffic_class = 0;  // DSCP << 2 | ECN
    uint32_t flow_label = 0;    // 20 bits
    uint16_t payload_length = 0;
    uint8_t next_header = kIpProtoUdp;
    uint8_t hop_limit = 64;
    Ipv6Addr src{};
    Ipv6Addr dst{};

    size_t size() const { return kSize; }
    static std::optional<Ipv6Header> decode(std::span<const uint8_t> b);  // nullopt: version != 6
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Ipv6Header&) const = default;
};

struct UdpHeader {
    static constexpr size_t kSize = 8;
    uint16_t sport = 0;
    uint16_t dport = kRoceV2Port;
    uint16_t length = 0;
    uint16_t checksum = 0;

    static std::optional<UdpHeader> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const UdpHeader&) const = default;
};

// UDP source port of a RoCE v2 connection, the flow's ECMP entropy (annex A17: the source
// port is free; 0xC000..0xFFFF by convention). Two conventions exist in Linux 6.1:
//  - rxe (drivers/infiniband/sw/rxe/rxe_qp.c), per local QP:
//      sport = 0xC000 | ((qpn * 0x61C88647) >> 18)           (hash_32(qpn, 14))
//  - ib_verbs.h rdma_get_udp_sport(), used by hardware drivers (mlx5), symmetric per connection:
//      fl = flow_label ? flow_label : fold20(lqpn * rqpn)      (rdma_calc_flow_label)
//      sport = 0xC000 | ((fl & 0x3fff) ^ (fl >> 14))           (rdma_flow_label_to_udp_sport)
uint16_t rxe_udp_sport(uint32_t local_qpn);
uint32_t rdma_calc_flow_label(uint32_t local_qpn, uint32_t remote_qpn);
uint16_t rdma_flow_label_to_udp_sport(uint32_t flow_label);
uint16_t rdma_get_udp_sport(uint32_t flow_label, uint32_t local_qpn, uint32_t remote_qpn);

// Base Transport Header (IBA ch. 9), 12 bytes.
//   byte 0 opcode | 1 SE M Pad(2) TVer(4) | 2-3 P_Key | 4 FECN BECN resv6a(6) | 5-7 DestQP
//   | 8 AckReq resv7(7) | 9-11 PSN
// Reserved bits are written as 0 and ignored on decode. Byte 4 is IBA's resv8a; RoCE v2 puts
// FECN/BECN there, and the whole byte is masked for the ICRC.
struct Bth {
    static constexpr size_t kSize = 12;
    uint8_t opcode = 0;
    bool se = false;
    bool migreq = false;
    uint8_t pad = 0;   // 0..3
    uint8_t tver = 0;  // must be 0
    uint16_t pkey = kDefaultPkey;
    bool fecn = false;
    bool becn = false;
    uint32_t dest_qp = 0;  // 24 bits
    bool ackreq = false;
    uint32_t psn = 0;  // 24 bits

    static std::optional<Bth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;  // out-of-range fields are masked to their width
    bool operator==(const Bth&) const = default;
};

// RDMA Extended Transport Header (IBA ch. 9), 16 bytes.
struct Reth {
    static constexpr size_t kSize = 16;
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint32_t dma_length = 0;

    static std::optional<Reth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Reth&) const = default;
};

// ACK Extended Transport Header (IBA ch. 9), 4 bytes: Syndrome(8) MSN(24).
// Syndrome: bit 7 reserved (0), bits 6:5 type, bits 4:0 value.
enum class AethType : uint8_t { kAck = 0, kRnrNak = 1, kReserved = 2, kNak = 3 };
enum class NakCode : uint8_t {
    kPsnSeqError = 0,
    kInvalidRequest = 1,
    kRemoteAccessError = 2,
    kRemoteOpError = 3,
    kInvalidRdRequest = 4,
};
inline constexpr uint8_t kAckCreditsInvalid = 0x1f;  // "no credit count" (end-to-end FC off)

struct Aeth {
    static constexpr size_t kSize = 4;
    uint8_t syndrome = 0;
    uint32_t msn = 0;  // 24 bits

    static Aeth ack(uint32_t msn, uint8_t credits = kAckCreditsInvalid);
    static Aeth rnr_nak(uint32_t msn, uint8_t timer);  // timer: 5-bit code, see rnr_timer_ns()
    static Aeth nak(uint32_t msn, NakCode code);
    AethType type() const { return static_cast<AethType>((syndrome >> 5) & 3); }
    uint8_t value() const { return syndrome & 0x1f; }  // credits, RNR timer code or NAK code

    static std::optional<Aeth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Aeth&) const = default;
};

// Minimum RNR NAK timer of a 5-bit code (the IBA table; rxe_comp.c has the same): 0 = 655.36 ms, 1
// = 0.01 ms ... 31 = 491.52 ms. Codes above 31 are masked.
uint64_t rnr_timer_ns(uint8_t code);

// Atomic Extended Transport Header (IBA ch. 9), 28 bytes.
struct AtomicEth {
    static constexpr size_t kSize = 28;
    uint64_t va = 0;
    uint32_t rkey = 0;
    uint64_t swap_add = 0;  // swap value (CMP_SWAP) or add value (FETCH_ADD)
    uint64_t compare = 0;   // CMP_SWAP only; 0 for FETCH_ADD

    static std::optional<AtomicEth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const AtomicEth&) const = default;
};

// Atomic ACK Extended Transport Header (IBA ch. 9), 8 bytes: the original remote value.
struct AtomicAckEth {
    static constexpr size_t kSize = 8;
    uint64_t orig = 0;

    static std::optional<AtomicAckEth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const AtomicAckEth&) const = default;
};

// Immediate Data (IBA ch. 9) and Invalidate ETH: one 4-byte big-endian word each.
// The value is the number as it reads on the wire (verbs' __be32 imm_data converted to host).
struct ImmDt {
    static constexpr size_t kSize = 4;
    uint32_t imm = 0;

    static std::optional<ImmDt> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const ImmDt&) const = default;
};

struct Ieth {
    static constexpr size_t kSize = 4;
    uint32_t rkey = 0;

    static std::optional<Ieth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Ieth&) const = default;
};

// Datagram Extended Transport Header (IBA 9.3.3.2), UD packets: Q_Key, one reserved byte
// (ignored on receive), source QP (24 bits).
struct Deth {
    static constexpr size_t kSize = 8;
    uint32_t qkey = 0;
    uint32_t src_qp = 0;

    static std::optional<Deth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Deth&) const = default;
};

// Selective repeat (docs/selective-repeat.md 2.4): the hello and its answer, 16 bytes.
struct SrHello {
    static constexpr size_t kSize = 16;
    static constexpr uint32_t kMagic = 0x53435352;  // "SCSR"
    uint32_t magic = kMagic;
    uint8_t version = 1;
    uint8_t window_log2 = 0;
    uint8_t max_ranges = 0;
    uint8_t flags = 0;
    uint16_t vendor = 0;
    uint16_t reserved = 0;
    uint32_t nonce = 0;

    static std::optional<SrHello> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const SrHello&) const = default;
};

// Selective repeat data packets' header (docs/selective-repeat.md 3.1), 16 bytes.
struct Sreth {
    static constexpr size_t kSize = 16;
    uint8_t ver_flags = 0x10;  // version 1 in bits 7:4; bit 0 OFV
    uint32_t midx = 0;         // 24 bits
    uint32_t rsn = 0;          // 32 bits on the wire, 24 used
    uint8_t reserved = 0;
    uint32_t ofp = 0;  // 24 bits
    uint32_t msg_len = 0;

    [[nodiscard]] bool ofv() const { return (ver_flags & 1u) != 0; }
    static std::optional<Sreth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    bool operator==(const Sreth&) const = default;
};

// Selective repeat's SR_SACK extended header (docs/selective-repeat.md 3.2), 40 bytes: up to 8
// missing PSN ranges, as offsets from the BTH PSN (the responder's epsn), and the right edge of
// what the report covers.
struct SackEth {
    static constexpr size_t kSize = 40;
    static constexpr uint8_t kMaxRanges = 8;
    struct Range {
        uint16_t start = 0;  // offset from BTH.PSN
        uint16_t len = 0;    // PSNs, >= 1
        bool operator==(const Range&) const = default;
    };
    uint8_t n = 0;
    uint8_t flags = 0;
    uint16_t reserved = 0;
    uint8_t reserved2 = 0;
    uint32_t right_edge = 0;  // 24 bits
    std::array<Range, kMaxRanges> ranges{};

    static std::optional<SackEth> decode(std::span<const uint8_t> b);
    bool encode(std::span<uint8_t> b) const;
    // The rules of 3.2 for a SACK whose BTH PSN is `psn`, in a window of `window` PSNs with at
    // most `max_ranges` ranges: n, reserved fields and unused slots zero, start_0 == 0, ranges
    // sorted, apart and inside [psn, right_edge), right_edge at most `window` after psn.
    [[nodiscard]] bool valid(uint32_t psn, uint32_t window, uint8_t max_ranges) const;
    bool operator==(const SackEth&) const = default;
};

}  // namespace scenic::roce
