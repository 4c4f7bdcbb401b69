// SPDX-License-Identifier: MIT
// Receive-side header parser of the ETH offloads (docs/eth-offloads.md 1.2, 2.1): Ethernet with
// 0 or 1 802.1Q tag, IPv4 or IPv6 without extension headers, TCP or UDP; and the checksum
// status the card writes into the RX tag from it.
#pragma once

#include <cstdint>
#include <span>

#include "scenic/dp/frame_fields.hpp"

namespace scenic::dp {

struct RxParse {
    bool l4 = false;  // IPv4/IPv6 + TCP/UDP, unfragmented, every byte the IP length names
    bool ipv6 = false;
    bool ip4_hdr_ok = true;  // IPv4 header checksum verified (always true for IPv6)
    uint8_t proto = 0;
    uint32_t l3_off = 0;
    uint32_t l4_off = 0;
    uint32_t l4_len = 0;  // L4 bytes as the IP header's length says (Ethernet padding excluded)
};

RxParse rx_parse(std::span<const uint8_t> frame);

// Sum (not folded) of the TCP/UDP pseudo-header for an l4_len-byte segment.
uint64_t pseudo_header_sum(std::span<const uint8_t> frame, const RxParse& p, uint32_t l4_len);

// Values of the RX tag's CSUM bits (SCENIC_RX_CSUM_*).
enum class CsumStatus : uint8_t { kNone = 0, kGood = 1, kBadL4 = 2, kBadIp = 3 };

CsumStatus rx_csum_status(std::span<const uint8_t> frame);

}  // namespace scenic::dp
