// SPDX-License-Identifier: MIT
#include "scenic/eth_block.hpp"

#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

namespace {

Block::Header eth_header(const Config& config) {
    const uint32_t version = config.bad_block_version ? Config::kBadMajor << 16 : eth::kVersion;
    return {eth::kType, version, eth::kOffset, eth::kSize, eth::kNext};
}

}  // namespace

EthBlock::EthBlock(const Config& config) : Block(eth_header(config)), config_(config) { reset(); }

void EthBlock::reset() {
    // Nothing writable yet; the RX/TX rings will be reset here.
    rx_frames_ = 0;
    rx_dropped_ = 0;
}

uint32_t EthBlock::read_reg(uint32_t offset) {
    const auto& mac = config_.mac;
    switch (offset) {
        case eth::kMacLo:
            return uint32_t{mac[2]} << 24 | uint32_t{mac[3]} << 16 | uint32_t{mac[4]} << 8 | mac[5];
        case eth::kMacHi:
            return uint32_t{mac[0]} << 8 | mac[1];
        case eth::kLink:
            return (eth::kLinkDefault & ~eth::kLinkUp.mask) | (link_up_ ? eth::kLinkUp.mask : 0);
        case eth::kMaxMtu:
            return eth::kMaxMtuDefault;
        default:
            return 0;
    }
}

void EthBlock::write_reg(uint32_t /*offset*/, uint32_t /*value*/) {
    // Every ETH register is read-only for now.
}

void EthBlock::receive(std::span<const uint8_t> frame) {
    ++rx_frames_;
    // RX path (next issue): prefilter, tag, DMA into the RX ring, interrupt moderation.
    // Until then every frame is dropped.
    static_cast<void>(frame);
    ++rx_dropped_;
}

}  // namespace scenic
