// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_cq_counter.sv: cycle-level, exact (outputs(in), then clock(in)).
// add() is the transaction-level core for the device model (counter update, new value).
#pragma once

#include <cstdint>
#include <vector>

namespace scenic::dp {

class CqCounter {
  public:
    struct Params {
        unsigned qps = 16, ev_w = 16, addr_w = 64, cnt_w = 32;
    };
    struct Inputs {
        uint64_t base = 0;
        bool ev_valid = false;
        uint32_t ev_qpn = 0, ev_cnt = 0;
        bool wr_ready = false;
    };
    struct Outputs {
        bool ev_ready = false;
        bool wr_valid = false;
        uint64_t wr_addr = 0, wr_data = 0;
    };
    struct Stats {
        uint64_t events = 0, writes = 0, coalesced = 0;
    };

    explicit CqCounter(const Params& p);
    void reset();
    [[nodiscard]] Outputs outputs(const Inputs& in) const;
    void clock(const Inputs& in);
    [[nodiscard]] const Stats& stats() const { return st_; }
    [[nodiscard]] uint64_t counter(uint32_t qpn) const { return ctr_[qpn % p_.qps]; }
    uint64_t add(uint32_t qpn, uint32_t cnt);  // returns the new value

  private:
    Params p_;
    uint64_t addr_mask_, cnt_max_, ev_mask_;
    std::vector<uint64_t> ctr_;
    bool pend_v_ = false, out_v_ = false;
    uint32_t pend_qpn_ = 0, out_qpn_ = 0;
    uint64_t pend_val_ = 0, out_val_ = 0;
    Stats st_;
};

}  // namespace scenic::dp
