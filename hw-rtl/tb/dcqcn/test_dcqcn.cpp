// SPDX-License-Identifier: MIT
// scenic_dcqcn: cycle-exact differential test against scenic::dp::Dcqcn, plus checks against the
// DCQCN equations computed independently in floating point (rate cut, alpha EWMA, fast recovery /
// additive / hyper increase stages), the rate limiter's measured rate, and the decision latency
// against the paper's 65-cycle per-packet budget.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "Vdcqcn.h"
#include "bench.hpp"
#include "scenic/dp/dcqcn.hpp"
#include "tb_util.hpp"

namespace {

using scenic::dp::Dcqcn;
using scenic::tb::replay_hint;
using scenic::tb::seeds;

// Must match the -G overrides in CMakeLists.txt.
constexpr Dcqcn::Params kP{
    .rate_w = 24, .frac = 12, .len_w = 14, .time_w = 12, .byte_w = 20, .cnt_w = 16};
constexpr unsigned kBudget = 65;
constexpr uint64_t R1 = 1ull << 12;  // 1 byte/cycle (2 Gb/s at 250 MHz)

Dcqcn::Config base_cfg() {
    return {.rate_max = 100 * R1,  // 200 Gb/s at 250 MHz
            .rate_min = R1 / 4,
            .rate_ai = R1,
            .rate_hai = 5 * R1,
            .g_shift = 4,
            .alpha_period = 200,
            .timer_period = 300,
            .byte_thresh = 0,
            .f = 5,
            .burst = 9000};
}

class Bench : public scenic::tb::DiffBench<Vdcqcn, Dcqcn> {
  public:
    Bench() : DiffBench(kP) { reset(); }
    void reset() {
        reset_both([](Vdcqcn& d) {
            d.s_pkt_valid = 0;
            d.s_cnp_valid = 0;
        });
    }
    Dcqcn::Outputs cycle(const Dcqcn::Config& cfg, const Dcqcn::Inputs& in) {
        dut_->cfg_rate_max = uint32_t(cfg.rate_max);
        dut_->cfg_rate_min = uint32_t(cfg.rate_min);
        dut_->cfg_rate_ai = uint32_t(cfg.rate_ai);
        dut_->cfg_rate_hai = uint32_t(cfg.rate_hai);
        dut_->cfg_g_shift = uint8_t(cfg.g_shift);
        dut_->cfg_alpha_period = cfg.alpha_period;
        dut_->cfg_timer_period = cfg.timer_period;
        dut_->cfg_byte_thresh = uint32_t(cfg.byte_thresh);
        dut_->cfg_f = uint8_t(cfg.f);
        dut_->cfg_burst = uint16_t(cfg.burst);
        dut_->s_cnp_valid = in.cnp;
        dut_->s_pkt_valid = in.pkt_valid;
        dut_->s_pkt_len = uint16_t(in.pkt_len);
        dut_->m_dec_ready = in.dec_ready;
        dut_->eval();
        Dcqcn::Outputs r;
        r.pkt_ready = dut_->s_pkt_ready;
        r.dec_valid = dut_->m_dec_valid;
        r.dec_send = dut_->m_dec_send;
        r.rate_cur = dut_->rate_cur;
        r.rate_tgt = dut_->rate_tgt;
        r.alpha = dut_->alpha;
        const auto m = model_.outputs(cfg, in);
        const auto& s = model_.stats();
        const bool same = r.pkt_ready == m.pkt_ready && r.dec_valid == m.dec_valid &&
                          (!r.dec_valid || r.dec_send == m.dec_send) && r.rate_cur == m.rate_cur &&
                          r.rate_tgt == m.rate_tgt && r.alpha == m.alpha &&
                          dut_->stat_cnp == s.cnp && dut_->stat_send == s.send &&
                          dut_->stat_defer == s.defer;
        if (report(same))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl rdy/v/send=" << r.pkt_ready << "/"
                          << r.dec_valid << "/" << r.dec_send << " rc/rt/alpha=" << r.rate_cur
                          << "/" << r.rate_tgt << "/" << r.alpha << " | model " << m.pkt_ready
                          << "/" << m.dec_valid << "/" << m.dec_send << " " << m.rate_cur << "/"
                          << m.rate_tgt << "/" << m.alpha;
        clock_both(cfg, in);
        return r;
    }
};

// ---------------------------------------------------------------- differential, random
struct Mix {
    const char* name;
    double p_cnp, p_pkt, p_ready, p_cfg;
    uint64_t byte_thresh;
};
void PrintTo(const Mix& m, std::ostream* os) { *os << m.name; }
class DcqcnDiff : public ::testing::TestWithParam<Mix> {};

TEST_P(DcqcnDiff, CycleExactAgainstModel) {
    const Mix mx = GetParam();
    for (uint64_t seed : seeds(4)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
        Bench b;
        Dcqcn::Config cfg = base_cfg();
        cfg.byte_thresh = mx.byte_thresh;
        cfg.rate_min = 10 * R1;
        Dcqcn::Inputs in;
        bool congested = false;
        uint64_t cnps = 0, hyper_seen = 0;
        for (uint64_t c = 0; c < 40000; ++c) {
            if (chance(0.001)) congested = !congested;  // congestion episodes
            in.cnp = chance(congested ? mx.p_cnp * 5 : mx.p_cnp);
            cnps += in.cnp;
            if (!in.pkt_valid && chance(mx.p_pkt)) {
                in.pkt_valid = true;
                const unsigned pick = unsigned(rng() % 4);
                in.pkt_len = pick == 0   ? 64
                             : pick == 1 ? 1500
                             : pick == 2 ? 9000
                                         : 1 + unsigned(rng() % 16383);
            }
            in.dec_ready = chance(mx.p_ready);
            if (chance(mx.p_cfg)) {
                cfg.g_shift = unsigned(rng() % 16);
                cfg.f = unsigned(rng() % 8);
                cfg.timer_period = uint32_t(rng() % 400);
                cfg.alpha_period = uint32_t(rng() % 400);
                cfg.burst = uint32_t(rng() % 16384);
                cfg.rate_min = R1 + rng() % (20 * R1);
            }
            const auto o = b.cycle(cfg, in);
            if (in.pkt_valid && o.pkt_ready) in.pkt_valid = false;
            hyper_seen += b.model().stage_i() >= cfg.f && b.model().stage_j() >= cfg.f;
            if (b.mismatches() > 5) break;
        }
        EXPECT_EQ(b.mismatches(), 0u);
        EXPECT_GT(cnps, 5u);
        EXPECT_GT(b.model().stats().send, 100u);
        EXPECT_GT(b.model().stats().defer, 100u) << "vacuous: the limiter never deferred";
        if (mx.byte_thresh) EXPECT_GT(hyper_seen, 0u) << "vacuous: never reached hyper increase";
    }
}

INSTANTIATE_TEST_SUITE_P(Mixes, DcqcnDiff,
                         ::testing::Values(Mix{"timer_only", 0.0003, 1.0, 1.0, 0.0, 0},
                                           Mix{"timer_and_bytes", 0.0002, 0.9, 0.8, 0.0, 20000},
                                           Mix{"churn", 0.002, 0.7, 0.5, 0.005, 5000}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------- against the equations
// First CNP after reset: alpha = 1 -> Rc = Rmax/2, Rt = Rmax; then alpha decays per period as
// (1-g)^k; a second CNP cuts by alpha/2 with the decayed alpha (float reference within 1 LSB).
TEST(DcqcnEquations, CutAndAlpha) {
    Bench b;
    Dcqcn::Config cfg = base_cfg();
    cfg.timer_period = 4095;  // no increase during this test
    Dcqcn::Inputs in;
    b.cycle(cfg, in);
    in.cnp = true;
    b.cycle(cfg, in);
    in.cnp = false;
    auto o = b.cycle(cfg, in);
    EXPECT_EQ(o.rate_cur, cfg.rate_max / 2);
    EXPECT_EQ(o.rate_tgt, cfg.rate_max);
    EXPECT_EQ(o.alpha, Dcqcn::kAlphaOne);
    // 10 alpha periods without CNP (the period counter restarted at the CNP)
    const double g = 1.0 / 16;
    for (unsigned c = 0; c < 10 * cfg.alpha_period; ++c) o = b.cycle(cfg, in);
    const double a_ref = std::pow(1 - g, 10);
    EXPECT_NEAR(o.alpha / 32768.0, a_ref, 10.0 / 32768) << "alpha after 10 periods";
    std::printf("[ metric   ] alpha after 10 periods: rtl %.5f, (1-g)^10 = %.5f\n",
                o.alpha / 32768.0, a_ref);
    const uint64_t rc0 = o.rate_cur;
    const double a = o.alpha / 32768.0;
    in.cnp = true;
    b.cycle(cfg, in);
    in.cnp = false;
    o = b.cycle(cfg, in);
    EXPECT_NEAR(double(o.rate_cur), rc0 * (1 - a / 2), 1.0);
    EXPECT_EQ(o.rate_tgt, rc0);
    EXPECT_NEAR(o.alpha / 32768.0, (1 - g) * a + g, 2.0 / 32768);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Timer-driven recovery after one CNP: F fast-recovery steps halve the gap to Rt (Rt fixed),
// then additive steps raise Rt by AI each; with the byte counter also counting, hyper increase
// (Rt += HAI) once both stage counters reach F. Each step checked against the float recurrence.
TEST(DcqcnEquations, RecoveryStages) {
    for (bool bytes : {false, true}) {
        SCOPED_TRACE(bytes ? "timer and byte counter" : "timer only");
        Bench b;
        Dcqcn::Config cfg = base_cfg();
        cfg.alpha_period = 4095;
        cfg.timer_period = 100;
        // the byte counter fires once per timer period at this send rate
        cfg.byte_thresh = bytes ? 1 : 0;
        cfg.rate_hai = 2 * R1;
        Dcqcn::Inputs in;
        b.cycle(cfg, in);
        // two CNPs: Rt = Rmax/2, Rc = Rmax/4 (alpha stays 1), so Rt can grow below Rmax
        in.cnp = true;
        b.cycle(cfg, in);
        b.cycle(cfg, in);
        in.cnp = false;
        auto o = b.cycle(cfg, in);
        double rc = double(o.rate_cur), rt = double(o.rate_tgt);
        unsigned fr = 0, ai = 0, hai = 0;
        uint64_t prev_rc = o.rate_cur, prev_rt = o.rate_tgt;
        for (unsigned c = 0; c < 12 * cfg.timer_period; ++c) {
            // with bytes: one 1-byte packet per timer period keeps j in step with i
            in.pkt_valid = bytes && (c % cfg.timer_period == 10);
            in.pkt_len = 1;
            in.dec_ready = true;
            o = b.cycle(cfg, in);
            if (o.rate_cur == prev_rc && o.rate_tgt == prev_rt) continue;
            const uint64_t drt = o.rate_tgt - prev_rt;
            if (drt == 0)
                ++fr;
            else if (drt == cfg.rate_ai)
                ++ai;
            else if (drt == cfg.rate_hai)
                ++hai;
            else
                ADD_FAILURE() << "unexpected Rt step " << drt;
            rt += double(drt);
            rc = (rt + rc) / 2;
            EXPECT_NEAR(double(o.rate_cur), rc, 2.0 + (fr + ai + hai)) << "step " << fr + ai + hai;
            prev_rc = o.rate_cur;
            prev_rt = o.rate_tgt;
        }
        std::printf(
            "[ metric   ] recovery (%s): %u fast-recovery, %u additive, %u hyper steps; "
            "Rc %.2f B/cycle of %.0f\n",
            bytes ? "timer+bytes" : "timer", fr, ai, hai, double(o.rate_cur) / R1,
            double(cfg.rate_max) / R1);
        EXPECT_EQ(o.rate_tgt, cfg.rate_max / 2 + ai * cfg.rate_ai + hai * cfg.rate_hai);
        if (bytes) {
            // byte events (cycle 12 of each period) and timer events alternate: fast recovery
            // while max(i, j) < F (2(F-1) events), one additive step (j = F, i = F-1), then
            // hyper increase once both are >= F
            EXPECT_EQ(fr, 2 * (cfg.f - 1));
            EXPECT_EQ(ai, 1u);
            EXPECT_GT(hai, 10u);
        } else {
            // timer only: F-1 fast-recovery steps, then additive for ever (j stays 0)
            EXPECT_EQ(fr, cfg.f - 1);
            EXPECT_EQ(hai, 0u);
            EXPECT_GT(ai, 5u);
        }
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// Rate limiter: saturated 1500-byte requests, measured bytes/cycle equals Rc (before and after a
// cut); decision latency and one decision per cycle.
TEST(DcqcnEquations, LimiterRateAndDecisionLatency) {
    Bench b;
    Dcqcn::Config cfg = base_cfg();
    cfg.timer_period = 4095;
    cfg.alpha_period = 4095;
    Dcqcn::Inputs in{.pkt_valid = true, .pkt_len = 1500, .dec_ready = true};
    // latency: the first request is accepted in cycle 0
    uint64_t first_dec = 0;
    for (uint64_t c = 0; c < 10 && !first_dec; ++c)
        if (b.cycle(cfg, in).dec_valid) first_dec = c;
    std::printf("[ metric   ] dcqcn decision latency %llu cycles (budget %u at 200G / 391 MHz)\n",
                (unsigned long long)first_dec, kBudget);
    EXPECT_EQ(first_dec, 2u);
    EXPECT_LE(first_dec, kBudget);
    auto measure = [&](unsigned n) {
        uint64_t bytes = 0, dec = 0;
        for (unsigned c = 0; c < n; ++c) {
            const auto o = b.cycle(cfg, in);
            if (o.dec_valid) {
                ++dec;
                bytes += o.dec_send ? 1500 : 0;
            }
        }
        EXPECT_GT(double(dec) / n, 0.999);
        return double(bytes) / n;
    };
    const double r0 = measure(3000);
    Dcqcn::Inputs cnp = in;
    cnp.cnp = true;
    b.cycle(cfg, cnp);
    const double rc1 = double(b.cycle(cfg, in).rate_cur) / R1;
    measure(500);  // drain the burst
    const double r1 = measure(3000);
    std::printf(
        "[ metric   ] limiter: %.2f B/cycle at Rc %.2f (%.1f Gb/s at 250 MHz); after a CNP "
        "%.2f B/cycle at Rc %.2f\n",
        r0, double(cfg.rate_max) / R1, r0 * 2, r1, rc1);
    EXPECT_NEAR(r0, double(cfg.rate_max) / R1, 0.01 * double(cfg.rate_max) / R1 + 3);
    EXPECT_NEAR(r1, rc1, 0.01 * rc1 + 3);
    EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
