// SPDX-License-Identifier: MIT
// RX tagger and ring engine of the ETH block (paper section 7.1): for each accepted frame, ONE
// DMA write of struct scenic_rx_tag followed by the frame into slot RX_TAIL, then RX_TAIL
// advances. The ETH block decides before (runt, MTU, MAC filter, rx_en, link) and does the
// writeback, counters and interrupt moderation after.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "scenic/host.hpp"

namespace scenic {

class EthRx {
  public:
    static constexpr uint32_t kTagBytes = 8;  // SCENIC_RX_TAG_BYTES

    enum class Result { kWritten, kRingFull, kDmaError };

    explicit EthRx(Host& host);

    void reset();

    // Registers. Writing the size (any value) resets tail, head and the tag sequence number.
    void set_addr_lo(uint32_t v) { addr_lo_ = v; }
    void set_addr_hi(uint32_t v) { addr_hi_ = v; }
    void set_stride(uint32_t v) { stride_ = v; }
    void set_size(uint32_t v);
    void set_head(uint32_t v);  // reduced modulo the size (0 while the ring is invalid)
    [[nodiscard]] uint32_t addr_lo() const { return addr_lo_; }
    [[nodiscard]] uint32_t addr_hi() const { return addr_hi_; }
    [[nodiscard]] uint32_t stride() const { return stride_; }
    [[nodiscard]] uint32_t size() const { return size_; }
    [[nodiscard]] uint32_t tail() const { return tail_; }
    [[nodiscard]] uint32_t head() const { return head_; }

    // Size, stride and address are valid: the card may write into the ring.
    [[nodiscard]] bool valid() const;
    // A frame of len bytes fits a slot with its tag.
    [[nodiscard]] bool fits(size_t len) const { return len <= stride_ - uint64_t{kTagBytes}; }
    [[nodiscard]] bool full() const { return ((tail_ + 1) & (size_ - 1)) == head_; }

    // Writes tag + frame into slot tail() and advances it. Preconditions: valid(), fits().
    // flags: SCENIC_RX_TAG_VALID and the class bits.
    Result write(std::span<const uint8_t> frame, uint16_t flags);

  private:
    Host& host_;
    uint32_t addr_lo_ = 0;
    uint32_t addr_hi_ = 0;
    uint32_t stride_ = 0;
    uint32_t size_ = 0;
    uint32_t tail_ = 0;
    uint32_t head_ = 0;
    uint32_t seq_ = 0;
    std::vector<uint8_t> buf_;  // tag + frame of the DMA in progress
};

}  // namespace scenic
