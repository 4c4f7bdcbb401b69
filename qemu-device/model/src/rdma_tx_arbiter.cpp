// SPDX-License-Identifier: MIT
#include "scenic/rdma_tx_arbiter.hpp"

#include "scenic/rdma_engine.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

uint32_t TxArbiter::window(const Qp& qp) const {
    const bool alone =
        waiting_.empty() && (charged_qps_ == 0 || (charged_qps_ == 1 && qp.req.charged != 0));
    return alone ? kSoloWindowBytes : kCardWindowBytes;
}

bool TxArbiter::may_send_new(Qp& qp) {
    auto& r = qp.req;
    const bool may = total_ < window(qp) && (r.tx_granted || waiting_.empty());
    if (!may && !r.tx_waiting) {
        r.tx_waiting = true;
        waiting_.push_back(qp.qpn);
    }
    return may;
}

void TxArbiter::account(Qp& qp) {
    auto& r = qp.req;
    const int32_t d = roce::psn_diff(r.max_sent, r.snd_una);
    const uint32_t now = qp.can_send() && !r.pending.empty() && !r.timed_out && d > 0
                             ? static_cast<uint32_t>(d) * qp.pmtu
                             : 0;
    total_ = total_ - r.charged + now;
    charged_qps_ = charged_qps_ - (r.charged != 0 ? 1 : 0) + (now != 0 ? 1 : 0);
    r.charged = now;
    grant();
}

void TxArbiter::forget(Qp& qp) {
    total_ -= qp.req.charged;
    charged_qps_ -= qp.req.charged != 0 ? 1 : 0;
    qp.req.charged = 0;
    qp.req.tx_waiting = false;  // its queue entry is skipped when it comes up
    grant();
}

void TxArbiter::grant() {
    if (granting_) {
        return;  // a grant's own sends account from inside the loop below
    }
    granting_ = true;
    // Bounded: each QP is granted at most once per pass (a QP that queues again goes last).
    for (size_t n = waiting_.size(); n != 0 && total_ < kCardWindowBytes; --n) {
        const uint32_t qpn = waiting_.front();
        waiting_.pop_front();
        Qp* q = e_.qp(qpn);
        if (!q || !q->req.tx_waiting) {
            continue;
        }
        q->req.tx_waiting = false;
        q->req.tx_granted = true;
        e_.requester().kick(*q);
        q->req.tx_granted = false;
    }
    granting_ = false;
}

void TxArbiter::reset() {
    total_ = 0;
    charged_qps_ = 0;
    waiting_.clear();
    granting_ = false;
}

}  // namespace scenic::rdma
