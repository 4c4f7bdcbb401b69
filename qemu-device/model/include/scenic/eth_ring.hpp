// SPDX-License-Identifier: MIT
// What the RX and TX ring engines share: validation of the ring registers and the writeback
// area (struct scenic_eth_wb in uapi/scenic_eth.h).
#pragma once

#include <cstdint>

#include "scenic/host.hpp"

namespace scenic {

// Ring register rules (docs/register-map.md): sizes are powers of two 8..32768, strides
// multiples of 64 (at least 64), addresses 64-byte aligned. Anything else leaves the ring
// disabled: the card never DMAs into or from it.
inline constexpr uint32_t kRingMinSize = 8;
inline constexpr uint32_t kRingMaxSize = 32768;
inline constexpr uint32_t kRingAlign = 64;

[[nodiscard]] constexpr bool valid_ring_size(uint32_t size) {
    return size >= kRingMinSize && size <= kRingMaxSize && (size & (size - 1)) == 0;
}
[[nodiscard]] constexpr bool valid_ring_stride(uint32_t stride) {
    return stride >= kRingAlign && stride % kRingAlign == 0;
}
// A ring of `size` entries of `entry` bytes at `addr`: aligned and not wrapping the bus.
[[nodiscard]] constexpr bool valid_ring_area(uint64_t addr, uint32_t size, uint32_t entry) {
    const uint64_t bytes = uint64_t{size} * entry;  // at most 2^15 * 2^32: no overflow
    return addr % kRingAlign == 0 && bytes <= UINT64_MAX - addr;
}
[[nodiscard]] constexpr uint64_t join64(uint32_t lo, uint32_t hi) {
    return uint64_t{hi} << 32 | lo;
}

// The 64-byte writeback area: rx_tail at offset 0, tx_head at 4 (little endian). The card
// writes both words together (8 bytes) and never touches the reserved part.
class Writeback {
  public:
    explicit Writeback(Host& host) : host_(host) {}

    void reset() { lo_ = hi_ = 0; }
    void set_lo(uint32_t v) { lo_ = v; }
    void set_hi(uint32_t v) { hi_ = v; }
    [[nodiscard]] uint32_t lo() const { return lo_; }
    [[nodiscard]] uint32_t hi() const { return hi_; }
    // Enabled when non-zero and 64-byte aligned (an unaligned address disables it).
    [[nodiscard]] bool enabled() const {
        const uint64_t a = join64(lo_, hi_);
        return a != 0 && a % kRingAlign == 0 && a <= UINT64_MAX - 63;
    }
    // Returns false if the DMA failed (counted in errors()).
    bool update(uint32_t rx_tail, uint32_t tx_head);
    [[nodiscard]] uint64_t errors() const { return errors_; }

  private:
    Host& host_;
    uint32_t lo_ = 0;
    uint32_t hi_ = 0;
    uint64_t errors_ = 0;
};

}  // namespace scenic
