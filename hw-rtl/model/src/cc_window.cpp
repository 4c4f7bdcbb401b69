// SPDX-License-Identifier: MIT
#include "scenic/dp/cc_window.hpp"

#include <stdexcept>

namespace scenic::dp {

namespace {
uint64_t ones(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
}  // namespace

CcWindow::CcWindow(const Params& p) : p_(p), win_mask_(ones(p.win_w)), cnt_max_(ones(p.cnt_w)) {
    if (p.qps < 1 || p.qps > 1024 || (p.qps & (p.qps - 1)) != 0 || p.win_w < 1 || p.win_w > 32 ||
        p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("CcWindow: bad parameters");
    out_.resize(p.qps);
    reset();
}

void CcWindow::reset() {
    for (auto& o : out_) o = 0;
    req_v_ = dec_v_ = false;
    st_ = {};
}

void CcWindow::ack(uint32_t qpn, uint32_t cnt) {
    uint32_t& o = out_[qpn % p_.qps];
    cnt = uint32_t(cnt & win_mask_);
    o = o > cnt ? o - cnt : 0;
}

bool CcWindow::decide(uint32_t qpn, uint32_t cwnd) {
    uint32_t& o = out_[qpn % p_.qps];
    const bool send = o < (cwnd & win_mask_);
    if (send) o = uint32_t((o + 1) & win_mask_);
    return send;
}

CcWindow::Outputs CcWindow::outputs(const Inputs& in) const {
    Outputs o;
    o.dec_valid = dec_v_;
    o.dec_send = dec_send_;
    o.dec_qpn = dec_qpn_;
    o.req_ready = !req_v_ || !dec_v_ || in.dec_ready;
    return o;
}

void CcWindow::clock(const Inputs& in) {
    const bool dec_free = !dec_v_ || in.dec_ready;
    const bool go = req_v_ && dec_free;
    const bool req_ready = !req_v_ || go;
    if (in.ack_valid) ack(in.ack_qpn, in.ack_cnt);  // ACK first, then the decision
    bool send = false;
    if (go) {
        send = decide(req_qpn_, in.cwnd);
        if (send)
            st_.send = st_.send == cnt_max_ ? st_.send : st_.send + 1;
        else
            st_.defer = st_.defer == cnt_max_ ? st_.defer : st_.defer + 1;
        dec_qpn_ = req_qpn_;
        dec_send_ = send;
        dec_v_ = true;
    } else if (in.dec_ready) {
        dec_v_ = false;
    }
    if (in.req_valid && req_ready) {
        req_v_ = true;
        req_qpn_ = in.req_qpn % p_.qps;
    } else if (go) {
        req_v_ = false;
    }
}

}  // namespace scenic::dp
