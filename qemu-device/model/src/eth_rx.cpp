// SPDX-License-Identifier: MIT
#include "scenic/eth_rx.hpp"

#include <algorithm>

#include "scenic/eth_ring.hpp"
#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

EthRx::EthRx(Host& host) : host_(host) { reset(); }

void EthRx::reset() {
    addr_lo_ = eth::kRxRingAddrLoDefault;
    addr_hi_ = eth::kRxRingAddrHiDefault;
    stride_ = eth::kRxRingStrideDefault;
    size_ = eth::kRxRingSizeDefault;
    tail_ = eth::kRxTailDefault;
    head_ = eth::kRxHeadDefault;
    seq_ = 0;
}

void EthRx::set_size(uint32_t v) {
    size_ = v;
    tail_ = 0;
    head_ = 0;
    seq_ = 0;
}

void EthRx::set_head(uint32_t v) { head_ = valid_ring_size(size_) ? v & (size_ - 1) : 0; }

bool EthRx::valid() const {
    return valid_ring_size(size_) && valid_ring_stride(stride_) &&
           valid_ring_area(join64(addr_lo_, addr_hi_), size_, stride_);
}

EthRx::Result EthRx::write(std::span<const uint8_t> frame, uint16_t flags) {
    if (full()) {
        return Result::kRingFull;
    }
    const auto len = static_cast<uint16_t>(frame.size());  // <= MTU + 18 (caller checked)
    const uint32_t seq = seq_;
    buf_.resize(kTagBytes + frame.size());
    const uint8_t tag[kTagBytes] = {
        static_cast<uint8_t>(len),       static_cast<uint8_t>(len >> 8),
        static_cast<uint8_t>(flags),     static_cast<uint8_t>(flags >> 8),
        static_cast<uint8_t>(seq),       static_cast<uint8_t>(seq >> 8),
        static_cast<uint8_t>(seq >> 16), static_cast<uint8_t>(seq >> 24),
    };
    std::copy(std::begin(tag), std::end(tag), buf_.begin());
    std::copy(frame.begin(), frame.end(), buf_.begin() + kTagBytes);

    const uint64_t slot = join64(addr_lo_, addr_hi_) + uint64_t{tail_} * stride_;
    if (!host_.dma_write(slot, buf_)) {
        return Result::kDmaError;  // tail stays: the slot is reused by the next frame
    }
    ++seq_;
    tail_ = (tail_ + 1) & (size_ - 1);
    return Result::kWritten;
}

}  // namespace scenic
