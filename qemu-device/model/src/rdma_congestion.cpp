// SPDX-License-Identifier: MIT
#include "scenic/rdma_congestion.hpp"

#include <algorithm>

#include "scenic/dp/dcqcn.hpp"
#include "scenic/rdma_engine.hpp"

namespace scenic::rdma {

namespace {

using scenic::dp::Dcqcn;

// Pacer tokens: 1 ns at 1 kb/s is 1/8e6 byte, so refills and charges are exact integers.
constexpr int64_t kTokensPerByte = 8'000'000;
constexpr int64_t kTokenCap = static_cast<int64_t>(kCcBurstBytes) * kTokensPerByte;
// A QP idle this long has a full bucket (bounds the refill product).
constexpr uint64_t kMaxRefillNs = 1'000'000'000;

}  // namespace

void Congestion::congestion_experienced(Qp& qp) {
    auto& c = qp.cc;
    const uint64_t now = e_.now();
    if (c.cnp_sent && now - c.last_cnp_ns < kCnpIntervalNs) {
        return;  // one CNP per interval is enough: the RP's cut covers the whole interval
    }
    c.cnp_sent = true;
    c.last_cnp_ns = now;
    roce::Transport t;
    t.bth.opcode = static_cast<uint8_t>(roce::Opcode::kCnp);
    t.bth.becn = true;
    t.bth.psn = 0;
    e_.send(qp, t, {});
    ++e_.counters().cnp_sent;
}

void Congestion::start(Qp& qp) {
    const uint64_t epoch = qp.cc.epoch + 1;  // timers of an earlier life of the QP stop
    qp.cc = {};
    qp.cc.epoch = epoch;
}

void Congestion::cnp_received(Qp& qp) {
    auto& c = qp.cc;
    ++e_.counters().cnp_rcvd;
    ++c.cnps;
    if (c.limited) {
        refill(qp);  // tokens earned at the old rate
    } else {
        c.limited = true;
        c.tokens = 0;
        c.tokens_ns = e_.now();
    }
    const uint64_t rc = c.rc;
    c.rt = rc;
    c.rc = Dcqcn::cut_rate(rc, c.alpha, kCcRateMinKbps);
    c.alpha = Dcqcn::alpha_on_cnp(c.alpha, kCcGShift);
    c.bytes = 0;
    c.i = c.j = 0;
    if (c.rc < rc) {
        ++e_.counters().cc_rate_cuts;
    }
    ++c.epoch;  // the timers restart from this CNP
    arm_timers(qp);
}

void Congestion::arm_timers(Qp& qp) {
    const uint64_t epoch = qp.cc.epoch;
    e_.defer(qp, QpTimer::kCcAlpha, kCcAlphaPeriodNs,
             [this, epoch](Qp& q) { alpha_tick(q, epoch); });
    e_.defer(qp, QpTimer::kCcRate, kCcRatePeriodNs, [this, epoch](Qp& q) { rate_tick(q, epoch); });
}

void Congestion::alpha_tick(Qp& qp, uint64_t epoch) {
    auto& c = qp.cc;
    if (c.epoch != epoch || !c.limited) {
        return;
    }
    c.alpha = Dcqcn::alpha_decay(c.alpha, kCcGShift);
    e_.defer(qp, QpTimer::kCcAlpha, kCcAlphaPeriodNs,
             [this, epoch](Qp& q) { alpha_tick(q, epoch); });
}

void Congestion::rate_tick(Qp& qp, uint64_t epoch) {
    auto& c = qp.cc;
    if (c.epoch != epoch || !c.limited) {
        return;
    }
    c.i = std::min(c.i + 1, 255u);
    raise(qp);
    if (c.limited) {
        e_.defer(qp, QpTimer::kCcRate, kCcRatePeriodNs,
                 [this, epoch](Qp& q) { rate_tick(q, epoch); });
    }
}

void Congestion::raise(Qp& qp) {
    auto& c = qp.cc;
    refill(qp);
    const Dcqcn::Rates r = Dcqcn::increase(c.rc, c.rt, c.i, c.j, kCcFastRecovery, kCcRateAiKbps,
                                           kCcRateHaiKbps, kLineRateKbps);
    c.rc = r.rc;
    c.rt = r.rt;
    // (Rt + Rc) / 2 rounds down and stops one unit short of Rt: at line rate the limiter is
    // released and the QP starts over as one that never saw a CNP (alpha 1, no timers).
    if (c.rt >= kLineRateKbps && c.rc + 1 >= kLineRateKbps) {
        const uint64_t epoch = c.epoch + 1;
        const uint32_t cnps = c.cnps;
        const bool cnp_sent = c.cnp_sent;
        const uint64_t last_cnp_ns = c.last_cnp_ns;
        c = {};
        c.epoch = epoch;
        c.cnps = cnps;
        c.cnp_sent = cnp_sent;
        c.last_cnp_ns = last_cnp_ns;
    }
}

void Congestion::refill(Qp& qp) {
    auto& c = qp.cc;
    const uint64_t now = e_.now();
    const uint64_t dt = std::min(now - c.tokens_ns, kMaxRefillNs);
    c.tokens = std::min(kTokenCap, c.tokens + static_cast<int64_t>(dt * c.rc));
    c.tokens_ns = now;
}

uint64_t Congestion::pace_delay(Qp& qp) {
    auto& c = qp.cc;
    if (!c.limited) {
        return 0;
    }
    refill(qp);
    if (c.tokens >= 0) {
        return 0;  // as the RTL's limiter: send on a non-negative bucket, then charge
    }
    const auto deficit = static_cast<uint64_t>(-c.tokens);
    return (deficit + c.rc - 1) / c.rc;
}

void Congestion::sent(Qp& qp, size_t bytes) {
    auto& c = qp.cc;
    if (!c.limited) {
        return;
    }
    refill(qp);
    c.tokens -= static_cast<int64_t>(bytes) * kTokensPerByte;
    c.bytes += bytes;
    if (c.bytes >= kCcByteThresh) {
        c.bytes -= kCcByteThresh;
        c.j = std::min(c.j + 1, 255u);
        raise(qp);
    }
}

}  // namespace scenic::rdma
