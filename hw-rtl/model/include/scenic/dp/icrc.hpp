// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_icrc.sv: transaction level (one call per L2-stripped packet,
// starting at the IP header and ending with the 4-byte ICRC).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace scenic::dp {

// CRC-32 state after 64 bits of 1s from the all-ones initial value (the ICRC seed).
inline constexpr uint32_t kIcrcSeed = 0xdebb20e3u;

// Raw reflected CRC-32 update (polynomial 0xEDB88320, no pre/post inversion).
uint32_t crc32_update(uint32_t state, std::span<const uint8_t> data);

// ICRC of a RoCE v2 packet (IP header onwards) over all but its last 4 bytes, with the
// invariant fields masked; byte i of the ICRC on the wire is (icrc >> 8*i) & 0xff.
// Requires packet.size() >= 4.
uint32_t roce_icrc(std::span<const uint8_t> packet);

struct IcrcResult {
    std::vector<uint8_t> packet;  // with the ICRC inserted when generating
    bool ok = false;              // the incoming last 4 bytes equalled the ICRC
};

// generate = true: overwrite the last 4 bytes with the ICRC (TX); false: check only (RX).
// Packets shorter than 4 bytes pass unchanged with ok = false.
IcrcResult icrc_process(std::span<const uint8_t> packet, bool generate);

}  // namespace scenic::dp
