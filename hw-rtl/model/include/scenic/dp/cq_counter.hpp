// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_cq_counter.sv: cycle-level, exact (outputs(in), then clock(in)).
// Per-QP SQ completion counters written to page + SCENIC_QP_STATUS_SQ_COMPLETED_OFF of each QP's
// status page (uapi/scenic_rdma.h); the page table is written through the cfg port.
#pragma once

#include <cstdint>
#include <vector>

namespace scenic::dp {

class CqCounter {
  public:
    struct Params {
        unsigned qps = 512, ev_w = 16, addr_w = 64, cnt_w = 32;
    };
    struct Inputs {
        bool cfg_valid = false;
        uint32_t cfg_qpn = 0;
        uint64_t cfg_page = 0;  // 0: the QP has no status page
        bool ev_valid = false;
        uint32_t ev_qpn = 0, ev_cnt = 0;
        bool wr_ready = false;
    };
    struct Outputs {
        bool cfg_ready = false;
        bool ev_ready = false;
        bool wr_valid = false;
        uint64_t wr_addr = 0, wr_data = 0;
        bool busy = false;
    };
    struct Stats {
        uint64_t events = 0, writes = 0, coalesced = 0, nopage = 0;
    };

    explicit CqCounter(const Params& p);
    void reset();  // rst: then qps cycles of RAM clearing (ready low)
    [[nodiscard]] Outputs outputs(const Inputs& in) const;
    void clock(const Inputs& in);
    [[nodiscard]] const Stats& stats() const { return st_; }
    [[nodiscard]] uint64_t counter(uint32_t qpn) const { return ctr_[qpn % p_.qps]; }
    [[nodiscard]] uint64_t page(uint32_t qpn) const { return page_[qpn % p_.qps]; }
    // Where the counter of a QP whose status page is at `page` is written.
    [[nodiscard]] static uint64_t counter_addr(uint64_t page);

  private:
    struct Comb {
        bool out_free, pend_move, s1_page, merge, s1_adv, cfg_acc, acc;
        uint64_t s1_new, s1_addr;
        Outputs o;
    };
    [[nodiscard]] Comb comb(const Inputs& in) const;

    Params p_;
    uint64_t addr_mask_, cnt_max_, ev_mask_;
    std::vector<uint64_t> ctr_, page_;  // the two RAMs
    bool init_ = true;
    uint32_t init_idx_ = 0;
    bool s1_v_ = false, fwd_ = false;
    uint32_t s1_qpn_ = 0, s1_cnt_ = 0;
    uint64_t fwd_val_ = 0, ctr_rd_ = 0, page_rd_ = 0;
    bool pend_v_ = false, out_v_ = false;
    uint32_t pend_qpn_ = 0;
    uint64_t pend_addr_ = 0, pend_val_ = 0, out_addr_ = 0, out_val_ = 0;
    Stats st_;
};

}  // namespace scenic::dp
