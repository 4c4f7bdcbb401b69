// SPDX-License-Identifier: MIT
#include "scenic/eth_tx.hpp"

#include <array>

#include "scenic/eth_block.hpp"
#include "scenic/eth_ring.hpp"
#include "scenic/regs.hpp"

namespace scenic {

namespace eth = regs::eth;

namespace {

uint32_t le32(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

EthTx::EthTx(Host& host) : host_(host) { reset(); }

void EthTx::reset() {
    addr_lo_ = eth::kTxRingAddrLoDefault;
    addr_hi_ = eth::kTxRingAddrHiDefault;
    size_ = eth::kTxRingSizeDefault;
    head_ = eth::kTxHeadDefault;
    tail_ = eth::kTxTailDefault;
}

void EthTx::set_size(uint32_t v) {
    size_ = v;
    head_ = 0;
    tail_ = 0;
}

void EthTx::set_tail(uint32_t v) { tail_ = valid_ring_size(size_) ? v & (size_ - 1) : 0; }

bool EthTx::valid() const {
    return valid_ring_size(size_) && valid_ring_area(join64(addr_lo_, addr_hi_), size_, kCmdBytes);
}

uint32_t EthTx::run(uint32_t max_cmds, uint32_t max_len, bool send, EthCounters& cnt,
                    const SteerHook& steer) {
    uint32_t done = 0;
    const uint64_t base = join64(addr_lo_, addr_hi_);
    while (done < max_cmds && pending()) {
        std::array<uint8_t, kCmdBytes> cmd{};
        const bool cmd_ok = host_.dma_read(base + uint64_t{head_} * kCmdBytes, cmd);
        if (!cmd_ok) {
            ++cnt.tx_dma_errors;
        } else {
            const uint64_t addr = join64(le32(&cmd[0]), le32(&cmd[4]));
            const uint32_t len = le32(&cmd[8]);
            const uint32_t flags = le32(&cmd[12]);
            if (len < kMinFrame || len > max_len || flags != 0) {
                ++cnt.tx_drop_bad_cmd;
            } else {
                frame_.resize(len);  // bounded by MTU + 18
                if (!host_.dma_read(addr, frame_)) {
                    ++cnt.tx_dma_errors;
                } else {
                    // A steered frame completes when it enters the slot's FIFO (docs/scu.md 3).
                    if (send && !(steer && steer(scu::Dir::kTx, frame_))) {
                        host_.eth_send(frame_);
                    }
                    ++cnt.tx_frames;
                    cnt.tx_bytes += len;
                }
            }
        }
        // Only after the whole frame was read (the driver frees the buffer once it passes).
        head_ = (head_ + 1) & (size_ - 1);
        ++done;
    }
    return done;
}

}  // namespace scenic
