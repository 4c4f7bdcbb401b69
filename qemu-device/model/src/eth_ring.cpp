// SPDX-License-Identifier: MIT
#include "scenic/eth_ring.hpp"

#include <array>

namespace scenic {

bool Writeback::update(uint32_t rx_tail, uint32_t tx_head) {
    const std::array<uint8_t, 8> wb = {
        static_cast<uint8_t>(rx_tail),       static_cast<uint8_t>(rx_tail >> 8),
        static_cast<uint8_t>(rx_tail >> 16), static_cast<uint8_t>(rx_tail >> 24),
        static_cast<uint8_t>(tx_head),       static_cast<uint8_t>(tx_head >> 8),
        static_cast<uint8_t>(tx_head >> 16), static_cast<uint8_t>(tx_head >> 24),
    };
    if (!host_.dma_write(join64(lo_, hi_), wb)) {
        ++errors_;
        return false;
    }
    return true;
}

}  // namespace scenic
