// SPDX-License-Identifier: MIT
#include "scenic/dp/cq_counter.hpp"

#include <stdexcept>

namespace scenic::dp {

namespace {
uint64_t ones(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
unsigned clog2(unsigned v) {
    unsigned r = 0;
    while ((1u << r) < v) ++r;
    return r;
}
}  // namespace

CqCounter::CqCounter(const Params& p)
    : p_(p), addr_mask_(ones(p.addr_w)), cnt_max_(ones(p.cnt_w)), ev_mask_(ones(p.ev_w)) {
    const unsigned qpn_w = p.qps > 1 ? clog2(p.qps) : 1;
    if (p.qps < 1 || p.qps > 128 || (p.qps & (p.qps - 1)) != 0 || p.ev_w < 1 || p.ev_w > 32 ||
        p.addr_w < qpn_w + 3 || p.addr_w > 64 || p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("CqCounter: bad parameters");
    ctr_.resize(p.qps);
    reset();
}

void CqCounter::reset() {
    for (auto& c : ctr_) c = 0;
    pend_v_ = out_v_ = false;
    st_ = {};
}

uint64_t CqCounter::add(uint32_t qpn, uint32_t cnt) {
    return ctr_[qpn % p_.qps] += (cnt & ev_mask_);
}

CqCounter::Outputs CqCounter::outputs(const Inputs& in) const {
    const bool out_free = !out_v_ || in.wr_ready;
    const bool pend_move = pend_v_ && out_free;
    const bool same = pend_v_ && (in.ev_qpn % p_.qps) == pend_qpn_ && !pend_move;
    Outputs o;
    o.ev_ready = !pend_v_ || pend_move || same;
    o.wr_valid = out_v_;
    o.wr_addr = (in.base + uint64_t(out_qpn_) * 8) & addr_mask_;
    o.wr_data = out_val_;
    return o;
}

void CqCounter::clock(const Inputs& in) {
    const Outputs o = outputs(in);
    const bool out_free = !out_v_ || in.wr_ready;
    const bool pend_move = pend_v_ && out_free;
    const uint32_t q = in.ev_qpn % p_.qps;
    const bool same = pend_v_ && q == pend_qpn_ && !pend_move;
    const bool acc = in.ev_valid && o.ev_ready;
    if (out_v_ && in.wr_ready) st_.writes = st_.writes == cnt_max_ ? st_.writes : st_.writes + 1;
    if (pend_move) {
        out_qpn_ = pend_qpn_;
        out_val_ = pend_val_;
        out_v_ = true;
    } else if (in.wr_ready) {
        out_v_ = false;
    }
    if (acc) {
        pend_qpn_ = q;
        pend_val_ = add(q, in.ev_cnt);
        pend_v_ = true;
        st_.events = st_.events == cnt_max_ ? st_.events : st_.events + 1;
        if (same) st_.coalesced = st_.coalesced == cnt_max_ ? st_.coalesced : st_.coalesced + 1;
    } else if (pend_move) {
        pend_v_ = false;
    }
}

}  // namespace scenic::dp
