// SPDX-License-Identifier: MIT
// CORE block: identity, capabilities, soft reset, interrupt and DMA self-tests.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "scenic/block.hpp"
#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"

namespace scenic {

class CoreBlock final : public Block {
  public:
    // Largest DMA self-test (DMA_TEST_LEN), and how long the engine takes to start one.
    static constexpr uint32_t kDmaTestMaxLen = 4096;
    static constexpr uint64_t kDmaTestLatencyNs = 1000;

    // soft_reset is called when the driver writes CTRL.soft_reset: the device resets every
    // block (this one included).
    CoreBlock(const Config& config, Host& host, EventQueue& events,
              std::function<void()> soft_reset);

    void reset() override;

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    void irq_test(uint32_t vector);
    void dma_test_start();
    void dma_test_run(uint64_t addr, uint32_t len);
    void dma_test_finish(bool error);

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
};

}  // namespace scenic
