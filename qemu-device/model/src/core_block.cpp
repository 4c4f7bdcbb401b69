// SPDX-License-Identifier: MIT
#include "scenic/core_block.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

#include "scenic/regs.hpp"

namespace scenic {

namespace core = regs::core;

namespace {

uint32_t field(uint32_t v, regs::FieldDef f) { return (v & f.mask) >> f.shift; }

}  // namespace

CoreBlock::CoreBlock(const Config& config, Host& host, EventQueue& events,
                     std::function<void()> soft_reset, AdminQueue::Exec exec)
    : Block({core::kType, core::kVersion, core::kOffset, core::kSize, core::kNext}),
      config_(config),
      host_(host),
      events_(events),
      soft_reset_(std::move(soft_reset)),
      exec_(std::move(exec)),
      aeq_(EventRing::Kind::kAeq, config, host, events),
      aq_(
          config, host, events,
          [this](std::span<const uint8_t, kAqSqeBytes> e, std::span<uint8_t, kAqResultBytes> r) {
              return this->exec(e, r);
          },
          [this](admin::AqHaltReason reason) {
              raise_fatal(admin::FatalCode::kAqProtocol, 0, static_cast<uint32_t>(reason));
          }) {
    aeq_.set_on_dma_fault([this](uint64_t addr) {
        raise_fatal(admin::FatalCode::kRingDma, 0, static_cast<uint32_t>(addr));
    });
    reset();
}

CmdResult CoreBlock::exec(std::span<const uint8_t, kAqSqeBytes> entry,
                          std::span<uint8_t, kAqResultBytes> result) {
    const admin::AqSqeHdr<const uint8_t> hdr(entry.first<admin::AqSqeHdr<>::kSize>());
    if (hdr.opcode() == static_cast<uint8_t>(admin::AqOpcode::kNop)) {
        std::array<uint8_t, kAqCqeBytes> cqe{};
        admin::AcqNop<>(std::span<uint8_t, kAqCqeBytes>(cqe)).set_heartbeat(heartbeat());
        std::ranges::copy(std::span(cqe).last<kAqResultBytes>(), result.begin());
        return {};
    }
    if (exec_) {
        return exec_(entry, result);
    }
    return {admin::AqStatus::kBadOpcode, field_offset(admin::kAqSqeHdrFields, "opcode")};
}

uint32_t CoreBlock::heartbeat() {
    if ((fatal_status_ & core::kFatalStatusFatal.mask) != 0 ||
        (fault_inject_ & core::kFaultInjectHbStall.mask) != 0) {
        return heartbeat_frozen_;  // the control sequencer stopped
    }
    return static_cast<uint32_t>((host_.now_ns() - heartbeat_epoch_ns_) / kHeartbeatNs);
}

void CoreBlock::raise_fatal(admin::FatalCode code, uint8_t block, uint32_t detail) {
    if ((fatal_status_ & core::kFatalStatusFatal.mask) != 0) {
        return;
    }
    heartbeat_frozen_ = heartbeat();
    fatal_status_ =
        core::kFatalStatusFatal.mask |
        ((static_cast<uint32_t>(code) << core::kFatalStatusCode.shift) &
         core::kFatalStatusCode.mask) |
        ((uint32_t{block} << core::kFatalStatusBlock.shift) & core::kFatalStatusBlock.mask);
    fatal_detail_ = detail;
    // The event is written from the timer: raise_fatal may be reached from an MMIO write.
    if (!fatal_event_) {
        fatal_event_ = events_.schedule_in(0, [this] {
            fatal_event_.reset();
            write_card_fatal();
        });
    }
}

void CoreBlock::write_card_fatal() {
    std::array<uint8_t, 32> e{};
    const admin::AeqeCardFatal<> v{std::span<uint8_t, 32>(e)};
    v.set_type(static_cast<uint8_t>(admin::AeqType::kCardFatal));
    v.set_code(static_cast<uint8_t>(field(fatal_status_, core::kFatalStatusCode)));
    v.set_block(static_cast<uint8_t>(field(fatal_status_, core::kFatalStatusBlock)));
    v.set_detail(fatal_detail_);
    if (!aeq_.push(e, true)) {
        // Whether or not the ring took it, the driver is interrupted.
        const unsigned vec = field(aeq_.cfg(), core::kAeqCfgVector);
        if (vec < config_.msix_vectors) {
            host_.msix_notify(vec);
        }
    }
}

void CoreBlock::link_event(bool up, uint16_t speed_gbps) {
    std::array<uint8_t, 32> e{};
    const admin::AeqeLink<> v{std::span<uint8_t, 32>(e)};
    v.set_type(static_cast<uint8_t>(admin::AeqType::kLink));
    v.set_up(up ? 1 : 0);
    v.set_speed_gbps(speed_gbps);
    aeq_.push(e);
}

void CoreBlock::write_fault_inject(uint32_t value) {
    if (!config_.fault_inject) {
        return;  // the card does not allow it: writes are ignored
    }
    const bool was_hb_stalled = (fault_inject_ & core::kFaultInjectHbStall.mask) != 0;
    const bool hb_stall = (value & core::kFaultInjectHbStall.mask) != 0;
    if (hb_stall && !was_hb_stalled) {
        heartbeat_frozen_ = heartbeat();
    }
    fault_inject_ = value & kHeldBits;
    if (was_hb_stalled && !hb_stall && (fatal_status_ & core::kFatalStatusFatal.mask) == 0) {
        // counts on from the value it held
        heartbeat_epoch_ns_ = host_.now_ns() - uint64_t{heartbeat_frozen_} * kHeartbeatNs;
    }
    if ((value & core::kFaultInjectLinkDown.mask) != 0) {
        link_down_ = true;
    }
    aq_.set_stalled((value & core::kFaultInjectAqStall.mask) != 0);
    aeq_.set_stalled((value & core::kFaultInjectAeqStall.mask) != 0);
    if (on_ceq_stall_) {
        on_ceq_stall_((value & core::kFaultInjectCeqStall.mask) != 0);
    }
    if ((value & core::kFaultInjectSwapIds.mask) != 0) {
        aq_.swap_next_id();
    }
    if ((value & core::kFaultInjectFatal.mask) != 0) {
        raise_fatal(admin::FatalCode::kInjected, 0, 0);
    }
}

void CoreBlock::reset() {
    // FAULT_INJECT.sticky_fatal: a fault that a soft reset cannot clear (an FLR can).
    const bool keep_fatal =
        soft_resetting_ && (fault_inject_ & core::kFaultInjectStickyFatal.mask) != 0;
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
    if (fatal_event_) {
        events_.cancel(*fatal_event_);
        fatal_event_.reset();
    }
    aq_.reset();
    aeq_.reset();
    if (!keep_fatal) {
        fatal_status_ = core::kFatalStatusDefault;
        fatal_detail_ = core::kFatalDetailDefault;
        heartbeat_frozen_ = 0;
    }
    heartbeat_epoch_ns_ = host_.now_ns();
    fault_inject_ = keep_fatal ? core::kFaultInjectStickyFatal.mask : core::kFaultInjectDefault;
    // link_down_ stays: no reset brings back a card that left the bus
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
        case core::kAeqBaseLo:
            return aeq_.base_lo();
        case core::kAeqBaseHi:
            return aeq_.base_hi();
        case core::kAeqCfg:
            return aeq_.cfg();
        case core::kAeqHead:
            return aeq_.head();
        case core::kAeqTail:
            return aeq_.tail();
        case core::kAeqLost:
            return aeq_.lost();
        case core::kFatalStatus:
            return fatal_status_;
        case core::kFatalDetail:
            return fatal_detail_;
        case core::kHeartbeat:
            return heartbeat();
        case core::kFaultInject:
            return config_.fault_inject ? fault_inject_ : 0;
        default: {
            uint32_t v = 0;
            return aq_.read(offset, v) ? v : 0;  // IRQ_TEST is write-only; holes read 0
        }
    }
}

void CoreBlock::write_reg(uint32_t offset, uint32_t value) {
    switch (offset) {
        case core::kCtrl:
            if (value & core::kCtrlSoftReset.mask) {
                soft_resetting_ = true;
                soft_reset_();
                soft_resetting_ = false;
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
        case core::kAeqBaseLo:
            aeq_.write_base_lo(value);
            break;
        case core::kAeqBaseHi:
            aeq_.write_base_hi(value);
            break;
        case core::kAeqCfg:
            aeq_.write_cfg(value);
            break;
        case core::kAeqHead:
            aeq_.write_head(value);
            break;
        case core::kFaultInject:
            write_fault_inject(value);
            break;
        default:
            aq_.write(offset, value);  // read-only registers and holes are ignored there
            break;
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
