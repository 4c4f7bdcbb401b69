// SPDX-License-Identifier: MIT
#include "scenic/roce/packet.hpp"

#include <algorithm>

#include "scenic/cosim/blocks.hpp"
#include "scenic/dp/icrc.hpp"

namespace scenic::roce {

uint32_t icrc(std::span<const uint8_t> l3_packet) {
    if (l3_packet.size() < kIcrcSize) return 0;
    // The RTL block when the device running on this thread selected it (device property rtl=).
    if (auto* rtl = scenic::cosim::current_icrc()) return rtl->icrc(l3_packet);
    return scenic::dp::roce_icrc(l3_packet);
}

std::string_view to_string(BuildError e) {
    switch (e) {
        case BuildError::kOk:
            return "ok";
        case BuildError::kUnknownOpcode:
            return "unknown opcode";
        case BuildError::kHeaderMismatch:
            return "extended headers do not match the opcode";
        case BuildError::kPayloadNotAllowed:
            return "payload on an opcode without payload";
        case BuildError::kBadFullPayload:
            return "FIRST/MIDDLE payload empty or not 4-aligned";
        case BuildError::kTooLarge:
            return "packet too large";
    }
    return "?";
}

std::string_view to_string(DropReason r) {
    switch (r) {
        case DropReason::kNone:
            return "none";
        case DropReason::kNotRoce:
            return "not RoCE v2";
        case DropReason::kTruncated:
            return "truncated";
        case DropReason::kBadIpHeader:
            return "bad IP header";
        case DropReason::kBadLength:
            return "bad length or pad";
        case DropReason::kBadIcrc:
            return "bad ICRC";
        case DropReason::kBadVersion:
            return "bad BTH version";
        case DropReason::kUnknownOpcode:
            return "unknown opcode for RC";
    }
    return "?";
}

namespace {

bool headers_match(const OpcodeInfo& info, const Transport& t) {
    return info.has(kHdrReth) == t.reth.has_value() &&
           info.has(kHdrAtomicEth) == t.atomic_eth.has_value() &&
           info.has(kHdrAeth) == t.aeth.has_value() &&
           info.has(kHdrAtomicAckEth) == t.atomic_ack.has_value() &&
           info.has(kHdrImmDt) == t.imm.has_value() && info.has(kHdrIeth) == t.ieth.has_value() &&
           info.has(kHdrSreth) == t.sreth.has_value() &&
           info.has(kHdrSrHello) == t.sr_hello.has_value() &&
           info.has(kHdrDeth) == t.deth.has_value() && info.has(kHdrSackEth) == t.sack.has_value();
}

// Extended headers in wire order; `b` holds at least info.ext_size() bytes.
void encode_ext(const OpcodeInfo& info, const Transport& t, std::span<uint8_t> b) {
    size_t off = 0;
    auto put = [&](const auto& h) {
        h.encode(b.subspan(off));
        off += h.kSize;
    };
    if (t.sreth) put(*t.sreth);
    if (t.sr_hello) put(*t.sr_hello);
    if (t.deth) put(*t.deth);
    if (t.reth) put(*t.reth);
    if (t.atomic_eth) put(*t.atomic_eth);
    if (t.aeth) put(*t.aeth);
    if (t.sack) put(*t.sack);
    if (t.atomic_ack) put(*t.atomic_ack);
    if (t.imm) put(*t.imm);
    if (t.ieth) put(*t.ieth);
    if (info.has(kHdrCnpReserved)) {
        std::fill_n(b.begin() + static_cast<std::ptrdiff_t>(off), kCnpReservedSize, uint8_t{0});
    }
}

// Decodes the extended headers (the span holds exactly info.ext_size() bytes).
void decode_ext(const OpcodeInfo& info, std::span<const uint8_t> b, Transport& t) {
    size_t off = 0;
    auto get = [&]<typename H>(std::optional<H>& out) {
        out = H::decode(b.subspan(off));
        off += H::kSize;
    };
    if (info.has(kHdrSreth)) get(t.sreth);
    if (info.has(kHdrSrHello)) get(t.sr_hello);
    if (info.has(kHdrDeth)) get(t.deth);
    if (info.has(kHdrReth)) get(t.reth);
    if (info.has(kHdrAtomicEth)) get(t.atomic_eth);
    if (info.has(kHdrAeth)) get(t.aeth);
    if (info.has(kHdrSackEth)) get(t.sack);
    if (info.has(kHdrAtomicAckEth)) get(t.atomic_ack);
    if (info.has(kHdrImmDt)) get(t.imm);
    if (info.has(kHdrIeth)) get(t.ieth);
}

}  // namespace

BuildResult build_frame(const PathContext& path, const Transport& t,
                        std::span<const uint8_t> payload) {
    const OpcodeInfo* info = opcode_info(t.bth.opcode, OpcodeSet::kRcAndSr);
    if (info == nullptr) return {{}, BuildError::kUnknownOpcode};
    if (!headers_match(*info, t)) return {{}, BuildError::kHeaderMismatch};
    if (info->payload == PayloadRule::kNone && !payload.empty()) {
        return {{}, BuildError::kPayloadNotAllowed};
    }
    if (info->payload == PayloadRule::kFull && (payload.empty() || payload.size() % 4 != 0)) {
        return {{}, BuildError::kBadFullPayload};
    }
    const size_t pad = (4 - payload.size() % 4) % 4;
    const size_t ext = info->ext_size();
    const size_t udp_len = UdpHeader::kSize + Bth::kSize + ext + payload.size() + pad + kIcrcSize;
    const bool v4 = path.ip_version == IpVersion::kV4;
    const size_t ip_hdr = v4 ? Ipv4Header::kMinSize : Ipv6Header::kSize;
    if ((v4 ? ip_hdr + udp_len : udp_len) > 0xffff) return {{}, BuildError::kTooLarge};

    EthHeader eth{path.dst_mac, path.src_mac, path.vlan_tci, v4 ? kEtherTypeIpv4 : kEtherTypeIpv6};
    std::vector<uint8_t> frame(eth.size() + ip_hdr + udp_len, 0);
    std::span<uint8_t> f(frame);
    eth.encode(f);
    std::span<uint8_t> l3 = f.subspan(eth.size());
    if (v4) {
        Ipv4Header ip;
        ip.dscp = path.dscp;
        ip.ecn = path.ecn;
        ip.total_length = static_cast<uint16_t>(ip_hdr + udp_len);
        ip.id = path.ip_id;
        ip.ttl = path.ttl;
        std::copy_n(path.src_ip.begin(), 4, ip.src.begin());
        std::copy_n(path.dst_ip.begin(), 4, ip.dst.begin());
        ip.encode(l3);
    } else {
        Ipv6Header ip;
        ip.traffic_class = static_cast<uint8_t>(((path.dscp & 0x3f) << 2) | (path.ecn & 3));
        ip.flow_label = path.flow_label & 0xfffff;
        ip.payload_length = static_cast<uint16_t>(udp_len);
        ip.hop_limit = path.ttl;
        ip.src = path.src_ip;
        ip.dst = path.dst_ip;
        ip.encode(l3);
    }
    // UDP checksum 0, for IPv6 too, as rxe sends it (the ICRC protects the packet).
    std::span<uint8_t> l4 = l3.subspan(ip_hdr);
    UdpHeader{path.udp_sport, kRoceV2Port, static_cast<uint16_t>(udp_len), 0}.encode(l4);
    Bth bth = t.bth;
    bth.pad = static_cast<uint8_t>(pad);
    std::span<uint8_t> roce = l4.subspan(UdpHeader::kSize);
    bth.encode(roce);
    encode_ext(*info, t, roce.subspan(Bth::kSize));
    std::copy(payload.begin(), payload.end(),
              roce.begin() + static_cast<std::ptrdiff_t>(Bth::kSize + ext));
    const uint32_t crc = icrc(l3);
    for (size_t i = 0; i < kIcrcSize; ++i) {
        frame[frame.size() - kIcrcSize + i] = static_cast<uint8_t>(crc >> (8 * i));
    }
    return {std::move(frame), BuildError::kOk};
}

ParseResult parse_frame(std::span<const uint8_t> frame, OpcodeSet set) {
    ParseResult r;
    auto drop = [&r](DropReason why) {
        r.reason = why;
        return r;
    };
    ParsedPacket& p = r.packet;

    const auto eth = EthHeader::decode(frame);
    if (!eth) return drop(DropReason::kTruncated);
    p.eth = *eth;
    std::span<const uint8_t> l3 = frame.subspan(eth->size());
    std::span<const uint8_t> ip_packet;  // l3 cut to the IP length
    size_t ip_hdr = 0;

    if (eth->ethertype == kEtherTypeIpv4) {
        p.ip_version = IpVersion::kV4;
        if (l3.size() < Ipv4Header::kMinSize) return drop(DropReason::kTruncated);
        if ((l3[0] >> 4) != 4 || (l3[0] & 0x0f) < 5) return drop(DropReason::kBadIpHeader);
        const auto ip = Ipv4Header::decode(l3);
        if (!ip) return drop(DropReason::kTruncated);  // options cut off
        if (ip->protocol != kIpProtoUdp || ip->mf || ip->frag_offset != 0) {
            return drop(DropReason::kNotRoce);
        }
        if (!ipv4_checksum_ok(l3)) return drop(DropReason::kBadIpHeader);
        ip_hdr = ip->size();
        if (ip->total_length < ip_hdr) return drop(DropReason::kBadIpHeader);
        if (ip->total_length > l3.size()) return drop(DropReason::kTruncated);
        ip_packet = l3.first(ip->total_length);
        p.ipv4 = *ip;
    } else if (eth->ethertype == kEtherTypeIpv6) {
        p.ip_version = IpVersion::kV6;
        if (l3.size() < Ipv6Header::kSize) return drop(DropReason::kTruncated);
        const auto ip = Ipv6Header::decode(l3);
        if (!ip) return drop(DropReason::kBadIpHeader);
        if (ip->next_header != kIpProtoUdp) return drop(DropReason::kNotRoce);
        ip_hdr = Ipv6Header::kSize;
        if (ip_hdr + ip->payload_length > l3.size()) return drop(DropReason::kTruncated);
        ip_packet = l3.first(ip_hdr + ip->payload_length);
        p.ipv6 = *ip;
    } else {
        return drop(DropReason::kNotRoce);
    }

    const auto l4 = ip_packet.subspan(ip_hdr);
    const auto udp = UdpHeader::decode(l4);
    if (!udp) return drop(DropReason::kBadLength);  // IP length leaves no room for UDP
    if (udp->dport != kRoceV2Port) return drop(DropReason::kNotRoce);
    if (udp->length != l4.size()) return drop(DropReason::kBadLength);
    p.udp = *udp;

    const auto roce = l4.subspan(UdpHeader::kSize);
    if (roce.size() < Bth::kSize + kIcrcSize) return drop(DropReason::kTruncated);
    if (roce.size() % 4 != 0) return drop(DropReason::kBadLength);

    const auto wire_icrc = roce.last(kIcrcSize);
    p.icrc = uint32_t{wire_icrc[0]} | uint32_t{wire_icrc[1]} << 8 | uint32_t{wire_icrc[2]} << 16 |
             uint32_t{wire_icrc[3]} << 24;
    if (icrc(ip_packet) != p.icrc) return drop(DropReason::kBadIcrc);

    const auto bth = Bth::decode(roce);  // size checked above
    p.transport.bth = *bth;
    if (bth->tver != 0) return drop(DropReason::kBadVersion);
    p.info = opcode_info(bth->opcode, set);
    if (p.info == nullptr) return drop(DropReason::kUnknownOpcode);

    const size_t ext = p.info->ext_size();
    if (roce.size() < Bth::kSize + ext + kIcrcSize) return drop(DropReason::kTruncated);
    decode_ext(*p.info, roce.subspan(Bth::kSize, ext), p.transport);
    const auto padded = roce.subspan(Bth::kSize + ext, roce.size() - Bth::kSize - ext - kIcrcSize);
    const size_t pad = bth->pad;
    if (pad > padded.size()) return drop(DropReason::kBadLength);
    switch (p.info->payload) {
        case PayloadRule::kNone:
            if (!padded.empty()) return drop(DropReason::kBadLength);
            break;
        case PayloadRule::kFull:
            if (pad != 0 || padded.empty()) return drop(DropReason::kBadLength);
            break;
        case PayloadRule::kTail:
            break;
    }
    p.payload = padded.first(padded.size() - pad);
    return r;
}

}  // namespace scenic::roce
