// SPDX-License-Identifier: MIT
// The requester's side of selective repeat (docs/selective-repeat.md 5.3-5.6): the scoreboard
// of SACKed (S) and resent (X) PSNs, loss detection with kSrReorder, resend rounds, selective
// resends in PSN order before new PSNs, the probe timer for a lost last packet, and the RTT
// estimate that times it. Recovery the scoreboard does not cover (READ responses, implied
// NAKs, sequence NAKs, RNR NAKs, the IBA timeout) rewinds tx_psn as go-back-N does, and the
// rewound transmission passes every PSN the responder holds.
#include <algorithm>
#include <limits>

#include "scenic/rdma_engine.hpp"
#include "scenic/rdma_requester.hpp"
#include "scenic/rdma_sr_window.hpp"
#include "scenic/roce/psn.hpp"

namespace scenic::rdma {

using roce::psn_add;
using roce::psn_diff;

namespace {

uint32_t window_of(const Qp& qp) { return 1u << qp.req.sr_window_log2; }

}  // namespace

uint32_t Requester::window_cap(const Qp& qp) {
    return qp.req.sr == SrTx::kOn ? window_of(qp) : kWindowPsns;
}

void Requester::sr_sync(Qp& qp) {
    auto& r = qp.req;
    const uint32_t w = window_of(qp);
    srwin::clear(r.sr_sacked, r.sr_base, r.snd_una, w);
    srwin::clear(r.sr_resent, r.sr_base, r.snd_una, w);
    if (psn_diff(r.snd_una, r.sr_base) > 0) {
        r.sr_base = r.snd_una;
    }
    if (psn_diff(r.sr_high_sacked, r.snd_una) < 0) {
        r.sr_high_sacked = r.snd_una;
    }
}

int32_t Requester::sr_pipe(Qp& qp) {
    auto& r = qp.req;
    sr_sync(qp);
    return psn_diff(r.max_sent, r.snd_una) - static_cast<int32_t>(r.sr_sacked.count());
}

void Requester::sr_sacked(Qp& qp, uint32_t psn, const roce::SackEth& k) {
    auto& r = qp.req;
    const uint32_t w = window_of(qp);
    sr_sync(qp);
    // PSNs before snd_una (a READ not answered yet holds it back) stay as the SACK says.
    const uint32_t added = srwin::apply_sack(r.sr_sacked, psn, k, w);
    if (psn_diff(k.right_edge, r.sr_high_sacked) > 0) {
        r.sr_high_sacked = k.right_edge;
    }
    if (added != 0) {
        r.sr_progress_ns = e_.now();
        r.sr_probes = 0;
    }
    // 5.5: a missing PSN is lost once one kSrReorder later has arrived; a resend is lost once
    // packets sent after its round began have arrived.
    uint32_t lost = 0;
    bool resend_lost = false;
    const uint32_t high = r.sr_high_sacked;
    for (uint32_t p = r.snd_una, i = 0;
         i < w && psn_diff(high, p) > static_cast<int32_t>(kSrReorder); p = psn_add(p, 1), ++i) {
        const uint32_t s = srwin::slot(p, w);
        if (r.sr_sacked.test(s)) {
            continue;
        }
        if (r.sr_resent.test(s)) {
            resend_lost = true;
        } else {
            ++lost;
        }
    }
    if (resend_lost && psn_diff(high, r.sr_round_mark) > static_cast<int32_t>(kSrReorder)) {
        r.sr_resent.reset();  // a new round: what is still missing goes again
        lost = 1;
    }
    if (lost != 0) {
        r.sr_resend_due = true;
        // 5.9: isolated drops cost a resend each, not the rate; a burst still halves cwnd.
        if (lost >= kSrLossBurst) {
            window_loss(qp, false);
        }
    }
}

void Requester::sr_acked(Qp& qp) {
    auto& r = qp.req;
    r.sr_probes = 0;
    r.sr_progress_ns = e_.now();
    if (r.sr_rtt_active && psn_diff(r.snd_una, r.sr_rtt_psn) > 0) {
        r.sr_rtt_active = false;
        if (e_.counters().retransmits == r.sr_rtt_retx) {  // Karn: nothing resent meanwhile
            const uint64_t sample = e_.now() - r.sr_rtt_t;
            r.sr_srtt = r.sr_rtt_valid ? (7 * r.sr_srtt + sample) / 8 : sample;
            r.sr_rtt_valid = true;
        }
    }
}

bool Requester::sr_resend(Qp& qp) {
    auto& r = qp.req;
    if (!r.sr_resend_due) {
        return true;
    }
    sr_sync(qp);
    const uint32_t w = window_of(qp);
    const uint32_t high = r.sr_high_sacked;
    uint32_t p = r.snd_una;
    for (uint32_t i = 0; i < w && psn_diff(high, p) > static_cast<int32_t>(kSrReorder) &&
                         psn_diff(p, r.max_sent) < 0;
         ++i) {
        const uint32_t s = srwin::slot(p, w);
        if (r.sr_sacked.test(s) || r.sr_resent.test(s)) {
            p = psn_add(p, 1);
            continue;
        }
        if (!sr_resend_one(qp, p)) {
            return false;  // the rest when the QP may send again
        }
        ++e_.counters().sr_retransmits;
        p = psn_add(p, 1);
    }
    r.sr_resend_due = false;
    return true;
}

bool Requester::sr_resend_one(Qp& qp, uint32_t p) {
    auto& r = qp.req;
    const uint32_t w = window_of(qp);
    // The round's mark is max_sent at its latest resend: a resend counts as lost only once
    // PSNs sent after every resend of the round have arrived (an earlier mark made resends
    // still in flight look lost, and sent them twice).
    r.sr_round_mark = r.max_sent;
    const uint32_t saved = r.tx_psn;
    r.tx_psn = p;
    r.force_ackreq = true;  // resends always ask (5.5)
    resending_ = true;
    const bool sent = transmit_one(qp);
    resending_ = false;
    uint32_t end = r.tx_psn;
    if (!sent || psn_diff(end, p) <= 0 || psn_diff(end, r.max_sent) > 0) {
        end = psn_add(p, 1);
    }
    // A go-back-N transmission in progress goes on after what was just sent.
    r.tx_psn = (psn_diff(saved, p) >= 0 && psn_diff(saved, end) < 0) ? end : saved;
    if (!sent) {
        r.tx_psn = saved;
        return false;
    }
    // A READ request covers the PSNs of its responses: one resend for all of them.
    for (uint32_t q = p; q != end; q = psn_add(q, 1)) {
        r.sr_resent.set(srwin::slot(q, w));
    }
    return true;
}

void Requester::sr_skip_sacked(Qp& qp) {
    auto& r = qp.req;
    const uint32_t w = window_of(qp);
    for (uint32_t i = 0;
         i < w && psn_diff(r.tx_psn, r.max_sent) < 0 && psn_diff(r.tx_psn, r.snd_una) >= 0 &&
         r.sr_sacked.test(srwin::slot(r.tx_psn, w));
         ++i) {
        r.tx_psn = psn_add(r.tx_psn, 1);
    }
}

uint64_t Requester::sr_probe_ns(const Qp& qp) const {
    const uint64_t cap =
        qp.timeout == 0 ? std::numeric_limits<uint64_t>::max() : timeout_ns(qp) / 4;
    return std::max(kSrProbeMinNs, std::min(2 * qp.req.sr_srtt, cap));
}

void Requester::sr_arm_probe(Qp& qp) {
    auto& r = qp.req;
    if (r.sr_probe_armed || !r.sr_rtt_valid) {
        return;  // until the first RTT sample the IBA timer alone covers the QP
    }
    r.sr_probe_armed = true;
    r.sr_progress_ns = std::max(r.sr_progress_ns, e_.now());
    e_.defer(qp, QpTimer::kSrProbe, sr_probe_ns(qp), [this](Qp& q) { sr_on_probe(q); });
}

void Requester::sr_on_probe(Qp& qp) {
    auto& r = qp.req;
    r.sr_probe_armed = false;
    if (!qp.can_send() || r.sr != SrTx::kOn || r.pending.empty() ||
        psn_diff(r.max_sent, r.snd_una) <= 0) {
        return;  // nothing outstanding: armed again by the next transmission
    }
    const uint64_t now = e_.now();
    const uint64_t t = sr_probe_ns(qp);
    const uint64_t last = std::max(r.last_progress_ns, r.sr_progress_ns);
    if (now - last < t) {
        r.sr_probe_armed = true;
        e_.defer(qp, QpTimer::kSrProbe, t - (now - last), [this](Qp& q) { sr_on_probe(q); });
        return;
    }
    if (r.sr_probes >= kSrMaxProbes || r.rnr_wait || r.tlb_wait || r.scu_wait) {
        return;  // the IBA ACK timeout takes over (or the QP waits on purpose)
    }
    // The lowest PSN the responder reported missing, else the last one sent (a tail probe).
    sr_sync(qp);
    const uint32_t w = window_of(qp);
    uint32_t p = psn_add(r.max_sent, kPsnMask);
    for (uint32_t q = r.snd_una, i = 0; i < w && psn_diff(q, r.sr_high_sacked) < 0;
         q = psn_add(q, 1), ++i) {
        if (!r.sr_sacked.test(srwin::slot(q, w))) {
            p = q;
            break;
        }
    }
    ++r.sr_probes;
    ++e_.counters().sr_probes;
    r.sr_progress_ns = now;
    if (sr_resend_one(qp, p)) {
        ++e_.counters().sr_retransmits;
    }
    r.sr_probe_armed = true;
    e_.defer(qp, QpTimer::kSrProbe, t, [this](Qp& q) { sr_on_probe(q); });
}

}  // namespace scenic::rdma
