// SPDX-License-Identifier: MIT
// scenic_prefilter: differential (transaction order per output, classes, counters) against
// scenic::dp::Prefilter, directed corners and line rate, for three bus widths:
//   512 bit (U55C, 100G), 1024 bit (200G configuration), 64 bit (headers straddle 10 beats).
#include <gtest/gtest.h>

#include <cstdio>
#include <memory>
#include <random>

#include "Vpf1024.h"
#include "Vpf512.h"
#include "Vpf64.h"
#include "bench.hpp"
#include "prefilter_frames.hpp"
#include "scenic/dp/prefilter.hpp"
#include "tb_util.hpp"

namespace {

using namespace scenic::tb;
using namespace scenic::tb::prefilter;
using scenic::dp::FrameClass;
using scenic::dp::Prefilter;
using scenic::dp::PrefilterPort;

// ------------------------------------------------------------------ bench
struct Cfg512 : BusCfg<Vpf512, 512> {};
struct Cfg1024 : BusCfg<Vpf1024, 1024> {};
struct Cfg64 : BusCfg<Vpf64, 64> {};

struct Result {
    std::vector<Frame> rdma, host;
    std::vector<unsigned> host_cls;
    Prefilter::Counters cnt;
    uint64_t cycles = 0;
    // line-rate observations
    uint64_t in_stall_cycles = 0;  // source valid, tready low
    uint64_t out_beats = 0, out_first = 0, out_last = 0;
    bool timed_out = false;
};

template <class C>
class Bench : public scenic::tb::DutBench<typename C::V> {
    using scenic::tb::DutBench<typename C::V>::dut_;
    using scenic::tb::DutBench<typename C::V>::edge;

  public:
    static constexpr unsigned kLanes = C::W / 8;

    Result run(const std::vector<Frame>& frames, bool rdma_en, Pause src_p, Pause rdma_p,
               Pause host_p) {
        AxisSource src(kLanes, std::move(src_p));
        AxisSink rdma(std::move(rdma_p)), host(std::move(host_p));
        uint64_t beats_in = 0;
        for (const auto& f : frames) {
            src.push(f);
            beats_in += f.empty() ? 1 : (f.size() + kLanes - 1) / kLanes;
        }
        Result r;
        auto& d = *dut_;
        d.rst = 1;
        d.rdma_en = rdma_en;
        d.s_axis_tvalid = 0;
        edge();
        edge();
        d.rst = 0;
        const uint64_t limit = 64 * beats_in + 2000;
        bool seen_out = false;
        unsigned quiet = 0;  // cycles with an idle source and no output: 64 of them end the run
        for (uint64_t c = 0; quiet < 64; ++c) {
            if (c > limit) {
                r.timed_out = true;
                break;
            }
            src.drive();
            d.m_axis_rdma_tready = rdma.drive();
            d.m_axis_host_tready = host.drive();
            d.s_axis_tvalid = src.valid();
            if (src.valid()) {
                put_beat(d.s_axis_tdata, d.s_axis_tkeep, src.beat(), kLanes);
                d.s_axis_tlast = src.beat().last;
            }
            d.eval();
            if (src.valid() && !d.s_axis_tready) ++r.in_stall_cycles;
            bool out = false;
            if (d.m_axis_rdma_tvalid && d.m_axis_rdma_tready) {
                rdma.accept(get_beat(d.m_axis_rdma_tdata, d.m_axis_rdma_tkeep, d.m_axis_rdma_tlast,
                                     kLanes));
                out = true;
            }
            if (d.m_axis_host_tvalid && d.m_axis_host_tready) {
                host.accept(get_beat(d.m_axis_host_tdata, d.m_axis_host_tkeep, d.m_axis_host_tlast,
                                     kLanes));
                if (d.m_axis_host_tlast) r.host_cls.push_back(d.m_axis_host_tuser);
                out = true;
            }
            if (d.m_axis_rdma_tvalid && d.m_axis_host_tvalid) {
                ADD_FAILURE() << "both outputs valid in cycle " << c;
                r.timed_out = true;
                break;
            }
            if (out) {
                if (!seen_out) r.out_first = c;
                seen_out = true;
                r.out_last = c;
                ++r.out_beats;
            }
            quiet = (src.idle() && !d.m_axis_rdma_tvalid && !d.m_axis_host_tvalid) ? quiet + 1 : 0;
            src.advance(d.s_axis_tready);
            edge();
            r.cycles = c;
        }
        r.rdma = std::move(rdma.frames);
        r.host = std::move(host.frames);
        r.cnt = {d.stat_rdma_roce, d.stat_host_roce, d.stat_host_tcp, d.stat_host_other,
                 d.stat_drop_runt};
        return r;
    }
};

// Compares the RTL's outputs with the model's: per-port frame order and bytes, classes, counters.
void check_against_model(const std::vector<Frame>& frames, bool rdma_en, const Result& r) {
    ASSERT_FALSE(r.timed_out) << "DUT hung";
    Prefilter m;
    m.set_rdma_enabled(rdma_en);
    std::vector<Frame> rdma, host;
    std::vector<unsigned> host_cls;
    for (const auto& f : frames) {
        const auto v = m.process(f);
        if (v.port == PrefilterPort::Rdma) rdma.push_back(f);
        if (v.port == PrefilterPort::Host) {
            host.push_back(f);
            host_cls.push_back(unsigned(v.cls));
        }
    }
    ASSERT_EQ(r.rdma.size(), rdma.size()) << "frames on m_axis_rdma";
    ASSERT_EQ(r.host.size(), host.size()) << "frames on m_axis_host";
    for (size_t i = 0; i < rdma.size(); ++i) ASSERT_EQ(r.rdma[i], rdma[i]) << "rdma frame " << i;
    for (size_t i = 0; i < host.size(); ++i) ASSERT_EQ(r.host[i], host[i]) << "host frame " << i;
    EXPECT_EQ(r.host_cls, host_cls);
    const auto& c = m.counters();
    EXPECT_EQ(r.cnt.rdma_roce, c.rdma_roce);
    EXPECT_EQ(r.cnt.host_roce, c.host_roce);
    EXPECT_EQ(r.cnt.host_tcp, c.host_tcp);
    EXPECT_EQ(r.cnt.host_other, c.host_other);
    EXPECT_EQ(r.cnt.drop_runt, c.drop_runt);
}

template <class C>
class PrefilterTest : public ::testing::Test {};
using Configs = ::testing::Types<Cfg512, Cfg1024, Cfg64>;
TYPED_TEST_SUITE(PrefilterTest, Configs, BusWidthNames);

// Constrained-random frames (every kind, runts, truncated headers, jumbos) under every pairing of
// source/sink pause mixes.
TYPED_TEST(PrefilterTest, DifferentialRandom) {
    const auto mixes = pause_mixes();
    for (uint64_t seed : seeds(2)) {
        for (size_t si = 0; si < mixes.size(); ++si) {
            for (size_t k = 0; k < mixes.size(); k += 2) {
                const size_t di = (si + k) % mixes.size();
                SCOPED_TRACE(replay_hint(seed) + " src=" + mixes[si].first +
                             " sinks=" + mixes[di].first);
                std::mt19937_64 rng(seed * 131 + si * 7 + di);
                std::vector<Frame> frames;
                const unsigned n = TypeParam::W == 64 ? 40 : 120;
                for (unsigned i = 0; i < n; ++i) {
                    const size_t len = random_len(rng);
                    if (TypeParam::W == 64 && len > 2000) continue;  // keep the narrow run short
                    frames.push_back(make_frame(rng, Kind(rng() % unsigned(Kind::Count)), len));
                }
                const bool rdma_en = (seed + si) % 3 != 0;
                Bench<TypeParam> b;
                const auto r = b.run(frames, rdma_en, mixes[si].second(seed ^ 1),
                                     mixes[di].second(seed ^ 2), mixes[di].second(seed ^ 3));
                check_against_model(frames, rdma_en, r);
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
}

// tlast at every byte position of the last beat (and runts of every length) for every kind,
// with back-pressure at every 4-cycle pattern on the sinks and idles on the source.
TYPED_TEST(PrefilterTest, EveryLengthEveryPausePattern) {
    std::mt19937_64 rng(seeds(1).front());
    std::vector<Frame> frames;
    const size_t lanes = TypeParam::W / 8;
    const size_t max_len = std::max<size_t>(3 * lanes, 130);
    for (size_t len = 0; len <= max_len; ++len)
        frames.push_back(make_frame(rng, Kind(len % unsigned(Kind::Count)), len));
    for (unsigned k = 0; k < unsigned(Kind::Count); ++k)
        frames.push_back(make_frame(rng, Kind(k), 9000));
    // every 4-cycle pattern except "always paused" (which would stall forever)
    for (uint32_t mask = 0; mask < 15; ++mask) {
        const uint32_t src_mask = (mask * 7 + 3) % 15;
        SCOPED_TRACE("sink pause mask " + std::to_string(mask) + " source " +
                     std::to_string(src_mask));
        Bench<TypeParam> b;
        const auto r = b.run(frames, mask % 2 == 0, Pause::mask(src_mask, 4), Pause::mask(mask, 4),
                             Pause::mask(mask, 4));
        check_against_model(frames, mask % 2 == 0, r);
        if (::testing::Test::HasFailure()) return;
    }
}

// Directed classification corners, checked against fixed expectations (not just the model).
TYPED_TEST(PrefilterTest, DirectedClasses) {
    std::mt19937_64 rng(7);
    struct Case {
        Kind k;
        size_t len;
        FrameClass want;
    };
    const std::vector<Case> cases = {
        {Kind::Roce4, 64, FrameClass::Roce},
        {Kind::Roce6, 80, FrameClass::Roce},
        {Kind::Tcp4, 64, FrameClass::Tcp},
        {Kind::Tcp6, 64, FrameClass::Tcp},
        {Kind::Udp6, 90, FrameClass::Other},
        {Kind::Ip6Ext, 90, FrameClass::Other},
        {Kind::Ip4Frag, 90, FrameClass::Other},
        {Kind::Ip4BadIhl, 90, FrameClass::Other},
        {Kind::Arp, 60, FrameClass::Other},
        {Kind::Vlan, 90, FrameClass::Other},
        {Kind::Roce4, 13, FrameClass::Runt},
        {Kind::Roce4, 0, FrameClass::Runt},
        {Kind::Roce6, 61, FrameClass::Other} /* UDP header cut short */,
        {Kind::Roce6, 9000, FrameClass::Roce},
    };
    std::vector<Frame> frames;
    for (const auto& c : cases) {
        frames.push_back(make_frame(rng, c.k, c.len));
        auto& f = frames.back();
        if ((c.k == Kind::Roce4 || c.k == Kind::Tcp4) && f.size() > 37) {  // no IP options
            f[14] = 0x45;
            if (c.k == Kind::Roce4) {
                f[36] = 0x12;
                f[37] = 0xb7;
            }
        }
        EXPECT_EQ(scenic::dp::classify_frame(frames.back()), c.want)
            << "case " << frames.size() - 1;
    }
    // IPv4 with maximum options (IHL 15): UDP port at bytes 76..77, beyond a 512-bit beat
    Frame opt = make_frame(rng, Kind::Roce4, 128);
    opt[14] = 0x4f;
    opt[20] = 0;
    opt[21] = 0;
    opt[23] = 17;
    opt[76] = 0x12;
    opt[77] = 0xb7;
    frames.push_back(opt);
    EXPECT_EQ(scenic::dp::classify_frame(opt), FrameClass::Roce);
    opt[77] = 0xb8;
    frames.push_back(opt);
    EXPECT_EQ(scenic::dp::classify_frame(opt), FrameClass::Other);
    Bench<TypeParam> b;
    const auto r = b.run(frames, true, Pause::none(), Pause::none(), Pause::none());
    check_against_model(frames, true, r);
    EXPECT_EQ(r.cnt.rdma_roce, 4u);
    EXPECT_EQ(r.cnt.drop_runt, 2u);
}

// No back-pressure, back-to-back frames: one beat per cycle in and out, no bubbles.
TYPED_TEST(PrefilterTest, LineRate) {
    constexpr unsigned W = TypeParam::W;
    constexpr double kMhz = 250.0;
    for (size_t size : {size_t(64), size_t(1500), size_t(9000), size_t(0) /* mix */}) {
        std::mt19937_64 rng(size + W);
        std::vector<Frame> frames;
        uint64_t bytes = 0;
        const unsigned n = size == 9000 ? 40 : size == 64 ? 2000 : 200;
        for (unsigned i = 0; i < n; ++i) {
            const size_t len = size ? size : 64 + rng() % 1437;
            frames.push_back(
                make_frame(rng, Kind(rng() % 6), len));  // RoCE/TCP/UDP mix, both ports
            bytes += len;
        }
        Bench<TypeParam> b;
        const auto r = b.run(frames, true, Pause::none(), Pause::none(), Pause::none());
        check_against_model(frames, true, r);
        const uint64_t span = r.out_last - r.out_first + 1;
        const double bpc = double(r.out_beats) / double(span);
        const double gbps_bus = bpc * W * kMhz / 1000.0;
        const double gbps_data = double(bytes) * 8 / double(span) * kMhz / 1000.0;
        const double avg = double(bytes) / n;
        std::printf(
            "[ metric   ] DATA_W=%u frames=%s: %lu beats in %lu cycles = %.4f beats/cycle;"
            " at %.0f MHz: bus %.1f Gb/s, frame data %.1f Gb/s (100GbE needs %.1f, 200GbE"
            " needs %.1f)\n",
            W, size ? std::to_string(size).c_str() : "64..1500", (unsigned long)r.out_beats,
            (unsigned long)span, bpc, kMhz, gbps_bus, gbps_data, 100 * avg / (avg + 20),
            200 * avg / (avg + 20));
        EXPECT_EQ(r.in_stall_cycles, 0u) << "s_axis_tready dropped without back-pressure";
        EXPECT_EQ(r.out_beats, span) << "bubbles on the output";
    }
}

}  // namespace
