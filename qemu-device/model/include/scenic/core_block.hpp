// SPDX-License-Identifier: MIT
// CORE block: identity, capabilities, soft reset, interrupt and DMA self-tests, the admin queue
// (admin_queue.hpp), the asynchronous event queue (event_ring.hpp), fatal status, heartbeat and
// fault injection (docs/admin-queue.md 2).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "scenic/admin_queue.hpp"
#include "scenic/block.hpp"
#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/event_ring.hpp"
#include "scenic/host.hpp"
#include "scenic/regs.hpp"

namespace scenic {

class CoreBlock final : public Block {
  public:
    // Largest DMA self-test (DMA_TEST_LEN), and how long the engine takes to start one.
    static constexpr uint32_t kDmaTestMaxLen = 4096;
    static constexpr uint64_t kDmaTestLatencyNs = 1000;

    // HEARTBEAT counts once per this much card time while the card is healthy.
    static constexpr uint64_t kHeartbeatNs = 10'000'000;
    // soft_reset is called when the driver writes CTRL.soft_reset: the device resets every
    // block (this one included). exec runs the admin commands of the other blocks (not NOP).
    CoreBlock(const Config& config, Host& host, EventQueue& events,
              std::function<void()> soft_reset, AdminQueue::Exec exec);
    [[nodiscard]] EventRing& aeq() { return aeq_; }
    [[nodiscard]] AdminQueue& aq() { return aq_; }
    // Sets FATAL_STATUS / FATAL_DETAIL first (sticky: the first fault wins), then writes a
    // CARD_FATAL event (it may take the AEQ's reserved slot) and raises the AEQ vector.
    void raise_fatal(admin::FatalCode code, uint8_t block, uint32_t detail);
    // A LINK event for the eth driver.
    void link_event(bool up, uint16_t speed_gbps);
    // FAULT_INJECT.link_down was written: the card is off the bus (Device: BAR reads all-ones,
    // writes ignored, no DMA, no MSI-X) until the process ends.
    [[nodiscard]] bool link_down() const { return link_down_; }
    // FAULT_INJECT.ceq_stall was written: the device holds the RDMA block's CEQ full (the ring
    // lives in that block; the register in this one, next to aeq_stall).
    void set_on_ceq_stall(std::function<void(bool)> fn) { on_ceq_stall_ = std::move(fn); }

    void reset() override;

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    void irq_test(uint32_t vector);
    void dma_test_start();
    void dma_test_run(uint64_t addr, uint32_t len);
    void dma_test_finish(bool error);
    CmdResult exec(std::span<const uint8_t, kAqSqeBytes> entry,
                   std::span<uint8_t, kAqResultBytes> result);
    [[nodiscard]] uint32_t heartbeat();
    void write_fault_inject(uint32_t value);
    void write_card_fatal();

    const Config& config_;
    Host& host_;
    EventQueue& events_;
    std::function<void()> soft_reset_;

    uint32_t scratch_ = 0;
    uint32_t irq_test_count_ = 0;
    uint32_t irq_test_errors_ = 0;
    uint32_t dma_addr_lo_ = 0;
    uint32_t dma_addr_hi_ = 0;
    uint32_t dma_len_ = 0;
    uint32_t dma_ctrl_ = 0;  // done and error bits
    uint32_t dma_crc_ = 0;
    std::optional<EventQueue::Id> dma_pending_;
    AdminQueue::Exec exec_;
    EventRing aeq_;
    AdminQueue aq_;
    uint32_t fatal_status_ = 0;
    uint32_t fatal_detail_ = 0;
    uint64_t heartbeat_epoch_ns_ = 0;
    uint32_t heartbeat_frozen_ = 0;
    // The held (rw) bits of FAULT_INJECT.
    static constexpr uint32_t kHeldBits =
        regs::core::kFaultInjectAqStall.mask | regs::core::kFaultInjectAeqStall.mask |
        regs::core::kFaultInjectHbStall.mask | regs::core::kFaultInjectStickyFatal.mask |
        regs::core::kFaultInjectCeqStall.mask;
    uint32_t fault_inject_ = 0;
    bool link_down_ = false;
    bool soft_resetting_ = false;  // reset() runs for CTRL.soft_reset, not an FLR
    std::optional<EventQueue::Id> fatal_event_;
    std::function<void(bool)> on_ceq_stall_;
};

}  // namespace scenic
