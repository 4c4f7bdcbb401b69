// SPDX-License-Identifier: MIT
#include "scenic/core_block.hpp"

#include <zlib.h>

#include <array>
#include <utility>
#include <vector>

#include "scenic/regs.hpp"

namespace scenic {

namespace core = regs::core;

CoreBlock::CoreBlock(const Config& config, Host& host, EventQueue& events,
                     std::function<void()> soft_reset)
    : Block({core::kType, core::kVersion, core::kOffset, core::kSize, core::kNext}),
      config_(config),
      host_(host),
      events_(events),
      soft_reset_(std::move(soft_reset)) {
    reset();
}

void CoreBlock::reset() {
    // A DMA self-test in flight is abandoned.
    if (dma_pending_) {
        events_.cancel(*dma_pending_);
        dma_pending_.reset();
    }
    scratch_ = core::kScratchDefault;
    irq_test_count_ = core::kIrqTestCountDefault;
    irq_test_errors_ = core::kIrqTestErrorsDefault;
    dma_addr_lo_ = core::kDmaTestAddrLoDefault;
    dma_addr_hi_ = core::kDmaTestAddrHiDefault;
    dma_len_ = core::kDmaTestLenDefault;
    dma_ctrl_ = core::kDmaTestCtrlDefault;
    dma_crc_ = core::kDmaTestCrcDefault;
}

uint32_t CoreBlock::read_reg(uint32_t offset) {
    switch (offset) {
        case core::kId:
            return core::kIdDefault;
        case core::kBuildId:
            return core::kBuildIdDefault;
        case core::kCaps:
            return core::kCapsDefault;
        case core::kCtrl:
            return core::kCtrlDefault;  // soft_reset is write-1-to-start, reads 0
        case core::kScratch:
            return scratch_;
        case core::kMsixVectors:
            return config_.msix_vectors;
        case core::kIrqTestCount:
            return irq_test_count_;
        case core::kIrqTestErrors:
            return irq_test_errors_;
        case core::kDmaTestAddrLo:
            return dma_addr_lo_;
        case core::kDmaTestAddrHi:
            return dma_addr_hi_;
        case core::kDmaTestLen:
            return dma_len_;
        case core::kDmaTestCtrl:
            return dma_ctrl_;
        case core::kDmaTestCrc:
            return dma_crc_;
        default:
            return 0;  // IRQ_TEST is write-only; holes read 0
    }
}

void CoreBlock::write_reg(uint32_t offset, uint32_t value) {
    switch (offset) {
        case core::kCtrl:
            if (value & core::kCtrlSoftReset.mask) {
                soft_reset_();
            }
            break;
        case core::kScratch:
            scratch_ = value;
            break;
        case core::kIrqTest:
            irq_test(value);
            break;
        case core::kDmaTestAddrLo:
            dma_addr_lo_ = value;
            break;
        case core::kDmaTestAddrHi:
            dma_addr_hi_ = value;
            break;
        case core::kDmaTestLen:
            dma_len_ = value;
            break;
        case core::kDmaTestCtrl:
            if (value & core::kDmaTestCtrlStart.mask) {
                dma_test_start();
            }
            break;
        default:
            break;  // read-only registers and holes
    }
}

void CoreBlock::irq_test(uint32_t vector) {
    if (vector >= config_.msix_vectors) {
        ++irq_test_errors_;
        return;
    }
    ++irq_test_count_;
    host_.msix_notify(vector);
}

void CoreBlock::dma_test_start() {
    if (dma_pending_) {
        return;  // one test at a time: a start while busy is ignored
    }
    dma_ctrl_ = 0;
    dma_crc_ = 0;
    // The engine latches address and length at start: later register writes do not matter.
    const uint64_t addr = (uint64_t{dma_addr_hi_} << 32) | dma_addr_lo_;
    const uint32_t len = dma_len_;
    dma_pending_ = events_.schedule_in(kDmaTestLatencyNs, [this, addr, len] {
        dma_pending_.reset();
        dma_test_run(addr, len);
    });
}

void CoreBlock::dma_test_run(uint64_t addr, uint32_t len) {
    // The buffer and the CRC written after it must not wrap around the address space.
    if (len == 0 || len > kDmaTestMaxLen || addr > UINT64_MAX - len - sizeof(uint32_t)) {
        dma_test_finish(true);
        return;
    }
    std::vector<uint8_t> buf(len);
    if (!host_.dma_read(addr, buf)) {
        dma_test_finish(true);
        return;
    }
    const auto crc = static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), buf.data(), len));
    dma_crc_ = crc;
    const std::array<uint8_t, 4> le{static_cast<uint8_t>(crc), static_cast<uint8_t>(crc >> 8),
                                    static_cast<uint8_t>(crc >> 16),
                                    static_cast<uint8_t>(crc >> 24)};
    dma_test_finish(!host_.dma_write(addr + len, le));
}

void CoreBlock::dma_test_finish(bool error) {
    dma_ctrl_ = core::kDmaTestCtrlDone.mask | (error ? core::kDmaTestCtrlError.mask : 0);
    if (regs::kVecCore < config_.msix_vectors) {
        host_.msix_notify(regs::kVecCore);
    }
}

}  // namespace scenic
