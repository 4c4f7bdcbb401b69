// SPDX-License-Identifier: MIT
// Ethernet, IPv4/IPv6, TCP and UDP header sizes, type and protocol numbers, and the big-endian
// field load, shared by the card's frame parsers (RX checksum, TX offloads, SCU steering).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace scenic::dp {

inline constexpr uint32_t kEthHdr = 14;
inline constexpr uint32_t kVlanHdr = 4;
inline constexpr uint32_t kIp4MinHdr = 20;
inline constexpr uint32_t kIp6Hdr = 40;
inline constexpr uint32_t kTcpMinHdr = 20;
inline constexpr uint32_t kUdpHdr = 8;
inline constexpr uint16_t kEtherTypeIp4 = 0x0800;
inline constexpr uint16_t kEtherTypeIp6 = 0x86dd;
inline constexpr uint16_t kEtherTypeVlan = 0x8100;
inline constexpr uint8_t kIpProtoTcp = 6;
inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint8_t kIpProtoSctp = 132;

inline uint16_t be16(std::span<const uint8_t> f, size_t off) {
    return static_cast<uint16_t>(f[off] << 8 | f[off + 1]);
}

}  // namespace scenic::dp
