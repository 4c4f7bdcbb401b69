// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_rr_arbiter.sv: cycle-level, exact.
// Per cycle: outputs = eval(inputs) (combinational, same cycle), then clock(inputs) at the edge.
// Inputs are bit masks, bit i = input i (N <= 16). The QEMU device uses next_grant() when it
// moves whole packets instead of beats.
#pragma once

#include <cstdint>

namespace scenic::dp {

class RrArbiter {
  public:
    struct Inputs {
        uint32_t valid = 0;  // s_axis_tvalid
        uint32_t last = 0;   // s_axis_tlast
        bool m_ready = false;
    };
    struct Outputs {
        bool m_valid = false;
        bool m_last = false;
        unsigned sel = 0;      // m_axis_tid (also while m_valid is low)
        uint32_t s_ready = 0;  // s_axis_tready
    };

    explicit RrArbiter(unsigned n);
    void reset();
    [[nodiscard]] Outputs eval(const Inputs& in) const;
    void clock(const Inputs& in);

    // The input that would get the output next among `nonempty` (mask), or -1 if none.
    [[nodiscard]] int next_grant(uint32_t nonempty) const;
    [[nodiscard]] unsigned inputs() const { return n_; }
    [[nodiscard]] bool locked() const { return lock_; }

  private:
    unsigned n_;
    unsigned last_ = 0;
    unsigned lock_id_ = 0;
    bool lock_ = false;
};

}  // namespace scenic::dp
