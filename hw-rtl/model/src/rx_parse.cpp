// SPDX-License-Identifier: MIT
#include "scenic/dp/rx_parse.hpp"

#include "scenic/dp/inet_csum.hpp"

namespace scenic::dp {

RxParse rx_parse(std::span<const uint8_t> frame) {
    RxParse p;
    if (frame.size() < kEthHdr) {
        return p;
    }
    uint32_t l3 = kEthHdr;
    uint16_t type = be16(frame, 12);
    if (type == kEtherTypeVlan) {
        if (frame.size() < kEthHdr + kVlanHdr) {
            return p;
        }
        type = be16(frame, 16);
        l3 += kVlanHdr;  // a second tag (0x8100 again) is not an IP EtherType: NONE
    }
    p.l3_off = l3;
    if (type == kEtherTypeIp4) {
        if (frame.size() < l3 + kIp4MinHdr || (frame[l3] >> 4) != 4) {
            return p;
        }
        const uint32_t ihl = (frame[l3] & 0xfu) * 4u;
        const uint32_t total = be16(frame, l3 + 2);
        if (ihl < kIp4MinHdr || frame.size() < l3 + ihl || total < ihl ||
            frame.size() < l3 + total) {
            return p;
        }
        p.ip4_hdr_ok = inet_fold(inet_sum(frame.subspan(l3, ihl))) == 0xffff;
        const bool fragment = (be16(frame, l3 + 6) & 0x3fffu) != 0;  // MF or offset
        p.proto = frame[l3 + 9];
        p.l4_off = l3 + ihl;
        p.l4_len = total - ihl;
        p.l4 = !fragment;
    } else if (type == kEtherTypeIp6) {
        if (frame.size() < l3 + kIp6Hdr || (frame[l3] >> 4) != 6) {
            return p;
        }
        const uint32_t payload = be16(frame, l3 + 4);
        if (frame.size() < l3 + kIp6Hdr + payload) {
            return p;
        }
        p.ipv6 = true;
        p.proto = frame[l3 + 6];  // extension headers are not TCP/UDP: NONE
        p.l4_off = l3 + kIp6Hdr;
        p.l4_len = payload;
        p.l4 = true;
    } else {
        return p;
    }
    const uint32_t min_l4 = p.proto == kIpProtoTcp ? kTcpMinHdr : kUdpHdr;
    p.l4 = p.l4 && (p.proto == kIpProtoTcp || p.proto == kIpProtoUdp) && p.l4_len >= min_l4;
    return p;
}

uint64_t pseudo_header_sum(std::span<const uint8_t> frame, const RxParse& p, uint32_t l4_len) {
    uint64_t sum = 0;
    if (p.ipv6) {
        sum = inet_sum(frame.subspan(p.l3_off + 8, 32));  // source and destination
    } else {
        sum = inet_sum(frame.subspan(p.l3_off + 12, 8));
    }
    return sum + p.proto + (l4_len >> 16) + (l4_len & 0xffff);
}

CsumStatus rx_csum_status(std::span<const uint8_t> frame) {
    const RxParse p = rx_parse(frame);
    if (!p.ip4_hdr_ok) {
        return CsumStatus::kBadIp;
    }
    if (!p.l4) {
        return CsumStatus::kNone;
    }
    if (p.proto == kIpProtoUdp && be16(frame, p.l4_off + 6) == 0) {
        return CsumStatus::kNone;  // the sender computed no checksum
    }
    const uint64_t sum =
        inet_sum(frame.subspan(p.l4_off, p.l4_len), pseudo_header_sum(frame, p, p.l4_len));
    return inet_fold(sum) == 0xffff ? CsumStatus::kGood : CsumStatus::kBadL4;
}

}  // namespace scenic::dp
