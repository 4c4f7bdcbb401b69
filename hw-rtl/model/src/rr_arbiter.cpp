// SPDX-License-Identifier: MIT
#include "scenic/dp/rr_arbiter.hpp"

#include <stdexcept>

namespace scenic::dp {

RrArbiter::RrArbiter(unsigned n) : n_(n) {
    if (n < 1 || n > 16) throw std::invalid_argument("RrArbiter: N must be 1..16");
    reset();
}

void RrArbiter::reset() {
    last_ = n_ - 1;  // input 0 is first after reset
    lock_id_ = 0;
    lock_ = false;
}

int RrArbiter::next_grant(uint32_t nonempty) const {
    for (unsigned k = 1; k <= n_; ++k) {
        const unsigned i = (last_ + k) % n_;
        if ((nonempty >> i) & 1u) return int(i);
    }
    return -1;
}

RrArbiter::Outputs RrArbiter::eval(const Inputs& in) const {
    Outputs o;
    const int cand = next_grant(in.valid);
    const bool ok = lock_ || cand >= 0;
    o.sel = lock_ ? lock_id_ : (cand >= 0 ? unsigned(cand) : 0u);
    o.m_valid = ok && ((in.valid >> o.sel) & 1u);
    o.m_last = (in.last >> o.sel) & 1u;
    o.s_ready = (ok && in.m_ready) ? (1u << o.sel) : 0u;
    return o;
}

void RrArbiter::clock(const Inputs& in) {
    const Outputs o = eval(in);
    const bool hs = o.m_valid && in.m_ready;
    if (o.m_valid && !lock_) {
        last_ = o.sel;
        lock_id_ = o.sel;
    }
    lock_ = (lock_ || o.m_valid) && !(hs && o.m_last);
}

}  // namespace scenic::dp
