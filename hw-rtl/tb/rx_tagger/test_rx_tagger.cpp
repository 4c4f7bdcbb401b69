// SPDX-License-Identifier: MIT
// scenic_rx_tagger: differential against scenic::dp::RxTagger per transaction (the DMA writes:
// address, tag + frame bytes; RX_TAIL after each write; all counters), the twin against the device
// model's EthRx (qemu-device/model/src/eth_rx.cpp), directed corners (runts, limits, disabled
// rings, ring full and wrap, tlast at every byte position, 9000-byte frames, every 4-cycle pause
// pattern on both DMA channels), a host-driver property test with RX_HEAD moving concurrently,
// and line rate, for three bus widths: 512 bit (U55C, 100G), 1024 bit (200G), 64 bit.
#include <gtest/gtest.h>

#include <cstdio>
#include <deque>
#include <map>
#include <memory>
#include <random>

#include "Vrxt1024.h"
#include "Vrxt512.h"
#include "Vrxt64.h"
#include "bench.hpp"
#include "scenic/dp/rx_tagger.hpp"
#include "scenic/eth_rx.hpp"
#include "scenic/host.hpp"
#include "tb_util.hpp"

namespace {

using namespace scenic::tb;
using scenic::dp::RxTagger;
using Config = RxTagger::Config;
using DmaWrite = RxTagger::DmaWrite;
using Counters = RxTagger::Counters;

constexpr unsigned kCntW = 32;

struct In {
    Frame f;
    unsigned cls = 0;
};

Frame random_frame(std::mt19937_64& rng, size_t len) {
    Frame f(len);
    for (auto& b : f) b = uint8_t(rng());
    return f;
}

// ------------------------------------------------------------------ bench
struct Cfg512 : BusCfg<Vrxt512, 512> {};
struct Cfg1024 : BusCfg<Vrxt1024, 1024> {};
struct Cfg64 : BusCfg<Vrxt64, 64> {};

struct Result {
    std::vector<DmaWrite> writes;
    std::vector<uint32_t> tails;  // rx_tail at every rx_written pulse
    Counters cnt;
    uint32_t tail = 0;
    uint64_t cycles = 0, in_beats = 0, in_stall_cycles = 0;
    uint64_t out_beats = 0, out_first = 0, out_last = 0;
    uint64_t idle_with_work = 0;  // DMA data idle (no back-pressure) while a frame was complete
    bool timed_out = false;
    std::string error;  // protocol errors seen by the sinks
};

// Called every cycle after eval (outputs settled, before the edge): drivers of RX_HEAD.
template <class V>
using CycleHook = std::function<void(V&, uint64_t)>;

template <class C>
class Bench : public scenic::tb::DutBench<typename C::V> {
    using scenic::tb::DutBench<typename C::V>::dut_;

  public:
    static constexpr unsigned kLanes = C::W / 8;
    using V = typename C::V;
    Bench() {
        auto& d = *dut_;
        d.rst = 1;
        d.s_axis_tvalid = 0;
        d.m_cmd_ready = 0;
        d.m_dma_tready = 0;
        d.cfg_ring_reset = 0;
        configure(Config{});
        clock_cycle(d);
        clock_cycle(d);
        d.rst = 0;
    }
    // Applies the configuration (registered inside: two idle cycles).
    void configure(const Config& c) {
        auto& d = *dut_;
        d.cfg_ring_addr = c.ring_addr;
        d.cfg_ring_stride = c.ring_stride;
        d.cfg_ring_size = c.ring_size;
        d.cfg_ring_head = c.ring_head & 0x7fff;
        d.cfg_max_frame = c.max_frame;
        d.cfg_rx_en = c.rx_en;
        clock_cycle(d);
        clock_cycle(d);
    }
    void ring_reset() {
        dut_->cfg_ring_reset = 1;
        clock_cycle(*dut_);
        dut_->cfg_ring_reset = 0;
    }

    Result run(const std::vector<In>& frames, Pause src_p, Pause cmd_p, Pause dma_p,
               const CycleHook<V>& hook = {}) {
        AxisSource src(kLanes, std::move(src_p));
        std::deque<unsigned> cls;  // class of each pushed frame, popped at its last beat
        uint64_t beats_in = 0;
        for (const auto& in : frames) {
            src.push(in.f);
            cls.push_back(in.cls);
            beats_in += in.f.empty() ? 1 : (in.f.size() + kLanes - 1) / kLanes;
        }
        Result r;
        auto& d = *dut_;
        const uint64_t limit = 64 * beats_in + 4000;
        std::deque<std::pair<uint64_t, uint32_t>> cmds;  // accepted commands: addr, bytes
        std::deque<Frame> pkts;        // data packets (AXI-like: data may come before its command)
        std::deque<uint64_t> in_done;  // cycles of accepted input tlasts
        uint64_t out_started = 0;
        bool in_pkt = false;
        Frame cur;
        bool seen_out = false;
        unsigned quiet = 0;
        const auto pair_up = [&] {
            while (!cmds.empty() && !pkts.empty()) {
                if (cmds.front().second != pkts.front().size() && r.error.empty())
                    r.error = "command bytes " + std::to_string(cmds.front().second) +
                              " != data bytes " + std::to_string(pkts.front().size());
                r.writes.push_back({cmds.front().first, std::move(pkts.front())});
                cmds.pop_front();
                pkts.pop_front();
            }
        };
        for (uint64_t c = 0; quiet < 64; ++c) {
            if (c > limit) {
                r.timed_out = true;
                break;
            }
            src.drive();
            d.m_cmd_ready = !cmd_p();
            d.m_dma_tready = !dma_p();
            d.s_axis_tvalid = src.valid();
            if (src.valid()) {
                put_beat(d.s_axis_tdata, d.s_axis_tkeep, src.beat(), kLanes);
                d.s_axis_tlast = src.beat().last;
                d.s_axis_tuser = cls.front();
            }
            d.eval();
            if (hook) {
                hook(d, c);
                d.eval();
            }
            if (src.valid() && !d.s_axis_tready) ++r.in_stall_cycles;
            if (src.valid() && d.s_axis_tready) {
                ++r.in_beats;
                if (src.beat().last) {
                    cls.pop_front();
                    in_done.push_back(c);
                }
            }
            // a frame whose tlast went in 3+ cycles ago and has not started: the DMA channel
            // should not be idle (first beat 2 cycles after tlast, visible in the third)
            while (!in_done.empty() && out_started > 0) {
                in_done.pop_front();
                --out_started;
            }
            if (!d.m_dma_tvalid && d.m_dma_tready && !in_done.empty() && in_done.front() + 3 <= c)
                ++r.idle_with_work;
            if (d.rx_written) r.tails.push_back(d.rx_tail);
            if (d.m_cmd_valid && d.m_cmd_ready) cmds.emplace_back(d.m_cmd_addr, d.m_cmd_bytes);
            if (d.m_dma_tvalid && d.m_dma_tready) {
                const Beat b = get_beat(d.m_dma_tdata, d.m_dma_tkeep, d.m_dma_tlast, kLanes);
                if (!d.m_dma_tlast && b.bytes.size() != kLanes && r.error.empty())
                    r.error = "partial beat before tlast in cycle " + std::to_string(c);
                if (!in_pkt) ++out_started;
                in_pkt = !d.m_dma_tlast;
                cur.insert(cur.end(), b.bytes.begin(), b.bytes.end());
                if (!seen_out) r.out_first = c;
                seen_out = true;
                r.out_last = c;
                ++r.out_beats;
                if (d.m_dma_tlast) {
                    pkts.push_back(std::move(cur));
                    cur.clear();
                }
            }
            pair_up();
            quiet = (src.idle() && !d.m_dma_tvalid && !d.m_cmd_valid) ? quiet + 1 : 0;
            src.advance(d.s_axis_tready);
            clock_cycle(d);
            r.cycles = c;
        }
        if ((!cmds.empty() || !pkts.empty()) && r.error.empty())
            r.error = "unpaired commands / data packets";
        r.cnt = {d.stat_frames,    d.stat_bytes,         d.stat_drop_ring_full,
                 d.stat_drop_runt, d.stat_drop_oversize, d.stat_drop_disabled};
        r.tail = d.rx_tail;
        return r;
    }
};

RxTagger::Params params(unsigned w) { return {w, 16384, kCntW}; }

// One step: configuration, optional ring reset, then frames until drained. The model sees the
// same steps; head moves only between steps, so its ring-full decisions are exact.
struct Step {
    Config cfg;
    bool ring_reset = false;
    std::vector<In> frames;
};

template <class C>
void run_steps(const std::vector<Step>& steps, const std::function<Pause()>& src,
               const std::function<Pause()>& cmd, const std::function<Pause()>& dma,
               Counters* final_cnt = nullptr) {
    Bench<C> b;
    RxTagger m(params(C::W));
    for (size_t si = 0; si < steps.size(); ++si) {
        const Step& s = steps[si];
        SCOPED_TRACE("step " + std::to_string(si));
        b.configure(s.cfg);
        m.config() = s.cfg;
        if (s.ring_reset) {
            b.ring_reset();
            m.ring_reset();
        }
        std::vector<DmaWrite> want;
        std::vector<uint32_t> want_tails;
        for (const auto& in : s.frames) {
            DmaWrite w;
            if (m.process(in.f, in.cls, &w) == RxTagger::Verdict::Written) {
                want.push_back(std::move(w));
                want_tails.push_back(m.tail());
            }
        }
        const Result r = b.run(s.frames, src(), cmd(), dma());
        ASSERT_FALSE(r.timed_out) << "DUT hung";
        ASSERT_EQ(r.error, "");
        ASSERT_EQ(r.writes.size(), want.size()) << "DMA writes";
        for (size_t i = 0; i < want.size(); ++i) {
            ASSERT_EQ(r.writes[i].addr, want[i].addr) << "write " << i;
            ASSERT_EQ(r.writes[i].bytes, want[i].bytes) << "write " << i;
        }
        EXPECT_EQ(r.tails, want_tails);
        EXPECT_EQ(r.tail, m.tail());
        EXPECT_EQ(r.cnt, m.counters());
        if (final_cnt) *final_cnt = r.cnt;
        if (::testing::Test::HasFailure()) return;
    }
}

Config good_ring(uint32_t size, uint32_t head = 0) {
    Config c;
    c.ring_addr = 0x1'2345'6000;
    c.ring_stride = 0x2400;  // 9216: 9000-byte MTU frames fit
    c.ring_size = size;
    c.ring_head = head;
    c.max_frame = 9018;
    c.rx_en = true;
    return c;
}

template <class C>
class RxTaggerTest : public ::testing::Test {};
using Configs = ::testing::Types<Cfg512, Cfg1024, Cfg64>;
TYPED_TEST_SUITE(RxTaggerTest, Configs, BusWidthNames);

size_t random_len(std::mt19937_64& rng, unsigned w) {
    switch (rng() % 10) {
        case 0:
            return rng() % 14;  // runt
        case 1:
            return 9000 + rng() % 40;  // jumbo, some oversize
        case 2:
            return 60 + rng() % 8;
        default:
            return 14 + rng() % (w == 64 ? 300 : 1600);
    }
}

// Constrained random: bursts of frames, the driver returning a random number of slots between
// bursts (ring full and wrap in a 16-slot ring), random configuration changes (MTU, stride,
// disabled, invalid rings, ring resets), under pairings of source / command / data pause mixes.
TYPED_TEST(RxTaggerTest, DifferentialRandom) {
    const auto mixes = pause_mixes();
    for (uint64_t seed : seeds(2)) {
        for (size_t si = 0; si < mixes.size(); ++si) {
            for (size_t k = 0; k < mixes.size(); k += 2) {
                const size_t ci = (si + k) % mixes.size(), di = (si + k + 1) % mixes.size();
                SCOPED_TRACE(replay_hint(seed) + " src=" + mixes[si].first +
                             " cmd=" + mixes[ci].first + " dma=" + mixes[di].first);
                std::mt19937_64 rng(seed * 131 + si * 7 + k);
                std::vector<Step> steps;
                Config cfg = good_ring(16);
                uint32_t head = 0;
                for (unsigned st = 0; st < 8; ++st) {
                    Step s;
                    s.cfg = cfg;
                    switch (rng() % 8) {
                        case 0:
                            s.cfg.max_frame = uint16_t(100 + rng() % 1500);
                            break;
                        case 1:
                            s.cfg.ring_stride = 64 * uint32_t(2 + rng() % 30);  // oversize by slot
                            break;
                        case 2:
                            s.cfg.rx_en = false;
                            break;
                        case 3:  // invalid ring: size, stride or address
                            if (rng() % 3 == 0)
                                s.cfg.ring_size = 12;
                            else if (rng() % 2)
                                s.cfg.ring_stride = 0x2410;
                            else
                                s.cfg.ring_addr += 32;
                            break;
                        case 4:
                            s.ring_reset = true;
                            head = 0;
                            break;
                        default:
                            break;
                    }
                    head = (head + uint32_t(rng() % 17)) % 16;  // the driver returns slots
                    s.cfg.ring_head = head;
                    const unsigned n = TypeParam::W == 64 ? 12 : 25;
                    for (unsigned i = 0; i < n; ++i)
                        s.frames.push_back({random_frame(rng, random_len(rng, TypeParam::W)),
                                            unsigned(rng() % 3)});
                    steps.push_back(std::move(s));
                }
                run_steps<TypeParam>(
                    steps, [&] { return mixes[si].second(seed ^ 1); },
                    [&] { return mixes[ci].second(seed ^ 2); },
                    [&] { return mixes[di].second(seed ^ 3); });
                if (::testing::Test::HasFailure()) return;
            }
        }
    }
}

// tlast at every byte position (lengths 0 .. 3 beats + 16 and 9000..9018-byte frames) with
// back-pressure at every 4-cycle pattern on the command and the data channel, idles on the source.
TYPED_TEST(RxTaggerTest, EveryLengthEveryPausePattern) {
    std::mt19937_64 rng(seeds(1).front());
    std::vector<In> frames;
    const size_t lanes = TypeParam::W / 8;
    for (size_t len = 0; len <= 3 * lanes + 16; ++len)
        frames.push_back({random_frame(rng, len), unsigned(len % 3)});
    for (size_t len : {9000, 9014, 9017, 9018, 9019})
        frames.push_back({random_frame(rng, len), unsigned(len % 3)});
    for (uint32_t mask = 0; mask < 15; ++mask) {
        const uint32_t cmd_mask = (mask * 11 + 5) % 15, src_mask = (mask * 7 + 3) % 15;
        SCOPED_TRACE("dma pause mask " + std::to_string(mask) + " cmd " + std::to_string(cmd_mask) +
                     " source " + std::to_string(src_mask));
        std::vector<Step> steps(1);
        steps[0].cfg = good_ring(256);
        run_steps<TypeParam>(
            steps, [&] { return Pause::mask(src_mask, 4); },
            [&] { return Pause::mask(cmd_mask, 4); }, [&] { return Pause::mask(mask, 4); });
        if (::testing::Test::HasFailure()) return;
    }
}

// Fixed expectations, not only the model: drop rules and their order, limits, counters.
TYPED_TEST(RxTaggerTest, DropRules) {
    std::mt19937_64 rng(3);
    auto frames = [&](std::initializer_list<size_t> lens) {
        std::vector<In> v;
        for (size_t l : lens) v.push_back({random_frame(rng, l), 1});
        return v;
    };
    std::vector<Step> steps;
    Config c = good_ring(64);
    c.max_frame = 1518;
    // runts 0..13, 14 is the shortest frame; MTU limit 1518
    steps.push_back({c, false, frames({0, 1, 7, 8, 13, 14, 1518, 1519, 9000, 20000})});
    // slot limit: stride 1024 -> 1016 bytes
    c.ring_stride = 1024;
    steps.push_back({c, false, frames({1016, 1017, 13})});
    // disabled: runt and oversize still counted as such first
    c.rx_en = false;
    steps.push_back({c, false, frames({100, 5, 1017})});
    // invalid ring (stride not a multiple of 64): the stride limit does not apply, MTU does
    c = good_ring(64);
    c.ring_stride = 1000;
    c.max_frame = 1518;
    steps.push_back({c, false, frames({1200, 1519})});
    Counters cnt;
    run_steps<TypeParam>(
        steps, [] { return Pause::none(); }, [] { return Pause::none(); },
        [] { return Pause::none(); }, &cnt);
    // written: 14, 1518, 1016 -> 3 frames, 2548 bytes
    EXPECT_EQ(cnt.frames, 3u);
    EXPECT_EQ(cnt.bytes, 14u + 1518 + 1016);
    EXPECT_EQ(cnt.drop_runt, 5u + 1 + 1);
    EXPECT_EQ(cnt.drop_oversize, 3u + 1 + 1 + 1);
    EXPECT_EQ(cnt.drop_disabled, 1u + 1);
    EXPECT_EQ(cnt.drop_ring_full, 0u);
}

// Ring full and wrap with fixed expectations: 8 slots, head 0 -> 7 frames fit (slots 0..6),
// 3 dropped; head 5 -> slots 7, 0..3 (wrap), seq continues; ring reset -> slot 0, seq 0.
TYPED_TEST(RxTaggerTest, RingFullAndWrap) {
    std::mt19937_64 rng(5);
    Bench<TypeParam> b;
    Config c = good_ring(8);
    std::vector<In> ten;
    for (unsigned i = 0; i < 10; ++i) ten.push_back({random_frame(rng, 60 + i), 2});
    b.configure(c);
    Result r = b.run(ten, Pause::none(), Pause::none(), Pause::random(0.5, 9));
    ASSERT_EQ(r.writes.size(), 7u);
    EXPECT_EQ(r.cnt.drop_ring_full, 3u);
    for (unsigned i = 0; i < 7; ++i) {
        EXPECT_EQ(r.writes[i].addr, c.ring_addr + uint64_t(i) * c.ring_stride);
        const auto t = RxTagger::tag(uint16_t(60 + i), 0x5, i);  // VALID | other << 1
        EXPECT_TRUE(std::equal(t.begin(), t.end(), r.writes[i].bytes.begin())) << i;
        EXPECT_EQ(Frame(r.writes[i].bytes.begin() + 8, r.writes[i].bytes.end()), ten[i].f);
    }
    EXPECT_EQ(r.tails, (std::vector<uint32_t>{1, 2, 3, 4, 5, 6, 7}));
    c.ring_head = 5;
    b.configure(c);
    r = b.run(ten, Pause::none(), Pause::none(), Pause::none());
    ASSERT_EQ(r.writes.size(), 5u);
    EXPECT_EQ(r.cnt.drop_ring_full, 3u + 5);
    const unsigned slots[] = {7, 0, 1, 2, 3};
    for (unsigned i = 0; i < 5; ++i) {
        EXPECT_EQ(r.writes[i].addr, c.ring_addr + uint64_t(slots[i]) * c.ring_stride);
        EXPECT_EQ(r.writes[i].bytes[4], 7 + i) << "seq";
    }
    EXPECT_EQ(r.tail, 4u);
    c.ring_head = 0;
    b.configure(c);
    b.ring_reset();
    r = b.run({ten[0]}, Pause::none(), Pause::none(), Pause::none());
    ASSERT_EQ(r.writes.size(), 1u);
    EXPECT_EQ(r.writes[0].addr, c.ring_addr);
    EXPECT_EQ(r.writes[0].bytes[4], 0u) << "seq restarts";
    EXPECT_EQ(r.tail, 1u);
}

// Property test with a host driver, independent of the model: RX_HEAD moves while frames flow.
// The card never writes a slot the driver still owns; when the driver sees RX_TAIL pass a slot,
// the slot's write is complete (tag VALID, seq consecutive, the frame is the next written one of
// the sent frames in order); every sent frame is either written or counted as ring full.
TYPED_TEST(RxTaggerTest, DriverConcurrentHead) {
    for (uint64_t seed : seeds(3)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        const uint32_t size = 8;
        Config c = good_ring(size);
        Bench<TypeParam> b;
        b.configure(c);
        std::vector<In> frames;
        for (unsigned i = 0; i < (TypeParam::W == 64 ? 60 : 200); ++i)
            frames.push_back({random_frame(rng, 14 + rng() % 700), unsigned(rng() % 3)});
        std::map<uint64_t, Frame> mem;  // host memory by slot address, erased when consumed
        uint32_t head = 0, seq = 0;
        size_t next_sent = 0;  // written frames are a subsequence of the sent ones
        uint64_t consumed = 0;
        std::string err;
        // the driver polls in bursts (NAPI): active ~30 cycles, away ~1000
        Pause away = Pause::bursty(30, 1000, seed + 7);
        const auto addr = [&](uint32_t slot) {
            return c.ring_addr + uint64_t(slot) * c.ring_stride;
        };
        size_t seen_writes = 0;
        // Record writes as they complete: the bench's list grows inside run(); use the hook to
        // drive RX_HEAD and to check slots against what the bench has completed so far.
        const auto hook = [&](typename TypeParam::V& d, uint64_t) {
            (void)d;
            if (away() || !err.empty()) return;
            if (uint32_t(d.rx_tail) == head) return;  // nothing to consume
            const auto it = mem.find(addr(head));
            if (it == mem.end()) {
                err = "RX_TAIL passed slot " + std::to_string(head) + " before its write ended";
                return;
            }
            const Frame& s = it->second;
            const unsigned len = s[0] | s[1] << 8;
            const uint32_t sq = uint32_t(s[4] | s[5] << 8 | s[6] << 16 | uint32_t(s[7]) << 24);
            if ((s[2] & 1) == 0 || sq != seq || len + 8 != s.size()) {
                err = "bad tag in slot " + std::to_string(head);
                return;
            }
            const Frame body(s.begin() + 8, s.end());
            while (next_sent < frames.size() && frames[next_sent].f != body) ++next_sent;
            if (next_sent == frames.size() || (s[2] >> 1 & 3) != frames[next_sent].cls) {
                err = "slot " + std::to_string(head) + " holds no (further) sent frame";
                return;
            }
            ++next_sent;
            ++seq;
            ++consumed;
            mem.erase(it);
            head = (head + 1) % size;
            d.cfg_ring_head = head;
        };
        // The bench collects writes after the hook; mirror them into `mem` through a wrapper
        // hook that looks at the data channel's completed packets (cmd + data, in order).
        std::deque<uint64_t> cmd_addrs;
        std::deque<Frame> pkts;
        Frame cur;
        const auto full_hook = [&](typename TypeParam::V& d, uint64_t cyc) {
            if (d.m_cmd_valid && d.m_cmd_ready) cmd_addrs.push_back(d.m_cmd_addr);
            if (d.m_dma_tvalid && d.m_dma_tready) {
                const Beat bt =
                    get_beat(d.m_dma_tdata, d.m_dma_tkeep, d.m_dma_tlast, TypeParam::W / 8);
                cur.insert(cur.end(), bt.bytes.begin(), bt.bytes.end());
                if (d.m_dma_tlast) {
                    pkts.push_back(std::move(cur));
                    cur.clear();
                }
            }
            while (!cmd_addrs.empty() && !pkts.empty()) {
                if (mem.count(cmd_addrs.front()) && err.empty())
                    err = "overrun: slot written while the driver owns it";
                mem[cmd_addrs.front()] = std::move(pkts.front());
                cmd_addrs.pop_front();
                pkts.pop_front();
                ++seen_writes;
            }
            hook(d, cyc);
        };
        const Result r = b.run(frames, Pause::random(0.2, seed), Pause::random(0.3, seed + 1),
                               Pause::bursty(10, 4, seed + 2), full_hook);
        ASSERT_FALSE(r.timed_out);
        ASSERT_EQ(r.error, "");
        EXPECT_EQ(err, "");
        EXPECT_EQ(seen_writes, r.writes.size());
        EXPECT_EQ(r.cnt.frames + r.cnt.drop_ring_full, frames.size());
        EXPECT_GT(r.cnt.drop_ring_full, 0u) << "the test should fill the ring";
        EXPECT_GT(consumed, size) << "the test should wrap the ring";
        std::printf("[ info     ] W=%u seed %lu: %lu written, %lu ring-full drops, %lu consumed\n",
                    TypeParam::W, (unsigned long)seed, (unsigned long)r.cnt.frames,
                    (unsigned long)r.cnt.drop_ring_full, (unsigned long)consumed);
    }
}

// No back-pressure, back-to-back frames: one DMA beat every cycle from the first to the last;
// the input loses cycles only where a frame needs an extra output beat (last input beat with more
// than K-8 bytes).
TYPED_TEST(RxTaggerTest, LineRate) {
    constexpr unsigned W = TypeParam::W, K = W / 8;
    constexpr double kMhz = 250.0;
    for (size_t size : {size_t(60), size_t(64), size_t(1514), size_t(9014), size_t(0)}) {
        std::mt19937_64 rng(size + W);
        std::vector<Step> steps(1);
        steps[0].cfg = good_ring(32768);
        uint64_t bytes = 0, want_out = 0, want_in = 0;
        const unsigned n = size == 9014 ? 40 : size == 0 ? 300 : 2000;
        RxTagger m(params(W));
        for (unsigned i = 0; i < n; ++i) {
            const size_t len = size ? size : 60 + rng() % 1455;
            steps[0].frames.push_back({random_frame(rng, len), unsigned(rng() % 3)});
            bytes += len;
            want_out += m.out_beats(len);
            want_in += (len + K - 1) / K;
        }
        run_steps<TypeParam>(
            steps, [] { return Pause::none(); }, [] { return Pause::none(); },
            [] { return Pause::none(); });
        Bench<TypeParam> b;
        b.configure(steps[0].cfg);
        const auto r = b.run(steps[0].frames, Pause::none(), Pause::none(), Pause::none());
        ASSERT_EQ(r.out_beats, want_out);
        const uint64_t span = r.out_last - r.out_first + 1;
        const double bpc = double(r.out_beats) / double(span);
        const double fps = double(n) / double(span) * kMhz;  // Mframes/s
        const double gbps_data = double(bytes) * 8 / double(span) * kMhz / 1000.0;
        const double avg = double(bytes) / n;
        // line: frame + FCS 4 + preamble/SFD 8 + IFG 12 byte times
        const double need100 = 100e3 / ((avg + 24) * 8), need200 = 2 * need100;  // Mframes/s
        std::printf(
            "[ metric   ] DATA_W=%u frames=%s: %lu DMA beats in %lu cycles = %.4f beats/cycle "
            "(%lu input beats, %.4f in/cycle; %lu idle cycles, all store-and-forward); at %.0f "
            "MHz: %.1f Mframes/s, frame data %.1f "
            "Gb/s (100GbE needs %.1f Mframes/s %.1f Gb/s, 200GbE %.1f / %.1f)\n",
            W, size ? std::to_string(size).c_str() : "60..1514", (unsigned long)r.out_beats,
            (unsigned long)span, bpc, (unsigned long)want_in, double(want_in) / double(span),
            (unsigned long)(span - r.out_beats), kMhz, fps, gbps_data, need100,
            need100 * avg * 8 / 1000, need200, need200 * avg * 8 / 1000);
        EXPECT_EQ(r.idle_with_work, 0u) << "DMA channel idle while a complete frame waited";
        if (size) EXPECT_EQ(r.out_beats, span) << "bubbles on the DMA data channel";
        if (want_out == want_in)  // no extra beat: the input never waits
            EXPECT_EQ(r.in_stall_cycles, 0u) << "s_axis_tready dropped without back-pressure";
    }
}

// ------------------------------------------------------------------ twin vs device model
class CaptureHost final : public scenic::Host {
  public:
    bool dma_read(uint64_t, std::span<uint8_t>) override { return false; }
    bool dma_write(uint64_t addr, std::span<const uint8_t> src) override {
        writes.push_back({addr, {src.begin(), src.end()}});
        return true;
    }
    void msix_notify(unsigned) override {}
    void eth_send(std::span<const uint8_t>) override {}
    uint64_t now_ns() override { return 0; }
    void timer_schedule(uint64_t) override {}
    void timer_cancel() override {}
    std::vector<DmaWrite> writes;
};

// The twin's ring rules, tag and slot addresses equal the device model's EthRx (the software
// tagger of qemu-device) on random frames, head moves, size rewrites (ring resets) and validity.
TEST(RxTaggerModel, MatchesDeviceModelEthRx) {
    for (uint64_t seed : seeds(4)) {
        SCOPED_TRACE(replay_hint(seed));
        std::mt19937_64 rng(seed);
        CaptureHost host;
        scenic::EthRx ref(host);
        RxTagger tw(params(512));
        auto& c = tw.config();
        c.rx_en = true;
        c.max_frame = 9018;
        for (unsigned op = 0; op < 3000; ++op) {
            switch (rng() % 16) {
                case 0: {  // RX_RING_SIZE write: both reset tail, seq (head in the registers)
                    const uint32_t sizes[] = {8, 16, 64, 12, 0, 32768, 65536};
                    c.ring_size = sizes[rng() % 7];
                    ref.set_size(c.ring_size);
                    tw.ring_reset();
                    c.ring_head = 0;
                    break;
                }
                case 1: {
                    const uint32_t strides[] = {64, 2048, 9216, 100, 0, 1u << 31};
                    c.ring_stride = strides[rng() % 6];
                    ref.set_stride(c.ring_stride);
                    break;
                }
                case 2: {
                    const uint64_t a[] = {0x10000, 0x1'0000'0040, 0x20, ~0ull - 0xfff, 0};
                    c.ring_addr = a[rng() % 5];
                    ref.set_addr_lo(uint32_t(c.ring_addr));
                    ref.set_addr_hi(uint32_t(c.ring_addr >> 32));
                    break;
                }
                case 3:
                case 4: {
                    c.ring_head = uint32_t(rng());
                    ref.set_head(c.ring_head);
                    break;
                }
                default: {
                    const Frame f = random_frame(rng, 14 + rng() % 200);
                    const unsigned cls = unsigned(rng() % 3);
                    ASSERT_EQ(tw.ring_valid(), ref.valid()) << "op " << op;
                    ASSERT_EQ(tw.head(), ref.head()) << "op " << op;
                    if (!ref.valid() || !ref.fits(f.size())) break;  // EthBlock drops before
                    DmaWrite w;
                    const auto v = tw.process(f, cls, &w);
                    const auto rv = ref.write(f, uint16_t(1 | cls << 1));
                    ASSERT_EQ(v == RxTagger::Verdict::Written,
                              rv == scenic::EthRx::Result::kWritten)
                        << "op " << op;
                    ASSERT_EQ(v == RxTagger::Verdict::DropRingFull,
                              rv == scenic::EthRx::Result::kRingFull);
                    if (v == RxTagger::Verdict::Written) {
                        ASSERT_FALSE(host.writes.empty());
                        ASSERT_EQ(w, host.writes.back()) << "op " << op;
                    }
                    ASSERT_EQ(tw.tail(), ref.tail()) << "op " << op;
                }
            }
        }
    }
}

}  // namespace
