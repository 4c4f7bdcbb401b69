// SPDX-License-Identifier: MIT
// ETH block: the fallback path (netdev function). Station MAC, link state, MTU limit.
// Frames from the wire are counted and dropped until the RX ring exists (next issue):
// receive() is where the RX tagger / ring engine plugs in.
#pragma once

#include <cstdint>
#include <span>

#include "scenic/block.hpp"
#include "scenic/config.hpp"

namespace scenic {

class EthBlock final : public Block {
  public:
    explicit EthBlock(const Config& config);

    void reset() override;

    // The wire side.
    void receive(std::span<const uint8_t> frame);
    [[nodiscard]] bool can_receive() const { return true; }  // frames are dropped, never queued
    // Carrier from the wire (QEMU: netdev link status). Not a register: survives reset.
    void set_link(bool up) { link_up_ = up; }
    [[nodiscard]] bool link_up() const { return link_up_; }

    // Statistics (no registers for them yet).
    [[nodiscard]] uint64_t rx_frames() const { return rx_frames_; }
    [[nodiscard]] uint64_t rx_dropped() const { return rx_dropped_; }

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    const Config& config_;
    bool link_up_ = true;
    uint64_t rx_frames_ = 0;
    uint64_t rx_dropped_ = 0;
};

}  // namespace scenic
