// SPDX-License-Identifier: MIT
// scenic_rr_arbiter: cycle-exact differential test against scenic::dp::RrArbiter, packet
// integrity scoreboard, fairness (Jain's index) under saturation and back-pressure, line rate.
// Configurations: N=3 (non power of two) and N=16 at 64 bit, N=4 at 512 bit.
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>

#include "Varb16.h"
#include "Varb3.h"
#include "Varb4w512.h"
#include "bench.hpp"
#include "scenic/dp/rr_arbiter.hpp"
#include "tb_util.hpp"

namespace {

using namespace scenic::tb;
using scenic::dp::RrArbiter;

struct Cfg3 {
    using V = Varb3;
    static constexpr unsigned N = 3, W = 64;
};
struct Cfg16 {
    using V = Varb16;
    static constexpr unsigned N = 16, W = 64;
};
struct Cfg4w512 {
    using V = Varb4w512;
    static constexpr unsigned N = 4, W = 512;
};

struct Stats {
    std::vector<uint64_t> pkts, beats;
    uint64_t cycles = 0, out_beats = 0, out_first = 0, out_last = 0;
    uint64_t mismatches = 0;
    unsigned max_pkt_spread = 0;  // max over time of (max - min) packets served, saturated runs
    bool timed_out = false;
};

template <class C>
class Bench : public scenic::tb::DutBench<typename C::V> {
    using scenic::tb::DutBench<typename C::V>::dut_;
    using scenic::tb::DutBench<typename C::V>::edge;

  public:
    static constexpr unsigned kLanes = C::W / 8;
    Bench() : model_(C::N) {}

    // Runs until every source is empty (or max_cycles). Checks every cycle against the model and
    // every output beat against the beat its source presented.
    Stats run(std::vector<AxisSource>& src, Pause sink_p, uint64_t max_cycles, bool track_spread) {
        auto& d = *dut_;
        AxisSink sink(std::move(sink_p));
        Stats st;
        st.pkts.assign(C::N, 0);
        st.beats.assign(C::N, 0);
        d.rst = 1;
        d.s_axis_tvalid = 0;
        d.clk = 0;
        d.eval();
        edge();
        edge();
        d.rst = 0;
        model_.reset();
        int owner = -1;  // input whose packet is in flight on the output
        bool seen = false;
        for (uint64_t c = 0;; ++c) {
            bool all_idle = true;
            for (auto& s : src) all_idle = all_idle && s.idle();
            if (all_idle) break;
            if (c >= max_cycles) {
                st.timed_out = !track_spread;
                break;
            }
            RrArbiter::Inputs in;
            for (unsigned i = 0; i < C::N; ++i) {
                src[i].drive();
                if (src[i].valid()) {
                    in.valid |= 1u << i;
                    if (src[i].beat().last) in.last |= 1u << i;
                    put_beat(d.s_axis_tdata, d.s_axis_tkeep, src[i].beat(), kLanes, i * kLanes);
                } else {
                    // garbage on idle inputs: the arbiter must not pass it
                    put_beat(d.s_axis_tdata, d.s_axis_tkeep, Beat{{0xde, 0xad}, true}, kLanes,
                             i * kLanes);
                    if (c & 1) in.last |= 1u << i;
                }
            }
            in.m_ready = sink.drive();
            d.s_axis_tvalid = in.valid;
            d.s_axis_tlast = in.last;
            d.m_axis_tready = in.m_ready;
            d.eval();
            const auto m = model_.eval(in);
            const uint32_t rtl_ready = uint32_t(d.s_axis_tready);
            if (bool(d.m_axis_tvalid) != m.m_valid || unsigned(d.m_axis_tid) != m.sel ||
                rtl_ready != m.s_ready || (m.m_valid && bool(d.m_axis_tlast) != m.m_last)) {
                if (++st.mismatches <= 5)
                    ADD_FAILURE() << "cycle " << c << ": rtl valid=" << int(d.m_axis_tvalid)
                                  << " tid=" << int(d.m_axis_tid) << " ready=" << rtl_ready
                                  << " / model valid=" << m.m_valid << " tid=" << m.sel
                                  << " ready=" << m.s_ready;
            }
            if (d.m_axis_tvalid && d.m_axis_tready) {
                const unsigned id = d.m_axis_tid;
                const Beat b = get_beat(d.m_axis_tdata, d.m_axis_tkeep, d.m_axis_tlast, kLanes);
                if (id >= C::N || !src[id].valid() || b.bytes != src[id].beat().bytes ||
                    b.last != src[id].beat().last) {
                    if (++st.mismatches <= 5)
                        ADD_FAILURE() << "cycle " << c << ": corrupted beat from input " << id;
                } else if (owner >= 0 && unsigned(owner) != id) {
                    if (++st.mismatches <= 5)
                        ADD_FAILURE() << "cycle " << c << ": packets interleaved";
                }
                owner = b.last ? -1 : int(id);
                sink.accept(b);
                ++st.beats[id];
                if (b.last) {
                    ++st.pkts[id];
                    if (track_spread) {
                        const auto [mn, mx] = std::minmax_element(st.pkts.begin(), st.pkts.end());
                        st.max_pkt_spread =
                            std::max<unsigned>(st.max_pkt_spread, unsigned(*mx - *mn));
                    }
                }
                if (!seen) st.out_first = c;
                seen = true;
                st.out_last = c;
                ++st.out_beats;
            }
            for (unsigned i = 0; i < C::N; ++i) src[i].advance((rtl_ready >> i) & 1u);
            model_.clock(in);
            edge();
            st.cycles = c + 1;
            if (st.mismatches > 5) break;
        }
        return st;
    }

  private:
    RrArbiter model_;
};

Frame random_frame(std::mt19937_64& rng, size_t len) {
    Frame f(len);
    for (auto& b : f) b = uint8_t(rng());
    return f;
}

double jain(const std::vector<uint64_t>& x) {
    double s = 0, s2 = 0;
    for (auto v : x) {
        s += double(v);
        s2 += double(v) * double(v);
    }
    return s2 > 0 ? s * s / (double(x.size()) * s2) : 0.0;
}

template <class C>
class ArbTest : public ::testing::Test {};
using Configs = ::testing::Types<Cfg3, Cfg16, Cfg4w512>;
struct CfgNames {
    template <class T>
    static std::string GetName(int) {
        return "n" + std::to_string(T::N) + "w" + std::to_string(T::W);
    }
};
TYPED_TEST_SUITE(ArbTest, Configs, CfgNames);

// Random packets on every input, every pairing of source/sink pause mixes: cycle-exact.
TYPED_TEST(ArbTest, CycleExactRandom) {
    constexpr unsigned N = TypeParam::N, L = TypeParam::W / 8;
    const auto mixes = pause_mixes();
    for (uint64_t seed : seeds(2)) {
        for (size_t si = 0; si < mixes.size(); ++si) {
            for (size_t k = 0; k < mixes.size(); k += 2) {
                const size_t di = (si + k) % mixes.size();
                SCOPED_TRACE(replay_hint(seed) + " src=" + mixes[si].first +
                             " sink=" + mixes[di].first);
                std::mt19937_64 rng(seed * 977 + si * 13 + di);
                std::vector<AxisSource> src;
                for (unsigned i = 0; i < N; ++i) {
                    src.emplace_back(L, mixes[si].second(seed * 31 + i));
                    const unsigned pk = unsigned(rng() % 12);  // some inputs nearly silent
                    for (unsigned p = 0; p < pk; ++p) {
                        const size_t len = rng() % 10 == 0 ? 1 + rng() % 9000 : 1 + rng() % (6 * L);
                        src[i].push(random_frame(rng, len));
                    }
                }
                Bench<TypeParam> b;
                const auto st = b.run(src, mixes[di].second(seed ^ 0x55), 5'000'000, false);
                EXPECT_FALSE(st.timed_out);
                EXPECT_EQ(st.mismatches, 0u);
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
}

// tlast at every byte position, back-pressure at every 4-cycle pattern.
TYPED_TEST(ArbTest, EveryLengthEveryPausePattern) {
    constexpr unsigned N = TypeParam::N, L = TypeParam::W / 8;
    std::mt19937_64 rng(seeds(1).front());
    for (uint32_t mask = 0; mask < 15; ++mask) {
        SCOPED_TRACE("sink pause mask " + std::to_string(mask));
        std::vector<AxisSource> src;
        for (unsigned i = 0; i < N; ++i) {
            src.emplace_back(L, Pause::mask((mask * 7 + i) % 15, 4));
            for (size_t len = 1 + i; len <= 2 * L + 1; len += N)
                src[i].push(random_frame(rng, len));
        }
        Bench<TypeParam> b;
        const auto st = b.run(src, Pause::mask(mask, 4), 1'000'000, false);
        EXPECT_FALSE(st.timed_out);
        EXPECT_EQ(st.mismatches, 0u);
        if (::testing::Test::HasFailure()) return;
    }
}

// A granted input that idles mid-packet keeps the output; nobody else gets in.
TYPED_TEST(ArbTest, GrantHeldWhileOwnerIdles) {
    constexpr unsigned N = TypeParam::N, L = TypeParam::W / 8;
    std::mt19937_64 rng(3);
    std::vector<AxisSource> src;
    src.emplace_back(L, Pause::mask(0b1111'1100, 8));  // presents 2 beats, idles 6
    src[0].push(random_frame(rng, 8 * L));
    for (unsigned i = 1; i < N; ++i) {
        src.emplace_back(L, Pause::none());
        src[i].push(random_frame(rng, L));
    }
    Bench<TypeParam> b;
    const auto st = b.run(src, Pause::none(), 10000, false);  // scoreboard catches interleaving
    EXPECT_EQ(st.mismatches, 0u);
    EXPECT_EQ(st.pkts[0], 1u);
}

// Saturated inputs with random output back-pressure: strict round robin in packets.
TYPED_TEST(ArbTest, FairnessSaturated) {
    constexpr unsigned N = TypeParam::N, L = TypeParam::W / 8;
    for (uint64_t seed : seeds(2)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        const uint64_t cycles = 20000;
        std::vector<AxisSource> src;
        for (unsigned i = 0; i < N; ++i) {
            src.emplace_back(L, Pause::none());
            // a packet is at least one beat: more than cycles/N packets never run dry
            for (uint64_t p = 0; p < cycles / N + 10; ++p)
                src[i].push(random_frame(rng, 1 + rng() % (8 * L)));
        }
        Bench<TypeParam> b;
        const auto st = b.run(src, Pause::random(0.3, seed), cycles, true);
        EXPECT_EQ(st.mismatches, 0u);
        uint64_t total = 0;
        for (auto p : st.pkts) total += p;
        ASSERT_GT(total, 10u * N) << "not saturated long enough";
        for (auto& s : src) ASSERT_FALSE(s.idle()) << "an input ran dry: not a saturated run";
        const double jp = jain(st.pkts), jb = jain(st.beats);
        std::printf(
            "[ metric   ] N=%u W=%u saturated, 30%% back-pressure, %lu cycles: %lu packets,"
            " Jain(packets)=%.5f Jain(beats)=%.5f max packet spread=%u\n",
            N, TypeParam::W, (unsigned long)st.cycles, (unsigned long)total, jp, jb,
            st.max_pkt_spread);
        EXPECT_LE(st.max_pkt_spread, 1u) << "not round robin";
        EXPECT_GE(jp, 0.999);
    }
}

// No back-pressure, all inputs loaded back to back: one beat per cycle, no bubble at boundaries.
TYPED_TEST(ArbTest, LineRate) {
    constexpr unsigned N = TypeParam::N, W = TypeParam::W, L = W / 8;
    for (size_t size : {size_t(64), size_t(1500), size_t(9000)}) {
        std::mt19937_64 rng(size);
        std::vector<AxisSource> src;
        uint64_t bytes = 0;
        const unsigned per = size == 9000 ? 8 : size == 64 ? 200 : 40;
        for (unsigned i = 0; i < N; ++i) {
            src.emplace_back(L, Pause::none());
            for (unsigned p = 0; p < per; ++p) {
                src[i].push(random_frame(rng, size));
                bytes += size;
            }
        }
        Bench<TypeParam> b;
        const auto st = b.run(src, Pause::none(), 10'000'000, false);
        EXPECT_EQ(st.mismatches, 0u);
        const uint64_t span = st.out_last - st.out_first + 1;
        const double bpc = double(st.out_beats) / double(span);
        std::printf(
            "[ metric   ] N=%u DATA_W=%u frames=%zu: %lu beats in %lu cycles = %.4f"
            " beats/cycle; at 250 MHz bus %.1f Gb/s, frame data %.1f Gb/s\n",
            N, W, size, (unsigned long)st.out_beats, (unsigned long)span, bpc, bpc * W * 0.25,
            double(bytes) * 8 * 0.25 / double(span));
        EXPECT_EQ(st.out_beats, span) << "bubbles on the output";
        EXPECT_EQ(st.out_first, 0u);
    }
}

}  // namespace
