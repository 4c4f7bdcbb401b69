// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_irq_moderator.sv: cycle-level, bit-exact.
// Usage per clock cycle: read outputs() (registered values), then clock(inputs) for the edge.
#pragma once

#include <cstdint>

namespace scenic::dp {

class IrqModerator {
  public:
    struct Params {
        unsigned cnt_w = 16;         // CNT_W
        unsigned ev_w = 2;           // EV_W: events per cycle up to 2^EV_W-1
        unsigned time_w = 16;        // TIME_W
        uint32_t tick_cycles = 250;  // TICK_CYCLES (250 = 1 us at 250 MHz)
    };
    struct Config {
        uint32_t irq_coal = 0;  // 0: count threshold off
        uint32_t irq_time = 0;  // ticks; 0: fire as soon as one event is pending
        bool irq_en = true;
    };
    struct Inputs {
        uint32_t events = 0;  // event_cnt this cycle (only EV_W bits are used)
        bool irq_ready = false;
    };
    struct Outputs {
        bool irq_valid = false;
        uint32_t irq_events = 0;
    };

    explicit IrqModerator(const Params& p);

    void reset();
    [[nodiscard]] Outputs outputs() const { return {valid_, pend_}; }
    // One rising clock edge with these inputs and configuration.
    void clock(const Config& cfg, const Inputs& in);

    [[nodiscard]] const Params& params() const { return p_; }

  private:
    Params p_;
    uint32_t cnt_max_;
    uint32_t time_max_;
    uint32_t pend_ = 0;
    uint32_t time_ = 0;
    uint32_t div_ = 0;
    bool valid_ = false;
};

}  // namespace scenic::dp
