// SPDX-License-Identifier: MIT
#include "scenic/dp/cq_counter.hpp"

#include <stdexcept>

#include "uapi/scenic_regs.h"

namespace scenic::dp {

namespace {
uint64_t ones(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
uint64_t sat_inc(uint64_t v, uint64_t max) { return v == max ? v : v + 1; }
}  // namespace

CqCounter::CqCounter(const Params& p)
    : p_(p), addr_mask_(ones(p.addr_w)), cnt_max_(ones(p.cnt_w)), ev_mask_(ones(p.ev_w)) {
    if (p.qps < 2 || p.qps > 4096 || (p.qps & (p.qps - 1)) != 0 || p.ev_w < 1 || p.ev_w > 32 ||
        p.addr_w < 16 || p.addr_w > 64 || p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("CqCounter: bad parameters");
    ctr_.resize(p.qps);
    page_.resize(p.qps);
    reset();
}

uint64_t CqCounter::counter_addr(uint64_t page) { return page + SCENIC_QP_STATUS_SQ_COMPLETED_OFF; }

void CqCounter::reset() {
    // RAM contents survive rst in hardware; the sweep after it clears them
    init_ = true;
    init_idx_ = 0;
    s1_v_ = pend_v_ = out_v_ = false;
    st_ = {};
}

CqCounter::Comb CqCounter::comb(const Inputs& in) const {
    Comb c{};
    c.out_free = !out_v_ || in.wr_ready;
    c.pend_move = pend_v_ && c.out_free;
    c.s1_new = (fwd_ ? fwd_val_ : ctr_rd_) + s1_cnt_;
    c.s1_page = page_rd_ != 0;
    c.s1_addr = counter_addr(page_rd_) & addr_mask_;
    c.merge = pend_v_ && !c.pend_move && pend_qpn_ == s1_qpn_ && pend_addr_ == c.s1_addr;
    c.s1_adv = s1_v_ && (!c.s1_page || !pend_v_ || c.pend_move || c.merge);
    c.o.cfg_ready = !init_ && !s1_v_;
    c.cfg_acc = in.cfg_valid && c.o.cfg_ready;
    c.o.ev_ready = !init_ && !in.cfg_valid && (!s1_v_ || c.s1_adv);
    c.acc = in.ev_valid && c.o.ev_ready;
    c.o.wr_valid = out_v_;
    c.o.wr_addr = out_addr_;
    c.o.wr_data = out_val_;
    c.o.busy = s1_v_ || pend_v_ || out_v_;
    return c;
}

CqCounter::Outputs CqCounter::outputs(const Inputs& in) const { return comb(in).o; }

void CqCounter::clock(const Inputs& in) {
    const Comb c = comb(in);
    const uint32_t qpn = in.ev_qpn % p_.qps;
    // RAM read port (read before this edge's write, as the RTL's read-first RAM)
    const uint64_t rd_ctr = ctr_[qpn], rd_page = page_[qpn];
    // RAM write port
    if (init_) {
        ctr_[init_idx_] = 0;
        page_[init_idx_] = 0;
    } else if (c.cfg_acc) {
        ctr_[in.cfg_qpn % p_.qps] = 0;
        page_[in.cfg_qpn % p_.qps] = in.cfg_page & addr_mask_;
    } else if (c.s1_adv) {
        ctr_[s1_qpn_] = c.s1_new;
    }
    if (init_) {
        if (init_idx_ == p_.qps - 1) init_ = false;
        init_idx_ = (init_idx_ + 1) % p_.qps;
    }
    // statistics
    if (c.acc) st_.events = sat_inc(st_.events, cnt_max_);
    if (c.s1_adv && c.s1_page && c.merge) st_.coalesced = sat_inc(st_.coalesced, cnt_max_);
    if (c.s1_adv && !c.s1_page) st_.nopage = sat_inc(st_.nopage, cnt_max_);
    if (out_v_ && in.wr_ready) st_.writes = sat_inc(st_.writes, cnt_max_);
    // output register, pending slot, S1
    if (c.pend_move) {
        out_addr_ = pend_addr_;
        out_val_ = pend_val_;
        out_v_ = true;
    } else if (in.wr_ready) {
        out_v_ = false;
    }
    if (c.s1_adv && c.s1_page) {
        pend_qpn_ = s1_qpn_;
        pend_addr_ = c.s1_addr;
        pend_val_ = c.s1_new;
        pend_v_ = true;
    } else if (c.pend_move) {
        pend_v_ = false;
    }
    if (c.acc) {
        fwd_ = c.s1_adv && s1_qpn_ == qpn;
        fwd_val_ = c.s1_new;
        s1_qpn_ = qpn;
        s1_cnt_ = in.ev_cnt & uint32_t(ev_mask_);
        ctr_rd_ = rd_ctr;
        page_rd_ = rd_page;
        s1_v_ = true;
    } else if (c.s1_adv) {
        s1_v_ = false;
    }
}

}  // namespace scenic::dp
