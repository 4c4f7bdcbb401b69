// SPDX-License-Identifier: MIT
// RDMA block: the offloaded RoCE v2 engine's registers (identity, limits, CTRL.enable, the
// completion event queue CEQ_*, counters) and its doorbell BAR. Its admin commands arrive through
// the core's admin queue (Device routes them to engine().command). The engine is rdma_engine.hpp.
#pragma once

#include <bit>
#include <cstdint>
#include <functional>
#include <span>

#include "scenic/block.hpp"
#include "scenic/config.hpp"
#include "scenic/event_queue.hpp"
#include "scenic/host.hpp"
#include "scenic/rdma_engine.hpp"
#include "scenic/regs.hpp"

namespace scenic {

class RdmaBlock final : public Block {
  public:
    // on_enable: CTRL.enable changed (the ETH block's prefilter steers RoCE v2 accordingly).
    // aeq: the core's asynchronous event queue, where the engine's events go.
    RdmaBlock(const Config& config, Host& host, EventQueue& events, EventRing& aeq,
              std::function<void(bool)> on_enable);

    void reset() override;

    // Doorbell BAR: MAX_QP + MAX_CQ + MAX_SRQ pages, rounded up to the power of 2 a PCI BAR
    // must be (the pages past the SRQs' are ignored).
    [[nodiscard]] static uint64_t db_size() {
        return std::bit_ceil(uint64_t{rdma::kMaxQp + rdma::kMaxCq + rdma::kMaxSrq} *
                             regs::kDbPageSize);
    }
    void db_write(uint64_t offset, uint64_t value, unsigned size);

    // RoCE v2 frames the prefilter steered here; false: the fallback path's (QP 1).
    bool receive(std::span<const uint8_t> frame) { return engine_.receive(frame); }
    [[nodiscard]] bool enabled() const { return enabled_; }

    [[nodiscard]] rdma::Engine& engine() { return engine_; }
    [[nodiscard]] rdma::Counters& counters() { return engine_.counters(); }

  protected:
    uint32_t read_reg(uint32_t offset) override;
    void write_reg(uint32_t offset, uint32_t value) override;

  private:
    rdma::Engine engine_;
    std::function<void(bool)> on_enable_;
    bool enabled_ = false;
};

}  // namespace scenic
