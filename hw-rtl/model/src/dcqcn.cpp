// SPDX-License-Identifier: MIT
#include "scenic/dp/dcqcn.hpp"

#include <algorithm>
#include <stdexcept>

namespace scenic::dp {

namespace {
uint64_t ones(unsigned w) { return w >= 64 ? ~0ull : ((1ull << w) - 1); }
}  // namespace

Dcqcn::Dcqcn(const Params& p)
    : p_(p),
      rate_mask_(ones(p.rate_w)),
      time_mask_(ones(p.time_w)),
      cnt_max_(ones(p.cnt_w)),
      len_mask_(ones(p.len_w)) {
    if (p.rate_w < 8 || p.rate_w > 40 || p.frac > 16 || p.frac >= p.rate_w || p.len_w < 6 ||
        p.len_w > 16 || p.time_w < 1 || p.time_w > 32 || p.byte_w < p.len_w || p.byte_w > 40 ||
        p.cnt_w < 1 || p.cnt_w > 64)
        throw std::invalid_argument("Dcqcn: bad parameters");
    reset();
}

void Dcqcn::reset() {
    init_ = true;
    rc_ = rt_ = 0;
    alpha_ = kAlphaOne;
    at_ = rtmr_ = bc_ = 0;
    i_ = j_ = 0;
    tok_ = 0;
    req_v_ = dec_v_ = false;
    st_ = {};
}

uint64_t Dcqcn::cut_rate(uint64_t rc, uint32_t alpha, uint64_t rate_min) {
    const uint64_t n = rc - ((rc * alpha) >> 16);
    return n < rate_min ? rate_min : n;
}
uint32_t Dcqcn::alpha_on_cnp(uint32_t a, unsigned g) {
    return (a - (a >> g) + (kAlphaOne >> g)) & 0xffff;
}
uint32_t Dcqcn::alpha_decay(uint32_t a, unsigned g) { return a - (a >> g); }
Dcqcn::Rates Dcqcn::increase(uint64_t rc, uint64_t rt, unsigned i, unsigned j, unsigned f,
                             uint64_t ai, uint64_t hai, uint64_t rate_max) {
    const unsigned mx = std::max(i, j), mn = std::min(i, j);
    uint64_t inc = rt;
    if (mx < f)
        inc = rt;
    else if (mn >= f)
        inc = rt + hai;
    else
        inc = rt + ai;
    if (inc > rate_max) inc = rate_max;
    return {(inc + rc) >> 1, inc};
}

Dcqcn::Outputs Dcqcn::outputs(const Config& cfg, const Inputs& in) const {
    Outputs o;
    o.pkt_ready = !req_v_ || !dec_v_ || in.dec_ready;
    o.dec_valid = dec_v_;
    o.dec_send = dec_send_;
    o.rate_cur = init_ ? (cfg.rate_max & rate_mask_) : rc_;
    o.rate_tgt = init_ ? (cfg.rate_max & rate_mask_) : rt_;
    o.alpha = alpha_;
    return o;
}

void Dcqcn::clock(const Config& cfg, const Inputs& in) {
    const uint64_t rmax = cfg.rate_max & rate_mask_, rmin = cfg.rate_min & rate_mask_;
    const uint64_t ap = cfg.alpha_period & time_mask_, tp = cfg.timer_period & time_mask_;
    const uint64_t bt = cfg.byte_thresh & ones(p_.byte_w);
    const unsigned g = cfg.g_shift & 15;
    const bool dec_free = !dec_v_ || in.dec_ready;
    const bool go = req_v_ && dec_free;
    const bool req_ready = !req_v_ || go;
    const bool send = tok_ >= 0;
    const uint64_t rc = init_ ? rmax : rc_;
    const uint64_t rt = init_ ? rmax : rt_;

    uint64_t rc_d = rc, rt_d = rt;
    uint32_t alpha_d = alpha_;
    uint64_t at_d, rtmr_d;
    uint64_t bc_d = (bc_ + ((go && send) ? req_len_ : 0)) & ones(p_.byte_w + 1);
    unsigned i_d = i_, j_d = j_;
    if (in.cnp) {
        rt_d = rc;
        rc_d = cut_rate(rc, alpha_, rmin);
        alpha_d = alpha_on_cnp(alpha_, g);
        at_d = rtmr_d = bc_d = 0;
        i_d = j_d = 0;
    } else {
        // timers compare the incremented count at TIME_W bits (as the RTL's at_q + 1'b1)
        const uint64_t at1 = (at_ + 1) & time_mask_, rt1 = (rtmr_ + 1) & time_mask_;
        if (at1 >= ap) {
            at_d = 0;
            alpha_d = alpha_decay(alpha_, g);
        } else {
            at_d = at1;
        }
        bool t_ev = false, b_ev = false;
        if (rt1 >= tp) {
            rtmr_d = 0;
            t_ev = true;
        } else {
            rtmr_d = rt1;
        }
        if (bt != 0 && bc_d >= bt) {
            bc_d -= bt;
            b_ev = true;
        }
        i_d = (t_ev && i_ != 255) ? i_ + 1 : i_;
        j_d = (b_ev && j_ != 255) ? j_ + 1 : j_;
        if (t_ev || b_ev) {
            const Rates r = increase(rc, rt, i_d, j_d, cfg.f & 255, cfg.rate_ai & rate_mask_,
                                     cfg.rate_hai & rate_mask_, rmax);
            rt_d = r.rt;
            rc_d = r.rc & rate_mask_;
        }
    }
    // token bucket
    const int64_t cap = int64_t(uint64_t(cfg.burst & len_mask_) << p_.frac);
    int64_t t = tok_ + int64_t(rc);
    if (go && send) t -= int64_t(uint64_t(req_len_) << p_.frac);
    const int64_t tok_d = std::min(t, cap);

    if (go) {
        dec_send_ = send;
        if (send)
            st_.send = st_.send == cnt_max_ ? st_.send : st_.send + 1;
        else
            st_.defer = st_.defer == cnt_max_ ? st_.defer : st_.defer + 1;
    }
    if (in.cnp) st_.cnp = st_.cnp == cnt_max_ ? st_.cnp : st_.cnp + 1;
    init_ = false;
    rc_ = rc_d;
    rt_ = rt_d;
    alpha_ = alpha_d;
    at_ = at_d;
    rtmr_ = rtmr_d;
    bc_ = bc_d;
    i_ = i_d;
    j_ = j_d;
    tok_ = tok_d;
    if (in.pkt_valid && req_ready) {
        req_v_ = true;
        req_len_ = uint32_t(in.pkt_len & len_mask_);
    } else if (go) {
        req_v_ = false;
    }
    if (go)
        dec_v_ = true;
    else if (in.dec_ready)
        dec_v_ = false;
}

}  // namespace scenic::dp
