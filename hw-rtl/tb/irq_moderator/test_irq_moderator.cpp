// SPDX-License-Identifier: MIT
// scenic_irq_moderator: cycle-exact differential test against scenic::dp::IrqModerator plus
// model-independent properties (exact timeout latency, bounded latency, amortisation,
// event conservation, saturation).
#include <gtest/gtest.h>

#include <memory>
#include <random>

#include "Vscenic_irq_moderator.h"
#include "bench.hpp"
#include "scenic/dp/irq_moderator.hpp"
#include "tb_util.hpp"

namespace {

using scenic::dp::IrqModerator;
using scenic::tb::replay_hint;
using scenic::tb::seeds;

// Must match the -G overrides in CMakeLists.txt.
constexpr IrqModerator::Params kParams{.cnt_w = 8, .ev_w = 2, .time_w = 8, .tick_cycles = 3};

class Bench : public scenic::tb::DiffBench<Vscenic_irq_moderator, IrqModerator> {
  public:
    Bench() : DiffBench(kParams) { reset(); }

    void reset() {
        reset_both([](Vscenic_irq_moderator& d) {
            d.event_cnt = 0;
            d.irq_ready = 0;
        });
    }

    // One cycle: apply inputs, compare registered outputs of RTL and model, clock both.
    // Returns the outputs seen this cycle.
    IrqModerator::Outputs cycle(const IrqModerator::Config& cfg, const IrqModerator::Inputs& in) {
        dut_->irq_coal = cfg.irq_coal;
        dut_->irq_time = cfg.irq_time;
        dut_->irq_en = cfg.irq_en;
        dut_->event_cnt = in.events;
        dut_->irq_ready = in.irq_ready;
        dut_->eval();
        const IrqModerator::Outputs rtl{dut_->irq_valid != 0, dut_->irq_events};
        const auto mdl = model_.outputs();
        if (report(rtl.irq_valid == mdl.irq_valid && rtl.irq_events == mdl.irq_events))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl valid=" << rtl.irq_valid
                          << " events=" << rtl.irq_events << " model valid=" << mdl.irq_valid
                          << " events=" << mdl.irq_events;
        clock_both(cfg, in);
        return rtl;
    }
};

// ---------------------------------------------------------------- differential, random
struct Scenario {
    const char* name;
    double p_on, p_off;   // Markov event source: P(stay bursting), P(stay idle)
    double p_ready;       // MSI-X controller acceptance probability
    double p_cfg_change;  // per-cycle probability of a register write
    double p_en_toggle;   // NAPI masking
};

class IrqDiff : public ::testing::TestWithParam<Scenario> {};

TEST_P(IrqDiff, CycleExactAgainstModel) {
    const Scenario sc = GetParam();
    for (uint64_t seed : seeds(6)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        auto chance = [&](double p) { return std::bernoulli_distribution(p)(rng); };
        Bench b;
        IrqModerator::Config cfg{
            .irq_coal = uint32_t(rng() % 20), .irq_time = uint32_t(rng() % 12), .irq_en = true};
        bool bursting = false;
        uint64_t irqs = 0;
        for (int c = 0; c < 30000; ++c) {
            bursting = bursting ? chance(sc.p_on) : !chance(sc.p_off);
            if (chance(sc.p_cfg_change)) {
                // mostly small values, sometimes the extremes (0 and all-ones)
                const uint32_t pick = uint32_t(rng() % 8);
                cfg.irq_coal = pick == 0 ? 0 : pick == 1 ? 255 : uint32_t(rng() % 24);
                cfg.irq_time = pick == 2 ? 0 : pick == 3 ? 255 : uint32_t(rng() % 16);
            }
            if (chance(sc.p_en_toggle)) cfg.irq_en = !cfg.irq_en;
            if (c % 7919 == 7918) b.reset();
            // 1 event per bursting cycle, sometimes 2 or 3 (RX and TX completions together)
            const uint32_t ev = bursting ? (chance(0.25) ? 2u + uint32_t(rng() % 2) : 1u) : 0u;
            const auto out = b.cycle(cfg, {.events = ev, .irq_ready = chance(sc.p_ready)});
            irqs += out.irq_valid;
            if (b.mismatches() > 5) break;
        }
        EXPECT_EQ(b.mismatches(), 0u);
        EXPECT_GT(irqs, 0u) << "scenario never raised an interrupt: the test is vacuous";
    }
}

INSTANTIATE_TEST_SUITE_P(Mixes, IrqDiff,
                         ::testing::Values(Scenario{"sparse", 0.0, 0.995, 1.0, 0.0005, 0.0},
                                           Scenario{"bursty", 0.9, 0.97, 0.7, 0.001, 0.002},
                                           Scenario{"saturated", 1.0, 0.0, 0.5, 0.0005, 0.0},
                                           Scenario{"churn", 0.5, 0.5, 0.3, 0.05, 0.02},
                                           Scenario{"stalled_ctrl", 0.6, 0.8, 0.02, 0.002, 0.001}),
                         [](const auto& info) { return std::string(info.param.name); });

// ---------------------------------------------------------------- directed properties
// One event, timer only: irq_valid rises exactly irq_time*TICK_CYCLES + 1 cycles later.
TEST(IrqDirected, TimeoutLatencyIsExact) {
    for (uint32_t t : {0u, 1u, 2u, 5u, 17u, 255u}) {
        SCOPED_TRACE("irq_time=" + std::to_string(t));
        Bench b;
        const IrqModerator::Config cfg{.irq_coal = 0, .irq_time = t, .irq_en = true};
        b.cycle(cfg, {.events = 1, .irq_ready = false});
        uint64_t rise = 0;
        for (uint64_t c = 1; c < 2000 && rise == 0; ++c)
            if (b.cycle(cfg, {.events = 0, .irq_ready = false}).irq_valid) rise = c;
        EXPECT_EQ(rise, uint64_t(t) * kParams.tick_cycles + 1);
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// Sparse traffic with a count threshold that is never reached: every event is signalled within
// irq_time*TICK_CYCLES + 1 cycles (the controller always accepts).
TEST(IrqDirected, BoundedLatencyUnderSparseTraffic) {
    for (uint64_t seed : seeds(4)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        Bench b;
        const IrqModerator::Config cfg{.irq_coal = 200, .irq_time = 10, .irq_en = true};
        const uint64_t bound = 10 * kParams.tick_cycles + 1;
        std::deque<uint64_t> unsignalled;
        uint64_t worst = 0, irqs = 0;
        for (uint64_t c = 0; c < 50000; ++c) {
            const bool ev = std::bernoulli_distribution(0.01)(rng);
            const auto out = b.cycle(cfg, {.events = ev, .irq_ready = true});
            if (out.irq_valid) {  // handshake this cycle: covers all events accepted before it
                ++irqs;
                EXPECT_EQ(out.irq_events, unsignalled.size());
                for (uint64_t t : unsignalled) worst = std::max(worst, c - t);
                unsignalled.clear();
            }
            if (ev) unsignalled.push_back(c);
        }
        EXPECT_GT(irqs, 100u);
        EXPECT_LE(worst, bound);
        EXPECT_EQ(worst, bound) << "the timer path was never the one that fired";
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// Saturated events: one interrupt per irq_coal events, each covering exactly irq_coal.
TEST(IrqDirected, AmortisedUnderLoad) {
    for (uint32_t coal : {1u, 2u, 16u, 64u}) {
        SCOPED_TRACE("irq_coal=" + std::to_string(coal));
        Bench b;
        const IrqModerator::Config cfg{.irq_coal = coal, .irq_time = 255, .irq_en = true};
        uint64_t irqs = 0, covered = 0;
        const uint64_t n = 64000;
        for (uint64_t c = 0; c < n; ++c) {
            const auto out = b.cycle(cfg, {.events = 1, .irq_ready = true});
            if (out.irq_valid) {
                ++irqs;
                covered += out.irq_events;
                EXPECT_EQ(out.irq_events, coal);
            }
        }
        EXPECT_NEAR(double(irqs), double(n) / coal, 2.0);
        std::printf("[ metric   ] irq_coal=%u: %lu events -> %lu interrupts (%.4f irq/event)\n",
                    coal, (unsigned long)n, (unsigned long)irqs, double(irqs) / double(n));
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// Events arriving while the request waits for the controller are covered by it; nothing is lost.
TEST(IrqDirected, EventConservationWithStalledController) {
    std::mt19937_64 rng(seeds(1).front());
    Bench b;
    const IrqModerator::Config cfg{.irq_coal = 5, .irq_time = 3, .irq_en = true};
    uint64_t events = 0, covered = 0;
    for (uint64_t c = 0; c < 40000; ++c) {
        const uint32_t ev = std::bernoulli_distribution(0.3)(rng) ? 1 + uint32_t(rng() % 3) : 0;
        const bool rdy = std::bernoulli_distribution(0.1)(rng);
        const auto out = b.cycle(cfg, {.events = ev, .irq_ready = rdy});
        if (out.irq_valid && rdy) covered += out.irq_events;
        events += ev;
    }
    // what is left pending is the events not yet covered by a handshake
    const auto tail = b.cycle(cfg, {.events = 0, .irq_ready = false});
    EXPECT_GT(covered, 0u);
    EXPECT_EQ(covered + tail.irq_events, events);
    EXPECT_EQ(b.mismatches(), 0u);
}

// RX and TX completions in the same cycle: two events per cycle, interrupts twice as often, each
// covering exactly irq_coal events (coal even) or irq_coal + 1 (coal odd: the count jumps past it).
TEST(IrqDirected, TwoEventsPerCycle) {
    for (uint32_t coal : {16u, 17u}) {
        SCOPED_TRACE("irq_coal=" + std::to_string(coal));
        Bench b;
        const IrqModerator::Config cfg{.irq_coal = coal, .irq_time = 255, .irq_en = true};
        uint64_t irqs = 0;
        const uint64_t n = 32000;
        for (uint64_t c = 0; c < n; ++c) {
            const auto out = b.cycle(cfg, {.events = 2, .irq_ready = true});
            if (out.irq_valid) {
                ++irqs;
                EXPECT_EQ(out.irq_events, coal + (coal & 1));
            }
        }
        EXPECT_NEAR(double(irqs), double(2 * n) / (coal + (coal & 1)), 2.0);
        EXPECT_EQ(b.mismatches(), 0u);
    }
}

// The pending count saturates with multi-event cycles too.
TEST(IrqDirected, MultiEventSaturation) {
    Bench b;
    IrqModerator::Config cfg{.irq_coal = 0, .irq_time = 0, .irq_en = false};
    for (int c = 0; c < 86; ++c) b.cycle(cfg, {.events = 3, .irq_ready = true});  // 258 events
    EXPECT_EQ(b.cycle(cfg, {.events = 0, .irq_ready = true}).irq_events, 255u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// irq_en low (NAPI polling): events pile up (saturating at 2^CNT_W-1), no request; re-enabling
// raises the request on the next edge.
TEST(IrqDirected, MaskedThenRearmedAndSaturation) {
    Bench b;
    IrqModerator::Config cfg{.irq_coal = 4, .irq_time = 2, .irq_en = false};
    for (int c = 0; c < 300; ++c)
        EXPECT_FALSE(b.cycle(cfg, {.events = 1, .irq_ready = true}).irq_valid);
    auto out = b.cycle(cfg, {.events = 0, .irq_ready = true});
    EXPECT_EQ(out.irq_events, 255u);
    cfg.irq_en = true;
    EXPECT_FALSE(b.cycle(cfg, {.events = 0, .irq_ready = true}).irq_valid);
    out = b.cycle(cfg, {.events = 0, .irq_ready = true});
    EXPECT_TRUE(out.irq_valid);
    EXPECT_EQ(out.irq_events, 255u);
    out = b.cycle(cfg, {.events = 0, .irq_ready = true});
    EXPECT_FALSE(out.irq_valid);
    EXPECT_EQ(out.irq_events, 0u);
    EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
