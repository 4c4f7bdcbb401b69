// SPDX-License-Identifier: MIT
// TX offloads of the ETH block (docs/eth-offloads.md 1.1, 2.2): the context entry's fields,
// checksum insertion (generic CHECKSUM_PARTIAL: start + offset) and TCP segmentation over IPv4
// and IPv6. Pure functions over a gathered packet: EthTx gathers, checks the entry run and
// puts what these return on the wire.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

namespace scenic {

// struct scenic_tx_ctx, decoded.
struct TxCtx {
    static constexpr uint16_t kOpCsum = 1u << 0;
    static constexpr uint16_t kOpTso = 1u << 1;
    static constexpr uint16_t kOpUso = 1u << 2;
    static constexpr uint16_t kOpIpv6 = 1u << 3;
    static constexpr uint16_t kOpsReserved = 0xfff0;

    uint16_t csum_start = 0;
    uint16_t csum_offset = 0;
    uint16_t mss = 0;
    uint8_t l3_off = 0;
    uint8_t hdr_len = 0;
    uint16_t ops = 0;
    uint16_t reserved = 0;

    static TxCtx decode(std::span<const uint8_t, 16> entry);
};

// CSUM: offsets inside a packet of total bytes (csum_start >= 14, field inside).
bool csum_ctx_ok(const TxCtx& ctx, uint64_t total);

// Writes the checksum of pkt[csum_start..) (field included: the stack seeded it with the
// pseudo-header sum) at csum_start + csum_offset; 0 goes out as 0xffff. Precondition:
// csum_ctx_ok(ctx, pkt.size()).
void csum_insert(std::span<uint8_t> pkt, const TxCtx& ctx);

// TSO: every header check of section 2.2 against the gathered packet; max_frame = MTU + 18,
// max_segs = TX_MAX_TSO_SEGS. Returns the number of segments, 0 when the packet is refused.
uint32_t tso_check(std::span<const uint8_t> pkt, const TxCtx& ctx, uint32_t max_frame,
                   uint32_t max_segs);

// Builds the segments of a packet tso_check accepted and hands each to emit (one wire frame,
// zero-padded to 60 bytes). seg is the caller's scratch buffer.
void tso_segment(std::span<const uint8_t> pkt, const TxCtx& ctx, std::vector<uint8_t>& seg,
                 const std::function<void(std::span<const uint8_t>)>& emit);

}  // namespace scenic
