// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_dcqcn.sv: cycle-level, bit-exact (outputs(), then clock(inputs)).
// The update rules are the exported static functions, so the device model can run the same
// arithmetic per event instead of per cycle.
#pragma once

#include <cstdint>

namespace scenic::dp {

class Dcqcn {
  public:
    static constexpr uint32_t kAlphaOne = 0x8000;  // alpha 1.0
    struct Params {
        unsigned rate_w = 24, frac = 12, len_w = 14, time_w = 20, byte_w = 24, cnt_w = 32;
    };
    struct Config {
        uint64_t rate_max = 0, rate_min = 0, rate_ai = 0, rate_hai = 0;  // bytes/cycle << FRAC
        unsigned g_shift = 8;                                            // g = 2^-g_shift
        uint32_t alpha_period = 0, timer_period = 0;                     // cycles
        uint64_t byte_thresh = 0;                                        // bytes (0: off)
        unsigned f = 5;                                                  // fast-recovery stages
        uint32_t burst = 0;                                              // token cap, bytes
    };
    struct Inputs {
        bool cnp = false;
        bool pkt_valid = false;
        uint32_t pkt_len = 0;
        bool dec_ready = false;
    };
    struct Outputs {
        bool pkt_ready = false;
        bool dec_valid = false, dec_send = false;
        uint64_t rate_cur = 0, rate_tgt = 0;
        uint32_t alpha = 0;
    };
    struct Stats {
        uint64_t cnp = 0, send = 0, defer = 0;
    };

    explicit Dcqcn(const Params& p);
    void reset();
    [[nodiscard]] Outputs outputs(const Config& cfg, const Inputs& in) const;
    void clock(const Config& cfg, const Inputs& in);
    [[nodiscard]] const Stats& stats() const { return st_; }
    [[nodiscard]] unsigned stage_i() const { return i_; }
    [[nodiscard]] unsigned stage_j() const { return j_; }
    [[nodiscard]] int64_t tokens() const { return tok_; }

    // rules (also used by the device model)
    static uint64_t cut_rate(uint64_t rc, uint32_t alpha, uint64_t rate_min);  // Rc*(1-alpha/2)
    static uint32_t alpha_on_cnp(uint32_t alpha, unsigned g);
    static uint32_t alpha_decay(uint32_t alpha, unsigned g);
    struct Rates {
        uint64_t rc = 0, rt = 0;
    };
    // One rate-increase event (timer or byte counter) with stages i, j already counted: fast
    // recovery (Rt kept), additive (Rt + ai) or hyper (Rt + hai) increase, Rt capped at
    // rate_max, then Rc = (Rt + Rc) / 2.
    static Rates increase(uint64_t rc, uint64_t rt, unsigned i, unsigned j, unsigned f, uint64_t ai,
                          uint64_t hai, uint64_t rate_max);

  private:
    Params p_;
    uint64_t rate_mask_, time_mask_, cnt_max_, len_mask_;
    bool init_ = true;
    uint64_t rc_ = 0, rt_ = 0;
    uint32_t alpha_ = kAlphaOne;
    uint64_t at_ = 0, rtmr_ = 0, bc_ = 0;
    unsigned i_ = 0, j_ = 0;
    int64_t tok_ = 0;
    bool req_v_ = false, dec_v_ = false, dec_send_ = false;
    uint32_t req_len_ = 0;
    Stats st_;
};

}  // namespace scenic::dp
