// SPDX-License-Identifier: MIT
// C++ twin of hw-rtl/rtl/scenic_cc_window.sv: cycle-level, exact (outputs(), then clock(inputs)).
// decide() is the transaction-level core (one packet of one QP) for the QEMU device.
#pragma once

#include <cstdint>
#include <vector>

namespace scenic::dp {

class CcWindow {
  public:
    struct Params {
        unsigned qps = 16;    // QPS (power of two)
        unsigned win_w = 16;  // WIN_W
        unsigned cnt_w = 32;  // CNT_W
    };
    struct Inputs {
        uint32_t cwnd = 0;
        bool req_valid = false;
        uint32_t req_qpn = 0;
        bool dec_ready = false;
        bool ack_valid = false;
        uint32_t ack_qpn = 0;
        uint32_t ack_cnt = 0;
    };
    struct Outputs {
        bool req_ready = false;
        bool dec_valid = false;
        bool dec_send = false;
        uint32_t dec_qpn = 0;
    };
    struct Stats {
        uint64_t send = 0, defer = 0;
    };

    explicit CcWindow(const Params& p);
    void reset();
    [[nodiscard]] Outputs outputs(const Inputs& in) const;
    void clock(const Inputs& in);
    [[nodiscard]] const Stats& stats() const { return st_; }
    [[nodiscard]] uint32_t outstanding(uint32_t qpn) const { return out_[qpn % p_.qps]; }

    // transaction level: ACK, then the send decision of one packet of qpn
    void ack(uint32_t qpn, uint32_t cnt);
    bool decide(uint32_t qpn, uint32_t cwnd);

  private:
    Params p_;
    uint64_t win_mask_, cnt_max_;
    std::vector<uint32_t> out_;
    bool req_v_ = false, dec_v_ = false, dec_send_ = false;
    uint32_t req_qpn_ = 0, dec_qpn_ = 0;
    Stats st_;
};

}  // namespace scenic::dp
