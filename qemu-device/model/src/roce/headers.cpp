// SPDX-License-Identifier: MIT
#include "scenic/roce/headers.hpp"

#include <algorithm>

#include "scenic/roce/bytes.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::roce {

namespace {

template <size_t N>
void put_bytes(std::span<uint8_t> b, size_t off, const std::array<uint8_t, N>& a) {
    std::copy(a.begin(), a.end(), b.begin() + static_cast<std::ptrdiff_t>(off));
}

template <size_t N>
std::array<uint8_t, N> get_bytes(std::span<const uint8_t> b, size_t off) {
    std::array<uint8_t, N> a{};
    std::copy_n(b.begin() + static_cast<std::ptrdiff_t>(off), N, a.begin());
    return a;
}

uint8_t bit(bool v, unsigned pos) { return static_cast<uint8_t>(v ? (1u << pos) : 0u); }

}  // namespace

// ---- Ethernet

std::optional<EthHeader> EthHeader::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    EthHeader h;
    h.dst = get_bytes<6>(b, 0);
    h.src = get_bytes<6>(b, 6);
    h.ethertype = be::load16(b, 12);
    if (h.ethertype == kEtherTypeVlan) {
        if (b.size() < kVlanSize) return std::nullopt;
        h.vlan_tci = be::load16(b, 14);
        h.ethertype = be::load16(b, 16);
    }
    return h;
}

bool EthHeader::encode(std::span<uint8_t> b) const {
    if (b.size() < size()) return false;
    put_bytes(b, 0, dst);
    put_bytes(b, 6, src);
    size_t off = 12;
    if (vlan_tci) {
        be::store<2>(b, off, kEtherTypeVlan);
        be::store<2>(b, off + 2, *vlan_tci);
        off += 4;
    }
    be::store<2>(b, off, ethertype);
    return true;
}

// ---- IPv4

uint16_t internet_checksum(std::span<const uint8_t> b, uint32_t initial) {
    uint64_t sum = initial;
    size_t i = 0;
    for (; i + 1 < b.size(); i += 2) sum += be::load16(b, i);
    if (i < b.size()) sum += uint32_t{b[i]} << 8;
    while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
    return static_cast<uint16_t>(~sum & 0xffff);
}

bool ipv4_checksum_ok(std::span<const uint8_t> b) {
    if (b.size() < Ipv4Header::kMinSize) return false;
    const size_t len = size_t{b[0] & 0x0fu} * 4;
    if (len < Ipv4Header::kMinSize || b.size() < len) return false;
    return internet_checksum(b.first(len)) == 0;
}

std::optional<Ipv4Header> Ipv4Header::decode(std::span<const uint8_t> b) {
    if (b.size() < kMinSize || (b[0] >> 4) != 4) return std::nullopt;
    Ipv4Header h;
    h.ihl = b[0] & 0x0f;
    if (h.ihl < 5 || b.size() < h.size()) return std::nullopt;
    h.dscp = b[1] >> 2;
    h.ecn = b[1] & 3;
    h.total_length = be::load16(b, 2);
    h.id = be::load16(b, 4);
    const uint16_t frag = be::load16(b, 6);
    h.df = (frag & 0x4000) != 0;
    h.mf = (frag & 0x2000) != 0;
    h.frag_offset = frag & 0x1fff;
    h.ttl = b[8];
    h.protocol = b[9];
    h.checksum = be::load16(b, 10);
    h.src = get_bytes<4>(b, 12);
    h.dst = get_bytes<4>(b, 16);
    return h;
}

bool Ipv4Header::encode(std::span<uint8_t> b) const {
    if (ihl != 5 || b.size() < kMinSize) return false;
    b[0] = 0x45;
    b[1] = static_cast<uint8_t>(((dscp & 0x3f) << 2) | (ecn & 3));
    be::store<2>(b, 2, total_length);
    be::store<2>(b, 4, id);
    be::store<2>(b, 6, (df ? 0x4000u : 0u) | (mf ? 0x2000u : 0u) | (frag_offset & 0x1fffu));
    b[8] = ttl;
    b[9] = protocol;
    be::store<2>(b, 10, 0);
    put_bytes(b, 12, src);
    put_bytes(b, 16, dst);
    be::store<2>(b, 10, internet_checksum(b.first(kMinSize)));
    return true;
}

// ---- IPv6

std::optional<Ipv6Header> Ipv6Header::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize || (b[0] >> 4) != 6) return std::nullopt;
    Ipv6Header h;
    const uint32_t w0 = be::load32(b, 0);
    h.traffic_class = static_cast<uint8_t>(w0 >> 20);
    h.flow_label = w0 & 0xfffff;
    h.payload_length = be::load16(b, 4);
    h.next_header = b[6];
    h.hop_limit = b[7];
    h.src = get_bytes<16>(b, 8);
    h.dst = get_bytes<16>(b, 24);
    return h;
}

bool Ipv6Header::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<4>(b, 0, (6u << 28) | (uint32_t{traffic_class} << 20) | (flow_label & 0xfffff));
    be::store<2>(b, 4, payload_length);
    b[6] = next_header;
    b[7] = hop_limit;
    put_bytes(b, 8, src);
    put_bytes(b, 24, dst);
    return true;
}

// ---- UDP and its source port

std::optional<UdpHeader> UdpHeader::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return UdpHeader{be::load16(b, 0), be::load16(b, 2), be::load16(b, 4), be::load16(b, 6)};
}

bool UdpHeader::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<2>(b, 0, sport);
    be::store<2>(b, 2, dport);
    be::store<2>(b, 4, length);
    be::store<2>(b, 6, checksum);
    return true;
}

uint16_t rxe_udp_sport(uint32_t local_qpn) {
    const uint32_t hash14 = (local_qpn * 0x61c88647u) >> (32 - 14);  // Linux hash_32(qpn, 14)
    return static_cast<uint16_t>(0xc000u + (hash14 & 0x3fffu));
}

uint32_t rdma_calc_flow_label(uint32_t local_qpn, uint32_t remote_qpn) {
    uint64_t v = uint64_t{local_qpn} * remote_qpn;
    v ^= v >> 20;
    v ^= v >> 40;
    return static_cast<uint32_t>(v & 0xfffff);
}

uint16_t rdma_flow_label_to_udp_sport(uint32_t fl) {
    uint32_t low = fl & 0x03fff;
    const uint32_t high = fl & 0xfc000;
    low ^= high >> 14;
    return static_cast<uint16_t>(low | 0xc000u);
}

uint16_t rdma_get_udp_sport(uint32_t flow_label, uint32_t local_qpn, uint32_t remote_qpn) {
    if (flow_label == 0) flow_label = rdma_calc_flow_label(local_qpn, remote_qpn);
    return rdma_flow_label_to_udp_sport(flow_label);
}

// ---- BTH

std::optional<Bth> Bth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    Bth h;
    h.opcode = b[0];
    h.se = (b[1] & 0x80) != 0;
    h.migreq = (b[1] & 0x40) != 0;
    h.pad = (b[1] >> 4) & 3;
    h.tver = b[1] & 0x0f;
    h.pkey = be::load16(b, 2);
    h.fecn = (b[4] & 0x80) != 0;
    h.becn = (b[4] & 0x40) != 0;
    h.dest_qp = be::load24(b, 5);
    h.ackreq = (b[8] & 0x80) != 0;
    h.psn = be::load24(b, 9);
    return h;
}

bool Bth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    b[0] = opcode;
    b[1] = static_cast<uint8_t>(bit(se, 7) | bit(migreq, 6) | ((pad & 3) << 4) | (tver & 0x0f));
    be::store<2>(b, 2, pkey);
    b[4] = static_cast<uint8_t>(bit(fecn, 7) | bit(becn, 6));
    be::store<3>(b, 5, dest_qp & 0xffffff);
    b[8] = bit(ackreq, 7);
    be::store<3>(b, 9, psn & 0xffffff);
    return true;
}

// ---- RETH

std::optional<Reth> Reth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return Reth{be::load64(b, 0), be::load32(b, 8), be::load32(b, 12)};
}

bool Reth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<8>(b, 0, va);
    be::store<4>(b, 8, rkey);
    be::store<4>(b, 12, dma_length);
    return true;
}

// ---- AETH

Aeth Aeth::ack(uint32_t msn, uint8_t credits) {
    return Aeth{static_cast<uint8_t>(credits & 0x1f), msn & 0xffffff};
}

Aeth Aeth::rnr_nak(uint32_t msn, uint8_t timer) {
    return Aeth{static_cast<uint8_t>(0x20 | (timer & 0x1f)), msn & 0xffffff};
}

Aeth Aeth::nak(uint32_t msn, NakCode code) {
    return Aeth{static_cast<uint8_t>(0x60 | (static_cast<uint8_t>(code) & 0x1f)), msn & 0xffffff};
}

std::optional<Aeth> Aeth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return Aeth{b[0], be::load24(b, 1)};
}

bool Aeth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    b[0] = syndrome;
    be::store<3>(b, 1, msn & 0xffffff);
    return true;
}

uint64_t rnr_timer_ns(uint8_t code) {
    static constexpr std::array<uint32_t, 32> kUs = {
        655360, 10,    20,    30,    40,    60,     80,     120,    160,    240,   320,
        480,    640,   960,   1280,  1920,  2560,   3840,   5120,   7680,   10240, 15360,
        20480,  30720, 40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520};
    return uint64_t{kUs[code & 0x1f]} * 1000;
}

// ---- AtomicETH, AtomicAckETH, ImmDt, IETH

std::optional<AtomicEth> AtomicEth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return AtomicEth{be::load64(b, 0), be::load32(b, 8), be::load64(b, 12), be::load64(b, 20)};
}

bool AtomicEth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<8>(b, 0, va);
    be::store<4>(b, 8, rkey);
    be::store<8>(b, 12, swap_add);
    be::store<8>(b, 20, compare);
    return true;
}

std::optional<AtomicAckEth> AtomicAckEth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return AtomicAckEth{be::load64(b, 0)};
}

bool AtomicAckEth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<8>(b, 0, orig);
    return true;
}

std::optional<ImmDt> ImmDt::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return ImmDt{be::load32(b, 0)};
}

bool ImmDt::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<4>(b, 0, imm);
    return true;
}

std::optional<Ieth> Ieth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return Ieth{be::load32(b, 0)};
}

bool Ieth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<4>(b, 0, rkey);
    return true;
}

std::optional<Deth> Deth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return Deth{be::load32(b, 0), be::load24(b, 5)};
}

bool Deth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<4>(b, 0, qkey);
    b[4] = 0;
    be::store<3>(b, 5, src_qp & 0xffffff);
    return true;
}

// ---- selective repeat: SRHELLO, SRETH

std::optional<SrHello> SrHello::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return SrHello{be::load32(b, 0), b[4], b[5], b[6], b[7], be::load16(b, 8), be::load16(b, 10),
                   be::load32(b, 12)};
}

bool SrHello::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    be::store<4>(b, 0, magic);
    b[4] = version;
    b[5] = window_log2;
    b[6] = max_ranges;
    b[7] = flags;
    be::store<2>(b, 8, vendor);
    be::store<2>(b, 10, reserved);
    be::store<4>(b, 12, nonce);
    return true;
}

std::optional<Sreth> Sreth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    return Sreth{b[0], be::load24(b, 1), be::load32(b, 4),
                 b[8], be::load24(b, 9), be::load32(b, 12)};
}

bool Sreth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    b[0] = ver_flags;
    be::store<3>(b, 1, midx & 0xffffff);
    be::store<4>(b, 4, rsn);
    b[8] = reserved;
    be::store<3>(b, 9, ofp & 0xffffff);
    be::store<4>(b, 12, msg_len);
    return true;
}

std::optional<SackEth> SackEth::decode(std::span<const uint8_t> b) {
    if (b.size() < kSize) return std::nullopt;
    SackEth s;
    s.n = b[0];
    s.flags = b[1];
    s.reserved = be::load16(b, 2);
    s.reserved2 = b[4];
    s.right_edge = be::load24(b, 5);
    for (size_t i = 0; i < kMaxRanges; ++i) {
        s.ranges[i] = {be::load16(b, 8 + 4 * i), be::load16(b, 10 + 4 * i)};
    }
    return s;
}

bool SackEth::encode(std::span<uint8_t> b) const {
    if (b.size() < kSize) return false;
    b[0] = n;
    b[1] = flags;
    be::store<2>(b, 2, reserved);
    b[4] = reserved2;
    be::store<3>(b, 5, right_edge & 0xffffff);
    for (size_t i = 0; i < kMaxRanges; ++i) {
        be::store<2>(b, 8 + 4 * i, ranges[i].start);
        be::store<2>(b, 10 + 4 * i, ranges[i].len);
    }
    return true;
}

bool SackEth::valid(uint32_t psn, uint32_t window, uint8_t max_ranges) const {
    if (n == 0 || n > std::min(kMaxRanges, max_ranges) || flags != 0 || reserved != 0 ||
        reserved2 != 0 || right_edge > kPsnMask || ranges[0].start != 0) {
        return false;
    }
    const int32_t edge = psn_diff(right_edge, psn);
    if (edge <= 0 || static_cast<uint32_t>(edge) > window) {
        return false;
    }
    uint32_t end = 0;  // of the previous range
    for (size_t i = 0; i < kMaxRanges; ++i) {
        const Range& r = ranges[i];
        if (i >= n) {
            if (r.start != 0 || r.len != 0) return false;  // unused slots are zero
            continue;
        }
        if (r.len == 0 || (i > 0 && r.start <= end)) return false;  // sorted, apart
        end = uint32_t{r.start} + r.len;
    }
    return static_cast<int32_t>(end) < edge;
}

}  // namespace scenic::roce
