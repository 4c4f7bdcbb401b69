// SPDX-License-Identifier: MIT
// scenic_cq_counter: cycle-exact differential test against scenic::dp::CqCounter, plus a
// model-independent host-memory scoreboard (final counters = sum of events, per-QP values only
// increase, addresses in range), coalescing under back-pressure and one event per cycle.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <memory>
#include <random>

#include "Vcqc.h"
#include "bench.hpp"
#include "scenic/dp/cq_counter.hpp"
#include "tb_util.hpp"

namespace {

using scenic::dp::CqCounter;
using scenic::tb::Pause;
using scenic::tb::pause_mixes;
using scenic::tb::replay_hint;
using scenic::tb::seeds;

// Must match the -G overrides in CMakeLists.txt.
constexpr CqCounter::Params kP{.qps = 8, .ev_w = 8, .addr_w = 48, .cnt_w = 16};
constexpr uint64_t kBase = 0x7f1234560000ull & ((1ull << 48) - 1);

class Bench : public scenic::tb::DiffBench<Vcqc, CqCounter> {
  public:
    Bench() : DiffBench(kP) { reset(); }
    void reset() {
        reset_both([](Vcqc& d) {
            d.s_ev_valid = 0;
            d.m_wr_ready = 0;
        });
    }
    CqCounter::Outputs cycle(const CqCounter::Inputs& in) {
        dut_->cfg_base = in.base;
        dut_->s_ev_valid = in.ev_valid;
        dut_->s_ev_qpn = in.ev_qpn;
        dut_->s_ev_cnt = in.ev_cnt;
        dut_->m_wr_ready = in.wr_ready;
        dut_->eval();
        CqCounter::Outputs r;
        r.ev_ready = dut_->s_ev_ready;
        r.wr_valid = dut_->m_wr_valid;
        r.wr_addr = dut_->m_wr_addr;
        r.wr_data = dut_->m_wr_data;
        const auto m = model_.outputs(in);
        const auto& s = model_.stats();
        const bool same = r.ev_ready == m.ev_ready && r.wr_valid == m.wr_valid &&
                          (!r.wr_valid || (r.wr_addr == m.wr_addr && r.wr_data == m.wr_data)) &&
                          dut_->stat_events == s.events && dut_->stat_writes == s.writes &&
                          dut_->stat_coalesced == s.coalesced;
        if (report(same))
            ADD_FAILURE() << "cycle " << cycles_ << ": rtl rdy/v/addr/data=" << r.ev_ready << "/"
                          << r.wr_valid << "/0x" << std::hex << r.wr_addr << "/0x" << r.wr_data
                          << " | model " << m.ev_ready << "/" << m.wr_valid << "/0x" << m.wr_addr
                          << "/0x" << m.wr_data << std::dec;
        clock_both(in);
        return r;
    }
};

// Every source pause mix x every sink pause mix, and a hot-QP skew (coalescing).
TEST(CqCounterDiff, CycleExactAndHostMemory) {
    for (const auto& [sname, smix] : pause_mixes())
        for (const auto& [kname, kmix] : pause_mixes())
            for (uint64_t seed : seeds(2)) {
                SCOPED_TRACE("src " + sname + " sink " + kname + " " + replay_hint(seed));
                std::mt19937_64 rng(seed);
                Pause src = smix(seed + 1), sink = kmix(seed + 2);
                Bench b;
                std::vector<uint64_t> sum(kP.qps, 0), mem(kP.qps, 0);
                CqCounter::Inputs in{.base = kBase};
                uint64_t events = 0, writes = 0;
                for (uint64_t c = 0; c < 4000; ++c) {
                    if (!in.ev_valid && !src()) {
                        in.ev_valid = true;
                        // 50 %: the hot QP 5 (back-to-back same-QP events)
                        in.ev_qpn = (rng() & 1) ? 5u : uint32_t(rng() % kP.qps);
                        in.ev_cnt = uint32_t(rng() % 256);  // 0 allowed (no-op increment)
                    }
                    in.wr_ready = !sink();
                    const auto o = b.cycle(in);
                    if (o.wr_valid && in.wr_ready) {
                        ++writes;
                        EXPECT_EQ((o.wr_addr - kBase) % 8, 0u);
                        const uint64_t q = (o.wr_addr - kBase) / 8;
                        ASSERT_LT(q, kP.qps);
                        EXPECT_GE(o.wr_data, mem[q]) << "host value went backwards";
                        EXPECT_LE(o.wr_data, sum[q]) << "value ahead of the events";
                        mem[q] = o.wr_data;
                    }
                    if (in.ev_valid && o.ev_ready) {
                        ++events;
                        sum[in.ev_qpn] += in.ev_cnt;
                        in.ev_valid = false;
                    }
                    if (b.mismatches() > 5) break;
                }
                // drain: host memory must end equal to the event sums
                in.ev_valid = false;
                in.wr_ready = true;
                for (int c = 0; c < 8; ++c) {
                    const auto o = b.cycle(in);
                    if (o.wr_valid) {
                        ++writes;
                        mem[(o.wr_addr - kBase) / 8] = o.wr_data;
                    }
                }
                for (unsigned q = 0; q < kP.qps; ++q)
                    if (sum[q]) EXPECT_EQ(mem[q], sum[q]) << "qp " << q;
                EXPECT_LE(writes, events);
                EXPECT_EQ(b.mismatches(), 0u);
            }
}

// Output blocked: N events of one QP collapse into one pending write carrying the sum; an event
// of another QP waits (ready low) until the slot moves.
TEST(CqCounterDirected, CoalescingUnderBackpressure) {
    Bench b;
    CqCounter::Inputs in{
        .base = kBase, .ev_valid = true, .ev_qpn = 3, .ev_cnt = 1, .wr_ready = false};
    int accepted = 0;
    for (int c = 0; c < 20; ++c) accepted += b.cycle(in).ev_ready;
    EXPECT_EQ(accepted, 20);  // the first fills the slot, moves to the output; the rest merge
    in.ev_qpn = 4;
    EXPECT_FALSE(b.cycle(in).ev_ready) << "other QP must wait for the slot";
    in.ev_valid = false;
    in.wr_ready = true;
    std::vector<std::pair<uint64_t, uint64_t>> w;
    for (int c = 0; c < 5; ++c)
        if (auto o = b.cycle(in); o.wr_valid) w.push_back({(o.wr_addr - kBase) / 8, o.wr_data});
    // first write: the first event alone (already in the output register), then the 19 merged
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[0], (std::pair<uint64_t, uint64_t>{3, 1}));
    EXPECT_EQ(w[1], (std::pair<uint64_t, uint64_t>{3, 20}));
    EXPECT_EQ(b.model().stats().coalesced, 18u);
    EXPECT_EQ(b.mismatches(), 0u);
}

// Line rate: one event per cycle over rotating QPs, no back-pressure: one write per cycle,
// latency 2 cycles from the event handshake to the write.
TEST(CqCounterDirected, OneEventPerCycle) {
    Bench b;
    CqCounter::Inputs in{.base = kBase, .ev_valid = true, .ev_cnt = 1, .wr_ready = true};
    const unsigned n = 4000;
    unsigned acc = 0, wr = 0;
    uint64_t first_wr = 0;
    for (uint64_t c = 0; c < n; ++c) {
        in.ev_qpn = uint32_t(c % kP.qps);
        const auto o = b.cycle(in);
        acc += o.ev_ready;
        if (o.wr_valid && !wr++) first_wr = c;
    }
    std::printf(
        "[ metric   ] cq_counter: %.4f events/cycle, %.4f writes/cycle, latency %llu "
        "cycles\n",
        double(acc) / n, double(wr) / n, (unsigned long long)first_wr);
    EXPECT_EQ(acc, n);
    EXPECT_EQ(wr, n - 2);
    EXPECT_EQ(first_wr, 2u);
    EXPECT_EQ(b.mismatches(), 0u);
}

}  // namespace
