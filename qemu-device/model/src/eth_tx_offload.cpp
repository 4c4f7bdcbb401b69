// SPDX-License-Identifier: MIT
#include "scenic/eth_tx_offload.hpp"

#include <algorithm>

#include "scenic/dp/frame_fields.hpp"
#include "scenic/dp/inet_csum.hpp"
#include "scenic/dp/rx_parse.hpp"

namespace scenic {

namespace {

using dp::be16;
using dp::kEthHdr;
using dp::kIp4MinHdr;
using dp::kIp6Hdr;
using dp::kTcpMinHdr;

constexpr uint32_t kVlanL3 = 18;
constexpr uint32_t kMinWire = 60;
constexpr uint64_t kMaxPkt = 65536;  // TX_MAX_PKT
constexpr uint8_t kTcpFin = 0x01;
constexpr uint8_t kTcpPsh = 0x08;
constexpr uint8_t kTcpCwr = 0x80;

uint32_t be32(std::span<const uint8_t> p, size_t off) {
    return uint32_t{be16(p, off)} << 16 | be16(p, off + 2);
}
void put16(std::span<uint8_t> p, size_t off, uint16_t v) {
    p[off] = static_cast<uint8_t>(v >> 8);
    p[off + 1] = static_cast<uint8_t>(v);
}
void put32(std::span<uint8_t> p, size_t off, uint32_t v) {
    put16(p, off, static_cast<uint16_t>(v >> 16));
    put16(p, off + 2, static_cast<uint16_t>(v));
}
uint16_t le16(std::span<const uint8_t> p, size_t off) {
    return static_cast<uint16_t>(p[off] | p[off + 1] << 8);
}

}  // namespace

TxCtx TxCtx::decode(std::span<const uint8_t, 16> e) {
    TxCtx c;
    c.csum_start = le16(e, 0);
    c.csum_offset = le16(e, 2);
    c.mss = le16(e, 4);
    c.l3_off = e[6];
    c.hdr_len = e[7];
    c.ops = le16(e, 8);
    c.reserved = le16(e, 10);
    return c;
}

bool csum_ctx_ok(const TxCtx& ctx, uint64_t total) {
    return ctx.csum_start >= kEthHdr && uint64_t{ctx.csum_start} + ctx.csum_offset + 2 <= total;
}

void csum_insert(std::span<uint8_t> pkt, const TxCtx& ctx) {
    const uint16_t c = dp::inet_csum(pkt.subspan(ctx.csum_start));
    put16(pkt, size_t{ctx.csum_start} + ctx.csum_offset, c == 0 ? 0xffff : c);
}

uint32_t tso_check(std::span<const uint8_t> pkt, const TxCtx& ctx, uint32_t max_frame,
                   uint32_t max_segs) {
    const uint64_t total = pkt.size();
    const uint32_t l3 = ctx.l3_off;
    const bool v6 = (ctx.ops & TxCtx::kOpIpv6) != 0;
    if (total > kMaxPkt || ctx.hdr_len >= total || ctx.mss == 0) {
        return 0;
    }
    if (l3 == kEthHdr) {
        // EtherType at 12
    } else if (l3 == kVlanL3) {
        if (be16(pkt, 12) != 0x8100) {
            return 0;
        }
    } else {
        return 0;
    }
    const uint16_t type = be16(pkt, l3 - 2);
    if (type != (v6 ? 0x86dd : 0x0800)) {
        return 0;
    }
    uint32_t l4 = 0;
    if (v6) {
        if (total < l3 + kIp6Hdr || (pkt[l3] >> 4) != 6 || pkt[l3 + 6] != dp::kIpProtoTcp) {
            return 0;
        }
        l4 = l3 + kIp6Hdr;
    } else {
        if (total < l3 + kIp4MinHdr || (pkt[l3] >> 4) != 4) {
            return 0;
        }
        const uint32_t ihl = (pkt[l3] & 0xfu) * 4u;
        if (ihl < kIp4MinHdr || pkt[l3 + 9] != dp::kIpProtoTcp ||
            (be16(pkt, l3 + 6) & 0x3fffu) != 0) {
            return 0;
        }
        l4 = l3 + ihl;
    }
    if (ctx.csum_start != l4 || total < uint64_t{l4} + kTcpMinHdr) {
        return 0;
    }
    const uint32_t doff = (pkt[l4 + 12] >> 4) * 4u;
    if (doff < kTcpMinHdr || ctx.hdr_len != l4 + doff) {
        return 0;
    }
    if (uint64_t{ctx.hdr_len} + ctx.mss > max_frame) {
        return 0;
    }
    const uint64_t payload = total - ctx.hdr_len;
    const uint64_t n = (payload + ctx.mss - 1) / ctx.mss;
    return n <= max_segs ? static_cast<uint32_t>(n) : 0;
}

void tso_segment(std::span<const uint8_t> pkt, const TxCtx& ctx, std::vector<uint8_t>& seg,
                 const std::function<void(std::span<const uint8_t>)>& emit) {
    const uint32_t h = ctx.hdr_len;
    const uint32_t l3 = ctx.l3_off;
    const uint32_t l4 = ctx.csum_start;
    const bool v6 = (ctx.ops & TxCtx::kOpIpv6) != 0;
    const size_t payload = pkt.size() - h;
    const uint32_t seq = be32(pkt, l4 + 4);
    const uint16_t ip_id = v6 ? 0 : be16(pkt, l3 + 4);
    dp::RxParse p;
    p.ipv6 = v6;
    p.proto = dp::kIpProtoTcp;
    p.l3_off = l3;
    for (size_t i = 0, off = 0; off < payload; ++i, off += ctx.mss) {
        const size_t s = std::min<size_t>(ctx.mss, payload - off);
        const bool last = off + s == payload;
        seg.assign(pkt.begin(), pkt.begin() + h);
        seg.insert(seg.end(), pkt.begin() + static_cast<ptrdiff_t>(h + off),
                   pkt.begin() + static_cast<ptrdiff_t>(h + off + s));
        const std::span<uint8_t> f(seg);
        const auto l4_len = static_cast<uint32_t>(h - l4 + s);
        if (v6) {
            put16(f, l3 + 4, static_cast<uint16_t>(l4_len));
        } else {
            const uint32_t ihl = l4 - l3;
            put16(f, l3 + 2, static_cast<uint16_t>(ihl + l4_len));
            put16(f, l3 + 4, static_cast<uint16_t>(ip_id + i));
            put16(f, l3 + 10, 0);
            put16(f, l3 + 10, dp::inet_csum(f.subspan(l3, ihl)));
        }
        put32(f, l4 + 4, static_cast<uint32_t>(seq + i * ctx.mss));
        uint8_t flags = pkt[l4 + 13];
        if (!last) {
            flags &= static_cast<uint8_t>(~(kTcpFin | kTcpPsh));
        }
        if (i != 0) {
            flags &= static_cast<uint8_t>(~kTcpCwr);
        }
        f[l4 + 13] = flags;
        put16(f, l4 + 16, 0);
        const uint16_t c =
            dp::inet_csum(f.subspan(l4, l4_len), dp::pseudo_header_sum(f, p, l4_len));
        put16(f, l4 + 16, c);
        if (seg.size() < kMinWire) {
            seg.resize(kMinWire, 0);
        }
        emit(seg);
    }
}

}  // namespace scenic
